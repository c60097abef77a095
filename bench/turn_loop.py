#!/usr/bin/env python3
"""The turn loop as players live it (issue 15): mails and clicks per turn of a whole classic game.

    .venv/bin/python bench/turn_loop.py [--games 1] [--seed 1] [--players 3]

Plays 3-player classic games to the end through the real app (`service.create_app`, Flask's test
client, SQLite in a temporary folder) and the dev mailbox (the outbox's delivered rows, delivered
by the real `deliver_due` with the dev transport), as players following links would:

* a player acts when a delivered mail asks them for the decision they owe: they open the mail's
  link for their move (1 click: GET, the confirm page) and press Confirm (1 click: POST);
* they land on their board and stay there while it asks them for more (the drawn card to place,
  the second opening reveal, their turn right after the opening): each board button is 1 click
  (a POST form, no confirm step);
* when they leave, MAIL_HOLD_MINUTES pass (the sweep runs with the clock moved past the hold), so
  a held mail for a decision they made on the board is dropped, as it would be in real life.

Moves are chosen by the engine's greedy bot (the bench knows the state; players would look at the
board). Prints mails per player per game (every mail: invitations, turns, round and game results),
turn mails per player per turn (turn mails over decisions owed: each C7 turn and each opening),
and clicks per draw turn, take turn and opening, and the bytes a game keeps in the database (its
rows and index entries in every table, `stored_bytes`) at its end, after MAIL_KEEP_DAYS (`prune` drops
the sent mails' bodies) and after GAME_KEEP_DAYS (its mails are gone):
`bytes/game=… before prune, bytes/game=… after prune, bytes/game=… after GAME_KEEP_DAYS`.
The last line is exactly `mails/player/game=… mails/turn=… clicks/draw-turn=… clicks/opening=…`.
"""

from __future__ import annotations

import argparse
import random
import re
import sqlite3
import sys
import tempfile
from collections import Counter, defaultdict
from contextlib import closing
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import engine  # noqa: E402

NAMES = ("Hanna", "Bo", "Carla", "Dev", "Eli", "Fay")
LINK = re.compile(r"https?://[^/\s\"'<>]+(/s/[A-Za-z0-9_-]+/m/[A-Za-z0-9_~-]+\?d=[0-9a-z_.]+)")
CSRF = re.compile(r'name="csrf_token"[^>]*value="([^"]+)"|value="([^"]+)"[^>]*name="csrf_token"')
BOARD_FORM = re.compile(r'<form class="inline" method="post" action="(/s/[^"]+/m/([^"]+))">(.*?)</form>', re.S)
HIDDEN = re.compile(r'<input type="hidden" name="(\w+)" value="([^"]*)">')


class Table:
    """One game through the app: the players, their mailboxes and what they clicked."""

    def __init__(self, app, players: int, rng: random.Random) -> None:
        self.app = app
        self.client = app.test_client()
        self.rng = rng
        self.names = NAMES[:players]
        self.addrs = [f"{n.lower()}@example.com" for n in self.names]
        self.seen = 0  # delivered outbox rows read so far
        self.inbox: dict[str, list] = defaultdict(list)  # address -> delivered rows
        self.clicks: dict[tuple, int] = Counter()  # unit (opening / turn of a seat) -> clicks
        self.kind_of: dict[tuple, str] = {}  # unit -> "opening", "draw", "take", "tie"
        self.turn_unit: dict[int, tuple] = {}
        self.turns = 0
        self.no_mail = 0  # a player owed a decision but no delivered mail asked for it

    # ---------------------------------------------------------------------------------- app side
    def deliver(self, later: bool = False) -> None:
        from service.mail.delivery import deliver_due
        from service.mail.transport import DevTransport
        from service.store import db
        from service.store.outbox_models import utcnow

        hold = timedelta(minutes=float(self.app.config["MAIL_HOLD_MINUTES"]) + 1)
        with self.app.app_context():
            deliver_due(db.get_engine(self.app), DevTransport(), limit=10_000,
                        now=utcnow() + hold if later else None)
        self._read_mailboxes()

    def _read_mailboxes(self) -> None:
        from sqlmodel import select

        from service.store import db
        from service.store.outbox_models import OutboxMail

        t = OutboxMail
        with self.app.app_context(), db.transaction() as s:
            rows = list(s.exec(select(t).where(t.id > self.seen, t.sent_at.is_not(None)).order_by(t.id)))
        for row in rows:
            self.seen = max(self.seen, row.id)
            if row.transport != "dropped":  # what the dev mailbox shows
                self.inbox[row.to_addr].append(row)

    def game(self):
        from sqlmodel import select

        from service.store import db
        from service.store.models import GameRow

        with self.app.app_context(), db.transaction() as s:
            row = list(s.exec(select(GameRow)))[-1]
            return row.status, engine.Game.from_json(row.state) if row.state else None

    # ------------------------------------------------------------------------------ the players
    def setup(self) -> None:
        page = self.client.get("/new").text
        data = {"csrf_token": _csrf(page), "host_name": self.names[0], "host_email": self.addrs[0],
                "variant": "classic", "decision_hours": "48", "opt_target_score": "100",
                "opt_start_tiebreak": "extra_reveal", "opt_round_starter": "previous_closer",
                "opt_doubling_tie": "strict", "opt_final_tiebreak": "shared", "opt_column_removal": "y",
                "opt_final_reveal_removal": "y", "opt_doubling": "y", "opt_doubling_positive_only": "y"}
        for i, (name, addr) in enumerate(zip(self.names[1:], self.addrs[1:], strict=True)):
            data[f"players-{i}-name"], data[f"players-{i}-email"] = name, addr
        assert self.client.post("/new", data=data).status_code == 303
        self.deliver()
        for addr in self.addrs[1:]:
            invitation = next(m for m in self.inbox[addr] if m.template == "invitation")
            seat = re.search(r"https?://[^/\s]+(/s/[A-Za-z0-9_-]+)(?![A-Za-z0-9_/-])", invitation.text_body).group(1)
            r = self.client.post(seat + "/accept", data={"csrf_token": _csrf(self.client.get(seat).text)})
            assert r.status_code == 303, r.status_code
            self.deliver()

    def play(self, max_visits: int = 5000) -> None:
        for _ in range(max_visits):
            status, g = self.game()
            if status == "finished":
                return
            seat = self.rng.choice(g.pending()).seat
            self.visit(seat)
            self.deliver(later=True)  # they left the board; the hold passes
        raise RuntimeError("the game did not finish")

    def visit(self, seat: int) -> None:
        """The player of `seat` opens the mail that asks for their decision, confirms a move, and
        stays on their board while it asks for more."""
        _status, g = self.game()
        owed = g.decision_id(seat)
        mail = next((m for m in reversed(self.inbox[self.addrs[seat]])
                     if any(d.endswith(f"?d={owed}") for d in _links(m))), None)
        if mail is None:  # nothing in the mailbox asks for it: they open their board from a bookmark
            self.no_mail += 1
            board = _seat_path(self.inbox[self.addrs[seat]])
        else:
            texts = self.choose(g, seat)
            slug = _slug(texts)
            links = [p for p in _links(mail) if f"/m/{slug}?" in p]
            assert links, (slug, _links(mail)[:4])
            unit = self.unit(g, seat, texts)
            page = self.client.get(links[0])  # click 1: the confirm page
            self.clicks[unit] += 1
            assert page.status_code == 200 and 'data-action="confirm"' in page.text, page.text[-500:]
            form = page.text[page.text.index('id="confirm"'):]
            fields = dict(HIDDEN.findall(form[:form.index("</form>")]))
            r = self.client.post(links[0].split("?")[0], data=fields)  # click 2: Confirm
            self.clicks[unit] += 1
            assert r.status_code == 303, r.text[-500:]
            board = r.headers["Location"]
            self.deliver()
        while True:
            status, g = self.game()
            if status == "finished" or g.decision_id(seat) is None:
                return
            texts = self.choose(g, seat)
            page = self.client.get(board).text
            buttons = {slug: (action, body) for action, slug, body in BOARD_FORM.findall(page)}
            action, body = buttons[_slug(texts)]
            unit = self.unit(g, seat, texts)
            r = self.client.post(action, data=dict(HIDDEN.findall(body)))  # a board button: 1 click
            self.clicks[unit] += 1
            assert r.status_code == 303, r.text[-500:]
            self.deliver()

    def choose(self, g, seat: int) -> list[str]:
        move = str(engine.bot_move(g, seat, "greedy", self.rng))
        if move == "take":  # a take turn is one decision: take + where the card goes (C7)
            g2 = engine.copy_game(g)
            g2.play(seat, "take")
            return ["take", str(engine.bot_move(g2, seat, "greedy", self.rng))]
        return [move]

    def unit(self, g, seat: int, texts: list[str]) -> tuple:
        """What a click belongs to: the seat's opening of this round, or its current turn."""
        kind = g.owes(seat)
        if kind == "reveal":
            key = ("opening", seat, g.round)
            self.kind_of[key] = "opening"
        elif kind == "turn":
            self.turns += 1
            key = ("turn", seat, self.turns)
            self.kind_of[key] = texts[0]
            self.turn_unit[seat] = key
        elif kind in ("place_drawn", "place_taken"):
            key = self.turn_unit[seat]
        else:
            key = ("tie", seat, g.version)
            self.kind_of[key] = "tie"
        return key


def _links(mail) -> list[str]:
    """The move links of a mail, as a player clicks them: the HTML part's buttons (the text part
    lists the moves as short labels; some, like a taken card's places, only by the board's link)."""
    return LINK.findall(mail.html_body or "") or LINK.findall(mail.text_body)


def _csrf(html: str) -> str:
    m = CSRF.search(html)
    return m.group(1) or m.group(2)


def _slug(texts: list[str]) -> str:
    from service.render.links import slug_for

    return slug_for(texts)


def _seat_path(mails: list) -> str:
    for m in reversed(mails):
        found = re.search(r"https?://[^/\s]+(/s/[A-Za-z0-9_-]+)(?![A-Za-z0-9_/-])", m.text_body)
        if found:
            return found.group(1)
    raise RuntimeError("no seat link in any mail")


def stored_bytes(path: str) -> int:
    """The bytes the game's rows and their index entries take in the database: every table's and
    index's used page bytes after VACUUM (SQLite's dbstat), without the schema and without the
    empty part of pages, so the fixed cost of a fresh file (a page per table) does not count."""
    with closing(sqlite3.connect(path)) as c:
        c.execute("VACUUM")
        c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        used = c.execute("SELECT SUM(pgsize - unused) FROM dbstat WHERE name != 'sqlite_schema'").fetchone()
    return int(used[0] or 0)


def storage(app, path: str) -> list[int]:
    """Bytes stored for the game: at its end, after MAIL_KEEP_DAYS and after GAME_KEEP_DAYS (the
    prune the worker runs daily, with the defaults)."""
    from service.mail.retention import GAME_KEEP_DAYS, MAIL_KEEP_DAYS, prune
    from service.store import db
    from service.store.outbox_models import utcnow

    sizes = [stored_bytes(path)]
    for days in (MAIL_KEEP_DAYS + 1, GAME_KEEP_DAYS + 1):
        prune(db.get_engine(app), utcnow() + timedelta(days=days))
        sizes.append(stored_bytes(path))
    return sizes


def run(games: int, players: int, seed: int) -> dict:
    from service import create_app
    from service.store import db

    totals: dict = defaultdict(float)
    per_player_mails: list[int] = []
    clicks: dict[str, list[int]] = defaultdict(list)
    sizes: list[list[int]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in range(games):
            app = create_app({"TESTING": True, "DATABASE_URL": f"sqlite:///{tmp}/bench-{n}.sqlite3",
                              "SECRET_KEY": "bench-" + "x" * 40, "BASE_URL": "http://localhost",
                              "ENV_NAME": "development", "LINKS_ANSWER_SECONDS": 0})
            with app.app_context():
                db.create_all()
            table = Table(app, players, random.Random(seed + n))
            table.setup()
            table.play()
            table.deliver(later=True)
            for addr in table.addrs:
                box = table.inbox[addr]
                per_player_mails.append(len(box))
                totals["turn_mails"] += sum(1 for m in box if m.template == "turn")
            for unit, count in table.clicks.items():
                clicks[table.kind_of[unit]].append(count)
            openings = sum(1 for k in table.kind_of.values() if k == "opening")
            totals["decisions"] += table.turns + openings
            totals["turns"] += table.turns
            totals["openings"] += openings
            totals["no_mail"] += table.no_mail
            _status, g = table.game()
            totals["rounds"] += g.round
            sizes.append(storage(app, f"{tmp}/bench-{n}.sqlite3"))
            db.get_engine(app).dispose()
    avg = {k: (sum(v) / len(v) if v else 0.0) for k, v in clicks.items()}
    return {"games": games, "players": players, "rounds": totals["rounds"], "turns": totals["turns"],
            "openings": totals["openings"], "no_mail": totals["no_mail"],
            "mails_per_player_game": sum(per_player_mails) / len(per_player_mails),
            "turn_mails_per_player_game": totals["turn_mails"] / len(per_player_mails),
            "mails_per_turn": totals["turn_mails"] / totals["decisions"],
            "clicks": avg, "clicks_max": {k: max(v) for k, v in clicks.items() if v},
            "bytes": [sum(s[i] for s in sizes) / len(sizes) for i in range(3)]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=1)
    ap.add_argument("--players", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    r = run(args.games, args.players, args.seed)
    c, mx = r["clicks"], r["clicks_max"]
    print(f"{r['games']} game(s), {r['players']} players, {r['rounds']:.0f} rounds, {r['turns']:.0f} turns, "
          f"{r['openings']:.0f} openings; decisions with no mail asking for them: {r['no_mail']:.0f}")
    print(f"mails per player per game: {r['mails_per_player_game']:.1f} "
          f"(turn mails {r['turn_mails_per_player_game']:.1f})")
    print(f"turn mails per player per turn (turns and openings owed): {r['mails_per_turn']:.2f}")
    for kind in ("draw", "take", "opening", "tie"):
        if kind in c:
            print(f"clicks per {kind} {'turn' if kind in ('draw', 'take') else ''}: {c[kind]:.2f} (max {mx[kind]})")
    before, pruned, gone = r["bytes"]
    print(f"bytes/game={before:.0f} before prune, bytes/game={pruned:.0f} after prune, "
          f"bytes/game={gone:.0f} after GAME_KEEP_DAYS")
    print(f"mails/player/game={r['mails_per_player_game']:.1f} mails/turn={r['mails_per_turn']:.2f} "
          f"clicks/draw-turn={c.get('draw', 0):.2f} clicks/opening={c.get('opening', 0):.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
