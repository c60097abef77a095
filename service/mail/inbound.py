"""Inbound mail transports: each hands every received mail, as raw bytes, to `handle(raw) -> None`.

* `InboundSMTP(handle, host, port)`: a built-in SMTP receiver (aiosmtpd) for a host whose MX points
  at us. It accepts mail only for `accept_domains` (when given), adds a `Delivered-To:` header per
  envelope recipient (as MTAs do on final delivery, so the seat address is known even for Bcc), and
  answers 451 (try again later) when `handle` raises, so the sending server retries.
* `poll_imap(url, handle, ...)`: one pass over a mailbox with imap-tools. Every unseen message is
  handed over once and then marked \\Seen (or moved to `processed_folder`, or deleted). A message
  whose handling raises is flagged \\Seen and \\Flagged and left in place for a human, and the pass
  goes on. Crash-safety between `handle` and the flag rests on the service processing each
  Message-ID once (`service.mail.replies.message_key`).

`IMAP_URL` forms: `imaps://user:pass@host[:993]/FOLDER` (TLS), `imap://user:pass@host[:143]/FOLDER`
(STARTTLS when the server offers it; `?starttls=require` insists, `?starttls=no` never tries).
User and password are percent-encoded (`%40` for @); FOLDER defaults to INBOX.
"""

from __future__ import annotations

import asyncio
import logging
import ssl
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from urllib.parse import parse_qs, unquote, urlsplit

log = logging.getLogger(__name__)

Handler = Callable[[bytes], None]
MAX_MESSAGE_BYTES = 10 * 1024 * 1024


# ------------------------------------------------------------------------------ SMTP
class _SMTPHandler:
    def __init__(self, handle: Handler, accept_domains: Iterable[str] | None) -> None:
        self.handle = handle
        self.domains = {d.lower().rstrip(".") for d in accept_domains} if accept_domains else None

    async def handle_RCPT(self, server, session, envelope, address: str, rcpt_options):  # noqa: N802 - aiosmtpd hook
        if self.domains is not None:
            domain = address.rpartition("@")[2].lower().rstrip(".")
            if domain not in self.domains:
                return "550 5.7.1 relaying denied"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):  # noqa: N802 - aiosmtpd hook
        raw = envelope.original_content or envelope.content or b""
        if isinstance(raw, str):
            raw = raw.encode("utf-8", "surrogateescape")
        prefix = b"".join(f"Delivered-To: {r}\r\n".encode("utf-8", "replace") for r in envelope.rcpt_tos)
        data = prefix + raw
        loop = asyncio.get_running_loop()
        try:
            await loop.run_in_executor(None, self.handle, data)
        except Exception:  # noqa: BLE001 - the sender retries later; we log the cause
            log.exception("inbound mail handler failed")
            return "451 4.3.0 temporary failure, try again later"
        return "250 OK"


class InboundSMTP:
    """A running SMTP receiver: `start()` / `stop()` (or use it as a context manager).
    `host`/`port` are where it listens; `accept_domains` limits recipients (None: accept all)."""

    def __init__(
        self,
        handle: Handler,
        host: str = "127.0.0.1",
        port: int = 8025,
        accept_domains: Iterable[str] | None = None,
        data_size_limit: int = MAX_MESSAGE_BYTES,
    ) -> None:
        from aiosmtpd.controller import Controller

        self.host = host
        self.port = port
        self.controller = Controller(
            _SMTPHandler(handle, accept_domains),
            hostname=host,
            port=port,
            data_size_limit=data_size_limit,
            ready_timeout=10.0,
        )

    def start(self) -> InboundSMTP:
        self.controller.start()
        log.info("inbound SMTP listening on %s:%s", self.host, self.port)
        return self

    def stop(self) -> None:
        self.controller.stop()

    def __enter__(self) -> InboundSMTP:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def serve_smtp(
    handle: Handler, host: str = "0.0.0.0", port: int = 25, accept_domains: Iterable[str] | None = None
) -> None:  # pragma: no cover - runs forever
    """Run the receiver until interrupted (the `skyjo-pbem inbound-smtp` command)."""
    import threading

    with InboundSMTP(handle, host, port, accept_domains):
        try:
            threading.Event().wait()
        except KeyboardInterrupt:
            pass


# ------------------------------------------------------------------------------ IMAP
@dataclass(frozen=True)
class ImapSettings:
    secure: bool  # imaps (TLS from the start)
    host: str
    port: int
    user: str
    password: str
    folder: str
    starttls: str  # "auto" | "require" | "no" (imap:// only)


def parse_imap_url(url: str) -> ImapSettings:
    """`imaps://user:pass@host:993/INBOX` -> ImapSettings. Raises ValueError with a readable message."""
    parts = urlsplit(url)
    if parts.scheme not in ("imap", "imaps"):
        raise ValueError("IMAP_URL must start with imaps:// or imap://")
    if not parts.hostname:
        raise ValueError("IMAP_URL needs a host, e.g. imaps://user:pass@imap.example.org/INBOX")
    if parts.username is None or parts.password is None:
        raise ValueError("IMAP_URL needs a user and a password: imaps://user:pass@host/INBOX")
    secure = parts.scheme == "imaps"
    query = parse_qs(parts.query)
    starttls = (query.get("starttls", ["auto"])[0] or "auto").lower()
    if starttls in ("yes", "true", "1", "required"):
        starttls = "require"
    if starttls in ("false", "0", "off"):
        starttls = "no"
    if starttls not in ("auto", "require", "no"):
        raise ValueError("IMAP_URL: starttls must be require, auto or no")
    folder = unquote(parts.path.lstrip("/")) or "INBOX"
    return ImapSettings(
        secure,
        parts.hostname,
        parts.port or (993 if secure else 143),
        unquote(parts.username),
        unquote(parts.password),
        folder,
        starttls,
    )


def _mailbox(cfg: ImapSettings, timeout: float, ssl_context: ssl.SSLContext | None):
    from imap_tools import MailBox, MailBoxUnencrypted

    if cfg.secure:
        return MailBox(
            cfg.host, cfg.port, timeout=timeout, ssl_context=ssl_context or ssl.create_default_context()
        )
    box = MailBoxUnencrypted(cfg.host, cfg.port, timeout=timeout)
    offered = "STARTTLS" in box.client.capabilities
    if cfg.starttls == "require" and not offered:
        box.client.logout()
        raise ConnectionError(f"{cfg.host} does not offer STARTTLS")
    if offered and cfg.starttls != "no":
        box.client.starttls(ssl_context or ssl.create_default_context())
    return box


def _raw_message_class():
    from imap_tools import MailMessage

    class RawMailMessage(MailMessage):
        """imap-tools' message that also keeps the exact bytes the server sent."""

        def __init__(self, fetch_data: list) -> None:
            super().__init__(fetch_data)
            self.raw: bytes = self._get_message_data_parts(fetch_data)[0]

    return RawMailMessage


def poll_imap(
    url: str,
    handle: Handler,
    *,
    processed_folder: str | None = None,
    delete: bool = False,
    limit: int = 50,
    timeout: float = 30.0,
    ssl_context: ssl.SSLContext | None = None,
) -> int:
    """One pass over the mailbox at `url`: hand every unseen message to `handle`, then mark it seen
    (default), move it to `processed_folder` (created if missing), or delete it. At most `limit`
    messages per pass. Returns the number of messages handed over successfully."""
    from imap_tools import AND, MailMessageFlags

    cfg = parse_imap_url(url)
    done = 0
    box = _mailbox(cfg, timeout, ssl_context)
    box.email_message_class = _raw_message_class()
    with box.login(cfg.user, cfg.password, initial_folder=cfg.folder):
        if processed_folder and not box.folder.exists(processed_folder):
            box.folder.create(processed_folder)
        for msg in box.fetch(AND(seen=False), mark_seen=False, limit=limit, bulk=False):
            uid = msg.uid
            if uid is None:
                continue
            try:
                handle(msg.raw)
            except Exception:  # noqa: BLE001 - one bad mail must not block the others
                log.exception("inbound mail handler failed for IMAP uid %s; flagged for a human", uid)
                box.flag(uid, (MailMessageFlags.SEEN, MailMessageFlags.FLAGGED), True)
                continue
            if processed_folder:
                box.move(uid, processed_folder)
            elif delete:
                box.delete(uid)
            else:
                box.flag(uid, MailMessageFlags.SEEN, True)
            done += 1
    return done
