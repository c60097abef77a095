"""The session cookie (it carries the CSRF secret) is Secure when the service is served over https
(`BASE_URL` https://), and not on a plain-http development setup, where a browser would drop it
(issue 34.4a)."""

from __future__ import annotations

import pytest

from tests.conftest import make_app


@pytest.mark.parametrize(("base_url", "secure"), [("https://skyjo.example.org", True), ("http://localhost", False)])
def test_the_session_cookie_is_secure_exactly_when_base_url_is_https(tmp_path, base_url, secure):
    app = make_app(f"sqlite:///{tmp_path / 'c.sqlite3'}", BASE_URL=base_url)
    cookies = [v for k, v in app.test_client().get("/new").headers.items() if k.lower() == "set-cookie"]
    session = [c for c in cookies if c.startswith(app.config["SESSION_COOKIE_NAME"] + "=")]
    assert session, cookies
    assert ("; Secure" in session[0]) is secure, session[0]
