"""Turning an engine view (and only a view) into what pages and mails show."""

from __future__ import annotations

import base64
import contextvars
import functools
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager

import flask_babel
from flask import current_app
from markupsafe import Markup, escape

from service.store import tokens

# While bound: (translations, their texts by message, the texts as markup by message).
_bound: contextvars.ContextVar = contextvars.ContextVar("skyjo_bound_translations", default=None)
_memos: dict[int, tuple] = {}  # id(translations) -> the tuple above (a few locales)
_MEMO_SIZE = 4096  # messages per locale (they are constants of the code; a bound, not a limit)


def _(string: str, **variables) -> str:
    """Flask-Babel's gettext; inside `translations_bound` the translations are looked up once for a
    whole mail instead of for every string (the sender renders many mails, each with dozens), and
    each message's translation is remembered (a translations object always gives the same)."""
    bound = _bound.get()
    if bound is None:
        return flask_babel.gettext(string, **variables)
    texts = bound[1]
    text = texts.get(string)
    if text is None:
        text = bound[0].ugettext(string)
        if len(texts) < _MEMO_SIZE:
            texts[string] = text
    return text % variables if variables else text


@contextmanager
def translations_bound(translations) -> Iterator[None]:
    found = _memos.get(id(translations))
    if found is None or found[0] is not translations:
        if len(_memos) > 64:
            _memos.clear()
        found = _memos[id(translations)] = (translations, {}, {})
    token = _bound.set(found)
    try:
        yield
    finally:
        _bound.reset(token)


def style_sheet(env, name: str) -> Callable[[], Markup]:
    """A template global returning the style sheet `name` of `env`, rendered once per version of
    the file (mails put it in their <style>; an `{% include %}` rendered it again for every mail)."""
    cached: list = [None, None]

    def style() -> Markup:
        template = env.get_template(name)  # the same object until the file changes (auto_reload)
        if cached[0] is not template:
            cached[:] = [template, Markup(template.render())]
        return cached[1]

    return style


COLUMNS = "ABCD"
ROWS = 3


# ---------------------------------------------------------------------------------------------------
# URLs (absolute, for mails; pages use the same paths)


def base_url() -> str:
    return str(current_app.config["BASE_URL"]).rstrip("/")


def move_form_token(token: str, slug: str, version: int) -> str:
    return tokens.move_form_token(token, slug, version)


def seat_path(token: str) -> str:
    return f"/s/{token}"


def seat_url(token: str) -> str:
    return base_url() + seat_path(token)


def move_path(token: str, slug: str, version: int) -> str:
    return f"/s/{token}/m/{slug}?v={version}"


def move_url(token: str, slug: str, version: int) -> str:
    return base_url() + move_path(token, slug, version)


def unsubscribe_url(token: str) -> str:
    return f"{base_url()}/s/{token}/unsubscribe"


def prefs_url(token: str) -> str:
    return f"{base_url()}/s/{token}/prefs"


def watch_path(game_id: str, salt: str) -> str:
    return f"/watch/{game_id}/{tokens.spectator_token(game_id, salt)}"


def watch_url(game_id: str, salt: str) -> str:
    return base_url() + watch_path(game_id, salt)


# ---------------------------------------------------------------------------------------------------
# cards and boards


def card_text(value) -> str:
    if value is None:
        return ""
    if value == "star":
        return "★"
    return str(value)


def card_class(value) -> str:
    if value is None:
        return "down"
    if value == "star":
        return "star"
    if isinstance(value, int):
        if value < 0:
            return "neg"
        if value == 0:
            return "zero"
        if value <= 4:
            return "low"
        if value <= 8:
            return "mid"
        return "high"
    return "other"


def grid_rows(player: dict) -> list[list[dict]]:
    grid = player["grid"]
    return [grid[r * len(COLUMNS):(r + 1) * len(COLUMNS)] for r in range(ROWS)]


# no whitespace between a table's tags: browsers ignore it there, css_inline would parse and
# reserialize each piece of it as a node
_GRID_HEAD = "<tr><th></th>" + "".join(f"<th>{c}</th>" for c in COLUMNS) + "</tr>"
_ROW_HEADS = [f"<tr><th>{number}</th>" for number in range(1, ROWS + 1)]
_cells: dict[tuple, str] = {}  # (cell, face, value, highlighted) -> <td>: public data only, bounded
_PLAIN = (int, str, type(None))  # values kept as keys (exact types: True == 1 would share an entry)


def _cell_html(cell, face, value, hl: bool) -> str:
    h = " hl" if hl else ""
    cell = escape(cell)
    if face == "up":
        return (f'<td class="{card_class(value)}{h}" data-cell="{cell}" data-face="up" '
                f'data-card="{escape(value)}">{escape(card_text(value))}</td>')
    if face == "removed":
        return f'<td class="removed" data-cell="{cell}" data-face="removed"></td>'
    return f'<td class="down{h}" data-cell="{cell}" data-face="down"></td>'


def grid_html(player: dict, highlight=()) -> Markup:
    """One player's grid as an HTML table (A-D over 1-3; face-down and removed cells empty). Built
    here rather than in a template macro: it is drawn for every player in every turn mail and page,
    and a Jinja call per cell cost more than the rest of the mail. Each distinct cell (its name,
    face, shown value, highlight) is formatted once: a face-down cell has no value to keep."""
    return Markup(_grid(player, highlight))


def _grid(player: dict, highlight) -> str:
    out = [f'<table class="grid" data-seat="{escape(player["seat"])}">', _GRID_HEAD]
    cells = _cells
    for head, row in zip(_ROW_HEADS, grid_rows(player), strict=False):
        out.append(head)
        for c in row:
            name, face = c["cell"], c["face"]
            value = c["value"] if face == "up" else None
            key = (name, face, value, name in highlight)
            if type(value) not in _PLAIN or type(name) is not str:
                out.append(_cell_html(*key))
                continue
            td = cells.get(key)
            if td is None:
                td = _cell_html(*key)
                if len(cells) < 4096:
                    cells[key] = td
            out.append(td)
        out.append("</tr>")
    out.append("</table>")
    return "".join(out)


def _t(string: str, **variables) -> Markup:
    """A translated string for HTML built here, as Jinja's gettext hands it to templates: the
    translation is markup, its variables are escaped (and it is always a format string). Every
    placeholder of these strings is `%(name)s`, so the escaped values are formatted as text (quicker
    than `Markup % dict`, which wraps each value in a helper)."""
    if variables:
        return Markup(_(string) % {k: str(v) if type(v) is int else escape(v) for k, v in variables.items()})
    bound = _bound.get()
    if bound is None:
        return Markup(_(string) % {})
    marks = bound[2]
    found = marks.get(string)
    if found is None:
        found = Markup(_(string) % {})
        if len(marks) < _MEMO_SIZE:
            marks[string] = found
    return found


def _attr(obj, name: str):
    """`obj.name` as a template reads it: the attribute, else the item (rows and dicts alike)."""
    try:
        return getattr(obj, name)
    except AttributeError:
        return obj[name]


def card_html(value) -> str:
    """A card on a pile (the `card` macro): its class, value and text."""
    if value is None:
        return '<span class="c none" data-card="">' + card_text(value) + "</span>"
    return f'<span class="c {card_class(value)}" data-card="{escape(value)}">{escape(card_text(value))}</span>'


def boards_html(view: dict, highlight=()) -> Markup:
    """Every player's grid with its name, tags and totals, then the piles (the `boards` macro of
    `_board.html`, which pages call; mails call this directly). Built here: it is the largest part
    of every turn mail, and Jinja's per-element calls and escapes cost more than the rest of it."""
    me = view.get("viewer")
    turn, closer = view.get("turn"), view.get("closer")
    out = ['<div class="boards">\n']
    for p in players_in_order(view):
        seat = p["seat"]
        mine = seat == me
        tags = []
        if mine:
            tags.append(f' <span class="tag">{_t("you")}</span>')
        if turn == seat:
            tags.append(f' <span class="tag turn">{_t("to play")}</span>')
        if closer == seat:
            tags.append(f' <span class="tag closer">{_t("closed the round")}</span>')
        if p.get("owes") and turn != seat:
            tags.append(f' <span class="tag">{_t("deciding")}</span>')
        cards = p.get("action_cards")
        if cards:
            shown = (escape(", ").join(map(escape, cards)) if isinstance(cards, Iterable) and not isinstance(cards, str)
                     else escape(cards))
            cards = f'<div class="muted">{_t("Action cards:")} {shown}</div>\n'
        total = _t("Total %(total)s · showing %(visible)s", total=p["total"], visible=p["visible_score"])
        out.append(f'<div class="player{" me" if mine else ""}">\n<h3>{escape(p["name"])}{"".join(tags)}</h3>\n'
                   f'{_grid(p, highlight if mine else ())}\n<div class="muted">{total}</div>\n'
                   f'{cards or ""}</div>\n')
    out.append('</div>\n<div class="piles">\n')
    out.append(f'<div class="pile">{card_html(view.get("discard_top"))}<br>{_t("discard pile")}</div>\n')
    out.append(f'<div class="pile"><span class="c down">{escape(view.get("draw_count"))}</span><br>'
               f'{_t("draw pile")}</div>\n')
    action = view.get("action")
    if action and isinstance(action, Mapping):
        row = "".join(f'<span class="c none" style="width:auto;padding:0 6px">{escape(c)}</span> '
                      for c in action.get("row") or [])
        out.append(f'<div class="pile">{row}<br>{_t("action row")} · '
                   f'{_t("%(n)s in the action deck", n=action.get("deck_count"))}</div>\n')
    held = view.get("held")
    if held:
        value = held.get("value")
        shown = card_html(value) if value is not None else '<span class="c down">?</span>'
        whose = (_t("your card") if held.get("seat") == me
                 else _t("%(name)s holds", name=name_of(view, held.get("seat"))))
        out.append(f'<div class="pile">{shown}<br>\n{whose}</div>\n')
    out.append("</div>")
    return Markup("".join(out))


def sheet_html(view: dict, rows: list[dict], chart) -> Markup:
    """The score sheet (the `sheet` macro of `_board.html`): one row per round, the totals, the
    legend and the chart; a line saying no round was scored yet when there is none."""
    if not rows:
        return Markup(f'<p class="muted">{_t("No round has been scored yet.")}</p>')
    players = view["players"]
    names = "".join(f"<th>{escape(p['name'])}</th>" for p in players)
    out = [f'<table class="sheet"><tr><th>{_t("Round")}</th>{names}</tr>']
    for row in rows:
        out.append(f"<tr><td>{escape(row['round'])}</td>")
        for i, sc in enumerate(row["scores"]):
            if sc is None:
                out.append("<td>–</td>")
                continue
            out.append(f"<td>{escape(sc)}")
            if i in row["doubled"]:
                out.append("&nbsp;×2")
            if i == row["closer"]:
                out.append("&nbsp;◆")
            out.append("</td>")
        out.append("</tr>")
    totals = view.get("totals")
    out.append(f'<tr><th>{_t("Total")}</th>'
               + "".join(f"<th>{escape(totals[p['seat']] if totals else p['total'])}</th>" for p in players)
               + "</tr></table>\n")
    out.append(f'<div class="muted">◆ {_t("closed the round")} · ×2 {_t("doubled")}</div>\n')
    out.append(escape(chart))
    return Markup("".join(out))


def _move_form(opt: dict, view: dict, game, seat, label) -> str:
    # the whitespace is the macro's: the form is inline, its hidden inputs make the gaps of a page
    return (f'<form class="inline" method="post" action="{escape(opt["url"].split("?")[0])}">\n'
            f'  <input type="hidden" name="csrf_token" value="{escape(opt["form_token"])}">\n'
            f'  <input type="hidden" name="game" value="{escape(_attr(game, "id"))}">\n'
            f'  <input type="hidden" name="seat" value="{escape(_attr(seat, "seat"))}">\n'
            f'  <input type="hidden" name="move" value="{escape(opt["slug"])}">\n'
            f'  <input type="hidden" name="version" value="{escape(view["version"])}">\n'
            f'  <button type="submit" class="" data-move="{escape(opt["slug"])}">{escape(label)}</button>\n'
            "</form>")


_PICKER_HEAD = '<table class="picker"><tr><th></th>' + "".join(f"<th>{c}</th>" for c in COLUMNS) + "</tr>"


def moves_html(groups: list[dict], view: dict, game=None, seat=None, web: bool = True) -> Markup:
    """The legal moves (the `moves` macro of `_moves.html`): per group its title and either a
    picker (a table of the cells) or its options; buttons in small POST forms on pages (`web`),
    links in mails. Built here for the same reason as `boards_html`."""
    out = ['<div class="moves">\n']
    for g in groups:
        out.append('<div class="group">\n')
        if g["title"]:
            out.append(f'<div class="title">{escape(g["title"])}</div>\n')
        cells = g["cells"]
        if cells:
            out.append(_PICKER_HEAD)
            for number in range(1, ROWS + 1):
                out.append(f"<tr><th>{number}</th>")
                for col in COLUMNS:
                    cell = f"{col}{number}"
                    opt = cells.get(cell)
                    if opt is None:
                        out.append('<td><span class="none">·</span></td>')
                    elif web:
                        out.append(f"<td>\n{_move_form(opt, view, game, seat, cell)}\n</td>")
                    else:
                        out.append(f'<td><a class="btn" href="{escape(opt["url"])}">{cell}</a></td>')
                out.append("</tr>")
            out.append("</table>\n")
        else:
            for opt in g["options"]:
                out.append(_move_form(opt, view, game, seat, opt["label"]) if web
                           else f'<a class="btn" href="{escape(opt["url"])}">{escape(opt["label"])}</a>')
                out.append("\n")
        out.append("</div>\n")
    out.append("</div>")
    return Markup("".join(out))


def players_in_order(view: dict) -> list[dict]:
    """The viewer's grid first, then the others in seat order."""
    players = list(view["players"])
    me = view.get("viewer")
    if me is None:
        return players
    return [p for p in players if p["seat"] == me] + [p for p in players if p["seat"] != me]


def name_of(view: dict, seat) -> str:
    for p in view["players"]:
        if p["seat"] == seat:
            return p["name"]
    return "?"


def split_move(text: str) -> tuple[str, str | None]:
    parts = text.split()
    return parts[0].lower(), (parts[1].upper() if len(parts) > 1 else None)


def is_cell(arg: str | None) -> bool:
    return bool(arg) and len(arg) == 2 and arg[0] in COLUMNS and arg[1] in "123"


_CLASSIC_TEXT = re.compile(r"^(?:(?:reveal|swap|flip) [A-D][1-3]|draw|take)$")


def slug_for(texts: list[str]) -> str:
    """URL part for a decision: `reveal-a1`, `draw`, `take-swap-b2`; any other move text (SKYJO Action
    moves carry names and hyphens) is `m~` + base64url of the text."""
    if all(_CLASSIC_TEXT.match(t) for t in texts):
        return "-".join(" ".join(texts).lower().split())
    raw = "\n".join(texts).encode()
    return "m~" + base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def texts_of_slug(slug: str) -> list[str] | None:
    """The move texts of a slug (not yet checked by the engine), or None if it is malformed."""
    if slug.startswith("m~"):
        body = slug[2:]
        try:
            raw = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)).decode()
        except (ValueError, UnicodeDecodeError):
            return None
        texts = [t for t in raw.split("\n") if t.strip()]
        return texts if texts and all(len(t) <= 120 for t in texts) and len(texts) <= 3 else None
    parts = slug.strip().lower().split("-")
    if not parts or not all(p.isalnum() and p.isascii() for p in parts) or len(slug) > 40:
        return None
    if parts[:2] == ["take", "swap"] and len(parts) == 3:
        return ["take", f"swap {parts[2].upper()}"]
    return [" ".join(p.upper() if len(p) == 2 and p[0] in "abcd" and p[1] in "123" else p for p in parts)]


def held_value(view: dict):
    held = view.get("held")
    if held and held.get("seat") == view.get("viewer"):
        return held.get("value")
    return None


@functools.lru_cache(maxsize=4096)
def _move_text(text: str) -> tuple[str, str | None, bool, str]:
    """A legal move's verb, argument, whether that is a cell, and its slug (memoized: the same few
    dozen texts come back in every mail and page)."""
    verb, arg = split_move(text)
    return verb, arg, is_cell(arg), slug_for([text])


@functools.lru_cache(maxsize=256)
def _take_slug(cell: str) -> str:
    return slug_for(["take", f"swap {cell}"])


def move_groups(view: dict) -> list[dict]:
    """The viewer's legal moves as groups for links/buttons: one entry per decision the player can make.

    `take` becomes one option per own cell (take + swap X, applied together)."""
    me = view.get("viewer")
    if me is None:
        return []
    mine = next(p for p in view["players"] if p["seat"] == me)
    held = held_value(view)
    groups: dict[str, dict] = {}
    order: list[str] = []

    def group(key: str, title: str) -> dict:
        if key not in groups:
            groups[key] = {"key": key, "title": title, "options": [], "cells": {}}
            order.append(key)
        return groups[key]

    for text in view.get("legal_moves", []):
        verb, arg, cell_arg, slug = _move_text(text)
        if verb == "take" and arg is None:
            g = group("take", _("Take the %(card)s from the discard pile and put it at:",
                                card=card_text(view.get("discard_top"))))
            for c in mine["grid"]:
                if c["face"] != "removed":
                    texts = ["take", f"swap {c['cell']}"]
                    opt = {"slug": _take_slug(c["cell"]), "texts": texts, "label": c["cell"], "cell": c["cell"]}
                    g["options"].append(opt)
                    g["cells"][c["cell"]] = opt
            continue
        if cell_arg:
            if verb not in groups:
                titles = {
                    "reveal": lambda: _("Turn over one of your cards:"),
                    "swap": lambda: (_("Put the %(card)s you hold at:", card=card_text(held))
                                     if held is not None else _("Swap into:")),
                    "flip": lambda: (_("Or discard the %(card)s and turn over:", card=card_text(held))
                                     if held is not None else _("Turn over:")),
                }
                group(verb, titles[verb]() if verb in titles else verb.capitalize() + ":")
            g = groups[verb]
            opt = {"slug": slug, "texts": [text], "label": arg, "cell": arg}
            g["options"].append(opt)
            g["cells"][arg] = opt
            continue
        g = group(text, "")
        label = _("Draw a card from the pile") if verb == "draw" and arg is None else text
        g["options"].append({"slug": slug, "texts": [text], "label": label, "cell": None})
    # draw before take reads better
    order.sort(key=lambda k: {"reveal": 0, "draw": 1, "take": 2, "swap": 3, "flip": 4}.get(k, 5))
    return [groups[k] for k in order]


def lines_html(lines) -> Markup:
    """Lines of text (escaped) separated by <br>."""
    return Markup("<br>").join(lines)


def links_text(groups: list[dict]) -> str:
    """The move links of the plain-text part: per group its title, then one line per option."""
    out = []
    for g in groups:
        if g["title"]:
            out.append(f"{g['title']}\n")
        out.extend(f"  {opt['label']}: {opt['url']}\n" for opt in g["options"])
        out.append("\n")
    return "".join(out)


def describe(view: dict, texts: list[str]) -> str:
    """A sentence for the confirm page: what exactly this link does."""
    held = held_value(view)
    if texts and texts[0] == "take" and len(texts) == 2:
        _v, cell = split_move(texts[1])
        return _("Take the %(card)s from the discard pile and put it at %(cell)s.",
                 card=card_text(view.get("discard_top")), cell=cell)
    verb, arg = split_move(texts[0])
    if verb == "reveal":
        return _("Turn over your card at %(cell)s.", cell=arg)
    if verb == "draw":
        return _("Draw the top card of the draw pile.")
    if verb == "swap":
        return _("Put the %(card)s at %(cell)s; the card there goes to the discard pile.",
                 card=card_text(held), cell=arg)
    if verb == "flip":
        return _("Discard the %(card)s and turn over your card at %(cell)s.", card=card_text(held), cell=arg)
    return _("Play “%(move)s”.", move=" + ".join(texts))


def highlight_cells(texts: list[str]) -> set[str]:
    cells = set()
    for t in texts:
        _v, arg = split_move(t)
        if is_cell(arg):
            cells.add(arg)
    return cells


_TEXT_FACES = {"removed": "  ·  ", "down": " [  ]"}
_TEXT_UP = {v: f" [{card_text(v):>2}]" for v in [*range(-20, 21), "star"]}  # face-up cells of the text board


def text_board(view: dict, width: int = 4) -> str:
    """The board in monospace for the plain-text part of mails."""
    lines: list[str] = []
    for p in players_in_order(view):
        tags = []
        if p["seat"] == view.get("viewer"):
            tags.append(_("you"))
        if view.get("closer") == p["seat"]:
            tags.append(_("closed the round"))
        if view.get("turn") == p["seat"]:
            tags.append(_("to play"))
        head = p["name"] + (f" ({', '.join(tags)})" if tags else "")
        lines.append(head)
        lines.append("   " + _("total %(total)s, showing %(visible)s", total=p.get("total"),
                                  visible=p.get("visible_score")))
        lines.append("     " + "".join(f"  {c}  " for c in COLUMNS))
        for r, row in enumerate(grid_rows(p), start=1):
            cells = []
            for c in row:
                shown = _TEXT_FACES.get(c["face"])
                if shown is None:  # face up
                    value = c["value"]
                    shown = _TEXT_UP.get(value) if type(value) in (int, str) else None  # not bools
                    if shown is None:
                        shown = f" [{card_text(value):>2}]"
                cells.append(shown)
            lines.append(f"  {r}  " + "".join(cells))
        lines.append("")
    lines.append(_("Discard pile: %(top)s   Draw pile: %(count)s cards",
                   top=card_text(view.get("discard_top")) or "-", count=view.get("draw_count")))
    held = view.get("held")
    if held:
        if held.get("value") is not None:
            lines.append(_("%(name)s holds the %(card)s.", name=name_of(view, held["seat"]),
                           card=card_text(held["value"])))
        else:
            lines.append(_("%(name)s holds a card from the draw pile.", name=name_of(view, held["seat"])))
    return "\n".join(lines)


def score_rows(view: dict) -> list[dict]:
    """Score sheet: one row per round with the score per seat and the running totals."""
    rows = []
    n = len(view["players"])
    running = [0] * n
    for r in view.get("rounds", []):
        scores = list(r.get("scores") or [None] * n)
        for i, sc in enumerate(scores):
            if isinstance(sc, int):
                running[i] += sc
        rows.append({"round": r.get("round"), "scores": scores, "totals": list(running),
                     "closer": r.get("closer"), "doubled": r.get("doubled") or []})
    return rows


PALETTE = ["#2563eb", "#dc2626", "#16a34a", "#9333ea", "#ea580c", "#0891b2", "#be185d", "#4d7c0f"]


def score_chart(view: dict, width: int = 420, height: int = 180) -> Markup:
    """An inline SVG line chart of the running totals, one line per player."""
    rows = score_rows(view)
    players = view["players"]
    series = [[0] + [row["totals"][p["seat"]] for row in rows] for p in players]
    if not rows:
        return Markup("")
    lo = min(min(s) for s in series)
    hi = max(max(s) for s in series + [[view.get("options", {}).get("target_score", 0) or 0]])
    hi = max(hi, lo + 1)
    pad_l, pad_r, pad_t, pad_b = 34, 90, 10, 22
    w, h = width - pad_l - pad_r, height - pad_t - pad_b
    steps = max(1, len(rows))

    def x(i):
        return pad_l + w * i / steps

    def y(v):
        return pad_t + h * (hi - v) / (hi - lo)

    parts = [f'<svg class="chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
             f'width="{width}" height="{height}" role="img" aria-label="{escape(_("Running totals"))}">']
    for tick in sorted({lo, 0, hi} if lo < 0 else {lo, hi}):
        parts.append(f'<line x1="{pad_l}" x2="{pad_l + w}" y1="{y(tick):.1f}" y2="{y(tick):.1f}" '
                     f'stroke="#ddd"/><text x="{pad_l - 4}" y="{y(tick) + 4:.1f}" font-size="10" '
                     f'text-anchor="end" fill="#666">{tick}</text>')
    for i in range(steps + 1):
        parts.append(f'<text x="{x(i):.1f}" y="{height - 6}" font-size="10" text-anchor="middle" '
                     f'fill="#666">{i}</text>')
    for k, (p, s) in enumerate(zip(players, series, strict=True)):
        colour = PALETTE[k % len(PALETTE)]
        pts = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(s))
        parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="{pts}"/>')
        parts.append(f'<text x="{x(len(s) - 1) + 6:.1f}" y="{y(s[-1]) + 4:.1f}" font-size="11" '
                     f'fill="{colour}">{escape(p["name"])} {s[-1]}</text>')
    parts.append("</svg>")
    return Markup("".join(parts))


def standings(view: dict) -> list[dict]:
    totals = view.get("totals") or [p.get("total") for p in view["players"]]
    winners = set(view.get("winners") or [])
    ranked = sorted(view["players"], key=lambda p: (totals[p["seat"]], p["seat"]))
    out, place, last = [], 0, None
    for i, p in enumerate(ranked, start=1):
        if totals[p["seat"]] != last:
            place, last = i, totals[p["seat"]]
        out.append({"place": place, "name": p["name"], "seat": p["seat"], "total": totals[p["seat"]],
                    "winner": p["seat"] in winners})
    return out


def status_line(view: dict) -> str:
    """Who owes what, in a sentence."""
    if view.get("phase") == "game_over":
        return _("The game is over.")
    pend = view.get("pending") or []
    me = view.get("viewer")
    mine = [p for p in pend if p["seat"] == me]
    if mine:
        kind = mine[0]["kind"]
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
