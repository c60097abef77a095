"""Bounces (issue 29): the VERP return path of every mail, and what a failure or a report says.

* `return_path(key, row_id, domain)`: the SMTP envelope sender of outbox row `row_id`,
  `bounce+<row id>.<mac>@domain` (the mac: HMAC(SECRET_KEY) of the row id, 80 bits in lowercase
  base32, so a lowercasing mail system keeps it). Delivery reports go to it, so a bounce is tied
  to its outbox row by the address it was sent to, never by what its body claims; a report to a
  `bounce+` address with a wrong mac is forged and changes nothing.
* `bounce_targets(msg, domain)`: every `bounce+` recipient of a received mail (the envelope first:
  Delivered-To, X-Original-To, then To), as (row id, mac).
* `report_kind(msg)`: "complaint" (an RFC 5965 ARF feedback report), "permanent" or "temporary"
  (an RFC 3464 delivery status notification read with the stdlib, else the many non-standard
  formats flufl.bounce knows), or None (an auto-reply or anything else sent to the return path).
* `smtp_failure(exc)`: "permanent" or "soft" for an SMTP refusal at send time, None for anything
  else (a render failure, a refused sender: nothing the recipient's address is to blame for).

No Flask, no database.
"""

from __future__ import annotations

import base64
import email.policy
import hmac
import re
import smtplib
from email.message import Message
from email.parser import BytesParser
from email.utils import getaddresses

from service.mail.body import MAX_ADDRESS_HEADER_CHARS, raw_headers

BOUNCE_LOCAL_PART = "bounce"
MAC_BYTES = 10  # 80 bits: 16 base32 characters
_TAG = re.compile(r"^(\d{1,12})\.([a-z2-7]{16})$")


def _mac(key: bytes, row_id: int) -> str:
    digest = hmac.digest(key, f"bounce:{int(row_id)}".encode(), "sha256")[:MAC_BYTES]
    return base64.b32encode(digest).decode().rstrip("=").lower()


def return_path(key: bytes, row_id: int, domain: str) -> str:
    """The envelope sender of outbox row `row_id`: `bounce+<id>.<mac>@domain`."""
    return f"{BOUNCE_LOCAL_PART}+{int(row_id)}.{_mac(key, row_id)}@{domain}"


def parse_target(addr: str, domain: str) -> tuple[int, str] | None:
    """`bounce+<id>.<mac>@<domain>` (any case) -> (id, mac as written, lowercased), else None."""
    local, _, dom = (addr or "").strip().strip("<>").rpartition("@")
    if dom.lower().rstrip(".") != domain.lower().rstrip("."):
        return None
    prefix, sep, tag = local.partition("+")
    m = _TAG.match(tag.lower())
    if not sep or prefix.lower() != BOUNCE_LOCAL_PART or m is None:
        return None
    return int(m[1]), m[2]


def check_target(key: bytes, row_id: int, mac: str) -> bool:
    return hmac.compare_digest(_mac(key, row_id), mac)


def headers_of(raw: bytes | Message) -> Message:
    """A received mail's headers only (cheap: the body of a huge mail is not parsed)."""
    if isinstance(raw, Message):
        return raw
    return BytesParser(policy=email.policy.default).parsebytes(bytes(raw), headersonly=True)


def bounce_targets(msg: Message, domain: str) -> list[tuple[int, str]]:
    """Every `bounce+<id>.<mac>@domain` recipient, in order: the envelope (added by our SMTP
    receiver and by most MTAs on final delivery) first, then To. The headers are read raw and an
    oversized one is passed over (the stdlib's parse of a header with 20,000 addresses costs seconds,
    issue 34.3b; a real report has one recipient)."""
    found: list[tuple[int, str]] = []
    raw = raw_headers(msg)
    for header in ("delivered-to", "x-original-to", "envelope-to", "to"):
        values = [value for name, value in raw if name == header and len(value) <= MAX_ADDRESS_HEADER_CHARS]
        for _, a in getaddresses(values):
            target = parse_target(a, domain)
            if target and target not in found:
                found.append(target)
    return found


# ------------------------------------------------------------------------------ what a report says
def _report_type(part: Message) -> str:
    return str(part.get_param("report-type", "") or "").lower()


def _status_kind(fields: Message) -> str | None:
    """One recipient block of a delivery-status part (RFC 3464 2.3)."""
    action = str(fields.get("Action", "") or "").strip().lower()
    status = str(fields.get("Status", "") or "").strip()
    if action == "failed" or status.startswith("5"):
        return "temporary" if status.startswith("5.2.2") else "permanent"  # 5.2.2: mailbox full
    if action in ("delayed", "relayed", "delivered", "expanded") or status.startswith(("2", "4")):
        return "temporary" if action == "delayed" or status.startswith("4") else "delivered"
    return None


def _dsn_kind(msg: Message) -> str | None:
    kinds: list[str] = []
    for part in msg.walk():
        if part.get_content_type() != "message/delivery-status":
            continue
        blocks = part.get_payload()
        for block in blocks[1:] if isinstance(blocks, list) else []:  # [0]: the per-message fields
            kind = _status_kind(block)
            if kind:
                kinds.append(kind)
    for kind in ("permanent", "temporary", "delivered"):
        if kind in kinds:
            return kind
    return None


def report_kind(msg: Message) -> str | None:
    """"complaint" | "permanent" | "temporary" | None (see the module docstring)."""
    parts = list(msg.walk())
    if any(p.get_content_type() == "message/feedback-report" for p in parts) or (
        msg.get_content_type() == "multipart/report" and _report_type(msg) == "feedback-report"
    ):
        return "complaint"
    kind = _dsn_kind(msg)
    if kind in ("permanent", "temporary"):
        return kind
    if kind == "delivered":  # a success or relay notice: nothing failed
        return None
    from flufl.bounce import all_failures

    try:
        temporary, permanent = all_failures(msg)
    except Exception:  # noqa: BLE001 - a report no detector can read is no bounce we know of
        return None
    if permanent:
        return "permanent"
    return "temporary" if temporary else None


# ------------------------------------------------------------------------------ failures at send time
_ENHANCED = re.compile(rb"\b([245])\.(\d{1,3})\.(\d{1,3})\b")


def _kind_of(code: int, text: bytes | str) -> str | None:
    raw = text if isinstance(text, bytes) else str(text).encode("utf-8", "replace")
    enhanced = _ENHANCED.search(raw)
    if 500 <= code < 600:
        if enhanced and enhanced.group(1, 2, 3) == (b"5", b"2", b"2"):  # mailbox full: try again
            return "soft"
        return "permanent"
    if 400 <= code < 500:
        return "soft"
    return None


def smtp_failure(exc: BaseException) -> tuple[str, str] | None:
    """("permanent" | "soft", the server's answer) for a refusal the recipient's address is to
    blame for: the recipient refused at RCPT, or the data refused for an address reason (5.1.x,
    5.2.x); a data refusal for another reason is soft (it may be our message, not the address:
    retried up to the limit). None for anything else."""
    if isinstance(exc, smtplib.SMTPRecipientsRefused):
        answers = list(exc.recipients.values())
        if not answers:
            return None
        code, text = answers[0]
        kind = _kind_of(int(code), text)
        return (kind, f"{code} {text.decode('utf-8', 'replace') if isinstance(text, bytes) else text}") if kind else None
    if isinstance(exc, smtplib.SMTPSenderRefused):
        return None  # our own envelope sender: not the recipient's fault
    if isinstance(exc, smtplib.SMTPResponseException):
        kind = _kind_of(int(exc.smtp_code), exc.smtp_error)
        answer = exc.smtp_error.decode("utf-8", "replace") if isinstance(exc.smtp_error, bytes) else str(exc.smtp_error)
        enhanced = _ENHANCED.search(exc.smtp_error if isinstance(exc.smtp_error, bytes) else answer.encode())
        if kind == "permanent" and not (enhanced and enhanced.group(2) in (b"1", b"2")):
            kind = "soft"
        return (kind, f"{exc.smtp_code} {answer}") if kind else None
    return None
