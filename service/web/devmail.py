"""Development mailbox at /dev/mail: every mail the outbox delivered, as its recipient sees it.

Enabled only when `app.config["DEV_MAILBOX"]` is truthy (create_app sets it in development only,
which must be asked for with SKYJO_ENV=development, as `skyjo-pbem serve` does on its embedded
defaults: it shows every player's secret links); every request answers 404 otherwise, whether or
not the blueprint is registered. Ids and filters are checked before they reach a query: a 4xx,
never a 500. The HTML part is served from its own route with a CSP sandbox and shown in a sandboxed
iframe (no scripts, a unique origin); its links open in the whole tab, so a newcomer can play every
seat from one browser.
"""

from __future__ import annotations

from flask import Blueprint, Response, abort, current_app, redirect, render_template, request, url_for
from flask_babel import gettext as _
from sqlalchemy import and_, func, or_, select
from sqlalchemy.orm import Session

from service.mail.delivery import deliver_due
from service.mail.message import build_message
from service.mail.sender import app_engine
from service.mail.transport import DevTransport
from service.store.outbox_models import OutboxMail

devmail_bp = Blueprint("devmail", __name__, url_prefix="/dev/mail")

PAGE_SIZE = 200
MAX_ID = 2**31 - 1  # the outbox's id is a 32-bit INTEGER on PostgreSQL: a larger one is no mail

# The mail's own HTML: no scripts, no plugins, no same-origin access, no forms; links may open the
# top window (user click) or a new tab. Images from anywhere, as a mail client would.
HTML_CSP = (
    "sandbox allow-popups allow-popups-to-escape-sandbox allow-top-navigation; "
    "default-src 'none'; img-src data: http: https:; style-src 'unsafe-inline'; "
    "frame-ancestors 'self'"
)


@devmail_bp.before_request
def _only_when_enabled():
    if not current_app.config.get("DEV_MAILBOX"):
        abort(404)


def _session() -> Session:
    return Session(app_engine(current_app), expire_on_commit=False)


UNSENT = ("dropped", "undeliverable", "suppressed", "failed")  # ended with `sent_at` set, never sent (issue 29)


def _delivered(t):
    """Rows that went out (a held turn mail dropped unsent has `sent_at` too, and transport "dropped";
    so has a mail to an address that bounces or wants no mail)."""
    return and_(t.sent_at.is_not(None), or_(t.transport.is_(None), t.transport.not_in(UNSENT)))


def _get_sent(session: Session, mail_id: int) -> OutboxMail:
    if not 0 < mail_id <= MAX_ID:  # checked here, not by the database (PostgreSQL would raise)
        abort(404)
    row = session.get(OutboxMail, mail_id)
    if row is None or row.sent_at is None or row.transport in UNSENT:
        abort(404)
    return row


@devmail_bp.get("/")
def index():
    to = (request.args.get("to") or "").strip().lower()
    if "\x00" in to:  # no address holds one, and PostgreSQL refuses it in a query
        abort(400)
    t = OutboxMail.__table__.c
    with _session() as s:
        query = select(OutboxMail).where(_delivered(t))
        if to:
            query = query.where(func.lower(t.to_addr) == to)
        mails = list(s.execute(query.order_by(t.sent_at.desc(), t.id.desc()).limit(PAGE_SIZE)).scalars())
        recipients = s.execute(
            select(t.to_addr, func.max(t.to_name), func.count())
            .where(_delivered(t))
            .group_by(t.to_addr)
            .order_by(t.to_addr)
        ).all()
        queued = s.execute(select(func.count()).where(t.sent_at.is_(None))).scalar_one()
    latest = {}
    for m in mails:
        latest.setdefault(m.to_addr, m.id)
    return render_template(
        "dev/mail_index.html",
        mails=mails,
        recipients=recipients,
        to=to,
        queued=queued,
        latest=latest,
        can_deliver=not current_app.config.get("MAIL_URL"),
    )


@devmail_bp.get("/<int:mail_id>")
def show(mail_id: int):
    with _session() as s:
        row = _get_sent(s, mail_id)
        t = OutboxMail.__table__.c
        newer = s.execute(
            select(func.min(t.id)).where(t.to_addr == row.to_addr, t.id > row.id, _delivered(t))
        ).scalar_one()
        older = s.execute(
            select(func.max(t.id)).where(t.to_addr == row.to_addr, t.id < row.id, _delivered(t))
        ).scalar_one()
    msg = build_message(row)
    headers = [(name, str(value)) for name, value in msg.items()]
    return render_template(
        "dev/mail_show.html",
        mail=row,
        headers=headers,
        text=row.text_body or "",  # "": pruned after MAIL_KEEP_DAYS (service.mail.retention)
        has_html=row.html_body is not None,
        newer=newer,
        older=older,
        reply_to=(row.headers or {}).get("Reply-To"),
    )


@devmail_bp.get("/<int:mail_id>/html")
def html(mail_id: int):
    with _session() as s:
        row = _get_sent(s, mail_id)
    if row.html_body is None:
        abort(404)
    body = row.html_body
    base = '<base target="_top">'
    lower = body.lower()
    at = lower.find("<head>")
    body = body[: at + 6] + base + body[at + 6 :] if at >= 0 else base + body
    resp = Response(body, mimetype="text/html")
    resp.headers["Content-Security-Policy"] = HTML_CSP
    resp.headers["Referrer-Policy"] = "no-referrer"
    resp.headers["X-Content-Type-Options"] = "nosniff"
    resp.headers["Cache-Control"] = "no-store"
    return resp


@devmail_bp.get("/<int:mail_id>/raw")
def raw(mail_id: int):
    """The complete message as it went to the SMTP server (RFC 5322 source)."""
    with _session() as s:
        row = _get_sent(s, mail_id)
    resp = Response(build_message(row).as_string(), mimetype="text/plain")
    resp.headers["X-Content-Type-Options"] = "nosniff"
    resp.headers["Cache-Control"] = "no-store"
    return resp


@devmail_bp.post("/<int:mail_id>/reply")
def reply(mail_id: int):
    """The reply box under a mail with a Reply-To (a turn mail): sends what was typed, as the
    recipient's reply quoting the mail, through the same path as a reply received over SMTP/IMAP."""
    from email.message import EmailMessage
    from email.utils import formataddr, make_msgid

    from service.play.reply_service import handle_inbound

    with _session() as s:
        row = _get_sent(s, mail_id)
    reply_to = (row.headers or {}).get("Reply-To")
    if not reply_to:
        abort(404)
    body = (request.form.get("body") or "").strip()
    if not body:
        abort(400)
    msg = EmailMessage()
    msg["From"] = formataddr((row.to_name or "", row.to_addr))
    msg["To"] = reply_to
    msg["Subject"] = "Re: " + row.subject
    msg["Message-ID"] = make_msgid(domain="dev-mailbox.invalid")
    msg["In-Reply-To"] = f"<{row.message_id.strip('<>')}>"
    quoted = "\n".join("> " + line for line in (row.text_body or "").splitlines())
    msg.set_content(
        f"{body}\n\n{_('On %(when)s, SKYJO wrote:', when=row.sent_at.strftime('%Y-%m-%d %H:%M'))}\n{quoted}\n"
    )
    handle_inbound(current_app._get_current_object(), msg.as_bytes())
    if not current_app.config.get("MAIL_URL"):
        deliver_due(app_engine(current_app), DevTransport())
    return redirect(url_for("devmail.index", to=row.to_addr), code=303)


@devmail_bp.post("/deliver")
def deliver_now():
    """Deliver queued mails at once into this mailbox (only without a real MAIL_URL)."""
    if current_app.config.get("MAIL_URL"):
        abort(404)
    deliver_due(app_engine(current_app), DevTransport())
    to = (request.form.get("to") or "").strip()
    return redirect(url_for("devmail.index", to=to) if to else url_for("devmail.index"), code=303)
