"""What a seat (or a spectator) may see (C13), as plain JSON-ready data.

Built only from public information plus the viewer's own private knowledge (the card they drew).
Face-down cells carry no value, the draw pile only its size, the seed nothing at all.
"""

from __future__ import annotations

from typing import Any

from .game import DOWN, GONE, OPENING, OVER, PLAY, STAGE_DRAWN, STAGE_TAKEN, TIE_REVEAL, Game
from .moves import CELL_NAMES
from .variants import event_text, get_variant
from .words import N_, Names, Said

SCHEMA = 1
_FACE = ("down", "up", "removed")
# why a seat starts a round (C5), as the `start` event's sentence says it
_STARTS = {
    "previous_closer": N_("%(name)s starts (closed the last round)."),
    "previous_winner": N_("%(name)s starts (won the last round)."),
    "highest_reveal": N_("%(name)s starts (revealed the highest cards)."),
    "highest_card": N_("%(name)s starts (revealed the highest card)."),
    "earliest_seat": N_("%(name)s starts (sits first among the tied)."),
}


def card_said(value: Any) -> Any:
    """A card's value in a sentence: its number, or "a star" (SKYJO Action, A6)."""
    return Said(N_("a star")) if value == "star" else str(value)


def sentence(event: dict[str, Any], names: list[str]) -> Said:
    """A public event as a sentence (its message id and params; `str()` is its English). Raises
    KeyError/IndexError/TypeError for an event without the fields its type needs."""
    t = event["type"]
    who = names[event["seat"]] if "seat" in event and event["seat"] is not None else ""
    card = card_said

    if t == "round_start":
        return Said(N_("Round %(n)s is dealt; everyone reveals two cards."), n=event["round"])
    if t == "reveal":
        return Said(N_("%(name)s revealed %(cell)s: %(card)s."), name=who, cell=event["cell"],
                    card=card(event["value"]))
    if t == "start_tie":
        return Said(N_("%(names)s are tied for the start and reveal one more card."),
                    names=", ".join(names[s] for s in event["seats"]))
    if t == "start":
        return Said(_STARTS.get(event.get("reason", ""), N_("%(name)s starts.")), name=who)
    if t == "draw":
        return Said(N_("%(name)s drew a card from the draw pile."), name=who)
    if t == "take":
        return Said(N_("%(name)s took the %(card)s from the discard pile."), name=who, card=card(event["value"]))
    if t == "swap":
        return Said(N_("%(name)s put the %(card)s on %(cell)s and discarded the %(old)s."), name=who,
                    card=card(event["value"]), cell=event["cell"], old=card(event["discarded"]))
    if t == "flip":
        return Said(N_("%(name)s discarded the %(old)s and turned up %(cell)s: %(card)s."), name=who,
                    old=card(event["discarded"]), cell=event["cell"], card=card(event["value"]))
    if t == "remove_column":
        return Said(N_("%(name)s's column %(column)s of %(card)ss is removed."), name=who, column=event["column"],
                    card=card(event["value"]))
    if t == "close":
        return Said(N_("%(name)s has no face-down card left and closes the round; everyone else plays once more."),
                    name=who)
    if t == "reshuffle":
        return Said(N_("The draw pile was empty: %(n)s discarded cards are shuffled into a new one."),
                    n=event["count"])
    if t == "final_reveal":
        return Said(N_("All remaining cards are turned up."))
    if t == "round_end":
        scores = ", ".join(f"{names[s]} {v}" for s, v in enumerate(event["scores"]) if v is not None)
        if event["doubled"]:
            return Said(N_("Round %(n)s scores: %(scores)s (%(doubled)s doubled)."), n=event["round"], scores=scores,
                        doubled=", ".join(names[s] for s in event["doubled"]))
        return Said(N_("Round %(n)s scores: %(scores)s."), n=event["round"], scores=scores)
    if t == "extra_round":
        return Said(N_("%(names)s are tied for the lowest total and play one more round."),
                    names=", ".join(names[s] for s in event["seats"]))
    if t == "game_over":
        return Said(N_("Game over: %(names)s won."), names=Names(names[s] for s in event["winners"]))
    variant_text = event_text(t)  # the sentences of a variant's own events (engine.variants)
    if variant_text is not None:
        return variant_text(event, names)
    return Said(t.replace("_", " "))


def describe(event: dict[str, Any], names: list[str]) -> str:
    """An English sentence for a public event."""
    return str(sentence(event, names))


def with_text(event: dict[str, Any], names: list[str]) -> dict[str, Any]:
    return {**event, "text": describe(event, names)}


def _card_json(game: Game, value: int) -> Any:
    return game.card_json(value)


def rounds_of(game: Game) -> list[dict[str, Any]]:
    """The scored rounds (public, C10): each round's record; the last one also with `boards`, its
    final grids as every player saw them when it ended (C9: all cards up), per seat None (not in
    the round) or 12 cells like a view's grid (`cell`, `face` "up" or "removed", `value`; a removed
    cell has no value), while its end is the news: until the next round's play begins (its opening
    reveals, C4/C5) and once the game is over. Other rounds leave their boards out: the view every
    turn mail carries stays small."""
    rounds = [dict(r) for r in game.rounds]
    news = game.phase in (OPENING, TIE_REVEAL, OVER)
    for r in rounds if not news else rounds[:-1]:
        r.pop("boards", None)
    if news and rounds and rounds[-1].get("boards") is not None:
        rounds[-1]["boards"] = [
            None
            if board is None
            else [
                {"cell": CELL_NAMES[c], "face": "removed" if v is None else "up", "value": v}
                for c, v in enumerate(board)
            ]
            for board in rounds[-1]["boards"]
        ]
    return rounds


def phase_name(game: Game) -> str:
    if game.phase == PLAY and game.closer >= 0:
        return "final_turns"
    return game.phase


def view(game: Game, seat: int | None, *, log: bool = True) -> dict[str, Any]:
    """Everything `seat` may see (None: a spectator). Never a face-down value, the draw pile order,
    the seed, or another seat's drawn card (C13). `log=False` leaves out the public event log (the
    whole game's, growing with every move), for callers that do not show it, such as mails."""
    if seat is not None and not (isinstance(seat, int) and 0 <= seat < game.n):
        raise ValueError(f"there is no seat {seat!r}")
    owes = {p.seat: p.kind for p in game.pending()}
    players = []
    for s in range(game.n):
        f = game.face[s]
        vals = game.vals[s]
        active = s in game.active
        grid = []
        for c in range(12):
            state = f[c] if active else GONE
            grid.append(
                {
                    "cell": CELL_NAMES[c],
                    "face": _FACE[state],
                    "value": None if state == DOWN or state == GONE else _card_json(game, vals[c]),
                }
            )
        visible = game._visible_sum(s) if active else 0
        players.append(
            {
                "seat": s,
                "name": game.names[s],
                "active": active,
                "total": game.totals[s],
                "visible_score": visible,
                "closer": game.closer == s,
                "owes": owes.get(s),
                "grid": grid,
            }
        )
    held = None
    if game.phase == PLAY and game.stage in (STAGE_DRAWN, STAGE_TAKEN):
        source = "draw" if game.stage == STAGE_DRAWN else "discard"
        public = source == "discard" or seat == game.turn
        held = {"seat": game.turn, "source": source, "value": _card_json(game, game.held) if public else None}
    data: dict[str, Any] = {
        "schema": SCHEMA,
        "variant": game.variant,
        "viewer": seat,
        "version": game.version,
        "round": game.round,
        "phase": phase_name(game),
        "options": dict(game.options),
        "players": players,
        "turn": game.turn if game.phase == PLAY else None,
        "held": held,
        "discard_top": _card_json(game, game.discard[-1]) if game.discard else None,
        "discard_count": len(game.discard),
        "draw_count": len(game.draw),
        "pending": [p.as_dict() for p in game.pending()],
        "decision": game.decision_id(seat) if seat is not None else None,  # what links are bound to
        "legal_moves": [m.text() for m in game.legal_moves(seat)] if seat is not None else [],
        "closer": game.closer if game.closer >= 0 and game.phase != OVER else None,
        "rounds": rounds_of(game),
        "totals": list(game.totals),
        "winners": list(game.winners) if game.winners is not None else None,
    }
    if log:
        data["log"] = [with_text(e, game.names) for e in game.log]
    variant = get_variant(game.variant)
    extend = variant.view if variant is not None else None
    if extend is not None:
        extend(game, data, seat)
    return data


def spectator_view(game: Game) -> dict[str, Any]:
    return view(game, None)
