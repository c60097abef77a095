"""The page of an address's games (issue 31.4): `/me/<signed link>` from "mail me my links". GET
shows (from each seat's view), POST sets the mail preference and language of every game, or pauses
every running game; each POST carries the session's CSRF token like every form of the app, and the
rematch button is the board's own form (`/s/<token>/rematch`). A forged, expired or no longer valid
link gets a 4xx page that offers to mail a new one."""

from __future__ import annotations

from flask import Blueprint, flash, render_template, request
from flask_babel import gettext as _

from service.play import my_games
from service.play.errors import Invalid
from service.store.db import transaction
from service.web.forms import LinksForm, db_int
from service.web.routes import see_other

bp = Blueprint("my_games", __name__)



def _bad_link(exc: my_games.BadLink):
    """The "mail me my links" form, with why the link did not open (410: expired, 404: not valid)."""
    return render_template("links.html", form=LinksForm(), message=exc.message), 410 if exc.context.get("expired") else 404


@bp.get("/me/<signed>")
def page(signed: str):
    try:
        with transaction() as s:
            found = my_games.page(s, signed)
    except my_games.BadLink as exc:
        return _bad_link(exc)
    return render_template("my_games.html", me=found, signed=signed)


@bp.post("/me/<signed>/settings")
def all_settings(signed: str):
    try:
        with transaction(write=True) as s:
            my_games.set_all(s, signed, request.form.get("mail_pref", ""), request.form.get("lang", ""),
                             calendar=request.form.get("calendar") == "y")
    except my_games.BadLink as exc:
        return _bad_link(exc)
    flash(_("Your settings are saved for all your games."))
    return see_other(f"/me/{signed}")


@bp.post("/me/<signed>/pause")
def pause(signed: str):
    days = request.form.get("days", type=db_int)
    if days is None:
        raise Invalid(_("Give the number of days (1 to 14)."))
    try:
        with transaction(write=True) as s:
            done = my_games.pause_all(s, signed, days)
    except my_games.BadLink as exc:
        return _bad_link(exc)
    if not done:
        flash(_("None of your games is running: there is nothing to pause."))
    for p in done:
        flash(_("%(title)s: your deadlines are paused for %(n)s days.", title=p.title, n=days) if p.until
              else _("%(title)s: not paused. %(why)s", title=p.title, why=p.why))
    return see_other(f"/me/{signed}")
