"""The skyjo-pbem web service (Flask, flaskr style): `create_app(config=None)`."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from flask import Flask, request
from flask.sessions import SecureCookieSessionInterface
from flask_babel import Babel
from flask_wtf.csrf import CSRFProtect

ROOT = Path(__file__).resolve().parent.parent
csrf = CSRFProtect()
babel = Babel()


class _SessionInterface(SecureCookieSessionInterface):
    """Flask's signed-cookie session, with its serializer made once per key instead of on every
    request (Flask builds it anew each time; most requests, move POSTs included, have no cookie)."""

    def get_signing_serializer(self, app: Flask):
        keys = (app.secret_key, tuple(app.config.get("SECRET_KEY_FALLBACKS") or ()))
        cached = app.extensions.get("skyjo_session_serializer")
        if cached is None or cached[0] != keys:
            cached = app.extensions["skyjo_session_serializer"] = (keys, super().get_signing_serializer(app))
        return cached[1]

    def save_session(self, app: Flask, session, response) -> None:
        if not session and not session.modified and not session.accessed:
            return  # what Flask's own method ends with too, after computing every cookie setting
        super().save_session(app, session, response)


_UNSAFE = frozenset({"POST", "PUT", "PATCH", "DELETE"})


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
    app.session_interface = _SessionInterface()
    Path(app.instance_path).mkdir(parents=True, exist_ok=True)
    app.config.update(
        BABEL_DEFAULT_LOCALE="en",
        WTF_CSRF_TIME_LIMIT=None,  # a mail link may be confirmed hours later
        WTF_CSRF_CHECK_DEFAULT=False,  # `_csrf_protect` below decides which requests need the token
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

    from service.clock import scheduler
    from service.play import reply_service, timeouts
    from service.store import db
    from service.web import errors, ratelimit
    from service.web import routes as web

    db.init_app(app)
    # what the clock's sweep calls (bot moves through the move path, reminders, digests), and the
    # reply mailbox's poll that runs after it (the clock imports nothing of play/)
    app.extensions.setdefault(scheduler.HANDLERS_KEY, timeouts.ServiceClockHandlers())
    app.extensions.setdefault(scheduler.REPLY_POLLER_KEY, reply_service.poll_imap_once)
    csrf.init_app(app)

    @app.before_request
    def _csrf_protect():
        """Every unsafe request must carry the session's CSRF token, but for the views that check a
        token of their own (`web.OWN_TOKEN_ENDPOINTS`). flask-wtf's own hook looks up its exempt
        views through the request and app proxies on every request: a fifth of a page's overhead.
        (No endpoint: no view matched, the 404 or 405 follows.)"""
        if request.method in _UNSAFE and (endpoint := request.endpoint) is not None \
                and endpoint not in web.OWN_TOKEN_ENDPOINTS:
            csrf.protect()
    ratelimit.init_app(app)
    babel.init_app(app)
    app.register_blueprint(web.bp)
    from service.mail import render as mail_render
    from service.render import board as render

    app.jinja_env.globals["r"] = render
    app.extensions["outbox_renderer"] = mail_render.renderer_for(app)  # mails are rendered when sent
    errors.init_app(app)
    if app.config["DEV"]:
        try:
            from service.web.devmail import devmail_bp
        except ImportError:  # pragma: no cover - until the mail layer lands
            devmail_bp = None
        if devmail_bp is not None:
            app.register_blueprint(devmail_bp)
    return app
