"""The skyjo-pbem web service (Flask, flaskr style): `create_app(config=None)`."""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from types import SimpleNamespace

from flask import Flask
from flask_babel import Babel
from flask_wtf.csrf import CSRFProtect
from jinja2 import FileSystemBytecodeCache
from werkzeug.middleware.proxy_fix import ProxyFix

ROOT = Path(__file__).resolve().parent.parent
csrf = CSRFProtect()
babel = Babel()


def env_config(instance_path: str) -> dict:
    """The settings from environment variables (every one the service reads: deploy/skyjo-pbem.env
    lists them, tests/service/test_deploy.py checks that). Development (the dev mailbox, a generated key) only
    when asked for: SKYJO_ENV=development, which `serve` sets on its embedded defaults; an app made
    by a WSGI server is in production unless told otherwise."""
    mail_url = os.environ.get("MAIL_URL") or None
    return {
        "ENV_NAME": os.environ.get("SKYJO_ENV") or "production",
        "DATABASE_URL": os.environ.get("DATABASE_URL")
        or f"sqlite:///{Path(instance_path) / 'skyjo.sqlite3'}",
        "BASE_URL": os.environ.get("BASE_URL", "http://127.0.0.1:5000"),
        "MAIL_URL": mail_url,
        "MAIL_FROM": os.environ.get("MAIL_FROM", "SKYJO <skyjo@localhost>"),
        "SECRET_KEY": os.environ.get("SECRET_KEY") or None,
        "MAIL_DOMAIN": os.environ.get("MAIL_DOMAIN") or None,  # reply addresses; default: MAIL_FROM's
        "IMAP_URL": os.environ.get("IMAP_URL") or None,  # reply mailbox the worker polls
        "PROXY_HOPS": os.environ.get("PROXY_HOPS") or 0,  # reverse proxies in front (X-Forwarded-For)
        # DKIM (issue 29): the selector and the PEM key `skyjo-pbem mail keygen` writes; unset: unsigned
        "DKIM_SELECTOR": os.environ.get("DKIM_SELECTOR") or None,
        "DKIM_KEY_FILE": os.environ.get("DKIM_KEY_FILE") or None,
        # retention (issue 29, `skyjo-pbem prune`): a sent mail's body and links, a finished game's mails
        "MAIL_KEEP_DAYS": float(os.environ.get("MAIL_KEEP_DAYS") or 14),
        "GAME_KEEP_DAYS": float(os.environ.get("GAME_KEEP_DAYS") or 30),
        # a turn mail for a decision its player is looking at on the board (they just moved there) waits
        # this long and goes only if the decision is still open then (issue 15.2); 0: never held
        "MAIL_HOLD_MINUTES": float(os.environ.get("MAIL_HOLD_MINUTES") or 10),
        # issue 29: soft failures (4xx, mailbox full) of one mail before its address counts as bouncing
        "MAIL_SOFT_BOUNCE_LIMIT": int(os.environ.get("MAIL_SOFT_BOUNCE_LIMIT") or 12),
        # issue 31: seconds between the clock's sweeps (`serve`, `worker`); PostgreSQL wakes them sooner
        "CLOCK_INTERVAL": float(os.environ.get("CLOCK_INTERVAL") or 30),
        # rate limits' counts: memory:// (per process) or redis://host:port shared by every process
        "RATELIMIT_STORAGE_URI": os.environ.get("RATELIMIT_STORAGE_URI") or "memory://",
        # /metrics answers only `Authorization: Bearer <METRICS_TOKEN>`; unset: /metrics is a 404
        "METRICS_TOKEN": os.environ.get("METRICS_TOKEN") or None,
        # /readyz fails when the oldest due mail or the oldest due deadline waits longer (seconds)
        "READY_MAIL_AGE": float(os.environ.get("READY_MAIL_AGE") or 600),
        "READY_DEADLINE_AGE": float(os.environ.get("READY_DEADLINE_AGE") or 600),
        # issue 31.4: days the mailed "my games" link (/me/<signed>) stays good
        "MY_GAMES_LINK_DAYS": float(os.environ.get("MY_GAMES_LINK_DAYS") or 7),
        # a directory for Jinja's compiled templates (its FileSystemBytecodeCache): a process that
        # starts loads them instead of compiling every template again; unset: compiled in memory
        "TEMPLATE_CACHE_DIR": os.environ.get("TEMPLATE_CACHE_DIR") or None,
    }


def _dev_secret(instance_path: str) -> str:
    """Development only: a random key kept in the instance folder (readable by its owner only) so
    links survive restarts."""
    path = Path(instance_path) / "dev-secret-key"
    if not path.exists():
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(secrets.token_hex(32))
    path.chmod(0o600)  # also a key file made 0644 by an earlier version
    return path.read_text().strip()


MIN_SECRET_BYTES = 32
MAKE_A_KEY = 'python3 -c "import secrets; print(secrets.token_hex(32))"'


def _check_production(config: dict) -> None:
    """Outside development the service refuses to start without what production needs (issue 20,
    points 4 and 7): a real SMTP server (else mails would pile up unsent, or be shown to anyone by
    the dev mailbox) and a long secret key (it signs every link)."""
    key = config.get("SECRET_KEY")
    if not key:
        raise RuntimeError(f"SECRET_KEY must be set outside development (it also signs every link); "
                           f"make one with: {MAKE_A_KEY}")
    if len(key.encode() if isinstance(key, str) else key) < MIN_SECRET_BYTES:
        raise RuntimeError(f"SECRET_KEY is too short: use at least {MIN_SECRET_BYTES} random bytes, "
                           f"e.g. {MAKE_A_KEY}")
    if not config.get("MAIL_URL") and not config.get("TESTING"):
        raise RuntimeError("MAIL_URL must be set outside development (smtp://user:pass@host:587); "
                           "for a local trial run `skyjo-pbem serve`, or set SKYJO_ENV=development")


def create_app(config: dict | None = None) -> Flask:
    app = Flask(__name__, instance_relative_config=True, template_folder=str(ROOT / "templates"))
    Path(app.instance_path).mkdir(parents=True, exist_ok=True)
    app.config.update(
        BABEL_DEFAULT_LOCALE="en",
        WTF_CSRF_TIME_LIMIT=None,  # a mail link may be confirmed hours later
        MAX_CONTENT_LENGTH=64 * 1024,
        SESSION_COOKIE_SAMESITE="Lax",
        LINKS_RATE_LIMIT="5 per minute;30 per day",  # per client address
        LINKS_RECIPIENT_RATE_LIMIT="3 per hour;6 per day",  # per address mailed
        LINKS_ANSWER_SECONDS=0.25,  # the answer's floor: a known address takes as long as an unknown one
        NEW_GAME_RATE_LIMIT="10 per hour;30 per day",  # /new per client address (each game mails people)
        NEW_GAME_HOST_RATE_LIMIT="10 per hour;20 per day",  # /new per host address
    )
    app.config.update(env_config(app.instance_path))
    if config:
        app.config.update(config)
    app.config["DEV"] = app.config.get("ENV_NAME") == "development"
    if str(app.config.get("BASE_URL") or "").startswith("https://"):
        app.config["SESSION_COOKIE_SECURE"] = True  # the session cookie (CSRF) travels over https only
    app.config.setdefault("DEV_MAILBOX", app.config["DEV"])
    if not app.config["DEV"]:
        _check_production(app.config)
    if hops := int(app.config.get("PROXY_HOPS") or 0):  # behind a reverse proxy: the client's address
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=hops, x_proto=hops, x_host=hops)
    elif not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = _dev_secret(app.instance_path)

    from service import i18n
    from service.clock import scheduler
    from service.play import reply_service, timeouts
    from service.store import db
    from service.web import errors, headers, ratelimit
    from service.web import routes as web
    from service.web.logs import RedactTokens

    app.logger.addFilter(RedactTokens())  # the error log names the request path
    db.init_app(app)
    # what the clock's sweep calls (bot moves through the move path, reminders, digests), and the
    # reply mailbox's poll that runs after it (the clock imports nothing of play/)
    app.extensions.setdefault(scheduler.HANDLERS_KEY, timeouts.ServiceClockHandlers())
    app.extensions.setdefault(scheduler.REPLY_POLLER_KEY, reply_service.poll_imap_once)
    from service.mail import retention

    app.extensions.setdefault(scheduler.PRUNE_KEY, retention.prune_app)  # daily: old mail bodies, finished games
    csrf.init_app(app)
    ratelimit.init_app(app)
    i18n.init_app(app, babel)  # catalogues compiled when stale; a seat's language, else the browser's
    from service.web import game_pages, health, mail_pages, my_games_pages

    app.register_blueprint(web.bp)
    app.register_blueprint(mail_pages.bp)
    app.register_blueprint(my_games_pages.bp)  # /me/<signed>: an address's games (issue 31.4)
    app.register_blueprint(health.bp)  # /healthz, /readyz, /metrics (issue 31.2)
    app.register_blueprint(game_pages.bp)  # the rules pages and the waiting pages' poll (issue 28)
    for endpoint in web.OWN_TOKEN_ENDPOINTS | mail_pages.OWN_TOKEN_ENDPOINTS:  # their own tokens (web.routes)
        csrf.exempt(app.view_functions[endpoint])
    from service.mail import render as mail_render
    from service.render import board, cards, clock_text, links, moves, results, rules, sheet, text
    from service.words.names import joined_names

    # the templates' macros (templates/_board.html, _moves.html, _sheet.html, _chart.html) loop over
    # what render/ prepares from a seat's view: `r.board(view)`, `r.score_rows(view)`, ...: the
    # functions the templates call, each from the module it lives in; texts go through
    # Flask-Babel's `_`/`gettext`, which babel.init_app installed in this environment
    if cache_dir := app.config.get("TEMPLATE_CACHE_DIR"):
        Path(cache_dir).mkdir(mode=0o700, parents=True, exist_ok=True)
        app.jinja_env.bytecode_cache = FileSystemBytecodeCache(cache_dir)  # a changed template compiles anew
    app.jinja_env.globals["r"] = SimpleNamespace(
        board=board.board, COLUMNS=cards.COLUMNS, move_form_token=links.move_form_token, move_groups=moves.move_groups,
        bounced_path=links.bounced_path,
        status_line=moves.status_line, round_result=results.round_result, round_text=results.round_text,
        any_doubled=sheet.any_doubled, bar_chart=sheet.bar_chart, score_chart=sheet.score_chart, score_rows=sheet.score_rows,
        sheet_text=sheet.sheet_text, sheet_totals=sheet.sheet_totals, standings=sheet.standings,
        links_text=text.links_text, text_board=text.text_board, action_cards=rules.action_cards,
        game_options=rules.game_options, changed_options=rules.changed_options, variant_label=rules.variant_label,
        rules_line=clock_text.rules_line, joined_names=joined_names)
    app.extensions["outbox_renderer"] = mail_render.renderer_for(app)  # mails are rendered when sent
    from service.mail.delivery import STILL_OWED_KEY
    from service.play import notify

    app.extensions.setdefault(STILL_OWED_KEY, notify.still_owed)  # a held turn mail: still owed?
    from service.mail.message import SIGNER_KEY
    from service.mail.signing import DkimSigner

    app.extensions[SIGNER_KEY] = DkimSigner.from_config(app.config)  # DKIM; None when not configured
    from service.mail.failures import FAILURES_KEY
    from service.play.bounces import MailFailures

    app.extensions.setdefault(FAILURES_KEY, MailFailures(app))  # VERP return paths, permanent failures
    errors.init_app(app)
    headers.init_app(app)
    if app.config["DEV"]:
        from service.web.devmail import devmail_bp

        app.register_blueprint(devmail_bp)
    for endpoint, view in list(app.view_functions.items()):  # a lost database connection: once more
        app.view_functions[endpoint] = db.once_more_on_disconnect(view)
    return app
