"""Production refuses to start without what it needs; development only when asked for (issue 20,
points 4 and 7)."""

from __future__ import annotations

import os
import stat

import pytest

from service import create_app

GOOD_KEY = "k" * 64


@pytest.fixture
def clean_env(monkeypatch, tmp_path):
    for name in ["SKYJO_ENV", "MAIL_URL", "SECRET_KEY", "DATABASE_URL"]:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'c.sqlite3'}")
    return monkeypatch


def test_an_app_under_a_wsgi_server_is_in_production_unless_asked(clean_env):
    clean_env.setenv("SECRET_KEY", GOOD_KEY)
    clean_env.setenv("MAIL_URL", "smtp://mail.example:587")
    app = create_app()
    assert app.config["ENV_NAME"] == "production" and not app.config["DEV_MAILBOX"]
    assert app.test_client().get("/dev/mail/").status_code == 404


def test_production_without_mail_url_refuses_to_start(clean_env):
    """Without MAIL_URL it used to fall back to development, and /dev/mail showed everybody's links."""
    clean_env.setenv("SECRET_KEY", GOOD_KEY)
    with pytest.raises(RuntimeError, match="MAIL_URL must be set"):
        create_app()


def test_production_refuses_a_short_secret_key_and_says_how_to_make_one(clean_env):
    clean_env.setenv("MAIL_URL", "smtp://mail.example:587")
    clean_env.setenv("SECRET_KEY", "x")
    with pytest.raises(RuntimeError, match=r"too short.*secrets\.token_hex"):
        create_app()


def test_development_when_asked_keeps_its_key_readable_by_the_owner_only(clean_env, tmp_path):
    clean_env.setenv("SKYJO_ENV", "development")
    app = create_app({"TESTING": True})
    assert app.config["DEV_MAILBOX"] and len(app.config["SECRET_KEY"]) == 64
    key_file = os.path.join(app.instance_path, "dev-secret-key")
    assert stat.S_IMODE(os.stat(key_file).st_mode) == 0o600
    assert create_app({"TESTING": True}).config["SECRET_KEY"] == app.config["SECRET_KEY"]


def test_serve_on_embedded_defaults_asks_for_development(clean_env):
    """`serve` without MAIL_URL sets SKYJO_ENV=development before it makes the app (checked without
    starting a server: the first thing cmd_serve does)."""
    import argparse

    from service import cli_service

    seen = {}

    def stop(_config_path):
        seen["env"] = os.environ.get("SKYJO_ENV")
        raise SystemExit(0)

    clean_env.setattr(cli_service, "_app", lambda: stop(None))
    with pytest.raises(SystemExit):
        cli_service.cmd_serve(argparse.Namespace(host="127.0.0.1", port=5999, debug=False))
    assert seen["env"] == "development"


def test_template_cache_dir_keeps_compiled_templates_and_a_changed_template_compiles_anew(tmp_path):
    """TEMPLATE_CACHE_DIR: Jinja's FileSystemBytecodeCache there (made with mode 0700, holding what
    an app compiled); an app whose template changed since gets the new one (Jinja compares the
    source's checksum)."""
    from jinja2 import DictLoader

    cache = tmp_path / "templates-cache"
    config = {"TESTING": True, "DATABASE_URL": f"sqlite:///{tmp_path / 'c.sqlite3'}", "SECRET_KEY": GOOD_KEY,
              "ENV_NAME": "development", "TEMPLATE_CACHE_DIR": str(cache)}
    app = create_app(config)
    with app.test_request_context():
        assert app.jinja_env.get_template("base.html")
    assert stat.S_IMODE(cache.stat().st_mode) == 0o700 and list(cache.iterdir())
    again = create_app(config)
    again.jinja_env.loader = DictLoader({"t.html": "one"})
    assert again.jinja_env.get_template("t.html").render() == "one"
    later = create_app(config)
    later.jinja_env.loader = DictLoader({"t.html": "two"})
    assert later.jinja_env.get_template("t.html").render() == "two"
