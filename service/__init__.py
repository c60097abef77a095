"""The skyjo-pbem web service (Flask, flaskr style): `create_app(config=None)`."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from flask import Flask
from flask_babel import Babel
from flask_wtf.csrf import CSRFProtect

ROOT = Path(__file__).resolve().parent.parent
csrf = CSRFProtect()
babel = Babel()


def _env_config(instance_path: str) -> dict:
    mail_url = os.environ.get("MAIL_URL") or None
    env = os.environ.get("SKYJO_ENV") or ("production" if mail_url else "development")
    return {
        "ENV_NAME": env,
        "DATABASE_URL": os.environ.get("DATABASE_URL")
        or f"sqlite:///{Path(instance_path) / 'skyjo.sqlite3'}",
        "BASE_URL": os.environ.get("BASE_URL", "http://127.0.0.1:5000"),
        "MAIL_URL": mail_url,
        "MAIL_FROM": os.environ.get("MAIL_FROM", "SKYJO <skyjo@localhost>"),
        "SECRET_KEY": os.environ.get("SECRET_KEY") or None,
        "MAIL_DOMAIN": os.environ.get("MAIL_DOMAIN") or None,  # reply addresses; default: MAIL_FROM's
        "IMAP_URL": os.environ.get("IMAP_URL") or None,  # reply mailbox the worker polls
    }


def _dev_secret(instance_path: str) -> str:
    """Development only: a random key kept in the instance folder so links survive restarts."""
    path = Path(instance_path) / "dev-secret-key"
    if not path.exists():
        path.write_text(secrets.token_hex(32))
    return path.read_text().strip()


def create_app(config: dict | None = None) -> Flask:
    app = Flask(__name__, instance_relative_config=True, template_folder=str(ROOT / "templates"))
    Path(app.instance_path).mkdir(parents=True, exist_ok=True)
    app.config.update(
        BABEL_DEFAULT_LOCALE="en",
        WTF_CSRF_TIME_LIMIT=None,  # a mail link may be confirmed hours later
        MAX_CONTENT_LENGTH=64 * 1024,
        SESSION_COOKIE_SAMESITE="Lax",
        LINKS_RATE_LIMIT="5 per minute;30 per day",
    )
    app.config.update(_env_config(app.instance_path))
    if config:
        app.config.update(config)
    app.config["DEV"] = app.config.get("ENV_NAME") == "development"
    app.config.setdefault("DEV_MAILBOX", app.config["DEV"])
    if not app.config.get("SECRET_KEY"):
        if not app.config["DEV"]:
            raise RuntimeError("SECRET_KEY must be set outside development (it also signs every link)")
        app.config["SECRET_KEY"] = _dev_secret(app.instance_path)

    from service.store import db
    from service.web import errors, headers, ratelimit
    from service.web import routes as web

    db.init_app(app)
    csrf.init_app(app)
    ratelimit.init_app(app)
    babel.init_app(app)
    app.register_blueprint(web.bp)
    for endpoint in web.OWN_TOKEN_ENDPOINTS:  # a Confirm form carries its own token (see web.routes)
        csrf.exempt(app.view_functions[endpoint])
    from service.mail import render as mail_render
    from service.render import board as render

    app.jinja_env.globals["r"] = render
    app.extensions["outbox_renderer"] = mail_render.renderer_for(app)  # mails are rendered when sent
    errors.init_app(app)
    headers.init_app(app)
    if app.config["DEV"]:
        from service.web.devmail import devmail_bp

        app.register_blueprint(devmail_bp)
    return app
