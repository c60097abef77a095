"""`skyjo-pbem worker` stops cleanly on SIGTERM (issue 20.8): the mail being sent is finished, the
rest of the sender's claims are released (no row waits out its lease), and the exit code is 0 —
as with Ctrl-C, not as with SIGKILL. A real worker process, a real (slow) SMTP server, SQLite."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from sqlalchemy import func, select
from sqlmodel import Session

from service.mail.outbox import queue_mail
from service.store.db import make_engine
from service.store.outbox_models import OutboxMail
from tests.conftest import make_app
from tests.service.smtp_fixture import RecordingHandler, SmtpServer

ROOT = Path(__file__).resolve().parents[2]


class SlowHandler(RecordingHandler):
    async def handle_DATA(self, server, session, envelope):
        await asyncio.sleep(0.2)  # a slow mail server: the worker is mid-batch when it is stopped
        return await super().handle_DATA(server, session, envelope)


def test_sigterm_finishes_the_current_mail_and_releases_the_other_claims(tmp_path):
    url = f"sqlite:///{tmp_path / 'worker.sqlite3'}"
    make_app(url)  # the tables
    engine = make_engine(url)
    with Session(engine) as s, s.begin():
        for i in range(40):
            queue_mail(s, to_addr=f"p{i}@example.org", to_name=f"P{i}", subject="Your turn", text="hello")
    server = SmtpServer(SlowHandler()).start()
    env = dict(os.environ, DATABASE_URL=url, SECRET_KEY="k" * 64, MAIL_URL=server.url, SKYJO_ENV="production",
               BASE_URL="http://localhost")
    worker = subprocess.Popen([sys.executable, "-m", "service.cli", "worker", "--interval", "1"], cwd=ROOT, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 30
        while len(server.received) < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(server.received) >= 3, "the worker sends"
        worker.send_signal(signal.SIGTERM)
        _out, err = worker.communicate(timeout=20)
        assert worker.returncode == 0, err[-2000:]
    finally:
        if worker.poll() is None:
            worker.kill()
        server.stop()
    with Session(engine) as s:
        sent = s.exec(select(func.count()).where(OutboxMail.sent_at.is_not(None))).scalar_one()
        held = s.exec(select(func.count()).where(OutboxMail.sent_at.is_(None),
                                                 OutboxMail.claimed_until.is_not(None))).scalar_one()
    assert held == 0, "no unsent row stays claimed after a clean stop"
    assert sent == len(server.received) < 40, "every mail the server took is marked sent, the rest wait"
    engine.dispose()
