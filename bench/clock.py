"""Benchmark of the clock's sweep (a benchmark, not a test: it prints figures).

    .venv/bin/python bench/clock.py [--db sqlite,postgres] [--due 10000] [--rows 1000000] [--idle-runs 300]
        [--moves 3000]

1. one sweep (`tick`) with `--due` due deadlines (timeouts; no-op handlers, so this measures
   the clock's own work: claim, one transaction per row, seat counters, closing the row);
2. an idle sweep (nothing due) of an empty database and of one with `--rows` non-due rows (half
   open with a deadline in the next two weeks, half closed history, plus the swept rows), taking
   turns: medians over `--idle-runs` sweeps each and their ratio (target <= 1.2: due rows are found
   through the partial index, not by scanning);
3. the sweep of `--due` rows again with `--parallel` worker processes;
4. the clock's part of a move (what `clock_service.moved` runs in every move's transaction:
   `game_clock`, `note_player_acted`, `schedule_decisions`, `board_status`) over `--moves` moves of
   2-player games played by the engine's bot: median ms per move and SQL statements per move
   (target <= 0.4 ms on SQLite; 3 statements for the common move: one SELECT of the seat clocks and
   open rows, one UPDATE closing the made decision's row, one INSERT of the new one).

Rows are generated inside the database (`generate_series` / a recursive CTE), so inserting a
million takes seconds. PostgreSQL: BENCH_POSTGRES_URL or TEST_POSTGRES_URL (default
postgresql+psycopg://postgres@127.0.0.1:5432/test), in a fresh schema dropped at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path
from urllib.parse import quote

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sqlalchemy import create_engine, event, text  # noqa: E402

from service.clock.deadlines import ClockSettings, board_status, game_clock, schedule_decisions  # noqa: E402
from service.clock.seats import note_player_acted  # noqa: E402
from service.clock.tick import create_tables, make_engine, session_factory_for, tick  # noqa: E402

PG_URL = os.environ.get("BENCH_POSTGRES_URL") or os.environ.get(
    "TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
NOW = datetime(2027, 6, 1, 12, 0)
COLUMNS = ("game_id, seat, kind, version, policy, decision_seconds, reminders_left, reminders_sent, "
           "created_at, deadline_at, next_at, next_event, bot_played, attempts, fired_at, outcome")


class NullHandlers:
    def on_timeout(self, session, deadline):
        return True

    def on_reminder(self, session, deadline):
        return True

    def on_digest(self, session, seat_clocks, now):
        pass


def _ts_sqlite(base: str, seconds_expr: str) -> str:
    return f"(strftime('%Y-%m-%d %H:%M:%S', '{base}', ({seconds_expr}) || ' seconds') || '.000000')"


def insert_rows(eng, n: int, *, prefix: str, due: bool, start: int = 0) -> float:
    """Insert n rows generated in the database. due=True: timeouts due before NOW; else half open
    (next_at in the next 14 days) and half closed."""
    t = time.perf_counter()
    base = NOW.strftime("%Y-%m-%d %H:%M:%S")
    with eng.begin() as conn:
        if eng.dialect.name == "postgresql":
            ts = "TIMESTAMP '" + base + "' + make_interval(secs => {})"
            if due:
                next_at = ts.format("-60 - i * 0.001")
                fired, outcome, nxt_ev = "NULL", "NULL", "'timeout'"
            else:
                next_at = f"CASE WHEN i % 2 = 0 THEN {ts.format('3600 + i % 1209600')} END"
                fired = f"CASE WHEN i % 2 = 1 THEN {ts.format('-86400 - i')} END"
                outcome = "CASE WHEN i % 2 = 1 THEN 'made' END"
                nxt_ev = "CASE WHEN i % 2 = 0 THEN 'timeout' END"
            conn.execute(text(
                f"INSERT INTO clock_deadline ({COLUMNS}) SELECT '{prefix}' || i, i % 4, 'turn', 1, 'bot', "
                f"172800, '[]', 0, {ts.format('-172800')}, {ts.format('3600 + i % 1209600') if not due else next_at}, "
                f"{next_at}, {nxt_ev}, false, 0, {fired}, {outcome} "
                f"FROM generate_series({start + 1}, {start + n}) AS i"))
            conn.execute(text("ANALYZE clock_deadline"))
        else:
            if due:
                next_at = _ts_sqlite(base, "-60 - i / 1000")
                fired, outcome, nxt_ev = "NULL", "NULL", "'timeout'"
                deadline = next_at
            else:
                next_at = f"CASE WHEN i % 2 = 0 THEN {_ts_sqlite(base, '3600 + i % 1209600')} END"
                fired = f"CASE WHEN i % 2 = 1 THEN {_ts_sqlite(base, '-86400 - i')} END"
                outcome = "CASE WHEN i % 2 = 1 THEN 'made' END"
                nxt_ev = "CASE WHEN i % 2 = 0 THEN 'timeout' END"
                deadline = _ts_sqlite(base, "3600 + i % 1209600")
            conn.execute(text(
                f"WITH RECURSIVE c(i) AS (SELECT {start + 1} UNION ALL SELECT i + 1 FROM c WHERE i < {start + n}) "
                f"INSERT INTO clock_deadline ({COLUMNS}) SELECT '{prefix}' || i, i % 4, 'turn', 1, 'bot', "
                f"172800, '[]', 0, {_ts_sqlite(base, '-172800')}, {deadline}, {next_at}, {nxt_ev}, 0, 0, "
                f"{fired}, {outcome} FROM c"))
            conn.execute(text("ANALYZE"))
    return time.perf_counter() - t


def idle_times(factories: list, runs: int) -> list[tuple[float, float]]:
    """(median, min) of `runs` idle sweeps per factory, in seconds; the factories take turns, so
    the machine's background load falls on each alike."""
    h = NullHandlers()
    for f in factories:
        for _ in range(10):  # warm up the pool and statement caches
            tick(NOW, f, h)
    times: list[list[float]] = [[] for _ in factories]
    for _ in range(runs):
        for i, f in enumerate(factories):
            t = time.perf_counter()
            r = tick(NOW, f, h)
            times[i].append(time.perf_counter() - t)
            assert r.claimed == 0
    return [(statistics.median(ts), min(ts)) for ts in times]


def vacuum(eng) -> None:
    if eng.dialect.name == "postgresql":
        with eng.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            conn.execute(text("VACUUM ANALYZE clock_deadline"))


def plan(eng) -> str:
    q = ("SELECT id FROM clock_deadline WHERE fired_at IS NULL AND next_at <= '2027-06-01 12:00:00.000000' "
         "AND (claimed_until IS NULL OR claimed_until <= '2027-06-01 12:00:00.000000') ORDER BY next_at LIMIT 200")
    with eng.connect() as conn:
        if eng.dialect.name == "postgresql":
            rows = conn.execute(text("EXPLAIN " + q)).scalars()
        else:
            rows = (r[-1] for r in conn.execute(text("EXPLAIN QUERY PLAN " + q)))
        return " | ".join(str(r).strip() for r in rows)


def parallel_sweep(url: str, n: int, due: int) -> float:
    """Wall time for `n` worker processes sweeping `due` rows together."""
    start_at = time.time() + 8.0  # every process has imported and connected by then
    procs = [subprocess.Popen([sys.executable, __file__, "--worker", url, str(start_at)], stdout=subprocess.PIPE,
                              text=True) for _ in range(n)]
    outs = [json.loads(p.communicate(timeout=3600)[0].strip().splitlines()[-1]) for p in procs]
    assert sum(o["timeouts"] for o in outs) == due, outs
    return max(o["end"] for o in outs) - max(start_at, min(o["start"] for o in outs))


def worker(url: str, start_at: float) -> None:
    eng = make_engine(url)
    factory = session_factory_for(eng)
    delay = start_at - time.time()
    if delay > 0:
        time.sleep(delay)
    start = time.time()
    r = tick(NOW, factory, NullHandlers(), max_rows=10**9)
    print(json.dumps({"timeouts": r.timeouts, "errors": r.errors, "start": start, "end": time.time()}))


def move_path(eng, moves: int) -> dict:
    """Time the clock's calls of `moves` moves (2-player games, the engine's greedy bot picks each
    move), each in its own transaction like a real move; only the clock's calls are timed."""
    import random

    import engine

    factory = session_factory_for(eng)
    counting = {"on": False, "n": 0}

    @event.listens_for(eng, "before_cursor_execute")
    def _count(*_args):
        counting["n"] += counting["on"]

    rng = random.Random(1)
    times: list[float] = []
    statements: list[int] = []
    settings = ClockSettings()
    game_no = 0
    while len(times) < moves:
        game_id, g = f"m{game_no}", engine.new_game(["Ann", "Bo"], options={"target_score": 10_000},
                                                    seed=f"bench-{game_no}")
        game_no += 1
        with factory() as s:
            schedule_decisions(s, game_id, g.pending(), g.version, NOW, settings)
        for step in range(200):
            if len(times) >= moves or g.is_over:
                break
            seat = rng.choice(g.pending()).seat
            g.play(seat, engine.bot_move(g, seat, "greedy", rng))
            now = NOW + timedelta(minutes=10 * (step + 1))
            with factory() as s:
                s.connection()  # the move's transaction has begun long before the clock's calls
                counting["on"], counting["n"] = True, 0
                t = time.perf_counter()
                clocks, open_rows = game_clock(s, game_id)
                if note_player_acted(s, game_id, seat, now, clocks=clocks):
                    open_rows = None
                rows = schedule_decisions(s, game_id, g.pending(), g.version, now, settings,
                                                acted_seats=(seat,), clocks=clocks, open_rows=open_rows)
                board_status(s, game_id, now, clocks=clocks, open_rows=rows)
                times.append(time.perf_counter() - t)
                counting["on"] = False
                statements.append(counting["n"])
    event.remove(eng, "before_cursor_execute", _count)
    return {"moves": len(times), "move_ms": statistics.median(times) * 1000,
            "move_p90_ms": sorted(times)[int(len(times) * 0.9)] * 1000,
            "move_statements": statistics.median(statements), "move_statements_max": max(statements)}


def run(name: str, url: str, empty_url: str, due: int, rows: int, idle_runs: int, parallel: int = 4,
        moves: int = 3000) -> dict:
    eng, empty = make_engine(url), make_engine(empty_url)
    create_tables(eng)
    create_tables(empty)
    factory = session_factory_for(eng)
    out = {"db": name}
    if moves:
        out.update(move_path(eng, moves))

    insert_rows(eng, due, prefix="d", due=True)
    t = time.perf_counter()
    r = tick(NOW, factory, NullHandlers(), max_rows=due * 2)
    out["sweep_s"] = time.perf_counter() - t
    assert r.timeouts == due and r.errors == 0, r
    out["sweep_rows_per_s"] = due / out["sweep_s"]

    if parallel > 1:
        insert_rows(eng, due, prefix="p", due=True, start=due)
        out["parallel_s"] = parallel_sweep(url, parallel, due)
    out["insert_s"] = insert_rows(eng, rows, prefix="n", due=False)
    vacuum(eng)  # the steady state autovacuum keeps (the swept rows left dead index entries)
    (med0, min0), (med1, min1) = idle_times([session_factory_for(empty), factory], idle_runs)
    out["idle_0_ms"], out["idle_0_min_ms"] = med0 * 1000, min0 * 1000
    out["idle_1m_ms"], out["idle_1m_min_ms"] = med1 * 1000, min1 * 1000
    out["ratio"] = out["idle_1m_ms"] / out["idle_0_ms"]
    out["ratio_min"] = out["idle_1m_min_ms"] / out["idle_0_min_ms"]
    out["plan"] = plan(eng)
    eng.dispose()
    empty.dispose()
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--db", default="sqlite,postgres")
    ap.add_argument("--due", type=int, default=10_000)
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--idle-runs", type=int, default=300)
    ap.add_argument("--parallel", type=int, default=4, help="also sweep --due rows with this many processes")
    ap.add_argument("--moves", type=int, default=3000, help="moves for the move-path figure (0: skip)")
    ap.add_argument("--worker", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        worker(args.worker[0], float(args.worker[1]))
        return 0
    results = []
    for name in args.db.split(","):
        if name == "sqlite":
            with tempfile.TemporaryDirectory() as tmp:
                results.append(run("sqlite", f"sqlite:///{tmp}/bench.sqlite3", f"sqlite:///{tmp}/empty.sqlite3",
                                   args.due, args.rows, args.idle_runs, args.parallel, args.moves))
        elif name == "postgres":
            schemas = [f"bench_clock_{secrets.token_hex(4)}" for _ in range(2)]
            admin = create_engine(PG_URL)
            try:
                with admin.begin() as conn:
                    for schema in schemas:
                        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
            except Exception as exc:  # noqa: BLE001
                print(f"postgres: skipped ({type(exc).__name__}: {exc})", file=sys.stderr)
                continue
            sep = "&" if "?" in PG_URL else "?"
            urls = [f"{PG_URL}{sep}options={quote(f'-csearch_path={schema}')}" for schema in schemas]
            try:
                results.append(run("postgres", urls[0], urls[1], args.due, args.rows, args.idle_runs,
                                   args.parallel, args.moves))
            finally:
                with admin.begin() as conn:
                    for schema in schemas:
                        conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
                admin.dispose()
    for r in results:
        if "moves" in r:
            print(f"[{r['db']}] the clock's part of a move: {r['move_ms']:.3f} ms median, p90 {r['move_p90_ms']:.3f} "
                  f"ms, {r['move_statements']:.0f} statements (max {r['move_statements_max']}) over {r['moves']} "
                  f"moves (target <= 0.4 ms on SQLite)")
        print(f"[{r['db']}] sweep of {args.due} due deadlines: {r['sweep_s']:.2f} s "
              f"({r['sweep_rows_per_s']:.0f} rows/s, one transaction each)")
        if "parallel_s" in r:
            print(f"[{r['db']}] the same with {args.parallel} worker processes: {r['parallel_s']:.2f} s "
                  f"({args.due / r['parallel_s']:.0f} rows/s)")
        print(f"[{r['db']}] idle sweep: {r['idle_0_ms']:.3f} ms with 0 rows, {r['idle_1m_ms']:.3f} ms with "
              f"{args.rows} non-due rows (+{args.due} closed); ratio {r['ratio']:.2f} (target <= 1.2) [medians; "
              f"minima {r['idle_0_min_ms']:.3f} vs {r['idle_1m_min_ms']:.3f} ms, ratio {r['ratio_min']:.2f}]; "
              f"rows inserted in {r['insert_s']:.1f} s")
        print(f"[{r['db']}] due-row query plan: {r['plan']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
