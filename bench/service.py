#!/usr/bin/env python3
"""Service benchmark: moves through the real web stack vs a bare versioned-update endpoint.

    .venv/bin/python bench/service.py [--db sqlite|postgres|both] [--seconds 8] [--clients 8]

For each database: gunicorn with 2 sync workers serves `service.create_app()`; client threads play
many concurrent games by POSTing move links (the real endpoint: token lookup, the Confirm form's CSRF token, decision check,
engine, move log, conditional UPDATE, clock rows, turn-mail intents in the same transaction).
Side by side, in the same run, the same stack (gunicorn, Flask, SQLAlchemy, same database) serves a
bare endpoint that does one versioned row update. Reports moves/s and p50/p99 latency for both, and,
in-process, turn mails queued and rendered per second (a move queues its mails as intents, the
sender renders them: both halves are counted).

The clients know each game's seed, so they replay every game locally and always POST a legal move
for the right decision without asking the server first. Traffic goes to 127.0.0.1 only; every loop
is bounded in time.
"""

from __future__ import annotations

import argparse
import http.client
import os
import random
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.pg import pg_schema_url  # noqa: E402

SECRET = secrets.token_hex(32)


# --------------------------------------------------------------------------------------------------
# the bare endpoint (same stack: Flask + SQLAlchemy engine from service.store.db + the same database)


def bare_app():
    from flask import Flask, abort, request
    from sqlalchemy import text

    from service.store import db

    app = Flask("bare")
    app.config["DATABASE_URL"] = os.environ["DATABASE_URL"]
    db.init_app(app)

    @app.post("/bump/<int:row_id>")
    def bump(row_id: int):
        v = request.form.get("version", type=int)
        with db.transaction(write=True, app=app) as s:
            res = s.connection().execute(
                text("UPDATE bench_counter SET version = version + 1, state = :state "
                     "WHERE id = :id AND version = :v"),
                {"state": f'{{"n": {v + 1}}}', "id": row_id, "v": v})
        if res.rowcount != 1:
            abort(409)
        return "", 303, {"Location": f"/bump/{row_id}"}

    return app


# --------------------------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_gunicorn(target: str, env: dict, port: int) -> subprocess.Popen:
    cmd = [str(Path(sys.executable).parent / "gunicorn"), "-w", "2", "-b", f"127.0.0.1:{port}",
           "--chdir", str(ROOT), "--log-level", "warning", "--timeout", "60", target]
    proc = subprocess.Popen(cmd, env=env, start_new_session=True)
    deadline = time.time() + 30
    while time.time() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return proc
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError("gunicorn did not start")


def stop(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(10)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        os.killpg(proc.pid, signal.SIGKILL)


def pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


class Conn:
    """One keep-alive HTTP connection with a cookie."""

    def __init__(self, port: int):
        self.c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.cookie = ""

    def request(self, method: str, path: str, body: dict | str | None = None) -> tuple[int, str]:
        """`body`: form fields, or already form-encoded (the planned moves are encoded in advance:
        the clients share the machine's two cores with the server)."""
        headers = {"Cookie": self.cookie} if self.cookie else {}
        data = None
        if body is not None:
            data = body if isinstance(body, str) else urlencode(body)
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        self.c.request(method, path, body=data, headers=headers)
        r = self.c.getresponse()
        text = r.read().decode("utf-8", "replace")
        sc = r.getheader("Set-Cookie")
        if sc and not self.cookie:  # keep the first session (CSRF); a browser would follow each
            self.cookie = sc.split(";", 1)[0]  # 303 and consume its flash message, we do not
        return r.status, text


# --------------------------------------------------------------------------------------------------


def setup_games(app, n_games: int) -> list[dict]:
    """Games dealt with known seeds; the bench replays each locally to always send a legal move."""
    import engine
    from service.play.games import accept, create_game
    from service.store import db

    games = []
    with app.app_context():
        for i in range(n_games):
            seed = f"bench-{i}-{secrets.token_hex(4)}"
            with db.transaction(write=True) as s:
                created = create_game(
                    s, host_name="Ann", host_email=f"ann{i}@bench.test", players=[("Bo", f"bo{i}@bench.test")],
                    options={"target_score": 10_000}, setup={"seed": seed})
                accept(s, created.tokens[1])
            g = engine.new_game(["Ann", "Bo"], options={"target_score": 10_000}, seed=seed)
            games.append({"id": created.game.id, "tokens": created.tokens, "game": g})
    return games


def plan_moves(app, games: list[dict], per_game: int, seed: int = 1) -> None:
    """Precompute each game's moves (the clients replay the known deal locally), so the timed loop
    only POSTs: the client threads share the machine's cores with the server. Each POST carries the
    CSRF token its Confirm page would have had (the bench knows SECRET_KEY, as it knows the seeds)."""
    import engine
    from service.render.links import slug_for
    from service.store import tokens

    rng = random.Random(seed)
    for gm in games:
        g = engine.copy_game(gm["game"])
        plan = []
        while len(plan) < per_game and not g.is_over:
            p = rng.choice(g.pending())
            move = str(engine.bot_move(g, p.seat, "greedy", rng))
            texts = [move]
            if move == "take":
                g2 = engine.copy_game(g)
                g2.play(p.seat, "take")
                texts = ["take", str(engine.bot_move(g2, p.seat, "greedy", rng))]
            slug = slug_for(texts)
            with app.test_request_context():
                form_token = tokens.move_form_token(gm["tokens"][p.seat], slug, g.decision_id(p.seat))
            body = urlencode({"csrf_token": form_token, "game": gm["id"], "seat": p.seat, "move": slug,
                              "decision": g.decision_id(p.seat)})
            plan.append((f"/s/{gm['tokens'][p.seat]}/m/{slug}", body))
            for t in texts:
                g.play(p.seat, t)
        gm["plan"] = plan
        gm["next"] = 0


def timed_clients(client, shares: list, seconds: float, latencies: list[float], errors: dict) -> dict:
    """Run `client(share)` in one thread per share; the clients fill `latencies` (seconds per
    request) and `errors`. Returns them with the run's elapsed time (see `summary`)."""
    t0 = time.perf_counter()
    threads = [threading.Thread(target=client, args=(share,)) for share in shares]
    for t in threads:
        t.start()
    for t in threads:
        t.join(seconds + 60)
    return {"latencies": latencies, "elapsed": time.perf_counter() - t0, "errors": errors["n"]}


def summary(runs: list[dict]) -> dict:
    """Requests per second and p50/p99 over several timed runs of one endpoint."""
    latencies = [x for r in runs for x in r["latencies"]]
    elapsed = sum(r["elapsed"] for r in runs)
    return {"ops": len(latencies), "per_s": len(latencies) / elapsed, "p50_ms": pct(latencies, 50) * 1000,
            "p99_ms": pct(latencies, 99) * 1000, "errors": sum(r["errors"] for r in runs)}


def run_moves(port: int, games: list[dict], clients: int, seconds: float) -> dict:
    latencies: list[float] = []
    errors = {"n": 0}
    lock = threading.Lock()
    stop_at = time.time() + seconds
    per_client = [games[i::clients] for i in range(clients)]
    ran_out = {"n": 0}  # clients that stopped before the time was up (their planned moves ran out)

    def client(my_games: list[dict]):
        conn = Conn(port)
        local: list[float] = []
        while time.time() < stop_at:
            active = [gm for gm in my_games if gm["next"] < len(gm["plan"])]
            if not active:
                with lock:
                    ran_out["n"] += 1
                break
            for gm in active:
                path, body = gm["plan"][gm["next"]]
                t0 = time.perf_counter()
                status, _ = conn.request("POST", path, body)
                local.append(time.perf_counter() - t0)
                if status != 303:
                    with lock:
                        errors["n"] += 1
                    return
                gm["next"] += 1
                if time.time() >= stop_at:
                    break
        with lock:
            latencies.extend(local)

    res = timed_clients(client, per_client, seconds, latencies, errors)
    if ran_out["n"]:
        print(f"warning: {ran_out['n']} clients ran out of planned moves before the end (figure too low)",
              file=sys.stderr)
    return res


def run_bare(port: int, rows: int, clients: int, seconds: float, versions: dict[int, int]) -> dict:
    latencies: list[float] = []
    lock = threading.Lock()
    stop_at = time.time() + seconds
    errors = {"n": 0}

    def client(my_rows: list[int]):
        conn = Conn(port)
        local = []
        while time.time() < stop_at:
            for r in my_rows:
                t0 = time.perf_counter()
                status, _ = conn.request("POST", f"/bump/{r}", f"version={versions[r]}")
                local.append(time.perf_counter() - t0)
                if status != 303:
                    errors["n"] += 1
                    return
                versions[r] += 1
                if time.time() >= stop_at:
                    break
        with lock:
            latencies.extend(local)

    ids = list(range(1, rows + 1))
    return timed_clients(client, [ids[i::clients] for i in range(clients)], seconds, latencies, errors)


def mails_per_second(app, seconds: float = 3.0) -> float:
    """Turn mails queued (the intent row in a transaction) and rendered (HTML + text, CSS inlined,
    bodies stored: what the sender does before sending) per second, both halves in the loop."""
    from sqlmodel import select

    from service.clock.deadlines import board_status
    from service.mail import outbox
    from service.play import games, lookups
    from service.play import notify as mails
    from service.store import db
    from service.store.models import SeatRow

    renderer = app.extensions["outbox_renderer"]
    with app.app_context():
        with db.transaction(write=True) as s:
            created = games.create_game(s, host_name="Cy", host_email="cy@bench.test",
                                           players=[("Di", "di@bench.test"), ("Ed", "ed@bench.test")])
            for pos in (1, 2):
                games.accept(s, created.tokens[pos])
        outbox.render_pending(db.get_engine(), renderer)
        n = 0
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            with db.transaction(write=True) as s:
                game = s.get(type(created.game), created.game.id)
                g = lookups.load_engine_game(game)
                seats = list(s.exec(select(SeatRow).where(SeatRow.game_id == game.id)))
                status = board_status(s, game.id)  # a move has it from its clock step
                for _ in range(20):
                    for r in seats:
                        mails.decision_or_nothing(s, game, r, g, seats=seats, clock_status=status)
                        n += 1
            assert outbox.render_pending(db.get_engine(), renderer) == 20 * len(seats)
        elapsed = time.perf_counter() - t0
    return n / elapsed


def bench_db(kind: str, args) -> dict | None:
    from sqlalchemy import text

    from service import create_app
    from service.store import db

    drop = None
    tmp = tempfile.mkdtemp(prefix="skyjo-bench-")
    if kind == "sqlite":
        url = f"sqlite:///{tmp}/bench.sqlite3"
    else:
        got = pg_schema_url()
        if got is None:
            return None
        url, drop = got
    # Production requires a MAIL_URL; no mail sender runs in this benchmark, so it is never dialled.
    mail_url = "smtp://127.0.0.1:9"
    env = dict(os.environ, DATABASE_URL=url, SECRET_KEY=SECRET, SKYJO_ENV="production", MAIL_URL=mail_url,
               BASE_URL="http://127.0.0.1", PYTHONPATH=str(ROOT))
    app = create_app({"DATABASE_URL": url, "SECRET_KEY": SECRET, "ENV_NAME": "production", "MAIL_URL": mail_url,
                      "BASE_URL": "http://127.0.0.1"})
    procs = []
    try:
        with app.app_context():
            db.create_all()
            with db.transaction(write=True) as s:
                s.connection().execute(text("CREATE TABLE bench_counter (id INTEGER PRIMARY KEY, "
                                            "version INTEGER NOT NULL, state TEXT NOT NULL)"))
                for i in range(1, args.games + 1):
                    s.connection().execute(text("INSERT INTO bench_counter VALUES (:i, 0, '{}')"), {"i": i})
        games = setup_games(app, args.games)
        # the mail figure first: later the moves leave thousands of intents no sender renders (more
        # than one render_pending call takes), which would mix into its count
        mails_s = mails_per_second(app)
        # enough planned moves for 1,500 moves/s: a run must never stop early because the plans ran out
        plan_moves(app, games, per_game=int((args.seconds + 2) * 1500 / args.games) + 20)
        port_app, port_bare = free_port(), free_port()
        warm = min(2.0, args.seconds / 4)  # each endpoint's first requests (the plans above allow for it)
        procs.append(start_gunicorn("service:create_app()", env, port_app))
        procs.append(start_gunicorn("bench.service:bare_app()", env, port_bare))
        versions = dict.fromkeys(range(1, args.games + 1), 0)
        run_bare(port_bare, args.games, args.clients, warm, versions)
        run_moves(port_app, games, args.clients, warm)
        # the two endpoints take turns (`--rounds` each), so a machine that slows down or speeds up
        # during the run (shared cores) weighs on both figures alike
        bare_runs, move_runs = [], []
        for _ in range(args.rounds):
            bare_runs.append(run_bare(port_bare, args.games, args.clients, args.seconds / args.rounds, versions))
            move_runs.append(run_moves(port_app, games, args.clients, args.seconds / args.rounds))
        bare, moves = summary(bare_runs), summary(move_runs)
        return {"db": kind, "moves": moves, "bare": bare, "mails_per_s": mails_s}
    finally:
        for p in procs:
            stop(p)
        db.get_engine(app).dispose()
        if drop:
            drop()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", choices=["sqlite", "postgres", "both"], default="both")
    ap.add_argument("--seconds", type=float, default=8.0)
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--rounds", type=int, default=4, help="turns each endpoint takes (time split evenly)")
    args = ap.parse_args(argv)
    kinds = ["sqlite", "postgres"] if args.db == "both" else [args.db]
    print(f"{'db':9} {'endpoint':22} {'ops':>6} {'ops/s':>8} {'p50 ms':>8} {'p99 ms':>8} {'errors':>6}")
    for kind in kinds:
        res = bench_db(kind, args)
        if res is None:
            continue
        for name, r in (("bare versioned update", res["bare"]), ("move (real endpoint)", res["moves"])):
            print(f"{kind:9} {name:22} {r['ops']:6d} {r['per_s']:8.1f} {r['p50_ms']:8.1f} {r['p99_ms']:8.1f} "
                  f"{r['errors']:6d}")
        ratio = res["moves"]["per_s"] / res["bare"]["per_s"] if res["bare"]["per_s"] else float("nan")
        print(f"{kind:9} moves/bare throughput ratio {ratio:.2f} (goal >= 0.4); "
              f"turn mails rendered+queued {res['mails_per_s']:.0f}/s (goal >= 300)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
