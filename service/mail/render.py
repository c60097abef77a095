"""Mail bodies from queued intents: `render_intent` turns an outbox row's template name and JSON
context (a seat's view, never the state) into the text and HTML bodies, in the mail's language, when
the sender takes the row. No database here; the app's templates and translations only."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

import jinja2
from flask import current_app
from flask_babel import get_locale, get_translations

from service.render import board as render


def is_view(value) -> bool:
    return isinstance(value, dict) and "players" in value and "version" in value and "viewer" in value


_CONTAINERS = (dict, list)  # a tuple: isinstance with `dict | list` is slower


def _revive(value):
    if isinstance(value, dict):
        if len(value) == 1 and "$dt" in value:
            return datetime.fromisoformat(value["$dt"])
        if is_view(value):
            return value  # an engine view: no datetimes in it
        # only containers are walked (a call per scalar cost more than the rest of this)
        return {k: _revive(v) if isinstance(v, _CONTAINERS) else v for k, v in value.items()}
    if isinstance(value, list):
        return [_revive(v) if isinstance(v, _CONTAINERS) else v for v in value]
    return value


def command_help() -> list[str]:
    from engine.plans import COMMAND_HELP

    return [render._(line) for line in COMMAND_HELP.split("\n")]


def clock_lines(data: dict) -> dict:
    """`clock_context`'s data as the lines the templates show (needs the mail's translations)."""
    from service.clock import text as clock_service

    return {"deadline_text": clock_service.own_line(data["mine"]),
            "clock_notes": clock_service.others_lines(data["others"], data["tz"])
            + [clock_service.rules_line(**data["rules"])]}


def render_intent(template: str, context: dict) -> tuple[str, str]:
    """The text and HTML bodies of a queued intent (needs an app context for templates and
    translations; no database). Links are built from the token and base URL stored at queue time."""
    ctx = _revive(context)
    token, base = ctx.pop("token"), ctx.pop("base")
    env, translations = _mail_env()
    with render.translations_bound(translations):  # the group titles are translated too
        if ctx.pop("links", False):
            groups = render.move_groups(ctx["view"])
            for g in groups:
                for opt in g["options"]:
                    opt["url"] = base + render.move_path(token, opt["slug"], ctx["view"]["version"])
            ctx["groups"] = groups
        else:
            ctx.setdefault("groups", [])
        if "clock" in ctx:
            ctx.update(clock_lines(ctx.pop("clock")))
        ctx.update(token=token, r=render, seat_url=base + render.seat_path(token), prefs_url=f"{base}/s/{token}/prefs",
                   base_url=base, reply_help=command_help() if ctx.pop("asks", False) else None)
        return (env.get_template(f"mail/{template}.txt").render(ctx),
                env.get_template(f"mail/{template}.html").render(ctx))


def _mail_env():
    """The app's Jinja environment for mails, one per locale: the same templates and globals, with
    the locale's translations bound once (Flask-Babel's template gettext looks them up again for
    every string) and without the request context processors (a mail has no request)."""
    app = current_app._get_current_object()
    locale = str(get_locale())
    envs = app.extensions.setdefault("mail_jinja", {})
    found = envs.get(locale)
    if found is None:
        # a fresh environment (an overlay would share the i18n extension, and with it the globals,
        # of the app's environment) with the app's loader, escaping, filters, tests and globals
        base = app.jinja_env
        env = _MailEnvironment(loader=base.loader, autoescape=base.autoescape, undefined=base.undefined,
                               extensions=["jinja2.ext.i18n"], auto_reload=base.auto_reload)
        env.filters.update(base.filters)
        env.tests.update(base.tests)
        env.globals.update(base.globals)
        env.policies.update(base.policies)
        t = get_translations()
        env.install_gettext_callables(gettext=t.ugettext, ngettext=t.ungettext, newstyle=True,
                                      pgettext=t.upgettext, npgettext=t.unpgettext)
        env.globals["_"] = env.globals["gettext"] = _mail_gettext(t)
        env.globals["mail_css"] = render.style_sheet(env, "mail/_mail.css")
        found = envs[locale] = (env, t)
    return found


class _MailEnvironment(jinja2.Environment):
    """Templates get their globals as one plain dict (Jinja's default is a ChainMap over the
    environment's, which every render copies key by key in Python: about a third of a turn mail's
    template time). The mail environment's globals are all set before its first template loads."""

    def make_globals(self, d):
        return {**self.globals, **(d or {})}


def _mail_gettext(translations) -> Callable[..., str]:
    """The templates' `_` and `gettext`: what the i18n extension's newstyle gettext does (markup in
    autoescaped templates, always a format string, variables escaped by the markup), in one call
    instead of three, and a message without variables is translated once per template kind."""
    from markupsafe import Markup

    ugettext = translations.ugettext
    constants: dict[tuple[str, bool], str] = {}

    @jinja2.pass_eval_context
    def gettext(eval_ctx, string: str, /, **variables) -> str:
        if not variables:
            key = (string, eval_ctx.autoescape)
            found = constants.get(key)
            if found is None:
                found = (Markup(ugettext(string)) if key[1] else ugettext(string)) % {}
                if len(constants) < 4096:
                    constants[key] = found
            return found
        rv = ugettext(string)
        return (Markup(rv) if eval_ctx.autoescape else rv) % variables

    return gettext


def renderer_for(app) -> Callable[[str, dict], tuple[str, str]]:
    """The outbox renderer of `app` (senders run outside requests: it enters the app's context,
    unless that is the active one already, as in `render_pending` called inside it)."""
    from flask import has_app_context

    def renderer(template: str, context: dict) -> tuple[str, str]:
        if has_app_context() and current_app._get_current_object() is app:
            return render_intent(template, context)  # e.g. render_pending inside the app's context
        with app.app_context():
            return render_intent(template, context)

    return renderer
