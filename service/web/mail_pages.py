"""The pages about a seat's mail: its mail preference, the game's unsubscribe, the host's correction
of an address that bounces, and an invitee's "I don't want mail from this service" (issue 29). GET
shows, POST acts; the unsubscribe and never-mail POSTs are also RFC 8058 one-click targets of the
List-Unsubscribe header (an invitation's is "never mail me", every other mail's the game's
unsubscribe), so they are authenticated by the seat's link token alone."""

from __future__ import annotations

from flask import Blueprint, flash, render_template, request, url_for
from flask_babel import gettext as _

from service import i18n
from service.play import bounces, lookups, settings
from service.play.errors import Invalid
from service.render.links import seat_path
from service.store.db import transaction
from service.web.routes import see_other

bp = Blueprint("mail_pages", __name__)
OWN_TOKEN_ENDPOINTS = frozenset({"mail_pages.never_mail", "mail_pages.unsubscribe"})  # no form posts



@bp.route("/s/<token>/bounced/<int:position>", methods=["GET", "POST"])
def bounced(token: str, position: int):
    message, email, status = None, "", 200
    if request.method == "POST":
        email = (request.form.get("email") or "").strip()
        try:
            with transaction(write=True) as s:
                target = bounces.correct_address(s, token, position, email)
        except Invalid as exc:  # the page again, the address kept
            message, status = exc.message, 400
        else:
            flash(_("%(name)s's address is corrected; the mail went to the new address.", name=target.name))
            return see_other(seat_path(token))
    with transaction() as s:
        _host, target, game = bounces.bounced_seat(s, token, position)
        title = i18n.game_title([r.name for r in lookups.seats_of(s, game.id)])
    return render_template("bounced.html", token=token, target=target, game=game, title=title,
                           message=message, email=email or target.email), status


@bp.get("/s/<token>/never")
def never_mail_page(token: str):
    with transaction() as s:
        seat, _game = lookups.seat_by_token(s, token)
    return render_template("never.html", seat=seat, token=token, never_path=f"/s/{token}/never")


@bp.post("/s/<token>/never")  # RFC 8058 one-click too: the link token authenticates (OWN_TOKEN_ENDPOINTS)
def never_mail(token: str):
    with transaction(write=True) as s:
        bounces.never_mail(s, token)
    return render_template("message.html", title=_("No mail from this service"), message=_(
        "Done: we will never mail this address again.")), 200


@bp.route("/s/<token>/prefs", methods=["GET", "POST"])
def prefs(token: str):
    if request.method == "POST":
        with transaction(write=True) as s:
            seat = settings.set_mail_pref(s, token, request.form.get("mail_pref", ""),
                                          talk_mail=request.form.get("talk_mail") == "y",
                                          lang=request.form.get("lang") or None,
                                          calendar=request.form.get("calendar") == "y")
        i18n.use_seat(seat.lang)
        flash(_("Your mail preference is saved."))
        return see_other(url_for("mail_pages.prefs", token=token))
    with transaction() as s:
        seat, game = lookups.seat_by_token(s, token)
        names = [r.name for r in lookups.seats_of(s, game.id)]
    return render_template("prefs.html", seat=seat, game=game, token=token, title=i18n.game_title(names))


@bp.get("/s/<token>/unsubscribe")
def unsubscribe_page(token: str):
    with transaction() as s:
        seat, game = lookups.seat_by_token(s, token)
        names = [r.name for r in lookups.seats_of(s, game.id)]
    return render_template("prefs.html", seat=seat, game=game, token=token, unsubscribe=True,
                           title=i18n.game_title(names))


@bp.post("/s/<token>/unsubscribe")  # RFC 8058 one-click: the link token authenticates (OWN_TOKEN_ENDPOINTS)
def unsubscribe(token: str):
    with transaction(write=True) as s:
        settings.unsubscribe(s, token)  # no reminders or digests either
    return render_template("message.html", status=200, title=_("Unsubscribed"), message=_(
        "You will get no more mails for this game. Your link still works, and you can turn mails back "
        "on from its settings page.")), 200
