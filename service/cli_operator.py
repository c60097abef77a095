"""Operator commands of `skyjo-pbem` (issue 31.3): status, block, unblock, resend, cancel, forget,
backup, restore.

Each takes the configuration from the environment like `serve` and `worker` (DATABASE_URL,
SECRET_KEY, MAIL_URL, BASE_URL; `--database-url` overrides the database) and calls one use case in
one transaction: `play.operator` (status, block list, resend), `play.games.operator_cancel`,
`play.forget`, `store.backup`. Exit codes: 0 done, 2 bad input or refused (the message says why).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from service import ROOT, env_config

# (imported in the functions: `skyjo-pbem --help` stays fast and needs no database)


def _url(args: argparse.Namespace) -> str:
    return args.database_url or env_config(str(ROOT / "instance"))["DATABASE_URL"]


def _app(args: argparse.Namespace):
    from service import create_app

    return create_app({"DATABASE_URL": args.database_url} if args.database_url else None)


def _in_transaction(args: argparse.Namespace, use_case, *, write: bool = True):
    """Run `use_case(session)` in one transaction of the app's database; the app's context is
    there for the mails it queues (their links, their language)."""
    from service.store import db

    app = _app(args)
    try:
        with app.app_context(), db.transaction(write=write) as s:
            return use_case(s)
    finally:
        db.get_engine(app).dispose()


def cmd_status(args: argparse.Namespace) -> int:
    from service.play import health, operator

    print("\n".join(operator.status_lines(_in_transaction(args, health.service_status, write=False))))
    return 0


def cmd_block(args: argparse.Namespace) -> int:
    from service.play import operator

    address, new = _in_transaction(args, lambda s: operator.block(s, args.address))
    print(f"{address}: blocked (no mail, not invitable)" if new else f"{address}: was blocked already")
    return 0


def cmd_unblock(args: argparse.Namespace) -> int:
    from service.play import operator

    address, reason = _in_transaction(args, lambda s: operator.unblock(s, args.address))
    print(f"{address}: unblocked (it was blocked: {reason})" if reason else f"{address}: was not blocked")
    return 0


def cmd_resend(args: argparse.Namespace) -> int:
    from service.play import operator

    row = _in_transaction(args, lambda s: operator.resend(s, args.mail_id))
    print(f"mail {args.mail_id} queued again as mail {row.id} to {row.to_addr} (a new Message-ID, same thread)")
    return 0


def cmd_cancel(args: argparse.Namespace) -> int:
    from service.play import games

    game, already = _in_transaction(args, lambda s: games.operator_cancel(s, args.game))
    print(f"game {game.id} was cancelled already" if already
          else f"game {game.id} cancelled; its players are told by mail")
    return 0


def cmd_forget(args: argparse.Namespace) -> int:
    from service.play import forget

    done = _in_transaction(args, lambda s: forget.forget(s, args.address))
    print(f"forgotten in {done.games} games: {done.mails_deleted} mails to it deleted, "
          f"{done.mails_scrubbed} other mails scrubbed, {done.messages_deleted} table-talk messages and "
          f"{done.replies_deleted} reply log entries deleted")
    return 0


def cmd_backup(args: argparse.Namespace) -> int:
    from service.store import backup

    print(backup.backup(_url(args), Path(args.path)))
    return 0


def cmd_restore(args: argparse.Namespace) -> int:
    from service.store import backup

    print(backup.restore(_url(args), Path(args.path), force=args.force))
    return 0


def _refusals_exit_2(func):
    """A refused use case, an address that is none, a backup that cannot be made: its message on
    stderr and exit code 2."""

    def run(args: argparse.Namespace) -> int:
        from service.play.errors import UseCaseError
        from service.store.backup import BackupError

        try:
            return func(args)
        except UseCaseError as exc:
            print(f"skyjo-pbem {args.command}: {exc.message}", file=sys.stderr)
        except BackupError as exc:
            print(f"skyjo-pbem {args.command}: {exc}", file=sys.stderr)
        return 2

    return run


def _mail_id(text: str) -> int:
    if not text.isdigit() or not 0 < int(text) < 2**31:
        raise argparse.ArgumentTypeError(f"{text!r} is not a mail id (the outbox row's number)")
    return int(text)


def add_commands(subparsers) -> None:
    def command(name: str, func, help: str) -> argparse.ArgumentParser:
        p = subparsers.add_parser(name, help=help)
        p.add_argument("--database-url", default=None, help="default: DATABASE_URL, else the instance SQLite file")
        p.set_defaults(func=_refusals_exit_2(func))
        return p

    command("status", cmd_status, "games by state, the outbox's backlog, overdue deadlines, worker heartbeats")
    command("block", cmd_block, "mail nothing more to an address and refuse it in new games").add_argument("address")
    command("unblock", cmd_unblock, "take an address off the block list").add_argument("address")
    command("resend", cmd_resend, "send a sent mail again (a new Message-ID in the same thread)").add_argument(
        "mail_id", type=_mail_id, help="the outbox row's id")
    command("cancel", cmd_cancel, "cancel a game that is inviting or running; its players are told").add_argument(
        "game", help="the game id")
    command("forget", cmd_forget, "erase an address and its names from every game (GDPR Art. 17)").add_argument(
        "address")
    command("backup", cmd_backup, "copy the database to a new file (SQLite online backup, or pg_dump)").add_argument(
        "path")
    p = command("restore", cmd_restore, "replace the database with a backup (stop the service first)")
    p.add_argument("path")
    p.add_argument("--force", action="store_true", help="replace a database that holds games")
