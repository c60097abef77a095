"""Mail bodies from queued intents: `render_intent` turns an outbox row's template name and JSON
context (a seat's view, never the state) into the text and HTML bodies when the sender takes the
row. No database here: the app's templates (templates/mail/, through Flask's `render_template`,
the same Jinja environment and macros as the pages) and translations only.

A mail's language is the app's locale in the sender's app context (Flask-Babel's `get_locale`);
the move links, the group titles and the clock's sentences are written at render time in it.
A mail that asks for a decision gets the "Play the whole turn by replying" box: examples written
for the seat's own board (`reply_examples`), then the command help (`words.sentences`)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from flask import current_app, has_app_context, render_template

from service.i18n import current, speaking
from service.render.clock_text import clock_lines
from service.render.links import move_path, seat_path
from service.render.moves import move_groups
from service.render.reply_box import reply_examples
from service.render.since import by_player, changed_cells
from service.words.reply_words import in_words_of
from service.words.sentences import command_help, with_texts


def is_view(value) -> bool:
    return isinstance(value, dict) and "players" in value and "version" in value and "viewer" in value


def _revive(value):
    """The intent's JSON context with its datetimes (stored as {"$dt": iso}) back as datetimes."""
    if isinstance(value, dict):
        if len(value) == 1 and "$dt" in value:
            return datetime.fromisoformat(value["$dt"])
        if is_view(value):
            return value  # an engine view: no datetimes in it
        return {k: _revive(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_revive(v) for v in value]
    return value


def _since(since: dict | None, view) -> dict | None:
    """The others' moves since the seat's previous mail (`mail.talk.events`) as the `since` macro
    and the boards show them: runs by player in the reader's language, the cells they changed."""
    if not since or not is_view(view):
        return None
    names = [p["name"] for p in view["players"]]
    return {"runs": by_player(since["events"], names), "earlier": since.get("earlier", 0),
            "changed": changed_cells(since["events"])}


def render_intent(template: str, context: dict) -> tuple[str, str]:
    """The text and HTML bodies of a queued intent (needs an app context for templates and
    translations; no database). Links are built from the token and base URL stored at queue time."""
    ctx = _revive(context)
    with speaking(ctx.pop("lang", None)):  # the recipient's language (issue 17)
        return _render(template, ctx)


def _render(template: str, ctx: dict) -> tuple[str, str]:
    token, base = ctx.pop("token", None), ctx.pop("base")  # no token: a mail for an address, not a seat
    if ctx.get("events") and is_view(ctx.get("view")):  # the move's events in the reader's language
        ctx["events"] = with_texts(ctx["events"], [p["name"] for p in ctx["view"]["players"]])
    ctx["since"] = _since(ctx.get("since"), ctx.get("view"))
    for g in ctx.get("games") or ():  # the digest: each game's own
        g["since"] = _since(g.get("since"), g.get("view"))
    if ctx.pop("links", False):
        view = ctx["view"]
        groups = move_groups(view)
        bound = view.get("decision") or view["version"]  # (a view queued before decision ids: its version)
        for g in groups:
            for opt in g["options"]:
                opt["url"] = base + move_path(token, opt["slug"], bound)
        ctx["groups"] = groups
    else:
        ctx.setdefault("groups", [])
    if "clock" in ctx:
        ctx.update(clock_lines(ctx.pop("clock")))
    asks = ctx.pop("asks", False)
    box = reply_examples(ctx.get("view"))  # in the reader's words (`reply_words` reads them back)
    if ctx.get("legal"):  # an answer's "Possible now:" moves, as the reader would type them
        ctx["legal"] = [in_words_of(t, current()) for t in ctx["legal"]]
    action = is_view(ctx.get("view")) and "action" in ctx["view"]
    ctx.update(base_url=base, reply_help=command_help(action) if asks else None, reply_box=box if asks else [])
    if token is not None:
        ctx.update(token=token, seat_url=base + seat_path(token), prefs_url=f"{base}/s/{token}/prefs")
    return render_template(f"mail/{template}.txt", **ctx), render_template(f"mail/{template}.html", **ctx)


def renderer_for(app) -> Callable[[str, dict], tuple[str, str]]:
    """The outbox renderer of `app` (senders run outside requests: it enters the app's context,
    unless that is the active one already, as in `render_pending` called inside it)."""

    def renderer(template: str, context: dict) -> tuple[str, str]:
        if has_app_context() and current_app._get_current_object() is app:
            return render_intent(template, context)  # e.g. render_pending inside the app's context
        with app.app_context():
            return render_intent(template, context)

    return renderer
