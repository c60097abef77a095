"""Benchmark of mail delivery: the outbox sender against plain smtplib (issue 20, point 10).

    .venv/bin/python bench/delivery.py [--db sqlite,postgres] [--mails 1000] [--recipients 50]

For each database: `--mails` queued mails (text and HTML parts, as the sender stores them after
rendering) to `--recipients` addresses, delivered to a local SMTP sink (aiosmtpd, in this process,
accepting everything) in two ways, same run, same messages:

1. plain smtplib: the messages built beforehand (`message.build_message`), sent over one reused
   connection with `send_message` -- the floor any sender pays for SMTP itself;
2. the outbox: `delivery.deliver_due` with the SMTP transport, as the worker runs it (claim a batch
   with a lease, build each message, send it, mark it sent in its own transaction, retry rules).

Prints mails/s of both and their ratio (goal >= 0.5). PostgreSQL: BENCH_POSTGRES_URL or
TEST_POSTGRES_URL (default postgresql+psycopg://postgres@127.0.0.1:5432/test), in a fresh schema
dropped at the end. Figures, not pass/fail.
"""

from __future__ import annotations

import argparse
import smtplib
import socket
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from aiosmtpd.controller import Controller  # noqa: E402
from sqlmodel import Session, SQLModel, select  # noqa: E402

from bench.pg import pg_schema_url  # noqa: E402
from service.mail.config import configure  # noqa: E402
from service.mail.delivery import deliver_due  # noqa: E402
from service.mail.message import build_message  # noqa: E402
from service.mail.outbox import queue_mail  # noqa: E402
from service.mail.transport import SmtpTransport  # noqa: E402
from service.store.bounce_models import MailBlockRow  # noqa: E402
from service.store.db import make_engine  # noqa: E402
from service.store.outbox_models import OutboxMail  # noqa: E402

HTML = "<html><body><table>" + "".join(f"<tr><td class='up'>{i}</td></tr>" for i in range(36)) + "</table></body></html>"
TEXT = "Your turn.\n" + "\n".join(f"A{i}  5  -2  12  0" for i in range(12)) + "\n"


class Sink:
    """Accepts every mail and counts it."""

    def __init__(self) -> None:
        self.count = 0

    async def handle_DATA(self, server, session, envelope) -> str:
        self.count += 1
        return "250 2.0.0 OK"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def queue(engine, mails: int, recipients: int) -> None:
    with Session(engine) as s, s.begin():
        for i in range(mails):
            queue_mail(s, to_addr=f"player{i % recipients}@example.org", to_name=f"Player {i % recipients}",
                       subject="SKYJO with Ann, Bo and Cy", text=TEXT, html=HTML,
                       thread_key=f"game-1-{i % recipients}")


def run(name: str, url: str, mails: int, recipients: int) -> tuple[float, float]:
    engine = make_engine(url)
    SQLModel.metadata.create_all(engine, tables=[OutboxMail.__table__, MailBlockRow.__table__])
    sink = Sink()
    port = free_port()
    controller = Controller(sink, hostname="127.0.0.1", port=port, server_hostname="localhost")
    controller.start()
    try:
        queue(engine, mails, recipients)
        with Session(engine) as s:
            messages = [build_message(row) for row in s.exec(select(OutboxMail).order_by(OutboxMail.id))]
        started = time.perf_counter()
        with smtplib.SMTP("127.0.0.1", port, local_hostname="bench.local") as smtp:
            for msg in messages:
                smtp.send_message(msg)
        plain = mails / (time.perf_counter() - started)

        transport = SmtpTransport(f"smtp://127.0.0.1:{port}?starttls=0&helo=bench.local&timeout=10")
        started = time.perf_counter()
        sent = 0
        while sent < mails:
            got = deliver_due(engine, transport, limit=mails - sent)
            if got == 0:
                raise SystemExit(f"{name}: the outbox sent {sent} of {mails}")
            sent += got
        outbox = mails / (time.perf_counter() - started)
    finally:
        controller.stop()
        engine.dispose()
    assert sink.count == 2 * mails, sink.count
    print(f"{name:9} plain smtplib {plain:7.0f} mails/s   outbox sender {outbox:7.0f} mails/s   "
          f"ratio {outbox / plain:.2f} (goal >= 0.5)")
    return plain, outbox


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", default="sqlite,postgres")
    parser.add_argument("--mails", type=int, default=1000)
    parser.add_argument("--recipients", type=int, default=50)
    args = parser.parse_args(argv)
    configure(mail_from="SKYJO <play@skyjo.example>", base_url="http://127.0.0.1:5000")
    for name in args.db.split(","):
        if name == "sqlite":
            with tempfile.TemporaryDirectory() as tmp:
                run(name, f"sqlite:///{Path(tmp) / 'delivery.sqlite3'}", args.mails, args.recipients)
        elif name == "postgres":
            got = pg_schema_url()
            if got is None:
                raise SystemExit("PostgreSQL is not reachable")
            url, drop = got
            try:
                run(name, url, args.mails, args.recipients)
            finally:
                drop()
        else:
            parser.error(f"unknown database {name!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
