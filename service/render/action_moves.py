"""SKYJO Action's decisions as groups of buttons and links (A4, A6, A7, A9), for `moves.move_groups`.

Every option names its card (`cards.action_name`) and, where it helps, carries the card's one-line
`effect`. A decision that is a pair - Swap own (two own cells), Swap with a player (own cell, then
the other player's), Insight (whose grid, then which line), a Draw three pick (which card, then
where) - is chosen in two steps instead of one button per pair: the group offers `choices`, each a
`pick` key ("swap-own.A1", "re-insight.2", "pick.0"), shown as GET links to the board with
`?pick=<key>`; `choose(view, pick)` then gives the second step's groups, whose options are ordinary
moves (played by a POST form with its form token, as every move). The GET changes nothing.

`one_link`: a group whose first step is a grid of cells, and a group of many cards to discard or
steal, is one link in a mail ("choose on your board"; `?pick=<group key>` shows that group alone),
so an Action mail has few links.
Only the seat's view is read (its legal moves, grids, the Draw three cards it alone sees)."""

from __future__ import annotations

from flask_babel import gettext as _

from engine.action.moves import ActionMove
from engine.moves import CELL_NAMES
from service.render import action_text as at
from service.render.cards import name_of, picker_rows
from service.render.links import slug_for
from service.words.names import action_effect, action_name

TWO_STEP = ("swap-own", "swap-with-player", "insight")
MAX_PICK = 40


def _key(card: str, via: bool) -> str:
    return ("re-" if via else "") + card


def _option(text: str, label: str, cell: str | None = None, effect: str = "") -> dict:
    opt = {"slug": slug_for([text]), "texts": [text], "label": label, "cell": cell}
    if effect:
        opt["effect"] = effect
    return opt


def _group(key: str, title: str, options: list[dict] | None = None, **extra) -> dict:
    g = {"key": key, "title": title, "options": options or [], "cells": {}}
    for opt in g["options"]:
        if opt.get("cell"):
            g["cells"][opt["cell"]] = opt
    g.update(extra)
    return g


def parsed_moves(view: dict, texts: list[str]) -> list[tuple[str, ActionMove]]:
    out = []
    for t in texts:
        m = at.parse(view, t)
        if m is not None:
            out.append((t, m))
    return out


def _two_step(key: str, moves: list[tuple[str, ActionMove]]) -> list[tuple[str, str, ActionMove]]:
    """The moves of a two-step group `key` as (first choice, text, move)."""
    out = []
    for text, m in moves:
        if m.kind == "pick" and key == "pick":
            out.append((str(m.index), text, m))
        elif m.kind == "play" and _key(m.card, m.via) == key:
            if m.card == "insight":
                out.append((str(m.target), text, m))
            else:
                out.append((CELL_NAMES[m.cells[0]], text, m))
                if m.card == "swap-own":  # a pair without order: either cell may be chosen first
                    out.append((CELL_NAMES[m.cells[1]], text, m))
    return out


def _first_title(view: dict, key: str) -> str:
    card = key.removeprefix("re-")
    head = action_name(card) if key == card else _("Reactivation as %(card)s", card=action_name(card))
    if key == "pick":
        return _("Draw three: which card do you keep?")
    if card == "swap-own":
        return _("Play %(card)s: choose the first of your two cards:", card=head)
    if card == "swap-with-player":
        return _("Play %(card)s: choose your card first:", card=head)
    return _("Play %(card)s: whose grid?", card=head)


def _first_step(view: dict, key: str, moves: list[tuple[str, ActionMove]]) -> dict | None:
    firsts: list[str] = []
    for first, _t, _m in _two_step(key, moves):
        if first not in firsts:
            firsts.append(first)
    if not firsts:
        return None
    card = key.removeprefix("re-")
    choices = []
    for first in firsts:
        if key == "pick":
            text = _("Keep the %(card)s", card=at.three_card(view, int(first)))
            choices.append({"pick": f"{key}.{first}", "label": text, "cell": None})
        elif card == "insight":
            seat = int(first)
            text = _("Your grid") if seat == view.get("viewer") else name_of(view, seat)
            choices.append({"pick": f"{key}.{first}", "label": text, "cell": None})
        else:
            choices.append({"pick": f"{key}.{first}", "label": first, "cell": first})
    cells = {c["cell"]: c for c in choices if c["cell"]}
    g = _group(key, _first_title(view, key), choices=choices, effect=action_effect(card) if key != "pick" else "")
    if cells:
        g["choice_rows"] = picker_rows(cells)
        head = action_name(card) if key == card else _("Reactivation as %(card)s", card=action_name(card))
        g["one_link"] = {"pick": key, "label": _("Play %(card)s: choose the two cards on your board", card=head)}
    return g


def _second_step(view: dict, key: str, first: str, moves: list[tuple[str, ActionMove]]) -> list[dict]:
    chosen = [(t, m) for f, t, m in _two_step(key, moves) if f == first]
    if not chosen:
        return []
    card = key.removeprefix("re-")
    back = {"back": True}
    if key == "pick":
        title = _("Keep the %(card)s and put it at:", card=at.three_card(view, int(first)))
        opts = [_option(t, CELL_NAMES[m.cells[0]], CELL_NAMES[m.cells[0]]) for t, m in chosen]
        return [_group(key, title, opts, **back)]
    head = action_name(card) if key == card else _("Reactivation as %(card)s", card=action_name(card))
    if card == "swap-own":
        title = _("%(card)s: swap your %(cell)s with:", card=head, cell=first)
        opts = []
        for t, m in chosen:
            other = CELL_NAMES[m.cells[1]] if CELL_NAMES[m.cells[0]] == first else CELL_NAMES[m.cells[0]]
            opts.append(_option(t, other, other))
        return [_group(key, title, opts, **back)]
    if card == "insight":
        if at.is_viewer(view, int(first)):
            title = _("%(card)s on your grid: which row or column?", card=head)
        else:
            title = _("%(card)s on %(name)s's grid: which row or column?", card=head,
                      name=name_of(view, int(first)))
        opts = [_option(t, at.line_of(m)) for t, m in chosen]
        return [_group(key, title, opts, **back)]
    groups = []
    for seat in sorted({m.target for _t, m in chosen}):
        title = _("Swap your %(cell)s with a card of %(name)s:", cell=first, name=name_of(view, seat))
        opts = [_option(t, CELL_NAMES[m.cells[1]], CELL_NAMES[m.cells[1]]) for t, m in chosen if m.target == seat]
        groups.append(_group(f"{key}.{seat}", title, opts))
    groups[-1]["back"] = True
    return groups


def _take_title(view: dict, moves: list[tuple[str, ActionMove]]) -> str:
    if any(m.kind == "decline" for _t, m in moves):
        return _("You turned up a star: take an action card, or not:")
    return _("Or take an action card (that is your turn; you can play it on a later turn):")


def action_groups(view: dict, texts: list[str]) -> list[dict]:
    """The groups of the Action moves among `texts` (the classic ones are `moves.move_groups`')."""
    moves = parsed_moves(view, texts)
    groups: list[dict] = []
    simple: dict[str, dict] = {}

    def add(key: str, title: str, opt: dict) -> None:
        if key not in simple:
            simple[key] = _group(key, title)
            groups.append(simple[key])
        simple[key]["options"].append(opt)
        if opt.get("cell"):
            simple[key]["cells"][opt["cell"]] = opt

    two_steps: list[str] = []
    for text, m in moves:
        k = m.kind
        if k in ("action_row", "action_deck", "decline"):
            card = at.row_card(view, m.index) if k == "action_row" else None
            add("take-action", _take_title(view, moves), _option(text, at.label(view, m), None, action_effect(card)))
        elif k == "pick" or (k == "play" and m.card in TWO_STEP):
            key = "pick" if k == "pick" else _key(m.card, m.via)
            if key not in two_steps:
                two_steps.append(key)
                groups.append({"key": key, "pending": True})
        elif k == "pick_none":
            add("pick", "", _option(text, at.label(view, m)))
        elif k == "play" and m.card == "thief":
            title = _("Play %(card)s: which card do you take?", card=at._played(m))
            add(_key("thief", m.via), title, _option(text, at.label(view, m)))
        elif k == "play":
            add(_key(m.card, m.via), "", _option(text, at.label(view, m), None, action_effect(m.card)))
        elif k == "discard_action":
            add("discard-action", _("Or discard an action card without effect:"), _option(text, at.label(view, m)))
        elif k == "meteor":
            title = at.status(view, "meteor") or ""
            cell = CELL_NAMES[m.cells[0]]
            add("meteor", title, _option(text, cell, cell))
        else:  # block, allow, keep, remove, pass
            add("answer", "", _option(text, at.label(view, m)))
    for key, words in (("discard-action", _("Discard an action card: choose on your board")),
                       ("thief", _("Play Thief: choose the card to take on your board")),
                       ("re-thief", _("Play Reactivation as Thief: choose the card to take on your board"))):
        if key in simple and len(simple[key]["options"]) > 1:  # one link in a mail
            simple[key]["one_link"] = {"pick": key, "label": words}
    out: list[dict] = []
    for g in groups:
        if g.get("pending"):
            first = _first_step(view, g["key"], moves)
            if first is None:
                continue
            if g["key"] == "pick" and "pick" in simple:  # `Keep none` beside the cards to keep
                first["options"] = simple["pick"]["options"]
            out.append(first)
        elif not (g["key"] == "pick" and "pick" in two_steps):
            out.append(g)
    return _with_rows(out)


def _with_rows(groups: list[dict]) -> list[dict]:
    """Each group that names cells gets its picker's rows (as `moves.move_groups` gives them)."""
    for g in groups:
        if g.get("cells"):
            g["rows"] = picker_rows(g["cells"])
    return groups


def choose(view: dict, pick: str | None, texts: list[str]) -> list[dict] | None:
    """The groups of the board for `?pick=<key>`: a group's first step alone (`swap-own`), or the
    second step of a first choice (`swap-own.A1`). None when `pick` names nothing the seat may do
    now (the board then shows every move)."""
    if not pick or not isinstance(pick, str) or len(pick) > MAX_PICK:
        return None
    key, _sep, first = pick.partition(".")
    moves = parsed_moves(view, texts)
    if not first:
        found = [g for g in action_groups(view, texts) if g["key"] == key and g.get("one_link")]
        return [{**found[0], "back": True}] if found else None
    return _with_rows(_second_step(view, key, first, moves)) or None


def pick_highlight(pick: str | None) -> set[str]:
    """The cell a first choice names (outlined on the viewer's grid), if any."""
    if not pick or not isinstance(pick, str) or len(pick) > MAX_PICK:
        return set()
    key, _sep, first = pick.partition(".")
    if key.removeprefix("re-") in ("swap-own", "swap-with-player") and first in CELL_NAMES:
        return {first}
    return set()


def row_cards(view: dict) -> list[dict | None]:
    """The action row (A2) for the board: each card's name and one-line effect (None: an empty place)."""
    row = (view.get("action") or {}).get("row") or []
    return [
        None if c is None else {"kind": c, "name": action_name(c), "effect": action_effect(c), "place": i + 1}
        for i, c in enumerate(row)
    ]


def held_names(cards) -> str | None:
    """A player's held action cards by name (A4), or None."""
    if not cards or isinstance(cards, str):
        return None
    return ", ".join(action_name(c) for c in cards)
