"""gunicorn's error log masks seat tokens (issue 34.4a): gunicorn started for real on a free port
from the checkout (its gunicorn.conf.py), a bad request line carrying a seat token sent over a
socket, and the error log read: it names the bad line with the token masked (`/s/…`). The same
request under gunicorn's own logger class shows the token, so the line is really logged."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.service.smtp_fixture import free_port

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "Zq3xT0kenAbCdEfGh1234567"


def _bad_request_logged(tmp_path: Path, *extra: str) -> str:
    port, log = free_port(), tmp_path / f"error-{len(extra)}.log"
    env = dict(os.environ, SKYJO_ENV="development", DATABASE_URL=f"sqlite:///{tmp_path / 'g.sqlite3'}",
               SECRET_KEY="k" * 40)
    cmd = [str(Path(sys.executable).parent / "gunicorn"), "-w", "1", "-b", f"127.0.0.1:{port}",
           "--no-control-socket", "--error-logfile", str(log), *extra, "service:create_app()"]
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, start_new_session=True)
    try:
        deadline = time.time() + 30
        while True:
            try:
                conn = socket.create_connection(("127.0.0.1", port), timeout=1)
                break
            except OSError:
                if time.time() > deadline or proc.poll() is not None:
                    pytest.fail("gunicorn did not start")
                time.sleep(0.1)
        with conn:
            conn.sendall(f"HEAD /s/{TOKEN}\r\n\r\n".encode())  # no HTTP version: an invalid line
            conn.settimeout(5)
            assert conn.recv(4096).startswith(b"HTTP/1.1 400")
        for _ in range(50):  # the worker writes the line right after its answer
            if "Invalid" in log.read_text():
                break
            time.sleep(0.1)
        return log.read_text()
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_gunicorn_logs_a_bad_request_line_with_its_seat_token_masked(tmp_path):
    text = _bad_request_logged(tmp_path)
    assert "Invalid HTTP request line" in text and "/s/…" in text, text
    assert TOKEN not in text
    plain = _bad_request_logged(tmp_path, "--logger-class", "gunicorn.glogging.Logger")
    assert TOKEN in plain  # what gunicorn writes without it
