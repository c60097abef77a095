"""The `skyjo-pbem` command line.

Engine commands (replay, simulate) live here; service commands (serve, db, export, worker, ...) are
added by `service.cli_service.add_commands(subparsers)` when that module exists.
Exit codes: 0 ok, 2 bad input (malformed record, illegal move, bad arguments).
"""

from __future__ import annotations

import argparse
import sys


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="skyjo-pbem", description="Play SKYJO by email.")
    sub = parser.add_subparsers(dest="command", required=True)
    try:
        from service import cli_service
    except ImportError as exc:  # pragma: no cover - only while the service is not installed
        if exc.name != "service.cli_service":
            raise
    else:
        cli_service.add_commands(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
