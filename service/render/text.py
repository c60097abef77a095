"""The plain-text part of mails: the board in monospace and the move links, one per line. Plain text
(not HTML): the .txt templates print it as it is, and the daily digest uses the same board.

A face-down card is `[  ]` whatever the view's grid holds besides its face (C13)."""

from __future__ import annotations

from collections.abc import Iterable

from flask_babel import gettext as _
from flask_babel import ngettext

from service.render.action_moves import held_names, row_cards
from service.render.cards import COLUMNS, card_text, grid_rows, name_of, players_in_order

_FACES = {"removed": "  ·  ", "down": " [  ]"}


def _mark(cell: str, changed: bool) -> str:
    return "*" + cell[1:] if changed else cell


def text_board(view: dict, changed: Iterable[dict] = ()) -> str:
    """The board in monospace: per player its name and tags, total and visible score, and its grid
    under the column letters and beside the row numbers; then the piles and a held card.
    `changed`: the cells (`{"seat", "cell"}`) the others changed since the reader's previous mail
    (issue 28.1), marked with a `*` before the card."""
    marks = {(m["seat"], m["cell"]) for m in changed or ()}
    lines: list[str] = []
    for p in players_in_order(view):
        tags = []
        if p["seat"] == view.get("viewer"):
            tags.append(_("you"))
        if view.get("closer") == p["seat"]:
            tags.append(_("closed the round"))
        if view.get("turn") == p["seat"]:
            tags.append(_("to play"))
        lines.append(p["name"] + (f" ({', '.join(tags)})" if tags else ""))
        lines.append(
            "   "
            + _("game total %(total)s, face-up cards add up to %(visible)s", total=p.get("total"),
                    visible=p.get("visible_score"))
        )
        held = held_names(p.get("action_cards"))
        if held:
            lines.append("   " + _("action cards: %(cards)s", cards=held))
        lines.append("     " + "".join(f"  {c}  " for c in COLUMNS))
        for r, row in enumerate(grid_rows(p), start=1):
            cells = [_mark(_FACES.get(c["face"]) or f" [{card_text(c['value']):>2}]", (p["seat"], c["cell"]) in marks)
                     for c in row]
            lines.append(f"  {r}  " + "".join(cells))
        lines.append("")
    lines.append(
        _(
            "Discard pile: %(top)s   Draw pile: %(count)s cards",
            top=card_text(view.get("discard_top")) or "-",
            count=view.get("draw_count"),
        )
    )
    action = view.get("action")
    if action:  # SKYJO Action: the row by name (A2)
        row = ", ".join(f"{c['place']} {c['name']}" for c in row_cards(view) if c)
        lines.append(_("Action row: %(row)s   Action deck: %(count)s cards", row=row or "-", count=action.get("deck_count")))
    held = view.get("held")
    if held:
        if held.get("value") is not None:
            lines.append(
                _(
                    "%(name)s holds the %(card)s.",
                    name=name_of(view, held["seat"]),
                    card=card_text(held["value"]),
                )
            )
        else:
            lines.append(_("%(name)s holds a card from the draw pile.", name=name_of(view, held["seat"])))
    return "\n".join(lines)


MAX_TEXT_LINKS = 8  # single moves with a URL each; more are named, with one link to the board


def links_text(groups: list[dict], board_url: str | None = None) -> str:
    """The moves of the plain-text part, short labels rather than walls of URLs: a group that
    names cells (the 12 opening reveals, take and put at ...) is its cell names and one link to
    the board (`board_url`), where each is a button; the first MAX_TEXT_LINKS single moves get a
    URL each, the rest are named after them with the board link. Without `board_url`, every
    option keeps its own URL. A SKYJO Action pair chosen in two steps is one line to the board
    (`one_link`) or a line per first choice (the board's `?pick=` + its key: the board shows the
    second step)."""
    pick_url = f"{board_url}?pick=" if board_url else ""
    out, more, singles = [], [], 0
    for g in groups:
        if g.get("one_link"):
            out.append(f"{g['one_link']['label']}\n  {pick_url}{g['one_link']['pick']}\n\n")
            continue
        if board_url and g.get("cells"):
            labels = " ".join(opt["label"] for opt in g["options"])
            out.append(f"{g['title']}\n  {labels}\n  " + _("on your board: %(url)s", url=board_url) + "\n\n")
            continue
        shown = [f"  {c['label']}: {pick_url}{c['pick']}\n" for c in g.get("choices") or []]
        for opt in g["options"]:
            singles += 1
            if board_url and singles > MAX_TEXT_LINKS:
                more.append(opt["label"])
            else:
                shown.append(f"  {opt['label']}: {opt['url']}\n")
        if shown:
            out.append((f"{g['title']}\n" if g["title"] else "") + "".join(shown) + "\n")
    if more:
        out.append(ngettext("%(num)s more move, on your board: %(url)s", "%(num)s more moves, on your board: %(url)s",
                            len(more), url=board_url) + "\n  " + ", ".join(more) + "\n\n")
    return "".join(out)
