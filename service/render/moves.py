"""The viewer's decisions as pages and mails offer them: the legal moves grouped by what they do (one
group per decision, a picker of the cells where the move names a cell), the sentence a Confirm page
says, the cells it highlights, and who owes what (the status line).

Only the seat's view is read (its `legal_moves`, `pending`, own grid and held card): a seat is never
offered a move it cannot make, and nothing hidden from it is named (C13)."""

from __future__ import annotations

from flask_babel import gettext as _

from service.i18n import current
from service.render import a11y, action_moves, action_text
from service.render.cards import card_text, held_value, name_of, picker_rows
from service.render.links import is_cell, slug_for, split_move
from service.words.reply_words import in_words_of

_GROUP_ORDER = {"reveal": 0, "draw": 1, "take": 2, "swap": 3, "flip": 4}  # draw before take reads better
_CLASSIC_VERBS = frozenset(_GROUP_ORDER)

__all__ = ["describe", "done_words", "highlight_cells", "move_groups", "picker_rows", "status_line"]


def move_groups(view: dict, pick: str | None = None) -> list[dict]:
    """The viewer's legal moves as groups for links/buttons: one entry per decision the player can
    make. Each group: `title`, `options` (each with `slug`, `texts`, `label`, `cell`), `cells` (the
    options by cell name) and, when it names cells, `rows` (the picker: 3 rows of 4 cells, each
    with its option or None). `take` becomes one option per own cell (take + swap X, applied
    together, C7). Callers add each option's `url` (and on pages its `form_token`).

    SKYJO Action's moves come from `action_moves` (names, effects, and two-step `choices` for the
    pairs; `pick` is a board's `?pick=`: a first choice, whose second step is then the only group)."""
    me = view.get("viewer")
    if me is None:
        return []
    texts = list(view.get("legal_moves", []))
    if view.get("action") is not None:
        chosen = action_moves.choose(view, pick, texts)
        if chosen is not None:
            return chosen
        classic = [t for t in texts if split_move(t)[0] in _CLASSIC_VERBS]
        return _classic_groups(view, classic) + action_moves.action_groups(
            view, [t for t in texts if t not in classic]
        )
    return _classic_groups(view, texts)


def _classic_groups(view: dict, texts: list[str]) -> list[dict]:
    me = view.get("viewer")
    mine = next(p for p in view["players"] if p["seat"] == me)
    held = held_value(view)
    grid = {c["cell"]: c for c in mine["grid"]}  # what the seat sees of its own cells (a11y names)
    groups: dict[str, dict] = {}

    def group(key: str, title: str) -> dict:
        if key not in groups:
            groups[key] = {"key": key, "title": title, "options": [], "cells": {}}
        return groups[key]

    for text in texts:
        verb, arg = split_move(text)
        if verb == "take" and arg is None:
            g = group(
                "take",
                _(
                    "Take the %(card)s from the discard pile and put it at:",
                    card=card_text(view.get("discard_top")),
                ),
            )
            for c in mine["grid"]:
                if c["face"] != "removed":
                    texts = ["take", f"swap {c['cell']}"]
                    opt = {"slug": slug_for(texts), "texts": texts, "label": c["cell"], "cell": c["cell"],
                           "name": a11y.move_name("take", c["cell"], grid, view.get("discard_top"))}
                    g["options"].append(opt)
                    g["cells"][c["cell"]] = opt
            continue
        if is_cell(arg):
            g = groups.get(verb) or group(verb, _cell_title(verb, held))
            opt = {"slug": slug_for([text]), "texts": [text], "label": arg, "cell": arg,
                   "name": a11y.move_name(verb, arg, grid, held)}
            g["options"].append(opt)
            g["cells"][arg] = opt
            continue
        label = _("Draw a card from the pile") if verb == "draw" and arg is None else text
        group(text, "")["options"].append(
            {"slug": slug_for([text]), "texts": [text], "label": label, "cell": None}
        )
    ordered = sorted(groups.values(), key=lambda g: _GROUP_ORDER.get(g["key"], 5))
    for g in ordered:
        if g["cells"]:
            g["rows"] = picker_rows(g["cells"])
    return ordered


def _cell_title(verb: str, held) -> str:
    """The title of a group of moves that name one of the viewer's cells."""
    if verb == "reveal":
        return _("Turn over one of your cards:")
    if verb == "swap":
        return (
            _("Put the %(card)s you hold at:", card=card_text(held)) if held is not None else _("Swap into:")
        )
    if verb == "flip":
        return (
            _("Or discard the %(card)s and turn over:", card=card_text(held))
            if held is not None
            else _("Turn over:")
        )
    return verb.capitalize() + ":"


def describe(view: dict, texts: list[str]) -> str:
    """A sentence for the confirm page: what exactly this link does."""
    held = held_value(view)
    if texts and texts[0] == "take" and len(texts) == 2:
        _v, cell = split_move(texts[1])
        return _(
            "Take the %(card)s from the discard pile and put it at %(cell)s.",
            card=card_text(view.get("discard_top")),
            cell=cell,
        )
    verb, arg = split_move(texts[0])
    m = action_text.parse(view, texts[0]) if len(texts) == 1 and verb not in _CLASSIC_VERBS else None
    if m is not None:
        return action_text.describe(view, m)
    if verb == "reveal":
        return _("Turn over your card at %(cell)s.", cell=arg)
    if verb == "draw":
        return _("Draw the top card of the draw pile.")
    if verb == "swap":
        return _(
            "Put the %(card)s at %(cell)s; the card there goes to the discard pile.",
            card=card_text(held),
            cell=arg,
        )
    if verb == "flip":
        return _("Discard the %(card)s and turn over your card at %(cell)s.", card=card_text(held), cell=arg)
    return _("Play “%(move)s”.", move=in_words_of(" + ".join(texts), current()))


def done_words(view: dict | None, texts: list[str]) -> str:
    """What a decision did, for the "Done:" line after it, in the reader's words (`take + swap B2`,
    a classic move in SKYJO Action too: issue 28.3; a SKYJO Action move in words, its cards by
    name)."""
    out = []
    for t in texts:
        m = action_text.parse(view, t) if view and view.get("action") is not None \
            and split_move(t)[0] not in _CLASSIC_VERBS else None
        out.append(in_words_of(t, current()) if m is None else action_text.done(view, m))
    return " + ".join(out)


def highlight_cells(texts: list[str]) -> set[str]:
    """The cells a move names (the Confirm page outlines them on the viewer's grid)."""
    cells = set()
    for t in texts:
        _v, arg = split_move(t)
        if is_cell(arg):
            cells.add(arg)
    return cells


def status_line(view: dict) -> str:
    """Who owes what, in a sentence (C4, C5, C7)."""
    if view.get("phase") == "game_over":
        return _("The game is over.")
    pend = view.get("pending") or []
    me = view.get("viewer")
    mine = [p for p in pend if p["seat"] == me]
    if mine:
        kind = mine[0]["kind"]
        said = action_text.status(view, kind) if view.get("action") is not None else None
        if said is not None:
            return said
        if kind == "reveal":
            return _("Your move: turn over two cards to start the round.")
        if kind == "tie_reveal":
            return _("Your move: turn over one more card to break the tie.")
        if kind == "turn":
            return _("Your turn: draw a card from the pile or take the discard.")
        if kind == "place_drawn":
            return _("Place the card you drew, or discard it and turn over a card.")
        if kind == "place_taken":
            return _("Place the card you took.")
        return _("Your move.")
    names = sorted({name_of(view, p["seat"]) for p in pend})
    if not names:
        return ""
    return _("Waiting for %(names)s.", names=", ".join(names))
