"""The end of a round as people read it: the final revealed boards of the round that produced the
scores, and each player's score with its parts, for the round-over and game-over mails (and the
turn mail that carries a round's end), as data for templates/mail/_round_end.html and as plain text.

Read from the view only: the last scored round's record (`view["rounds"][-1]`, engine.view), public
once the round has ended (C9: every card is turned up). Its parts (C8, C10, A5, A6, A8): the cards
left in the grid, the removed columns (or A5 sets), the star sets' bonus, +10 per held action card,
and the closer's doubling; the parts add up to the round's score."""

from __future__ import annotations

from flask_babel import gettext as _
from flask_babel import ngettext

from service.render.a11y import cell_name, grid_caption
from service.render.cards import COLUMNS, ROWS, card_class, card_text

_HELD_CARD = 10  # A8: each action card still held at round end


def _cells(board: list[dict]) -> list[dict]:
    return [
        {"cell": c["cell"], "face": c["face"], "value": c.get("value"), "text": card_text(c.get("value")),
         "cls": card_class(c.get("value")) if c["face"] == "up" else "", "hl": False, "name": cell_name(c)}
        for c in board
    ]


def _rows(board: list[dict]) -> list[dict]:
    cells = _cells(board)
    width = len(COLUMNS)
    return [{"number": r + 1, "cells": cells[r * width : (r + 1) * width]} for r in range(ROWS)]


def _cards_sum(board: list[dict]) -> int:
    return sum(c["value"] for c in board if c["face"] == "up" and isinstance(c.get("value"), int))


def _removed(record: dict, seat: int) -> list[str]:
    """What left `seat`'s grid as sets this round: "column B", or with SKYJO Action "row 2 of 5s"."""
    sets = record.get("removed_sets")
    if sets is not None:  # SKYJO Action (A5): rows and columns, with their value
        return [_("%(set)s of %(value)ss", set=label, value=card_text(value)) for s, label, value in sets if s == seat]
    return [_("column %(column)s", column=col) for s, col in record.get("removed_columns") or [] if s == seat]


def parts(record: dict, seat: int, board: list[dict] | None) -> list[dict]:
    """The parts of `seat`'s round score, each `{"kind", "text", "points"}` (points None: a part
    worth nothing, told for understanding); they add up to the round's score."""
    raw = (record.get("raw") or [])[seat]
    stars = (record.get("star_bonus") or [None] * (seat + 1))[seat] or 0
    held = (record.get("action_cards") or [None] * (seat + 1))[seat] or 0
    cards = _cards_sum(board) if board is not None else raw - stars - _HELD_CARD * held
    out = [{"kind": "cards", "text": _("cards %(points)s", points=cards), "points": cards}]
    removed = _removed(record, seat)
    if removed:
        out.append({"kind": "removed", "points": None,
                    "text": _("removed, scoring nothing: %(sets)s", sets=", ".join(removed))})
    if stars:
        out.append({"kind": "stars", "points": stars, "text": _("star sets %(points)s", points=stars)})
    if held:
        out.append({"kind": "held", "points": _HELD_CARD * held,
                    "text": ngettext("%(num)s action card held +%(points)s",
                                     "%(num)s action cards held +%(points)s", held, points=_HELD_CARD * held)})
    if seat in (record.get("doubled") or []):
        score = (record.get("scores") or [])[seat]
        out.append({"kind": "doubled", "points": score - raw if isinstance(score, int) else None,
                    "text": _("closed the round without the lowest score: %(raw)s doubled to %(score)s",
                              raw=raw, score=score)})
    return out


def round_result(view: dict) -> dict | None:
    """The last scored round for the round-end macro: `round`, `players` (lowest round score
    first; each `seat`, `name`, `mine`, `closer`, `doubled`, `score`, `total`, `parts`, `summary`
    (the parts in one line) and `rows`, the final grid for the `grid` macro, or None when the
    record has no boards, as in games saved before they were kept). None before any round ends."""
    rounds = view.get("rounds") or []
    if not rounds:
        return None
    record = rounds[-1]
    boards = record.get("boards") or []
    scores = record.get("scores") or []
    totals = record.get("totals") or view.get("totals") or []
    players = []
    for p in view["players"]:
        seat = p["seat"]
        if seat >= len(scores) or scores[seat] is None:
            continue  # not in this round (a C12 extra round)
        board = boards[seat] if seat < len(boards) else None
        items = parts(record, seat, board)
        players.append({
            "seat": seat, "name": p["name"], "mine": seat == view.get("viewer"),
            "closer": record.get("closer") == seat, "doubled": seat in (record.get("doubled") or []),
            "score": scores[seat], "total": totals[seat] if seat < len(totals) else p.get("total"),
            "parts": items, "summary": " · ".join(i["text"] for i in items),
            "rows": _rows(board) if board is not None else None,
            "caption": grid_caption(p["name"], seat == view.get("viewer"), board) if board is not None else None,
        })
    players.sort(key=lambda x: (x["score"], x["seat"]))
    return {"round": record.get("round"), "players": players}


def round_text(view: dict) -> str:
    """The round's end in monospace for the plain-text part: per player (lowest score first) the
    score, its parts and the final grid (`[ 5]` a card, `  ·  ` a removed cell)."""
    result = round_result(view)
    if result is None:
        return ""
    lines: list[str] = []
    for p in result["players"]:
        tags = [_("closed the round")] if p["closer"] else []
        head = _("%(name)s: %(score)s this round, total %(total)s", name=p["name"], score=p["score"],
                 total=p["total"])
        lines.append(head + (f" ({', '.join(tags)})" if tags else ""))
        lines.append("   " + p["summary"])
        if p["rows"] is not None:
            lines.append("     " + "".join(f"  {c}  " for c in COLUMNS))
            for row in p["rows"]:
                cells = ["  ·  " if c["face"] == "removed" else f" [{c['text']:>2}]" for c in row["cells"]]
                lines.append(f"  {row['number']}  " + "".join(cells))
        lines.append("")
    return "\n".join(lines).rstrip("\n")
