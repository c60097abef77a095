"""The production topology as real processes (issue 31.1, 31.2, 31.5): deploy/Procfile's commands on
this machine, PostgreSQL (a schema of its own), gunicorn with 2 workers, 2 `skyjo-pbem worker`s,
`inbound-smtp`, Debian's redis-server for the rate limits and an SMTP sink. A 3-player game with a
computer seat is played to its end by the players' links (GET, then Confirm) and replies (SMTP to
inbound-smtp); one gunicorn worker and one clock worker are killed (SIGKILL) mid-game. Then: every
decision applied once, every mail sent once, the game over; /readyz fails without a clock worker
and recovers with one; the /links limit counts across both gunicorn workers.

Nothing waits by sleeping a fixed time: each step polls what it waits for, with a deadline.
"""

from __future__ import annotations

import os
import random
import re
import secrets
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from email.message import EmailMessage
from http.cookiejar import CookieJar
from pathlib import Path
from smtplib import SMTP
from types import SimpleNamespace
from urllib.error import HTTPError, URLError
from urllib.parse import urlencode
from urllib.request import HTTPCookieProcessor, HTTPRedirectHandler, Request, build_opener

import pytest
from sqlalchemy import func, select, text

import engine
from service.render.links import texts_of_slug
from service.store.clock_models import Deadline
from service.store.db import make_engine
from service.store.models import GameRow, MoveRow, SeatRow
from service.store.outbox_models import OutboxMail
from tests.service import helpers as h
from tests.service.deploy_files import ROOT, argv, procfile, wait_for
from tests.service.smtp_fixture import SmtpServer, free_port
from tests.service.test_clock_support import IN_CI, pg_schema_url

pytestmark = [pytest.mark.postgres, pytest.mark.timeout(240)]

BIN = Path(sys.executable).parent
REDIS = shutil.which("redis-server") or "/usr/bin/redis-server"
DOMAIN = "example.org"
ANN, BO = f"ann@{DOMAIN}", f"bo@{DOMAIN}"


class _NoRedirect(HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


class Browser:
    """A player's browser over real HTTP with the Flask test client's few names (`get`, `post`,
    `.status_code`, `.text`, `.headers`), so tests/service/helpers' form helpers work on it."""

    def __init__(self, base: str):
        self.base = base
        self.opener = build_opener(HTTPCookieProcessor(CookieJar()), _NoRedirect())

    def _open(self, request: Request):
        try:
            with self.opener.open(request, timeout=30) as r:
                return SimpleNamespace(status_code=r.status, text=r.read().decode(), headers=r.headers)
        except HTTPError as e:
            return SimpleNamespace(status_code=e.code, text=e.read().decode(), headers=e.headers)

    def get(self, path: str, headers: dict | None = None):
        return self._open(Request(self.base + path, headers=headers or {}))

    def post(self, path: str, data: dict):
        return self._open(Request(self.base + path, data=urlencode(data).encode(), method="POST"))


class Topology:
    """The processes of deploy/Procfile, started from its lines; `stop()` kills every process group."""

    def __init__(self, env: dict[str, str], logs: Path):
        self.env, self.logs = env, logs
        self.commands = procfile()
        self.procs: dict[str, subprocess.Popen] = {}

    def start(self, name: str, process: str | None = None) -> subprocess.Popen:
        log = open(self.logs / f"{name}.log", "ab")  # noqa: SIM115 - closed with the process
        proc = subprocess.Popen(argv(self.commands[process or name], self.env, BIN), cwd=ROOT, env=self.env,
                                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        log.close()
        self.procs[name] = proc
        return proc

    def run(self, process: str) -> None:
        done = subprocess.run(argv(self.commands[process], self.env, BIN), cwd=ROOT, env=self.env,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr[-3000:]

    def alive(self) -> None:
        for name, proc in self.procs.items():
            assert proc.poll() is None or proc.returncode == -signal.SIGKILL, \
                f"{name} exited ({proc.returncode}): {self.log(name)[-3000:]}"

    def log(self, name: str) -> str:
        return (self.logs / f"{name}.log").read_text(errors="replace")

    def stop(self) -> None:
        for proc in self.procs.values():
            if proc.poll() is None:
                try:
                    os.killpg(proc.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        for proc in self.procs.values():
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=10)


def children(pid: int) -> list[int]:
    """The processes whose parent is `pid` (gunicorn's workers)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


class Mails:
    """What the SMTP sink received, read like a mail client."""

    def __init__(self, sink: SmtpServer, base: str):
        self.sink = sink
        self.link = re.compile(re.escape(base) + r"(/[^\s\"'<>]+)")
        self.read: list[tuple[list[str], EmailMessage]] = []  # each received mail parsed once
        self.found: dict[int, list[str]] = {}  # its links

    def to(self, address: str) -> list[EmailMessage]:
        for r in self.sink.received[len(self.read):]:
            self.read.append((r.rcpt_tos, r.message))
        return [message for rcpt_tos, message in self.read if address in rcpt_tos]

    def text_of(self, message: EmailMessage) -> str:
        return message.get_body(preferencelist=("plain",)).get_content()

    def links(self, message: EmailMessage) -> list[str]:
        """Every link of the mail, text and HTML part (where the move buttons are)."""
        if id(message) not in self.found:  # (read once per mail; `self.read` keeps each message alive)
            html = message.get_body(preferencelist=("html",))
            found = self.link.findall(self.text_of(message) + (html.get_content() if html is not None else ""))
            self.found[id(message)] = list(dict.fromkeys(link.replace("&amp;", "&") for link in found))
        return self.found[id(message)]


class Play:
    """Two persons play their decisions from their mails; the computer's are the workers'."""

    def __init__(self, eng, web: Browser, mails: Mails, inbound_port: int, game_id: str):
        self.eng, self.web, self.mails, self.inbound_port, self.game_id = eng, web, mails, inbound_port, game_id
        self.rng = random.Random(31)
        self.applied: list[tuple[int, int, str]] = []  # (seat, its moves before, via) of every step made
        self.made: Counter[int] = Counter()  # move rows each person's steps made

    def state(self) -> tuple[GameRow, engine.Game | None, dict[int, str]]:
        with self.eng.connect() as conn:
            game = conn.execute(select(GameRow).where(GameRow.id == self.game_id)).one()
            seats = {r.seat: r.email for r in conn.execute(select(SeatRow).where(SeatRow.game_id == self.game_id))}
        g = engine.Game.from_json(game.state) if game.state else None
        return game, g, seats

    def moves(self) -> list:
        with self.eng.connect() as conn:
            return list(conn.execute(select(MoveRow.number, MoveRow.seat, MoveRow.version_before)
                                     .where(MoveRow.game_id == self.game_id).order_by(MoveRow.number)))

    def mail_for(self, address: str, decision: str) -> EmailMessage | None:
        """The newest mail to `address` with links bound to `decision`."""
        for message in reversed(self.mails.to(address)):
            if any(h.decision_of(link) == decision for link in self.mails.links(message)):
                return message
        return None

    def step(self, n: int) -> bool:
        """Make one owed decision of a person from their mail; False when the game is over."""
        game, g, emails = wait_for("a person's decision or the end", lambda: self._owed(), timeout=30)
        if g is None:
            return False
        seat = next(p.seat for p in g.pending() if emails[p.seat])
        decision, before = g.decision_id(seat), self.moves_of(seat)
        message = wait_for(f"the mail for {decision}", lambda: self.mail_for(emails[seat], decision))
        via = "reply" if n % 3 == 2 and g.owes(seat) == "turn" else "link"
        if via == "link":
            link = next(link for link in self.mails.links(message)
                        if h.decision_of(link) == decision and h.playable(g, seat, link))
            page = self.web.get(link)
            assert page.status_code == 200, page.text[-2000:]
            action = re.search(r'<form method="post" action="([^"]+)">\s*<input type="hidden" name="csrf_token"',
                               page.text).group(1)
            fields = h.confirm_fields(page.text)
            r = self.web.post(action, fields)
            assert r.status_code == 303, r.text[-2000:]
            if n % 4 == 0:  # a double click: answered, not applied
                assert self.web.post(action, fields).status_code < 500
            steps = len(texts_of_slug(link.split("?")[0].rsplit("/", 1)[1]))
            assert self.moves_of(seat) - before == steps, f"{link} applied {self.moves_of(seat) - before} moves"
        else:
            raw = self._reply(message, h.random_reply_plan(g, seat, self.rng), emails[seat])
            self._send(raw, message["Reply-To"])
            wait_for(f"seat {seat}'s reply in {decision}", lambda: self.moves_of(seat) > before)
            if n % 2 == 0:
                self._send(raw, message["Reply-To"])  # the same reply delivered twice: read once
        self.applied.append((seat, before, via))
        self.made[seat] += self.moves_of(seat) - before
        return True

    def moves_of(self, seat: int) -> int:
        return sum(1 for r in self.moves() if r.seat == seat)

    def _owed(self):
        game, g, emails = self.state()
        if game.status == "finished":
            return game, None, emails
        if g is not None and any(emails[p.seat] for p in g.pending()):
            return game, g, emails
        return None

    def _reply(self, message: EmailMessage, plan: str, sender: str) -> EmailMessage:
        reply = EmailMessage()
        reply["From"] = sender
        reply["To"] = message["Reply-To"]
        reply["Subject"] = "Re: " + message["Subject"]
        reply["Message-ID"] = f"<reply-{secrets.token_hex(6)}@{DOMAIN}>"
        reply["In-Reply-To"] = message["Message-ID"]
        reply.set_content(plan + "\n")
        return reply

    def _send(self, reply: EmailMessage, to: str) -> None:
        with SMTP("127.0.0.1", self.inbound_port, timeout=30) as smtp:
            smtp.send_message(reply, to_addrs=[re.search(r"[\w.+-]+@[\w.-]+", to).group(0)])


def quiet(eng) -> bool:
    """Nothing in flight: no unsent due mail, no claimed or due deadline (a kill now interrupts no
    send or sweep, which a worker's tests cover on their own)."""
    now = text("now() at time zone 'utc'")
    with eng.connect() as conn:
        o, d = OutboxMail.__table__.c, Deadline.__table__.c
        mails = conn.execute(select(func.count()).where(o.sent_at.is_(None), o.send_after <= now)).scalar()
        deadlines = conn.execute(select(func.count()).where(
            d.fired_at.is_(None), (d.next_at <= now) | (d.claimed_until > now))).scalar()
    return mails == 0 and deadlines == 0


def _redis_answers(port: int) -> bool:
    import redis

    try:
        return redis.Redis(port=port, socket_connect_timeout=1).ping()
    except redis.ConnectionError:
        return False


def pids_serving(base: str, access_log: Path) -> set[str]:
    """Two /readyz at once, then the gunicorn workers that answered /readyz so far (access log)."""
    threads = [threading.Thread(target=Browser(base).get, args=("/readyz",)) for _ in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    return set(re.findall(r"^<(\d+)> GET /readyz", access_log.read_text(), re.M)) if access_log.exists() else set()


def links_limit_is_shared(web_base: str, access_log: Path) -> tuple[int, set[str]]:
    """12 POSTs to /links from one client address, two at a time (each answer takes at least
    LINKS_ANSWER_SECONDS, so both gunicorn workers serve): how many passed, and which workers
    answered."""
    browser = Browser(web_base)
    token = h.csrf_of(browser.get("/links").text)
    statuses: list[int] = []

    def post(i: int) -> None:
        statuses.append(browser.post("/links", {"csrf_token": token, "email": f"x{i}@{DOMAIN}"}).status_code)

    for pair in range(6):
        threads = [threading.Thread(target=post, args=(2 * pair + k,)) for k in (0, 1)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
    pids = wait_for("the access log", lambda: {m for m in re.findall(r"^<(\d+)> POST /links", access_log.read_text(),
                                                                     re.M)} if access_log.exists() else None)
    return Counter(statuses)[200], pids


def test_the_procfile_topology_plays_a_game_through_kills(tmp_path):
    if not os.access(REDIS, os.X_OK):
        if IN_CI:
            pytest.fail("Debian's redis-server is required under CI=true (.ci/run installs it)")
        pytest.skip("redis-server is not installed (apt-get install redis-server)")
    url, drop = pg_schema_url()
    sink = SmtpServer().start()
    redis_port, web_port, inbound_port = free_port(), free_port(), free_port()
    redis = subprocess.Popen([REDIS, "--port", str(redis_port), "--bind", "127.0.0.1", "--save", "", "--appendonly",
                              "no"], stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{web_port}"
    access_log = tmp_path / "access.log"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SKYJO", "MAIL", "DATABASE", "BASE_URL"))}
    env.update({
        "PATH": f"{BIN}:{env.get('PATH', '')}", "PYTHONPATH": str(ROOT), "SKYJO_ENV": "production",
        "DATABASE_URL": url, "SECRET_KEY": secrets.token_hex(32), "BASE_URL": base,
        "MAIL_URL": sink.url, "MAIL_FROM": f"SKYJO <skyjo@{DOMAIN}>", "MAIL_DOMAIN": DOMAIN,
        "MAIL_HOLD_MINUTES": "0", "CLOCK_INTERVAL": "1", "READY_MAIL_AGE": "600", "READY_DEADLINE_AGE": "600",
        "RATELIMIT_STORAGE_URI": f"redis://127.0.0.1:{redis_port}/0", "METRICS_TOKEN": "m-" + secrets.token_hex(8),
        "PORT": str(web_port), "INBOUND_SMTP_HOST": "127.0.0.1", "INBOUND_SMTP_PORT": str(inbound_port),
        "GUNICORN_CMD_ARGS": f"--access-logfile {access_log} --access-logformat '%(p)s %(r)s %(s)s'",
    })
    top = Topology(env, tmp_path)
    eng = make_engine(url)
    started = time.monotonic()
    try:
        wait_for("redis-server", lambda: _redis_answers(redis_port), timeout=20)
        top.run("release")  # ExecStartPre of the web unit: the schema at head
        web = top.start("web")
        workers = [top.start("worker-1", "worker"), top.start("worker-2", "worker")]
        top.start("inbound")
        browser = Browser(base)

        def ready():
            top.alive()
            try:
                return browser.get("/readyz").status_code == 200
            except URLError:  # gunicorn is not listening yet
                return False
        wait_for("/readyz to answer 200", ready, timeout=60, every=0.1)
        gunicorn_workers = wait_for("2 gunicorn workers", lambda: len(children(web.pid)) == 2 and children(web.pid))
        wait_for("both gunicorn workers to answer", lambda: len(pids_serving(base, access_log)) == 2, timeout=30)

        # 31.5: the /links limit (5 per minute per client) counts across both gunicorn workers
        passed, pids = links_limit_is_shared(base, access_log)
        assert len(pids) == 2, f"one gunicorn worker served every request: the test proves nothing {pids}"
        assert passed == 5, f"{passed} of 12 requests passed a limit of 5 per minute"

        # the host creates the game on /new: Bo (a person) and a computer seat
        status, location = h.new_game(browser, players=(("Ann", ANN), ("Bo", BO), ("", "")), target=1,
                                      extra={"players-1-kind": "normal"})
        assert status == 303, location
        mails = Mails(sink, base)
        invitation = wait_for("Bo's invitation", lambda: mails.to(BO))[0]
        seat_path = next(p for p in mails.links(invitation) if re.fullmatch(r"/s/[A-Za-z0-9_-]+", p))
        bo = Browser(base)
        assert h.post_form(bo, seat_path + "/accept", page_path=seat_path).status_code == 303
        with eng.connect() as conn:
            game_id = conn.execute(select(GameRow.id)).scalar_one()
        play = Play(eng, Browser(base), mails, inbound_port, game_id)

        n = 0
        while play.step(n):
            n += 1
            if n == 4:  # a gunicorn worker dies; its master starts another
                os.kill(gunicorn_workers[0], signal.SIGKILL)
                wait_for("a new gunicorn worker", lambda: len(set(children(web.pid)) - {gunicorn_workers[0]}) == 2)
            if n == 8:  # a clock worker dies between two sweeps; the other one carries on
                wait_for("a quiet moment", lambda: quiet(eng))
                workers[0].kill()
                assert workers[0].wait(timeout=10) == -signal.SIGKILL
            top.alive()
            assert n < 400, "the game did not end"
        played = time.monotonic() - started

        # every decision applied once: the move log is contiguous, one row per version
        rows = play.moves()
        assert [r.number for r in rows] == list(range(1, len(rows) + 1))
        assert len({r.version_before for r in rows}) == len(rows), "a version applied twice"
        game, _g, _emails = play.state()
        assert game.status == "finished" and game.version == rows[-1].version_before + 1
        people = [s for s, email in _emails.items() if email]
        assert {s for s, _before, _via in play.applied} == set(people)
        assert {via for _s, _before, via in play.applied} == {"link", "reply"}
        assert len(set(play.applied)) == len(play.applied), "a step of the test was not waited for"
        # no move of a person but those of their steps: a double click or a reply read twice adds none
        assert Counter(r.seat for r in rows if r.seat in people) == play.made
        assert any(r.seat not in people for r in rows), "the computer seat never moved"
        # every mail sent once: what the sink got is what the outbox marked sent, each once
        wait_for("the outbox to be empty", lambda: quiet(eng))
        received = [r.message["Message-ID"] for r in sink.received]
        assert len(received) == len(set(received)), [m for m, k in Counter(received).items() if k > 1]
        with eng.connect() as conn:
            o = OutboxMail.__table__.c
            sent = set(conn.execute(select(o.message_id).where(o.sent_at.is_not(None),
                                                               o.transport.not_in(("dropped", "failed")))).scalars())
        assert set(received) == sent
        assert any("Game over" in (m["Subject"] or "") for m in mails.to(BO))

        # /readyz: no clock worker left → 503 "worker" (after two ticks); one starts → 200
        os.killpg(workers[1].pid, signal.SIGTERM)
        assert workers[1].wait(timeout=20) == 0
        down = wait_for("/readyz to fail", lambda: (r := browser.get("/readyz")).status_code == 503 and r, timeout=10)
        assert "worker" in down.text
        top.start("worker-3", "worker")
        wait_for("/readyz to recover", lambda: browser.get("/readyz").status_code == 200, timeout=30)
        metrics = browser.get("/metrics", headers={"Authorization": f"Bearer {env['METRICS_TOKEN']}"})
        assert metrics.status_code == 200 and f"skyjo_moves {float(len(rows))}" in metrics.text
        print(f"\ntopology: {len(play.applied)} decisions by the persons ({Counter(v for *_x, v in play.applied)}), "
              f"{len(rows)} move rows, {len(received)} mails, game played in {played:.1f} s, "
              f"whole test {time.monotonic() - started:.1f} s")
    finally:
        top.stop()
        os.killpg(redis.pid, signal.SIGKILL)
        redis.wait(timeout=10)
        sink.stop()
        eng.dispose()
        drop()
