"""Simultaneous decisions are never lost (issue 34.1): the opening reveals (C4) are owed by every
seat at once, so their plans arrive together, from reply mails and from the board's whole-turn
field, and a person's Confirm meets the computer seats' reveals. Each is bound to its seat's own
decision (`engine.Game.decision_id`), and the move path locks the game row: every seat's two
reveals are applied exactly once, on SQLite and PostgreSQL, with real threads and connections.
"""

from __future__ import annotations

import re
import threading

from sqlmodel import select

from service.play import reply_service
from service.store import db
from service.store.models import MoveRow
from tests.service import helpers as h
from tests.service.test_computer_seats import HUMAN, create, sweep
from tests.service.test_reply_service import latest_reply_mail, reply_to

PLAYERS = (("Ann", "ann@example.com"), ("Bo", "bo@example.com"), ("Cy", "cy@example.com"),
           ("Di", "di@example.com"))
ROUNDS = 2  # games per test: each opening is one race of four


def _opening(app, client) -> tuple[str, int]:
    """A new 4-seat game, dealt: every seat owes its two opening reveals (C4)."""
    h.new_game(client, players=PLAYERS)
    h.accept_all(app, client)
    game = h.only_game(app)
    return game.id, h.game_state(app, game.id)[0]


def _at_once(jobs: list) -> list:
    """Run every job in its own thread, all released at the same moment; their results in order."""
    barrier = threading.Barrier(len(jobs))
    out: list = [None] * len(jobs)

    def run(i: int) -> None:
        barrier.wait()
        try:
            out[i] = jobs[i]()
        except Exception as exc:  # noqa: BLE001 - reported by the assertion below
            out[i] = exc

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(jobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    return out


def _reveals_by_seat(app, game_id: str) -> dict[int, list[str]]:
    with app.app_context(), db.transaction() as s:
        rows = s.exec(select(MoveRow.seat, MoveRow.move).where(MoveRow.game_id == game_id)
                      .order_by(MoveRow.number)).all()
    out: dict[int, list[str]] = {}
    for seat, move in rows:
        out.setdefault(seat, []).append(move)
    return out


def test_c4_concurrent_opening_replies_are_all_applied_once(app):
    """Four seats reply "reveal A1, reveal C3" to their opening mails at the same moment: four
    "applied", each seat's two reveals once, and no Message-ID recorded for a reply not played."""
    client = app.test_client()
    for _round in range(ROUNDS):
        game_id, v0 = _opening(app, client)
        raws = [reply_to(latest_reply_mail(app, email), "reveal A1, reveal C3") for _name, email in PLAYERS]
        out = _at_once([lambda raw=raw: reply_service.handle_inbound(app, raw) for raw in raws])
        assert out == ["applied"] * 4, out
        assert h.game_state(app, game_id)[0] == v0 + 8
        assert _reveals_by_seat(app, game_id) == {seat: ["reveal A1", "reveal C3"] for seat in range(4)}


def test_c4_concurrent_board_plans_at_the_opening_are_all_applied_once(app):
    """The board's whole-turn field, four browsers posting "reveal A1, reveal C3" at once: each is
    answered 303 and played, none 409 ("Somebody else moved at the same moment")."""
    client = app.test_client()
    for _round in range(ROUNDS):
        game_id, v0 = _opening(app, client)
        posts = []
        for _name, email in PLAYERS:
            mail = latest_reply_mail(app, email)
            path = next(p for p in h.links_of(mail) if re.fullmatch(r"/s/[A-Za-z0-9_-]+", p))
            browser = app.test_client()
            page = browser.get(path).text
            fields = {"csrf_token": h.form_csrf(page, path + "/plan"), "game": game_id,
                      "version": re.search(r'name="version" value="(\d+)"', page).group(1),
                      "seat": re.search(r'name="seat" value="(\d+)"', page).group(1), "plan": "reveal A1, reveal C3"}
            posts.append(lambda browser=browser, path=path, fields=fields: browser.post(path + "/plan", data=fields))
        answers = _at_once(posts)
        assert [getattr(r, "status_code", r) for r in answers] == [303] * 4, [
            r.text[:300] if hasattr(r, "text") else r for r in answers]
        assert h.game_state(app, game_id)[0] == v0 + 8
        assert _reveals_by_seat(app, game_id) == {seat: ["reveal A1", "reveal C3"] for seat in range(4)}


def test_c4_a_persons_confirm_among_seven_computer_seats_is_never_refused(app):
    """A person's opening reveals (Confirm on the link's page, then a board button) while two clock
    workers play seven computer seats' reveals: never a 409, every reveal once."""
    for game_no in range(ROUNDS):
        game_id, tokens = create(app, [("", "", "normal")] * 7, seed=f"seven-{game_no}")
        client = app.test_client()
        stop = threading.Event()
        errors: list[BaseException] = []

        def worker(stop: threading.Event = stop, errors: list[BaseException] = errors) -> None:
            while not stop.is_set():
                try:
                    sweep(app)
                except BaseException as exc:  # noqa: BLE001 - the test fails on it below
                    errors.append(exc)
                    return

        mail = [m for m in h.mails(app) if m.to_addr == HUMAN and h.move_links(m)][-1]  # this game's opening
        links = [link for link in h.move_links(mail) if "reveal-a1" in link or "reveal-c3" in link]
        workers = [threading.Thread(target=worker) for _ in range(2)]
        for t in workers:
            t.start()
        try:
            statuses = []
            for link in links:  # each Confirm races the computers' reveals
                r = h.confirm(client, link)
                statuses.append(r.status_code)
        finally:
            stop.set()
            for t in workers:
                t.join(60)
        assert not errors, errors
        assert statuses == [303, 303], statuses
        sweep(app)
        rows = _reveals_by_seat(app, game_id)
        assert rows[0][:2] == ["reveal A1", "reveal C3"]
        assert all(len([m for m in rows[seat] if m.startswith("reveal")]) >= 2 for seat in range(8)), rows
        assert tokens  # the person's link token made the game


def test_a_reply_that_lost_a_race_is_not_recorded_and_plays_when_delivered_again(app, monkeypatch):
    """Should a reply's move ever lose on the version guard (the lock rules it out; forced here by
    making the guard's UPDATE report another writer), nothing of the reply is kept: its Message-ID
    is not recorded, `handle_inbound` raises (the SMTP receiver answers 451, IMAP keeps the mail),
    and the same mail delivered again is played."""
    from service.play import moves
    from service.play.errors import Conflict

    client = app.test_client()
    game_id, v0 = _opening(app, client)
    raw = reply_to(latest_reply_mail(app, PLAYERS[0][1]), "reveal A1, reveal C3", mid="<race-once@x>")
    real = moves._write

    def lose_once(s, game, seat, *args, **kw):
        monkeypatch.setattr(moves, "_write", real)
        raise Conflict("Somebody else moved at the same moment.", game=game, seat=seat, stale=False, race=True)

    monkeypatch.setattr(moves, "_write", lose_once)
    before = len(h.mails(app))
    try:
        outcome = reply_service.handle_inbound(app, raw)
    except Conflict:
        outcome = "raised"
    assert outcome == "raised"
    assert h.game_state(app, game_id)[0] == v0 and len(h.mails(app)) == before  # nothing kept, no answer
    assert reply_service.handle_inbound(app, raw) == "applied"  # the redelivery is no "duplicate"
    assert _reveals_by_seat(app, game_id) == {0: ["reveal A1", "reveal C3"]}
