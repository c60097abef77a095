#!/usr/bin/env python3
"""Growth curves (issue 33): what a bot decision, a board GET and a move POST cost as a game grows.

    .venv/bin/python bench/growth.py [--at 10,200,1000] [--runs 9]

One 2-player classic game (target score 10,000, so it never ends) in the real app (Flask's test
client, SQLite in a temporary folder). It is played on through the one move path (`moves.play`,
the engine's greedy bot picks each move, decided on the saved state) up to each checkpoint; there
it times, each the median of `--runs` requests:

* board GET: `GET /s/<token>` of the seat that owes the decision (whole page, with its size);
* move POST: a board button's POST (`/s/<token>/m/<slug>`, the move form's token; each plays one
  decision, so the game moves on by `--runs` decisions);
* bot decision: the clock's timeout handler (`ServiceClockHandlers.on_timeout` on the owing seat's
  open deadline row, in its own write transaction: the strong bot's decision through the one move
  path, as the clock's sweep runs it).

It prints one line per checkpoint and the ratio of each figure at the last checkpoint to the first
(the board GET's goal: within 1.5x).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.two_seats import started_game  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--at", default="10,200,1000", help="move numbers to measure at")
    ap.add_argument("--runs", type=int, default=9)
    args = ap.parse_args(argv)
    checkpoints = sorted(int(x) for x in args.at.split(","))

    from sqlmodel import select

    import engine
    from service.play import lookups, moves
    from service.play.timeouts import ServiceClockHandlers
    from service.render.links import slug_for
    from service.store import db, tokens
    from service.store.clock_models import Deadline
    from service.store.models import GameRow

    app, game_id, toks = started_game("growth", 10_000)
    client = app.test_client()
    rng = random.Random(33)

    def owed() -> tuple[int, str, engine.Game, int]:
        with app.app_context(), db.transaction() as s:
            game = s.get(GameRow, game_id)
            g = lookups.load_engine_game(game)
            seat = g.pending()[0].seat
            return seat, g.decision_id(seat), g, game.version

    def step() -> None:
        """One decision of the owing seat, the greedy bot's, through `moves.play`."""
        seat, decision, g, _v = owed()
        texts = [str(engine.bot_move(g, seat, "greedy", rng))]
        if texts[0] in ("draw", "take"):  # the card is placed in the same decision
            g.play(seat, texts[0])
            texts.append(str(engine.bot_move(g, seat, "greedy", rng)))
        with app.app_context(), db.transaction(write=True) as s:
            moves.play(s, toks[seat], texts, decision=decision, via="board")

    def version() -> int:
        return owed()[3]

    def board_get() -> tuple[float, int]:
        seat = owed()[0]
        t = time.perf_counter()
        r = client.get(f"/s/{toks[seat]}")
        took = time.perf_counter() - t
        assert r.status_code == 200, r.status_code
        return took, len(r.data)

    def move_post() -> float:
        seat, decision, g, _v = owed()
        texts = [str(engine.bot_move(g, seat, "greedy", rng))]
        if texts[0] == "take":  # a link takes and places at once; a drawn card is placed by a second one
            g.play(seat, texts[0])
            texts.append(str(engine.bot_move(g, seat, "greedy", rng)))
        slug = slug_for(texts)
        with app.test_request_context():
            form_token = tokens.move_form_token(toks[seat], slug, decision)
        t = time.perf_counter()
        r = client.post(f"/s/{toks[seat]}/m/{slug}", data={"csrf_token": form_token, "decision": decision,
                                                           "move": slug, "game": game_id, "seat": str(seat),
                                                           "via": "board"})
        took = time.perf_counter() - t
        assert r.status_code == 303, r.text[:300]
        return took

    handlers = ServiceClockHandlers()

    def bot_decision() -> float:
        seat = owed()[0]
        with app.app_context():
            t = time.perf_counter()
            with db.transaction(write=True) as s:
                d = s.exec(select(Deadline).where(Deadline.game_id == game_id, Deadline.seat == seat,
                                                  Deadline.fired_at.is_(None))).first()
                assert d is not None, "no open deadline"
                assert handlers.on_timeout(s, d)
            return time.perf_counter() - t

    rows = []
    for at in checkpoints:
        while version() < at:
            step()
        gets = [board_get() for _ in range(args.runs)]
        posts = [move_post() for _ in range(args.runs)]
        bots = [bot_decision() for _ in range(args.runs)]
        row = {"at": at, "get_ms": statistics.median(t for t, _n in gets) * 1000, "get_kb": gets[-1][1] / 1024,
               "post_ms": statistics.median(posts) * 1000, "bot_ms": statistics.median(bots) * 1000}
        rows.append(row)
        print(f"move {at:>5}: board GET {row['get_ms']:7.1f} ms ({row['get_kb']:5.1f} KB)   move POST "
              f"{row['post_ms']:6.1f} ms   bot decision (timeout handler) {row['bot_ms']:7.1f} ms", flush=True)
    if len(rows) > 1:
        first, last = rows[0], rows[-1]
        print(f"move {last['at']} / move {first['at']}: board GET {last['get_ms'] / first['get_ms']:.2f}x "
              f"(goal <= 1.5x), move POST {last['post_ms'] / first['post_ms']:.2f}x, "
              f"bot decision {last['bot_ms'] / first['bot_ms']:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
