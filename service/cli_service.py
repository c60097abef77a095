"""Service commands of `skyjo-pbem`: serve, db upgrade, worker, export, inbound-smtp. Exit code 2 for
bad input. The processes that run servers (the web app, the SMTP receiver for replies) are started
here: this module sits above the app (`create_app`), so nothing below imports it."""

from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import sys

from service import ROOT
from service.clock import scheduler
from service.web.logs import RedactTokens


def alembic_config(url: str):
    from alembic.config import Config

    cfg = Config(str(ROOT / "alembic.ini"))
    cfg.attributes["url"] = url
    cfg.attributes["skip_logging"] = True
    return cfg


def upgrade_database(url: str) -> None:
    from alembic import command

    command.upgrade(alembic_config(url), "head")


def _app():
    from service import create_app

    return create_app()


def cmd_serve(args: argparse.Namespace) -> int:
    os.environ.setdefault("BASE_URL", f"http://{args.host}:{args.port}")
    if not os.environ.get("MAIL_URL"):
        os.environ.setdefault("SKYJO_ENV", "development")  # embedded defaults: the dev mailbox
    app = _app()
    upgrade_database(app.config["DATABASE_URL"])
    from service.mail.sender import start_background_sender

    start_background_sender(app, use_reloader=args.debug)
    if scheduler.start_in_process(app, use_reloader=args.debug):  # the clock; not in the reloader's watcher
        listen_for_wakeups(app)
    where = app.config["BASE_URL"]
    print(f"skyjo-pbem: serving on {where}  (database: {app.config['DATABASE_URL'].split('@')[-1]})",
          file=sys.stderr)
    print(f"skyjo-pbem: open {where}/ in your browser to start a game", file=sys.stderr, flush=True)
    if app.config.get("DEV_MAILBOX") and not app.config.get("MAIL_URL"):
        print(f"skyjo-pbem: development mailbox at {where}/dev/mail — every mail appears there",
              file=sys.stderr)
    logging.getLogger("werkzeug").addFilter(RedactTokens())
    app.run(host=args.host, port=args.port, debug=args.debug, use_reloader=args.debug, threaded=True)
    return 0


def cmd_db_upgrade(args: argparse.Namespace) -> int:
    from service import env_config

    upgrade_database(env_config(str(ROOT / "instance"))["DATABASE_URL"])  # needs no app, no keys
    print("database is at the newest schema", file=sys.stderr)
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from service.play import games
    from service.play.errors import NotFound
    from service.store import db

    app = _app()
    with app.app_context():
        try:
            with db.transaction() as s:
                record = (games.export_deals if args.deals else games.export_record)(s, args.game)
        except NotFound as exc:
            print(f"skyjo-pbem export: {exc.message} ({args.game!r})", file=sys.stderr)
            return 2
    json.dump(record, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0


# `skyjo-pbem worker`


def listen_for_wakeups(app):
    """On PostgreSQL: a thread that LISTENs for the NOTIFY of a transaction that made work due now
    (`store.wake`) and wakes this process's clock and mail sender at once (issue 31.2). None on
    SQLite (the interval alone)."""
    from service.mail.sender import wake_background_sender
    from service.store.wake import Listener, is_postgres

    url = app.config["DATABASE_URL"]
    if not is_postgres(url):
        return None

    def wake():
        scheduler.wake_in_process()
        wake_background_sender(app)

    return Listener(url, wake).start()


def run_worker(database_url: str | None = None, interval: float | None = None, *, once: bool = False,
               mail: bool = True, app=None, handlers=None) -> int:
    """`skyjo-pbem worker`: build the app (DATABASE_URL from the argument or the environment), tick
    every `interval` seconds (default CLOCK_INTERVAL) in the foreground (BlockingScheduler), woken
    sooner on PostgreSQL (`listen_for_wakeups`), and, unless `mail=False`, run the outbox sender too.
    Any number of workers may run at once. `once=True`: one sweep, then return."""
    if app is None:
        from service import create_app

        app = create_app({"DATABASE_URL": database_url} if database_url else None)
    interval = interval or float(app.config.get("CLOCK_INTERVAL") or scheduler.DEFAULT_INTERVAL)
    if once:
        factory, handlers, context = scheduler._app_parts(app, handlers)
        job = scheduler.with_reply_polling(app, scheduler.make_tick_job(factory, handlers, context=context))
        report = job()
        if mail:
            _send_mail_once(app)
        print(report)
        return 0 if report is not None and not report.errors else 1
    if mail:
        from service.mail.sender import start_background_sender

        start_background_sender(app, use_reloader=False)
    sched = scheduler.worker_scheduler(app, handlers, interval=interval)  # and the daily prune
    listener = listen_for_wakeups(app)
    logging.getLogger(__name__).info("clock worker: ticking every %ss%s", interval,
                                     ", woken by PostgreSQL NOTIFY" if listener else "")
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    try:
        sched.start()
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:  # a clean stop (issue 20.8): nothing left claimed until a lease runs out
        if listener is not None:
            listener.stop()
        if sched.running:
            sched.shutdown(wait=True)  # the sweep in progress finishes its rows
        if mail:
            from service.mail.sender import stop_background_sender

            stop_background_sender(app)  # finishes the mail being sent, releases the rest of its claims
    return 0


def _exit_on_sigterm(signum, frame) -> None:
    """SIGTERM (systemd, docker stop, a deploy) stops the worker like Ctrl-C, not like SIGKILL."""
    raise SystemExit(0)


def _send_mail_once(app) -> None:
    from service.mail.config import configure
    from service.mail.delivery import STILL_OWED_KEY, deliver_due
    from service.mail.failures import FAILURES_KEY
    from service.mail.message import SIGNER_KEY
    from service.mail.transport import DevTransport, SmtpTransport

    url = app.config.get("MAIL_URL")
    transport = SmtpTransport(url) if url else DevTransport() if app.config.get("DEV_MAILBOX") else None
    if transport is None:
        return
    configure(mail_from=app.config.get("MAIL_FROM") or None, base_url=app.config.get("BASE_URL") or None)
    deliver_due(app.extensions["db_engine"], transport, limit=10_000,
                renderer=app.extensions.get("outbox_renderer"), still_owed=app.extensions.get(STILL_OWED_KEY),
                signer=app.extensions.get(SIGNER_KEY), failures=app.extensions.get(FAILURES_KEY))


def cmd_worker(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    return run_worker(args.database_url, args.interval, once=args.once, mail=not args.no_mail)


def add_worker_command(subparsers: argparse._SubParsersAction) -> None:
    """`skyjo-pbem worker` (`add_commands` calls this)."""
    p = subparsers.add_parser("worker", help="run the clock (deadlines, reminders, digests) and the mail "
                                             "sender; any number of workers may run at once")
    p.add_argument("--database-url", default=None, help="default: DATABASE_URL, else the instance SQLite file")
    p.add_argument("--interval", type=float, default=None, help="seconds between sweeps (default: CLOCK_INTERVAL, 30)")
    p.add_argument("--once", action="store_true", help="one sweep (and one mail run), then exit")
    p.add_argument("--no-mail", action="store_true", help="do not run the outbox sender in this process")
    p.set_defaults(func=cmd_worker)


# `skyjo-pbem inbound-smtp`


def cmd_inbound_smtp(args: argparse.Namespace) -> int:
    from service.mail.inbound import serve_smtp
    from service.mail.sender import start_background_sender
    from service.play.reply_service import handle_inbound, quiet_smtp_log
    from service.store import tokens

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    quiet_smtp_log()
    app = _app()
    with app.app_context():
        domain = tokens.mail_domain()
    start_background_sender(app, use_reloader=False)  # answers go out from this process too
    logging.getLogger(__name__).info("inbound SMTP for replies to play+…@%s on %s:%s", domain, args.host, args.port)
    serve_smtp(lambda raw: handle_inbound(app, raw), host=args.host, port=args.port,
               accept_domains=None if args.any_domain else [domain])
    return 0


def add_inbound_command(subparsers) -> None:
    p = subparsers.add_parser("inbound-smtp", help="receive reply mails over SMTP (point the MX of "
                                                   "MAIL_DOMAIN here); each reply plays a turn")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--host", default="0.0.0.0")
    p.add_argument("--any-domain", action="store_true", help="accept recipients of any domain")
    p.set_defaults(func=cmd_inbound_smtp)


def add_commands(subparsers) -> None:
    serve = subparsers.add_parser("serve", help="run the web service (SQLite and the dev mailbox by default)")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=5000)
    serve.add_argument("--debug", action="store_true", help="debug mode with the reloader")
    serve.set_defaults(func=cmd_serve)

    dbp = subparsers.add_parser("db", help="database maintenance")
    dbsub = dbp.add_subparsers(dest="db_command", required=True)
    up = dbsub.add_parser("upgrade", help="migrate the database (DATABASE_URL) to the newest schema")
    up.set_defaults(func=cmd_db_upgrade)

    add_worker_command(subparsers)  # `worker`: the clock (and mail) for multi-process deployments

    exp = subparsers.add_parser("export", help="print a game's record as JSON (`replay` reproduces it)")
    exp.add_argument("game", help="the game id (from its page address or the database)")
    exp.add_argument("--deals", action="store_true",
                     help="print the deal record of the rounds that are over instead (`verify` checks it)")
    exp.set_defaults(func=cmd_export)

    add_inbound_command(subparsers)  # `inbound-smtp`: reply mails play turns

    from service import cli_i18n

    cli_i18n.add_command(subparsers)  # `i18n update|compile|check`: the catalogues in translations/
