"""One subject per kind of mail, so an inbox tells a turn from a result or a notice at a glance:

    Your turn · round 2 · SKYJO with Hanna, Bo and Carla
    Reminder: your turn · round 2 · SKYJO with Hanna, Bo and Carla
    Round 2 over: Bo 4, Hanna 10, Carla 12
    Game over: Carla wins            (ties: "Game over: Bo and Carla win")

and invitations, answers to replies, notices and table talk with their own. Every mail of a game
and seat still lands in one thread: threading is by In-Reply-To/References (`compose._thread`),
not by subject. Written with gettext/ngettext when the mail is queued, from the mail's context
(the seat's view, never the state: a subject names only public scores)."""

from __future__ import annotations

from flask_babel import gettext as _
from flask_babel import ngettext

_NOTICE_CHARS = 70


def names_text(names: list[str]) -> str:
    """"Hanna", "Hanna and Bo", "Hanna, Bo and Carla"."""
    if len(names) <= 1:
        return "".join(names)
    return _("%(first)s and %(last)s", first=", ".join(names[:-1]), last=names[-1])


def round_over(view: dict, record: dict | None = None) -> str:
    """"Round 2 over: Bo 4, Hanna 10, Carla 12": the round's scores, lowest first (C10)."""
    record = record or view["rounds"][-1]
    names = {p["seat"]: p["name"] for p in view["players"]}
    scored = sorted(
        ((sc, seat) for seat, sc in enumerate(record.get("scores") or []) if sc is not None and seat in names)
    )
    scores = ", ".join(f"{names[seat]} {sc}" for sc, seat in scored)
    return _("Round %(n)s over: %(scores)s", n=record.get("round"), scores=scores)


def game_over(view: dict) -> str:
    """"Game over: Carla wins", every winner named when they share the win (C12)."""
    names = {p["seat"]: p["name"] for p in view["players"]}
    winners = [names[s] for s in view.get("winners") or [] if s in names]
    return ngettext(
        "Game over: %(names)s wins", "Game over: %(names)s win", len(winners), names=names_text(winners)
    )


def your_turn(view: dict, title: str, *, reminder: bool = False) -> str:
    if reminder:
        return _("Reminder: your turn · round %(n)s · %(title)s", n=view.get("round"), title=title)
    return _("Your turn · round %(n)s · %(title)s", n=view.get("round"), title=title)


def notice(message: str, title: str) -> str:
    """A notice's first sentence (shortened), then the game: "Bo accepted the invitation · SKYJO ..."."""
    first = (message or "").strip().splitlines()[0] if (message or "").strip() else ""
    first = first.split(". ")[0].rstrip(".")
    if len(first) > _NOTICE_CHARS:
        first = first[: _NOTICE_CHARS - 1].rstrip() + "…"
    return _("%(what)s · %(title)s", what=first, title=title) if first else title


def subject_for(template: str, title: str, ctx: dict) -> str:
    """The subject of a mail of kind `template` about the game titled `title`."""
    view = ctx.get("view")
    if template == "turn" and view:
        if ctx.get("round_over"):
            return round_over(view, ctx["round_over"])
        return your_turn(view, title, reminder=bool(ctx.get("reminder")))
    if template == "round_over" and view:
        return round_over(view, ctx.get("round_over"))
    if template == "game_over" and view:
        return game_over(view)
    if template == "answer":
        if ctx.get("error"):
            return _("Your reply was not played · %(title)s", title=title)
        return _("Your reply was played · %(title)s", title=title)
    if template == "invitation":
        host = ctx.get("host")
        name = host.get("name", "") if isinstance(host, dict) else getattr(host, "name", "")
        return _("Invitation from %(host)s: %(title)s", host=name, title=title)
    if template == "created":
        return _("Your game is set up: %(title)s", title=title)
    if template == "notice":
        return notice(ctx.get("message", ""), title)
    if template == "talk":
        messages = (ctx.get("talk") or {}).get("messages") or []
        if messages:
            return _("%(name)s wrote · %(title)s", name=messages[-1].get("name", ""), title=title)
        return _("Table talk · %(title)s", title=title)
    return title
