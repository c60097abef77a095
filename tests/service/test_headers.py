"""Security headers on every page (issue 20, point 6): page URLs carry seat tokens, so no referrer
leaves; no inline script runs but the template's own (nonce); no framing; nosniff; HSTS on https."""

from __future__ import annotations

import re

from tests.conftest import make_app


def _url(tmp_path) -> str:
    return f"sqlite:///{tmp_path / 'headers.sqlite3'}"


def test_every_page_sends_the_security_headers(tmp_path):
    client = make_app(_url(tmp_path)).test_client()
    for path in ["/", "/new", "/links", "/s/not-a-token", "/watch/1/x"]:
        resp = client.get(path)
        assert resp.status_code < 500, path
        assert resp.headers["Referrer-Policy"] == "no-referrer", path
        assert resp.headers["X-Content-Type-Options"] == "nosniff", path
        assert resp.headers["X-Frame-Options"] == "DENY", path
        csp = resp.headers["Content-Security-Policy"]
        assert (
            "frame-ancestors 'none'" in csp
            and "'unsafe-inline'" not in csp.split("script-src")[1].split(";")[0]
        )
        assert "Strict-Transport-Security" not in resp.headers  # http://localhost


def test_the_new_game_script_carries_this_requests_nonce(tmp_path):
    client = make_app(_url(tmp_path)).test_client()
    first, second = client.get("/new"), client.get("/new")
    nonces = []
    for resp in (first, second):
        found = re.search(r'<script nonce="([^"]+)"', resp.text)
        assert found, "the time-zone script is marked with the nonce"
        assert f"script-src 'nonce-{found.group(1)}'" in resp.headers["Content-Security-Policy"]
        nonces.append(found.group(1))
    assert nonces[0] != nonces[1]
    assert "script-src 'none'" in client.get("/").headers["Content-Security-Policy"]


def test_hsts_when_served_over_https(tmp_path):
    client = make_app(_url(tmp_path), BASE_URL="https://skyjo.example").test_client()
    assert client.get("/").headers["Strict-Transport-Security"].startswith("max-age=")


def test_the_dev_mailbox_frame_keeps_its_own_sandbox_policy(tmp_path):
    from service.store import db
    from tests.service.test_devmail import add_mail

    app = make_app(_url(tmp_path), DEV_MAILBOX=True)
    row = add_mail(db.get_engine(app))
    client = app.test_client()
    frame = client.get(f"/dev/mail/{row.id}/html")
    assert frame.headers["Content-Security-Policy"].startswith("sandbox ")
    assert "frame-ancestors 'self'" in frame.headers["Content-Security-Policy"]
    assert (
        frame.headers["X-Frame-Options"] == "SAMEORIGIN" and frame.headers["Referrer-Policy"] == "no-referrer"
    )
    assert client.get("/dev/mail/").headers["X-Frame-Options"] == "DENY"
