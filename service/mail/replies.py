"""Reply mails, around their text: whether to read one at all, which seat it is for, and once.

* `classify(msg, our_addresses)` names why a mail must be ignored (auto-replies, bounces, lists, our
  own mail: no loops).
* `reply_address` / `parse_reply_address` make and read the seat's secret reply address
  `play+<token>[.<version>]@domain` (the From header is trivially forged; the address is the key).
* `message_key` processes each mail once; `referenced_ids` maps a reply to the turn mail it answers.
* `read_reply` does all of it in one call for the service, with the command lines read by
  service.mail.reply_text. No Flask, no database.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass
from email.message import EmailMessage, Message
from email.utils import getaddresses, parseaddr

from service.mail.body import MAX_ADDRESS_HEADER_CHARS, MailTooComplex, as_message, raw_headers
from service.mail.reply_text import ReplyCommands, extract_commands

log = logging.getLogger(__name__)

REPLY_LOCAL_PART = "play"


# ------------------------------------------------------------------------------ mails to ignore
_BULK = {"bulk", "junk", "list", "auto_reply", "auto-reply"}


def _norm_addr(addr: str) -> str:
    """`Ann <Play+X@Example.ORG>` -> `play@example.org` (lower case, no +tag) for loop checks."""
    _, a = parseaddr(addr or "")
    a = a.strip().lower()
    if "@" not in a:
        return a
    local, _, domain = a.rpartition("@")
    return f"{local.split('+', 1)[0]}@{domain}"


def classify(msg: EmailMessage | Message | bytes, our_addresses: Iterable[str] = ()) -> str | None:
    """Why this mail must be ignored (a short reason for the log), or None to process it.
    Auto-Submitted other than `no` (RFC 3834), bounces (empty Return-Path, MAILER-DAEMON, delivery
    reports), Precedence bulk/junk/list/auto_reply, auto-reply markers, mailing lists, and mail from
    any of `our_addresses` (compared without +tags, so play+x@ and play@ are the same)."""
    m = as_message(msg)
    auto = str(m.get("Auto-Submitted", "") or "").split(";")[0].strip().lower()
    if auto and auto != "no":
        return f"auto-submitted: {auto}"
    return_path = m.get_all("Return-Path") or []
    if any(str(rp).strip() in ("<>", "") for rp in return_path):
        return "bounce: empty return path"
    sender = str(m.get("From", "") or "")
    if "mailer-daemon" in sender.lower():
        return "bounce: from MAILER-DAEMON"
    ctype = m.get_content_type()
    if ctype == "multipart/report" or ctype == "message/delivery-status":
        return "bounce: delivery report"
    precedence = str(m.get("Precedence", "") or "").strip().lower()
    if precedence in _BULK:
        return f"precedence: {precedence}"
    for h in ("X-Autoreply", "X-Autorespond", "X-Auto-Reply"):
        if m.get(h) is not None and str(m.get(h)).strip().lower() not in ("no", "false", "0"):
            return f"auto-reply: {h}"
    if m.get("List-Id") is not None or m.get("List-Post") is not None:
        return "mailing list"
    ours = {_norm_addr(a) for a in our_addresses if a}
    senders = [sender, *(str(x) for x in m.get_all("Sender") or [])]
    if any(_norm_addr(s) in ours for s in senders if s):
        return "from our own address"
    return None


# ------------------------------------------------------------------------------ seat addresses
_TAG = re.compile(r"^([A-Za-z0-9_-]{1,200})(?:\.(\d{1,9}))?$")


def reply_address(domain: str, token: str, version: int | None = None, local: str = REPLY_LOCAL_PART) -> str:
    """The seat's secret reply address for a turn mail: `play+<token>@<domain>`, or with the game
    version the mail shows, `play+<token>.<version>@<domain>`, so a reply to an old turn mail is
    recognised as stale without any lookup. The service's tags are `<game id>-<lowercase base32
    HMAC>` (`tokens.reply_token`): no dot, and unchanged by mail systems that lowercase addresses."""
    if not _TAG.match(token) or "." in token:
        raise ValueError("a seat token is base64url text")
    tag = token if version is None else f"{token}.{int(version)}"
    return f"{local}+{tag}@{domain}"


def parse_reply_address(
    addr: str, domain: str, local: str = REPLY_LOCAL_PART
) -> tuple[str, int | None] | None:
    """`play+<token>[.<version>]@<domain>` (any display name; domain and `play` in any case; the token
    as written: the service compares its lowercase tags case-insensitively) -> (token, version or
    None); anything else -> None."""
    if not addr or not domain:
        return None
    _, a = parseaddr(addr)
    a = a.strip()
    if a.count("@") != 1:
        return None
    lp, dom = a.split("@")
    if dom.lower().rstrip(".") != domain.lower().rstrip("."):
        return None
    prefix, sep, tag = lp.partition("+")
    m = _TAG.match(tag)
    if not sep or prefix.lower() != local.lower() or m is None:
        return None
    return m[1], (int(m[2]) if m[2] is not None else None)


def seat_token_from_address(addr: str, domain: str, local: str = REPLY_LOCAL_PART) -> str | None:
    """`play+<token>[.<version>]@<domain>` -> token, else None."""
    parsed = parse_reply_address(addr, domain, local)
    return parsed[0] if parsed else None


# Address headers are read raw, never through the stdlib's structured header parser, and only up to
# these sizes (issue 34.3b: a To of 20,000 made-up reply addresses, 1.16 MB, cost 25 s of CPU): a mail
# with a longer one is not read at all; of the reply addresses found, the first few are looked up.
MAX_REPLY_ADDRESSES = 5
_ADDRESS_HEADERS = ("Delivered-To", "X-Original-To", "Envelope-To", "To", "Cc")
# ... and every other header read through the stdlib's header classes (their parse of a long value
# costs seconds too); References is read raw (`referenced_ids`)
_CHECKED_HEADERS = frozenset(h.lower() for h in (
    *_ADDRESS_HEADERS, "From", "Sender", "Reply-To", "Bcc", "Return-Path", "Message-ID", "Subject",
    "Auto-Submitted", "Precedence", "List-Id", "List-Post", "X-Autoreply", "X-Autorespond", "X-Auto-Reply",
    "Content-Type"))
MAX_REFERENCES_CHARS = 16_384  # the newest ids of a References header (they stand at its end)


def _oversized_header(m: EmailMessage) -> str | None:
    """The first address (or id) header longer than MAX_ADDRESS_HEADER_CHARS, named, or None."""
    for name, value in m.raw_items():
        if name.lower() in _CHECKED_HEADERS and len(value) > MAX_ADDRESS_HEADER_CHARS:
            return f"{name} header of {len(value)} characters (at most {MAX_ADDRESS_HEADER_CHARS})"
    return None


def _reply_addresses(m: EmailMessage, domain: str, local: str) -> list[tuple[str, int | None]]:
    """The first MAX_REPLY_ADDRESSES distinct reply addresses, envelope headers first."""
    found: dict[tuple[str, int | None], None] = {}
    raw = raw_headers(m)
    for header in _ADDRESS_HEADERS:
        values = [value for name, value in raw if name == header.lower()]
        for _, a in getaddresses(values):
            parsed = parse_reply_address(a, domain, local)
            if parsed:
                found.setdefault(parsed)
                if len(found) >= MAX_REPLY_ADDRESSES:
                    return list(found)
    return list(found)


def seat_tokens(msg: EmailMessage | Message | bytes, domain: str, local: str = REPLY_LOCAL_PART) -> list[str]:
    """Seat tokens of every play+<token>@domain recipient of a mail, in order: the envelope
    (Delivered-To / X-Original-To, added by our SMTP receiver and most MTAs) first, then To and Cc."""
    found: list[str] = []
    for token, _ in _reply_addresses(as_message(msg), domain, local):
        if token not in found:
            found.append(token)
    return found


def message_key(msg: EmailMessage | Message | bytes, raw: bytes | None = None) -> str:
    """A key to process each mail once: its Message-ID (without <>, spaces and control characters:
    a NUL cannot be stored in PostgreSQL, issue 20.2), or, for a mail without one, a hash of its
    bytes."""
    m = as_message(msg)
    mid = re.sub(r"[\s<>\x00-\x1f\x7f]", "", str(m.get("Message-ID", "") or ""))
    if mid:
        return mid[:250]
    data = raw if raw is not None else (msg if isinstance(msg, bytes) else m.as_bytes())
    return "sha256:" + hashlib.sha256(data).hexdigest()


def referenced_ids(msg: EmailMessage | Message | bytes) -> list[str]:
    """Message-IDs this mail answers (In-Reply-To first, then References, newest last), without <>.
    The service maps them to the turn mail (and so the game version) the reply was written to."""
    m = as_message(msg)
    ids: dict[str, None] = {}  # read raw, the end of a long References only, de-duplicated in a dict
    raw = [(name.lower(), value) for name, value in m.raw_items()]  # (issue 34.3b)
    for header in ("in-reply-to", "references"):
        for value in (v for name, v in raw if name == header):
            ids.update(dict.fromkeys(re.findall(r"<([^<>\s]+)>", value[-MAX_REFERENCES_CHARS:])))
    return list(ids)


@dataclass(frozen=True)
class InboundReply:
    """Everything the service needs from one received mail (see `read_reply`)."""

    key: str  # process once: message_key()
    ignore: str | None  # classify() reason: drop silently when set
    tokens: list[str]  # seat tokens of play+<token>@domain recipients, envelope first
    version: int | None  # the game version of the turn mail replied to (play+<token>.<version>@)
    commands: ReplyCommands  # the command lines
    sender: str  # From, for logs only: never answer to it (forgeable), answer the seat
    subject: str
    references: list[str]  # referenced_ids()


def read_reply(
    raw: bytes | EmailMessage | Message,
    domain: str,
    our_addresses: Iterable[str] = (),
    local: str = REPLY_LOCAL_PART,
) -> InboundReply:
    """One call for the inbound path: parse the mail once and read all of the above. Never raises on
    odd mail (an unreadable one comes back with `ignore` set). The body is read only for a mail to
    a seat address, and only its start (service.mail.body), so a huge mail costs little (issue 20.5)."""
    try:
        m = as_message(raw)
        oversized = _oversized_header(m)
        if oversized is not None:
            raise MailTooComplex(oversized)
        ignore = classify(m, our_addresses)
        addresses = _reply_addresses(m, domain, local)
        tokens = list(dict.fromkeys(t for t, _ in addresses))
        version = next((v for t, v in addresses if tokens and t == tokens[0] and v is not None), None)
        cmds = extract_commands(m) if ignore is None and tokens else ReplyCommands()  # no seat: not read
        return InboundReply(
            message_key(m, raw if isinstance(raw, bytes) else None),
            ignore,
            tokens,
            version,
            cmds,
            str(m.get("From", "") or ""),
            str(m.get("Subject", "") or ""),
            referenced_ids(m),
        )
    except Exception as e:  # noqa: BLE001 - a mail we cannot read is ignored, not a crash
        too_complex = isinstance(e, MailTooComplex)  # not parsed at all (issue 34.3)
        log.info("unreadable inbound mail", exc_info=not too_complex)
        data = raw if isinstance(raw, bytes) else b""
        return InboundReply(
            "sha256:" + hashlib.sha256(data).hexdigest(),
            f"too complex: {e}" if too_complex else f"unreadable: {type(e).__name__}",
            [],
            None,
            ReplyCommands(),
            "",
            "",
            [],
        )
