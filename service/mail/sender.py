"""The background sender: a daemon thread that runs `deliver_due` every few seconds, or at once
when woken (a web request that queued mail wakes it after its transaction committed).

`skyjo-pbem serve` runs one per process (`start_background_sender`; not in the Werkzeug reloader's
watcher process); `skyjo-pbem worker` may run it instead. Several senders at once are safe: claims
are leases (service.mail.delivery). The transport comes from MAIL_URL; without it only the dev
mailbox transport, and only when DEV_MAILBOX is on: marking mails sent that went nowhere would lose
them. A failing sweep (database down) is logged by exception class and retried with a growing pause.
"""

from __future__ import annotations

import logging
import os
import threading

from sqlalchemy import create_engine
from sqlalchemy.engine import Engine

from service.mail.config import configure
from service.mail.delivery import STILL_OWED_KEY, StillOwed, deliver_due
from service.mail.failures import FAILURES_KEY, Failures
from service.mail.message import SIGNER_KEY, Renderer, Signer
from service.mail.outbox import SessionSource
from service.mail.transport import DevTransport, SmtpTransport, Transport

log = logging.getLogger(__name__)


class BackgroundSender:
    """A daemon thread calling `deliver_due` every `interval` seconds (or at once after `wake()`)."""

    def __init__(
        self,
        source: SessionSource,
        transport: Transport,
        *,
        interval: float = 3.0,
        error_interval_cap: float = 300.0,
        renderer: Renderer | None = None,
        still_owed: StillOwed | None = None,
        signer: Signer | None = None,
        failures: Failures | None = None,
    ):
        self.source = source
        self.signer = signer  # DKIM (service.mail.signing); None: unsigned
        self.transport = transport
        self.renderer = renderer
        self.still_owed = still_owed  # held turn mails: is the decision still owed (delivery)
        self.failures = failures  # envelope senders and permanent failures (issue 29)
        self.interval = interval
        self.error_interval_cap = error_interval_cap
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._thread = threading.Thread(target=self._run, name="outbox-sender", daemon=True)
        self.sweeps = 0

    def start(self) -> BackgroundSender:
        self._thread.start()
        return self

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def wake(self) -> None:
        self._wake.set()

    def stop(self, timeout: float = 10.0) -> None:
        """Stop after the message being sent (its row marked), releasing the rest of the sweep's
        claims, and wait for the thread (call it on SIGTERM: nothing is left claimed)."""
        self._stop.set()
        self._wake.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    def _run(self) -> None:
        delay = self.interval
        while not self._stop.is_set():
            try:
                deliver_due(self.source, self.transport, renderer=self.renderer, stop=self._stop,
                            still_owed=self.still_owed, signer=self.signer, failures=self.failures)
                delay = self.interval
            except Exception as exc:  # DB down, etc.: log the class only (messages may hold data)
                delay = min(self.error_interval_cap, max(delay * 2, self.interval))
                log.error("outbox: sweep failed (%s); next try in %.0f s", type(exc).__name__, delay)
            self.sweeps += 1
            self._wake.wait(delay)
            self._wake.clear()


_EXT_KEY = "outbox_sender"


def app_engine(app) -> Engine:
    for key in ("skyjo_db", "db_engine", "engine"):
        engine = app.extensions.get(key)
        if isinstance(engine, Engine):
            return engine
    url = app.config.get("DATABASE_URL") or app.config.get("SQLALCHEMY_DATABASE_URI")
    if not url:
        raise RuntimeError("no database engine: pass engine= or set DATABASE_URL")
    engine = create_engine(url, pool_pre_ping=True)
    app.extensions["db_engine"] = engine  # one engine per app, not one per call
    return engine


def start_background_sender(
    app,
    engine: SessionSource | None = None,
    *,
    transport: Transport | None = None,
    interval: float = 3.0,
    use_reloader: bool | None = None,
) -> BackgroundSender | None:
    """Start the outbox sender thread for `app` (once per process); returns it, or None.

    None when this is the Werkzeug reloader's watcher process (the child with WERKZEUG_RUN_MAIN
    runs the sender instead). The transport comes from MAIL_URL; with no MAIL_URL the dev transport
    is used only when DEV_MAILBOX is on, otherwise RuntimeError (marking mails sent that went
    nowhere would lose them).
    """
    existing = app.extensions.get(_EXT_KEY)
    if existing is not None and existing.running:
        return existing
    reloader = app.debug if use_reloader is None else use_reloader
    if reloader and os.environ.get("WERKZEUG_RUN_MAIN") != "true":
        return None
    if transport is None:
        url = app.config.get("MAIL_URL")
        if url:
            transport = SmtpTransport(url)
        elif app.config.get("DEV_MAILBOX"):
            transport = DevTransport()
        else:
            raise RuntimeError("MAIL_URL is not set and the dev mailbox is off: mails would go nowhere")
    configure(mail_from=app.config.get("MAIL_FROM") or None, base_url=app.config.get("BASE_URL") or None)
    sender = BackgroundSender(
        engine if engine is not None else app_engine(app),
        transport,
        interval=interval,
        renderer=app.extensions.get("outbox_renderer"),
        still_owed=app.extensions.get(STILL_OWED_KEY),
        signer=app.extensions.get(SIGNER_KEY),
        failures=app.extensions.get(FAILURES_KEY),
    )
    app.extensions[_EXT_KEY] = sender
    return sender.start()


def stop_background_sender(app, timeout: float = 10.0) -> None:
    sender = app.extensions.pop(_EXT_KEY, None)
    if sender is not None:
        sender.stop(timeout)


def wake_background_sender(app) -> None:
    """Ask the sender to sweep now (e.g. right after a move committed); no-op when none runs."""
    sender = app.extensions.get(_EXT_KEY)
    if sender is not None:
        sender.wake()
