"""Test helpers for the mail layer: a real SMTP server in-process (aiosmtpd) and outbox databases.

Databases: `outbox_engine(kind)` makes a SQLite file engine configured like the service's (explicit
BEGIN, WAL, busy timeout) or a PostgreSQL engine in a fresh schema (TEST_POSTGRES_URL; skipped when
unreachable, but a failure when CI=true). Only the outbox table is created, and the block list its
queueing reads (issue 29).
"""

from __future__ import annotations

import os
import secrets
import socket
import ssl
import subprocess
import threading
import time
from dataclasses import dataclass, field
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword
from sqlalchemy import create_engine, event, text
from sqlalchemy.engine import Engine

from service.store.bounce_models import MailBlockRow
from service.store.outbox_models import OutboxMail

PG_URL = os.environ.get("TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
IN_CI = os.environ.get("CI", "").lower() == "true"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Received:
    mail_from: str
    rcpt_tos: list[str]
    data: bytes

    @property
    def message(self) -> EmailMessage:
        return message_from_bytes(self.data, policy=policy.default)  # type: ignore[return-value]


@dataclass
class RecordingHandler:
    """Stores every accepted mail; `fail_next` answers that many DATA commands with a 451."""

    received: list[Received] = field(default_factory=list)
    fail_next: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    async def handle_DATA(self, server, session, envelope):
        with self.lock:
            if self.fail_next > 0:
                self.fail_next -= 1
                return "451 4.3.0 Try again later"
            self.received.append(Received(envelope.mail_from, list(envelope.rcpt_tos), envelope.content))
        return "250 2.0.0 OK"

    @property
    def message_ids(self) -> list[str]:
        return [r.message["Message-ID"] for r in self.received]


class SmtpServer:
    """An aiosmtpd server on 127.0.0.1 that can be stopped and started again on the same port."""

    def __init__(self, handler: RecordingHandler | None = None, port: int | None = None, **kwargs):
        self.handler = handler or RecordingHandler()
        self.port = port or free_port()
        self.kwargs = kwargs
        self.controller: Controller | None = None

    def start(self) -> SmtpServer:
        self.kwargs.setdefault("server_hostname", "localhost")
        self.controller = Controller(self.handler, hostname="127.0.0.1", port=self.port, **self.kwargs)
        for _ in range(50):  # the port may linger briefly after a stop
            try:
                self.controller.start()
                break
            except (OSError, RuntimeError):
                time.sleep(0.05)
        else:  # pragma: no cover
            raise RuntimeError("could not start the test SMTP server")
        return self

    def stop(self) -> None:
        if self.controller is not None:
            self.controller.stop()
            self.controller = None

    @property
    def url(self) -> str:
        return f"smtp://127.0.0.1:{self.port}?starttls=0&helo=test.local&timeout=5"

    @property
    def received(self) -> list[Received]:
        return self.handler.received


@pytest.fixture
def smtp_server():
    server = SmtpServer().start()
    try:
        yield server
    finally:
        server.stop()


def make_authenticator(user: str, password: str):
    def authenticator(server, session, envelope, mechanism, auth_data):
        ok = (
            isinstance(auth_data, LoginPassword)
            and auth_data.login == user.encode()
            and (auth_data.password == password.encode())
        )
        return AuthResult(success=ok, handled=False)  # handled=False: aiosmtpd answers 535 itself

    return authenticator


@pytest.fixture(scope="session")
def tls_files(tmp_path_factory) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1/localhost (openssl CLI)."""
    d = tmp_path_factory.mktemp("tls")
    cert, key = d / "cert.pem", d / "key.pem"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-subj",
            "/CN=localhost",
            "-addext",
            "subjectAltName=IP:127.0.0.1,DNS:localhost",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        check=True,
        capture_output=True,
    )
    return cert, key


def server_tls_context(cert: Path, key: Path) -> ssl.SSLContext:
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ctx.load_cert_chain(cert, key)
    return ctx


def client_tls_context(cert: Path) -> ssl.SSLContext:
    return ssl.create_default_context(cafile=str(cert))


# --------------------------------------------------------------------------------------------------
# Databases
# --------------------------------------------------------------------------------------------------


def sqlite_engine(path: Path) -> Engine:
    """Configured like service.store.db's writers: driver autocommit off, BEGIN IMMEDIATE, WAL, busy timeout."""
    engine = create_engine(f"sqlite:///{path}", connect_args={"timeout": 30, "check_same_thread": False})

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection, _record):
        dbapi_connection.isolation_level = None
        cur = dbapi_connection.cursor()
        cur.execute("PRAGMA busy_timeout = 30000")
        cur.execute("PRAGMA journal_mode = WAL")
        cur.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn):
        # every transaction here may write (queue_mail reads the block list before its INSERT), and
        # a read that turns into a write in WAL mode fails at once with "database is locked" when a
        # sender committed in between; the service's writers begin IMMEDIATE (service.store.db)
        conn.exec_driver_sql("BEGIN IMMEDIATE")

    OutboxMail.__table__.create(engine)
    MailBlockRow.__table__.create(engine)
    return engine


def pg_reachable() -> bool:
    try:
        eng = create_engine(PG_URL)
        with eng.connect() as c:
            c.execute(text("select 1"))
        eng.dispose()
        return True
    except Exception:
        return False


def postgres_engine() -> tuple[Engine, str]:
    if not pg_reachable():
        if IN_CI:
            pytest.fail(f"PostgreSQL at {PG_URL} is unreachable (CI=true)")
        pytest.skip("PostgreSQL not reachable (set TEST_POSTGRES_URL)")
    schema = f"outbox_test_{secrets.token_hex(6)}"
    admin = create_engine(PG_URL)
    with admin.begin() as c:
        c.execute(text(f'CREATE SCHEMA "{schema}"'))
    admin.dispose()
    engine = create_engine(PG_URL, connect_args={"options": f"-csearch_path={schema}"}, pool_size=10)
    OutboxMail.__table__.create(engine)
    MailBlockRow.__table__.create(engine)
    return engine, schema


def drop_schema(engine: Engine, schema: str) -> None:
    engine.dispose()
    admin = create_engine(PG_URL)
    with admin.begin() as c:
        c.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
    admin.dispose()


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def engine(request, tmp_path):
    if request.param == "sqlite":
        eng = sqlite_engine(tmp_path / "outbox.sqlite3")
        try:
            yield eng
        finally:
            eng.dispose()
    else:
        eng, schema = postgres_engine()
        try:
            yield eng
        finally:
            drop_schema(eng, schema)


@pytest.fixture
def sqlite_only(tmp_path):
    eng = sqlite_engine(tmp_path / "outbox.sqlite3")
    try:
        yield eng
    finally:
        eng.dispose()
