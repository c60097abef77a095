"""Pages of issue 29: the host's correction of an address that bounces, and an invitee's "I don't
want mail from this service" (GET shows, POST acts; the POST is also the RFC 8058 one-click target
of an invitation's List-Unsubscribe header, so it is authenticated by the seat's link token alone)."""

from __future__ import annotations

from flask import Blueprint, flash, render_template, request
from flask_babel import gettext as _

from service import i18n
from service.play import bounces, usecases
from service.render import board as render
from service.store.db import transaction

bp = Blueprint("bounces", __name__)
OWN_TOKEN_ENDPOINTS = frozenset({"bounces.never_mail"})  # the mail client posts no form


def _see_other(location: str):
    return "", 303, {"Location": location}


@bp.route("/s/<token>/bounced/<int:position>", methods=["GET", "POST"])
def bounced(token: str, position: int):
    message, email, status = None, "", 200
    if request.method == "POST":
        email = (request.form.get("email") or "").strip()
        try:
            with transaction(write=True) as s:
                target = bounces.correct_address(s, token, position, email)
        except usecases.Invalid as exc:  # the page again, the address kept
            message, status = exc.message, 400
        else:
            flash(_("%(name)s's address is corrected; the mail went to the new address.", name=target.name))
            return _see_other(render.seat_path(token))
    with transaction() as s:
        _host, target, game = bounces.bounced_seat(s, token, position)
        title = i18n.game_title([r.name for r in usecases.seats_of(s, game.id)])
    return render_template("bounced.html", token=token, target=target, game=game, title=title,
                           message=message, email=email or target.email), status


@bp.get("/s/<token>/never")
def never_mail_page(token: str):
    with transaction() as s:
        seat, _game = usecases.seat_by_token(s, token)
    return render_template("never.html", seat=seat, token=token, never_path=f"/s/{token}/never")


@bp.post("/s/<token>/never")  # RFC 8058 one-click too: the link token authenticates (OWN_TOKEN_ENDPOINTS)
def never_mail(token: str):
    with transaction(write=True) as s:
        bounces.never_mail(s, token)
    return render_template("message.html", title=_("No mail from this service"), message=_(
        "Done: we will never mail this address again.")), 200
