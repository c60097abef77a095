"""The "Play the whole turn by replying" box of a mail that asks for a decision: examples written
for the seat's own board (a real face-down cell to turn up, its own highest card to replace), in
the reply grammar of engine.plans (the same for classic and SKYJO Action: `draw: if 4 or less swap
B2, else flip C3`, `take swap B2`, `reveal A1, reveal C3`, or any move as the engine writes it).

Read from the seat's view only (its own grid, its pending decision, its legal moves): an example
names a face-down cell as face-down, never its value (C13)."""

from __future__ import annotations

from flask_babel import gettext as _

from service.i18n import current
from service.render.cards import card_text
from service.render.moves import describe
from service.words.reply_words import in_words_of

_LOW = 4  # "if 4 or less": a low card is worth keeping


def _number(value) -> int:
    return value if isinstance(value, int) else 0  # a star counts 0 (A6)


def _spread(cells: list[str]) -> list[str]:
    """Face-down cells in an order that reads naturally: the first, then one far from it."""
    if len(cells) < 2:
        return cells
    return [cells[0], cells[-1], *cells[1:-1]]


def reply_examples(view: dict | None) -> list[dict]:
    """Examples for the decision the viewer owes now, best first: each `{"text": the reply line in
    the reader's words, "says": what it does}`. Empty when the viewer owes nothing."""
    if not view or view.get("viewer") is None:
        return []
    me = view["viewer"]
    owed = [p["kind"] for p in view.get("pending") or [] if p["seat"] == me]
    if not owed:
        return []
    kind = owed[0]
    mine = next(p for p in view["players"] if p["seat"] == me)
    down = _spread([c["cell"] for c in mine["grid"] if c["face"] == "down"])
    up = [c for c in mine["grid"] if c["face"] == "up"]
    high = max(up, key=lambda c: (_number(c["value"]), c["cell"])) if up else None
    legal = view.get("legal_moves") or []
    out: list[dict] = []
    if kind in {"reveal", "tie_reveal"} and down:
        if kind == "reveal" and not up and len(down) >= 2:
            out.append({"text": f"reveal {down[0]}, reveal {down[1]}",
                        "says": _("Turn over %(a)s and %(b)s.", a=down[0], b=down[1])})
        else:
            out.append({"text": f"reveal {down[0]}", "says": _("Turn over %(a)s.", a=down[0])})
    elif kind == "turn":
        target = high["cell"] if high is not None and _number(high["value"]) > _LOW else None
        flip = next((c for c in down if c != target), None)
        target = target or (down[1] if len(down) > 1 else (high["cell"] if high else None))
        if "draw" in legal and target and flip and target != flip:
            if high is not None and target == high["cell"]:
                says = _("Draw a card: a %(low)s or less replaces your %(card)s on %(cell)s; anything "
                         "higher is discarded and %(flip)s is turned over.", low=_LOW,
                         card=card_text(high["value"]), cell=target, flip=flip)
            else:
                says = _("Draw a card: a %(low)s or less goes on %(cell)s; anything higher is discarded "
                         "and %(flip)s is turned over.", low=_LOW, cell=target, flip=flip)
            out.append({"text": f"draw: if {_LOW} or less swap {target}, else flip {flip}", "says": says})
        if "take" in legal and target:
            out.append({"text": f"take swap {target}",
                        "says": _("Take the %(card)s from the discard pile and put it on %(cell)s.",
                                  card=card_text(view.get("discard_top")), cell=target)})
        other = next((m for m in legal if m.startswith(("action ", "play "))), None)
        if other:
            out.append({"text": other, "says": describe(view, [other])})
    elif kind == "place_drawn":
        target = high["cell"] if high is not None else (down[0] if down else None)
        if target and f"swap {target}" in legal:
            out.append({"text": f"swap {target}", "says": _("Put the card you drew on %(cell)s.", cell=target)})
        if down and f"flip {down[0]}" in legal:
            out.append({"text": f"flip {down[0]}",
                        "says": _("Discard it and turn over %(cell)s.", cell=down[0])})
    if not out and legal:
        out.append({"text": legal[0], "says": describe(view, [legal[0]])})
    # in the reader's words (issue 28.3: no English on another language's board or mail), which
    # `reply_words.to_english` reads back
    return [{**ex, "text": in_words_of(ex["text"], current())} for ex in out]
