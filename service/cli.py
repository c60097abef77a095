"""The `skyjo-pbem` command line.

Engine commands (replay, simulate) live here; service commands (serve, db, export, worker, ...) are
added by `service.cli_service.add_commands(subparsers)` when that module exists.
Exit codes: 0 ok, 2 bad input (malformed record, illegal move, bad arguments).
"""

from __future__ import annotations

import argparse
import importlib
import json
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any, TextIO

import engine
from engine import deals
from engine.arena import play_match
from engine.bots import bot_move
from engine.classic import CLASSIC


class UsageError(Exception):
    """Bad input on the command line: printed, exit code 2."""


def round_summary(game: engine.Game) -> dict[str, Any]:
    names = game.names
    return {
        "players": names,
        "variant": game.variant,
        "rounds": [
            {
                "round": r["round"],
                "closer": names[r["closer"]] if r["closer"] is not None else None,
                "scores_before_doubling": {names[s]: v for s, v in enumerate(r["raw"]) if v is not None},
                "scores": {names[s]: v for s, v in enumerate(r["scores"]) if v is not None},
                "doubled": [names[s] for s in r["doubled"]],
                "removed_columns": [f"{names[s]} {col}" for s, col in r["removed_columns"]],
                "totals": {names[s]: t for s, t in enumerate(r["totals"])},
            }
            for r in game.rounds
        ],
        "totals": {names[s]: t for s, t in enumerate(game.totals)},
        "finished": game.is_over,
        "winners": [names[s] for s in game.winners] if game.winners is not None else None,
    }


def read_json(path: str) -> Any:
    """The JSON document at `path` ('-': stdin); UsageError (exit 2) if it cannot be read."""
    try:
        text = Path(path).read_text(encoding="utf-8") if path != "-" else sys.stdin.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"{path} is not JSON: {exc}") from None


def cmd_verify(args: argparse.Namespace) -> int:
    """Issue 32.1: check a deal record (`engine.deals`): 0 every round checks, 1 a round fails (named
    on stdout), 2 the record cannot be read."""
    record = read_json(args.record)
    try:
        problems = deals.verify(record)
    except engine.RecordError as exc:
        raise UsageError(f"{args.record}: {exc}") from None
    for number, problem in problems:
        print(f"round {number}: {problem}")
    if problems:
        return 1
    for r in record["rounds"]:
        print(f"round {r['round']}: seed {r['seed']} matches {deals.fingerprint(r['commitment'])}; "
              "the deal and reshuffles follow from it")
    print(f"all rounds check ({len(record['rounds'])})")
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    record = read_json(args.record)
    try:
        game = engine.replay(record)
    except engine.RecordError as exc:
        where = f"move {exc.move_number}: " if exc.move_number and not str(exc).startswith("move") else ""
        raise UsageError(f"{args.record}: {where}{exc}") from None
    out = round_summary(game)
    if args.state:
        out["state"] = game.to_json()
    json.dump(out, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


class Progress:
    """A one-line progress bar on stderr (only when it is a terminal or when forced)."""

    def __init__(self, total: int, stream: TextIO = sys.stderr, enabled: bool | None = None) -> None:
        self.total = total
        self.stream = stream
        self.enabled = stream.isatty() if enabled is None else enabled
        self.start = time.monotonic()
        self.last = 0.0

    def update(self, done: int) -> None:
        now = time.monotonic()
        if not self.enabled or (now - self.last < 0.1 and done < self.total):
            return
        self.last = now
        width = 30
        filled = int(width * done / self.total)
        rate = done / max(now - self.start, 1e-9)
        self.stream.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{self.total} games {rate:.0f}/s")
        if done >= self.total:
            self.stream.write("\n")
        self.stream.flush()


def simulate(players: int, games: int, seed: str | None, bot: str, variant: str = "classic",
             options: dict[str, Any] | None = None, progress: Progress | None = None) -> dict[str, Any]:
    rng = random.Random(seed)
    rounds_per_game: list[int] = []
    round_scores: list[int] = []
    closers = doubled = 0
    turns = 0
    wins = [0] * players
    names = [f"P{i + 1}" for i in range(players)]
    started = time.perf_counter()
    for i in range(games):
        game = engine.new_game(names, variant, options,
                               seed=None if seed is None else f"{seed}-{i}")
        guard = engine.RepetitionGuard()  # bots playing in a circle: an error, not a hang
        while True:
            pend = game.pending()
            if not pend:
                break
            s = pend[0].seat
            move = bot_move(game, s, bot, rng)
            if move.text() in ("draw", "take"):
                turns += 1
            game.play(s, move)
            guard.check(game)
        rounds_per_game.append(len(game.rounds))
        for r in game.rounds:
            round_scores.extend(v for v in r["scores"] if v is not None)
            if r["closer"] is not None:
                closers += 1
                doubled += r["closer"] in r["doubled"]
        for w in game.winners or []:
            wins[w] += 1
        if progress:
            progress.update(i + 1)
    elapsed = time.perf_counter() - started
    return {
        "variant": variant,
        "players": players,
        "games": games,
        "bot": bot,
        "seed": seed,
        "rounds_per_game": {"mean": round(statistics.fmean(rounds_per_game), 3),
                            "min": min(rounds_per_game), "max": max(rounds_per_game)},
        "mean_round_score": round(statistics.fmean(round_scores), 3),
        "closer_doubled_rate": round(doubled / closers, 4) if closers else 0.0,
        "turns_per_round": round(turns / sum(rounds_per_game), 2),
        "wins_by_seat": wins,
        "seconds": round(elapsed, 3),
    }


def _bot_list(text: str) -> list[str]:
    bots = [b.strip() for b in text.split(",")]
    unknown = [b for b in bots if b not in CLASSIC.bots]
    if unknown:
        raise UsageError(f"unknown bot {unknown[0]!r} in --bots; choose from {', '.join(sorted(CLASSIC.bots))}")
    return bots


def cmd_simulate(args: argparse.Namespace) -> int:
    bots = _bot_list(args.bots) if args.bots else None
    if bots is not None and args.players is not None and args.players != len(bots):
        raise UsageError(f"--bots names {len(bots)} seats but --players says {args.players}")
    players = len(bots) if bots is not None else (args.players or 4)
    if not 2 <= players <= 8:
        raise UsageError(f"--players must be 2 to 8, not {players}")
    if args.games < 1:
        raise UsageError("--games must be at least 1")
    if args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    try:
        options = json.loads(args.options) if args.options else None
        engine.new_game([f"P{i}" for i in range(players)], args.variant, options)
    except (json.JSONDecodeError, engine.EngineError) as exc:
        raise UsageError(f"bad --variant/--options: {exc}") from None
    if bots is not None:
        try:
            figures = play_match(bots, args.games, args.seed, args.variant, options, jobs=args.jobs)
        except engine.RepeatedPosition as exc:
            raise UsageError(f"simulate stopped: {exc}") from None
        # the last line: one JSON object (issue 18.4)
        out = {"bots": figures, "seats": bots, "variant": args.variant, "games": args.games, "seed": args.seed}
        sys.stdout.write(json.dumps(out) + "\n")
        return 0
    progress = Progress(args.games, enabled=args.progress or None) if args.games > 1 else None
    try:
        out = simulate(players, args.games, args.seed, args.bot, args.variant, options, progress)
    except engine.RepeatedPosition as exc:
        raise UsageError(f"simulate stopped: {exc}") from None
    json.dump(out, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


def add_engine_commands(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("replay", help="replay a game record and print each round's scores as JSON")
    p.add_argument("record", help="path of the record JSON ('-' for stdin)")
    p.add_argument("--state", action="store_true", help="also print the final state")
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser("verify", help="check a deal record: each round's seed against its commitment, "
                       "its deal and reshuffles against the seed (exit 0 all check, 1 one fails, 2 unreadable)")
    p.add_argument("record", help="path of the deal record JSON ('-' for stdin), from the page 'check this round'")
    p.set_defaults(func=cmd_verify)

    p = sub.add_parser("simulate", help="play games between bots and print statistics as JSON")
    p.add_argument("--players", type=int, default=None, help="number of seats (default 4, or as many as --bots)")
    p.add_argument("--games", type=int, default=100)
    p.add_argument("--seed", default=None, help="makes the run reproducible")
    p.add_argument("--bot", choices=sorted(CLASSIC.bots), default="greedy")
    p.add_argument(
        "--bots",
        default=None,
        help="one bot per seat, e.g. strong,greedy,greedy,greedy: seats rotate between games; the last "
        "line is a JSON object of each bot's win rate, mean round score and mean decision time",
    )
    p.add_argument("--jobs", type=int, default=1, help="with --bots: processes to spread the games over")
    p.add_argument("--variant", default="classic")
    p.add_argument("--options", default=None, help='rule options as JSON, e.g. \'{"target_score": 50}\'')
    p.add_argument("--progress", action="store_true", help="show the progress bar even when not on a terminal")
    p.set_defaults(func=cmd_simulate)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="skyjo-pbem", description="Play SKYJO by email.")
    sub = parser.add_subparsers(dest="command", required=True)
    add_engine_commands(sub)
    try:
        cli_service = importlib.import_module("service.cli_service")
    except ModuleNotFoundError as exc:  # pragma: no cover - only while the service is not there
        if exc.name != "service.cli_service":
            raise
    else:
        cli_service.add_commands(sub)
        from service import cli_mail

        cli_mail.add_commands(sub)  # `mail keygen|check`, `prune` (issue 29)
        from service import cli_operator

        cli_operator.add_commands(sub)  # status, block, unblock, resend, cancel, forget, backup, restore (issue 31.3)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)  # argparse exits with code 2 on bad arguments
    try:
        return int(args.func(args) or 0)
    except UsageError as exc:
        print(f"skyjo-pbem {args.command}: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
