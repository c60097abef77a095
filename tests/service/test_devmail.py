"""The development mailbox: 404 unless enabled; delivered mails listed and shown as recipients see them."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import pytest
from flask import Flask
from flask_babel import Babel
from sqlalchemy.orm import Session

from service.mail.config import MailConfig
from service.mail.delivery import deliver_due
from service.mail.outbox import queue_mail
from service.mail.transport import DevTransport
from service.store.outbox_models import OutboxMail
from service.web.devmail import devmail_bp
from tests.service.smtp_fixture import engine, sqlite_only  # noqa: F401  (fixtures)

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"
CFG = MailConfig(mail_from="SKYJO <play@skyjo.example>", base_url="http://127.0.0.1:5000")
T0 = datetime(2026, 1, 1, 12, 0, 0)
HTML = (
    "<html><head><style>td.up{color:#abcdef}</style></head><body><table><tr><td class='up'>5</td></tr>"
    "</table><a href='http://127.0.0.1:5000/m/TOKEN-{n}/take'>take</a></body></html>"
)


def make_app(db, **config) -> Flask:
    app = Flask("devmail_test", template_folder=str(TEMPLATES))
    app.config.update(TESTING=True, SECRET_KEY="test", **config)
    Babel(app)
    app.extensions["db_engine"] = db
    app.register_blueprint(devmail_bp)
    return app


def add_mail(db, to="ann@example.org", name="Ann", n=0, deliver_at=T0, html=HTML):
    with Session(db, expire_on_commit=False) as s, s.begin():
        row = queue_mail(
            s,
            to_addr=to,
            to_name=name,
            subject=f"SKYJO with Bo #{n}",
            text=f"Your turn.\ntake: http://127.0.0.1:5000/m/TOKEN-{n}/take\n",
            html=html.replace("{n}", str(n)) if html else None,
            config=CFG,
            now=deliver_at,
            thread_key="game-1-seat-0",
            unsubscribe_url=f"http://127.0.0.1:5000/u/TOKEN-{n}",
        )
    if deliver_at is not None:
        assert deliver_due(db, DevTransport(), now=deliver_at) >= 1
    return row


@pytest.mark.parametrize("config", [{}, {"DEV_MAILBOX": False}, {"DEV_MAILBOX": None}])
def test_everything_is_404_unless_enabled(sqlite_only, config):  # noqa: F811
    row = add_mail(sqlite_only)
    client = make_app(sqlite_only, **config).test_client()
    for url in ["/dev/mail/", f"/dev/mail/{row.id}", f"/dev/mail/{row.id}/html", f"/dev/mail/{row.id}/raw"]:
        assert client.get(url).status_code == 404, url
    assert client.post("/dev/mail/deliver").status_code == 404


def test_list_newest_first_and_filter_by_recipient(sqlite_only):  # noqa: F811
    a1 = add_mail(sqlite_only, n=1, deliver_at=T0)
    b2 = add_mail(sqlite_only, to="bo@example.org", name="Bø", n=2, deliver_at=T0 + timedelta(seconds=1))
    a3 = add_mail(sqlite_only, n=3, deliver_at=T0 + timedelta(seconds=2))
    client = make_app(sqlite_only, DEV_MAILBOX=True).test_client()
    page = client.get("/dev/mail/").get_data(as_text=True)
    order = [page.index(f'/dev/mail/{r.id}"') for r in (a3, b2, a1)]
    assert order == sorted(order)  # newest first
    assert "Bø &lt;bo@example.org&gt;" in page
    only_bo = client.get("/dev/mail/?to=BO@example.org").get_data(as_text=True)
    assert f'/dev/mail/{b2.id}"' in only_bo
    assert f'/dev/mail/{a1.id}"' not in only_bo and f'/dev/mail/{a3.id}"' not in only_bo


def test_queued_mail_is_not_shown_until_delivered(sqlite_only):  # noqa: F811
    row = add_mail(sqlite_only, deliver_at=None)
    client = make_app(sqlite_only, DEV_MAILBOX=True).test_client()
    page = client.get("/dev/mail/").get_data(as_text=True)
    assert "1 mail is queued" in page and f'/dev/mail/{row.id}"' not in page
    assert client.get(f"/dev/mail/{row.id}").status_code == 404
    resp = client.post("/dev/mail/deliver")
    assert resp.status_code == 303
    page = client.get("/dev/mail/").get_data(as_text=True)
    assert f'/dev/mail/{row.id}"' in page and "queued" not in page
    with Session(sqlite_only) as s:
        assert s.get(OutboxMail, row.id).transport == "dev"


def test_deliver_now_is_off_with_a_real_mail_server(sqlite_only):  # noqa: F811
    add_mail(sqlite_only, deliver_at=None)
    client = make_app(sqlite_only, DEV_MAILBOX=True, MAIL_URL="smtp://127.0.0.1:1").test_client()
    assert "Deliver now" not in client.get("/dev/mail/").get_data(as_text=True)
    assert client.post("/dev/mail/deliver").status_code == 404


def test_a_mail_as_the_recipient_sees_it(sqlite_only):  # noqa: F811
    row = add_mail(sqlite_only, name="Zoë", n=7)
    client = make_app(sqlite_only, DEV_MAILBOX=True).test_client()
    page = client.get(f"/dev/mail/{row.id}").get_data(as_text=True)
    assert "SKYJO with Bo #7" in page
    # plain-text part, links clickable and opening in the whole tab
    assert '<a href="http://127.0.0.1:5000/m/TOKEN-7/take"' in page and 'target="_top"' in page
    # headers as sent
    assert row.message_id.replace("<", "&lt;").replace(">", "&gt;") in page
    assert "&lt;game-1-seat-0@skyjo.example&gt;" in page and "List-Unsubscribe-Post" in page
    assert "Auto-Submitted" in page
    # the HTML part in a sandboxed iframe (no allow-scripts, no allow-same-origin)
    assert f'src="/dev/mail/{row.id}/html"' in page
    sandbox = page.split('sandbox="', 1)[1].split('"', 1)[0]
    assert "allow-scripts" not in sandbox and "allow-same-origin" not in sandbox
    # links may open the game in the whole tab; with scripts off only a click can navigate
    assert "allow-top-navigation" in sandbox.split()

    html = client.get(f"/dev/mail/{row.id}/html")
    assert html.status_code == 200 and html.mimetype == "text/html"
    csp = html.headers["Content-Security-Policy"]
    assert csp.startswith("sandbox ") and "allow-scripts" not in csp and "default-src 'none'" in csp
    body = html.get_data(as_text=True)
    assert '<base target="_top">' in body
    assert 'href="http://127.0.0.1:5000/m/TOKEN-7/take"' in body
    assert 'style="color: #abcdef;"' in body  # CSS inlined as delivered

    raw = client.get(f"/dev/mail/{row.id}/raw")
    assert raw.mimetype == "text/plain"
    source = raw.get_data(as_text=True)
    assert f"Message-ID: {row.message_id}" in source and "multipart/alternative" in source


def test_text_only_mail_and_unknown_ids(sqlite_only):  # noqa: F811
    row = add_mail(sqlite_only, html=None)
    client = make_app(sqlite_only, DEV_MAILBOX=True).test_client()
    page = client.get(f"/dev/mail/{row.id}").get_data(as_text=True)
    assert "<iframe" not in page and "Your turn." in page
    assert client.get(f"/dev/mail/{row.id}/html").status_code == 404
    assert client.get("/dev/mail/9999").status_code == 404


def test_ids_past_the_column_and_nul_are_client_errors(engine):  # noqa: F811
    """Issue 20.2: /dev/mail/9223372036854775808 (PostgreSQL: 2147483648) and ?to=%00 were 500s."""
    row = add_mail(engine)
    client = make_app(engine, DEV_MAILBOX=True).test_client()
    for mail_id in ("9223372036854775808", "2147483648", "0"):
        for suffix in ("", "/html", "/raw"):
            assert client.get(f"/dev/mail/{mail_id}{suffix}").status_code == 404, (mail_id, suffix)
        assert client.post(f"/dev/mail/{mail_id}/reply", data={"body": "take"}).status_code == 404
    assert client.get("/dev/mail/?to=%00").status_code == 400
    assert client.get(f"/dev/mail/{row.id}").status_code == 200


def test_mail_html_cannot_break_out_of_the_page(sqlite_only):  # noqa: F811
    evil = "<html><head></head><body><script>alert(1)</script><p>x</p></body></html>"
    row = add_mail(sqlite_only, html=evil)
    client = make_app(sqlite_only, DEV_MAILBOX=True).test_client()
    page = client.get(f"/dev/mail/{row.id}").get_data(as_text=True)
    assert "<script>alert(1)</script>" not in page  # only ever inside the sandboxed route
    resp = client.get(f"/dev/mail/{row.id}/html")
    assert "script-src" not in resp.headers["Content-Security-Policy"]  # default-src 'none' applies
    assert "default-src 'none'" in resp.headers["Content-Security-Policy"]


def test_service_app_mounts_the_mailbox_only_in_development(tmp_path, monkeypatch):
    """With the real app factory: development without MAIL_URL → mailbox; production → 404."""
    service = pytest.importorskip("service")
    from service.store import db

    monkeypatch.delenv("MAIL_URL", raising=False)
    dev = service.create_app(
        {
            "ENV_NAME": "development",
            "DATABASE_URL": f"sqlite:///{tmp_path}/dev.db",
            "TESTING": True,
            "WTF_CSRF_ENABLED": False,
        }
    )
    db.create_all(dev)
    assert dev.config.get("DEV_MAILBOX")
    assert dev.test_client().get("/dev/mail/").status_code == 200
    prod = service.create_app(
        {
            "ENV_NAME": "production",
            "DATABASE_URL": f"sqlite:///{tmp_path}/prod.db",
            "SECRET_KEY": "x" * 32,
            "MAIL_URL": "smtp://mail.example:587",
            "DEV_MAILBOX": False,
            "TESTING": True,
        }
    )
    db.create_all(prod)
    assert prod.test_client().get("/dev/mail/").status_code == 404
