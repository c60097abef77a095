"""Service commands of `skyjo-pbem`: serve, db upgrade, export. Exit code 2 for bad input."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys

from service import ROOT
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
    from service.mail.outbox import start_background_sender

    start_background_sender(app, use_reloader=args.debug)
    from service.clock import scheduler

    scheduler.start_in_process(app, use_reloader=args.debug)  # the clock; not in the reloader's watcher
    where = app.config["BASE_URL"]
    print(f"skyjo-pbem: serving on {where}  (database: {app.config['DATABASE_URL'].split('@')[-1]})",
          file=sys.stderr)
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
    from service.play import usecases
    from service.store import db

    app = _app()
    with app.app_context():
        try:
            with db.transaction() as s:
                record = usecases.export_record(s, args.game)
        except usecases.NotFound as exc:
            print(f"skyjo-pbem export: {exc.message} ({args.game!r})", file=sys.stderr)
            return 2
    json.dump(record, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0


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

    from service.clock import scheduler

    scheduler.add_worker_command(subparsers)  # `worker`: the clock (and mail) for multi-process deployments

    exp = subparsers.add_parser("export", help="print a game's record as JSON (`replay` reproduces it)")
    exp.add_argument("game", help="the game id (from its page address or the database)")
    exp.set_defaults(func=cmd_export)

    from service.play import reply_service

    reply_service.add_inbound_command(subparsers)  # `inbound-smtp`: reply mails play turns
