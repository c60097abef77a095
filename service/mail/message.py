"""From an outbox row to the message on the wire: Message-IDs, bodies from intents, the MIME message.

* `new_message_id` / `thread_root_id`: a unique Message-ID per mail, and a fixed root per game and
  seat that In-Reply-To/References point to, so a player's mail client threads a game together
  (Gmail also wants the subject to stay the same).
* `render_bodies`: a row queued as an intent (`template` + JSON `context`) gets its text and HTML
  bodies from a `Renderer` (service.mail.render makes the app's; it needs no database), CSS inlined
  by css-inline, since mail clients drop style sheets.
* `build_message`: the RFC 5322 message of a row with the stdlib's EmailMessage (no app context):
  text/plain, plus text/html as multipart/alternative, plus the deadline's text/calendar part of a
  seat that asked for calendar invitations (`service.mail.ical`, issue 32.2); every header value cleaned again
  (service.mail.config), and `Auto-Submitted: auto-generated` so auto-responders stay quiet. The
  same row always gives the same bytes (issue 20.9): delivery is at least once, and a mail sent
  again after a crash is the same mail, Message-ID, Date and MIME boundary included. With a
  `signer` (service.mail.signing, DKIM) the signature is made from the same row too: the same bytes.
"""

from __future__ import annotations

import email.policy
import functools
import hashlib
import re
import secrets
import time
from collections.abc import Callable
from datetime import UTC, datetime
from email.headerregistry import Address
from email.message import EmailMessage
from email.utils import format_datetime
from typing import Protocol

import css_inline
from flask import current_app, has_app_context

from service.mail.config import clean_address, clean_header_text, clean_thread_key, parse_from
from service.mail.ical import add_parts
from service.store.outbox_models import OutboxMail, utcnow

Renderer = Callable[[str, dict], tuple[str, str | None]]
"""(template, context) -> (text body, HTML body before CSS inlining); needs no database."""
SIGNER_KEY = "outbox_signer"  # app.extensions[SIGNER_KEY]: the DkimSigner (`create_app`), or None


class Signer(Protocol):
    def sign(self, msg: EmailMessage, signed_at: datetime) -> EmailMessage: ...

_OWN_HEADERS = {"from", "to", "cc", "bcc", "subject", "date", "message-id"}
_inliner = css_inline.CSSInliner(load_remote_stylesheets=False, keep_at_rules=True)


def new_message_id(domain: str) -> str:
    """`<time.random@domain>`: the time in ns (hex) first, so new ids land at the end of the unique
    index instead of on a random page of it, then 128 random bits, which make it unique."""
    return f"<{time.time_ns():x}.{secrets.token_hex(16)}@{domain}>"


def thread_root_id(thread_key: str, domain: str) -> str:
    """The fixed Message-ID every mail of one thread (e.g. one game and seat) refers to."""
    return f"<{clean_thread_key(thread_key)}@{domain}>"


def inline_css(html: str) -> str:
    """`<style>` rules into `style=` attributes (mail clients drop style sheets); never fetches."""
    return _inliner.inline(html)


class RenderFailed(Exception):
    """The renderer could not turn an intent into bodies (a bug or no renderer configured)."""


def resolve_renderer(renderer: Renderer | None) -> Renderer | None:
    """The renderer to use: the one given, else the active Flask app's (`create_app` sets it)."""
    if renderer is not None:
        return renderer
    if has_app_context():
        return current_app.extensions.get("outbox_renderer")
    return None


def resolve_signer(signer: Signer | None) -> Signer | None:
    """The DKIM signer to use: the one given, else the active Flask app's (None: unsigned)."""
    if signer is not None:
        return signer
    if has_app_context():
        return current_app.extensions.get(SIGNER_KEY)
    return None


def render_bodies(template: str, context: dict | None, renderer: Renderer | None) -> tuple[str, str | None]:
    """(text, HTML with CSS inlined) of an intent, or RenderFailed (naming only the exception's
    class: a context may hold what a log must not)."""
    if renderer is None:
        raise RenderFailed("no renderer configured for template mails")
    try:
        text, html = renderer(template, context or {})
    except Exception as exc:  # noqa: BLE001 - a template bug must not stop the other mails
        raise RenderFailed(type(exc).__name__) from exc
    return text, inline_css(html) if html is not None else None


def _boundary(message_id: str, bodies: str) -> str:
    """The MIME boundary of a mail: derived from its Message-ID, so a retry (or a mail sent again
    after a sender died between the server's 250 and marking it sent) has the same bytes; varied
    only in the unlikely case that a body contains it (as the stdlib does with its random one)."""
    seed = hashlib.sha256(message_id.encode("utf-8", "surrogateescape")).hexdigest()[:32]
    boundary, n = f"=_skyjo_{seed}", 0
    while boundary in bodies:
        n += 1
        boundary = f"=_skyjo_{seed}.{n}"
    return boundary


@functools.lru_cache(maxsize=4096)
def _header(name: str, value: str):
    """`name: value` parsed by the default policy's header factory, once per distinct value: a
    game's From, To, Subject, References and List-Unsubscribe come back in every mail it sends, and
    parsing headers is most of the cost of building a message. Header objects are immutable;
    EmailMessage stores a given one as it is."""
    return email.policy.default.header_factory(name, value)


def build_message(row: OutboxMail, signer: Signer | None = None) -> EmailMessage:
    """The RFC 5322 message for a row (stdlib only): the same bytes every time it is built (the
    Date is the row's creation time, the MIME boundary comes from the Message-ID); with a `signer`,
    DKIM-signed as of that creation time (the same signature every time)."""
    msg = EmailMessage()
    msg["From"] = _header("From", str(parse_from(row.from_addr)))
    to = Address(display_name=clean_header_text(row.to_name or "", 100), addr_spec=clean_address(row.to_addr))
    msg["To"] = _header("To", str(to))
    msg["Subject"] = _header("Subject", clean_header_text(row.subject, 250))
    created = row.created_at or utcnow()
    msg["Date"] = format_datetime(created.replace(tzinfo=UTC))
    msg["Message-ID"] = row.message_id
    for name, value in (row.headers or {}).items():
        name = re.sub(r"[^A-Za-z0-9-]", "", str(name))
        if name and name.lower() not in _OWN_HEADERS:
            msg[name] = _header(name, clean_header_text(value, 2000))
    msg["Auto-Submitted"] = _header("Auto-Submitted", "auto-generated")
    msg["X-Auto-Response-Suppress"] = _header("X-Auto-Response-Suppress", "OOF, AutoReply")
    msg.set_content(row.text_body or "")
    boundary = _boundary(row.message_id, (row.text_body or "") + (row.html_body or ""))
    if row.html_body is not None:
        msg.make_alternative(boundary=boundary)
        msg.add_alternative(row.html_body, subtype="html")
    if getattr(row, "calendar", None):  # issue 32.2: the deadline's calendar invitation / cancellation
        add_parts(msg, row, boundary)
    return signer.sign(msg, created) if signer is not None else msg
