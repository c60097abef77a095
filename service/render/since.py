"""What happened since a seat last looked (issue 28.1), as plain data for the `since` macro
(templates/_since.html, mail/_since.txt) and the boards' marks (templates/_board.html).

A mail lists the public events since the seat's previous mail (`service.mail.talk.events`), a page
those since the seat's own last move (`since_own_move`, from the round's log): grouped by player in
the order they happened (`by_player`), each event said by the engine's one sentence in the reader's
language (`words.sentences.event_text`). The cells those events changed (`changed_cells`) are
marked on the boards: outlined, and named for screen readers (`a11y`), not by colour alone. Public
events only (C13): a face-down card's value is in no event."""

from __future__ import annotations

from collections.abc import Iterable

from service.words.sentences import event_text

# events with a seat that are not that seat's own decision (a page's "since your own last move")
_NOT_A_DECISION = frozenset({"start", "start_tie", "close", "remove_column"})


def by_player(events: Iterable[dict], names: list[str]) -> list[dict]:
    """The events as runs of one player's (`{"seat", "name", "texts"}`; `seat` None: the table's,
    e.g. a round's end), oldest first, each text in the current language."""
    runs: list[dict] = []
    for e in events:
        seat = e.get("seat") if isinstance(e.get("seat"), int) else None
        text = event_text(e, names)
        if not text:
            continue
        if runs and runs[-1]["seat"] == seat:
            runs[-1]["texts"].append(text)
        else:
            name = names[seat] if seat is not None and 0 <= seat < len(names) else None
            runs.append({"seat": seat, "name": name, "texts": [text]})
    return runs


def changed_cells(events: Iterable[dict]) -> list[dict]:
    """The cells the events turned up or replaced on the current deal's boards (`{"seat", "cell"}`):
    those of the events after the last deal among them (a round's end deals new boards)."""
    out: list[dict] = []
    for e in events:
        if e.get("type") == "round_start":
            out = []
        elif isinstance(e.get("seat"), int) and isinstance(e.get("cell"), str):
            mark = {"seat": e["seat"], "cell": e["cell"]}
            if mark not in out:
                out.append(mark)
    return out


def since_own_move(log: list[dict], viewer: int | None) -> list[dict]:
    """The events of the others after `viewer`'s last own decision in `log` (a round's log: a page
    shows the current round's), oldest first; a spectator has none."""
    if viewer is None:
        return []
    start = 0  # no decision of the viewer's in this round yet: the round's
    for i in range(len(log) - 1, -1, -1):
        e = log[i]
        if e.get("seat") == viewer and e.get("type") not in _NOT_A_DECISION:
            start = i + 1
            break
    return [e for e in log[start:] if e.get("seat") != viewer or e.get("type") in _NOT_A_DECISION]


def done_lines(view: dict, events: list[dict]) -> dict:
    """What a seat's own decision did, for the "Done" box after it (issue 28.2): its events as
    sentences in the reader's language (the card placed or turned up and the one discarded, a
    removed column, the round's end and its scores) and, unless it ended the round, the seat's
    game total and face-up sum now (`score`: `{"total", "visible"}`)."""
    names = [p["name"] for p in view["players"]]
    me = next((p for p in view["players"] if p["seat"] == view.get("viewer")), None)
    ended = any(e.get("type") in ("round_end", "game_over") for e in events)
    return {"texts": [t for t in (event_text(e, names) for e in events) if t],
            "score": None if ended or me is None else {"total": me["total"], "visible": me["visible_score"]}}
