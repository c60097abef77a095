"""Computer seats (issue 18, point 1): seats the computer plays at a level, from /new or for a seat
whose player declined. They need no address, get no mail, are accepted at once, and decide when the
clock sweeps (driven here by calling `tick` directly, as the scheduler would), through the one
move path. A person's mails show what the computers did and never a computer's face-down card.
"""

from __future__ import annotations

import random
import re
import threading

import pytest
from sqlmodel import select

import engine
from service.clock.tick import TickReport, tick
from service.play import computer, games, lookups, moves, timeouts
from service.play.errors import Invalid
from service.store import db
from service.store.clock_models import Deadline, SeatClock, utcnow
from service.store.models import GameRow, MoveRow, SeatRow
from service.store.outbox_models import OutboxMail
from tests.conftest import sqlite_suffices
from tests.service import helpers as h
from tests.service.test_hidden import check as check_hidden

HUMAN = "ann@example.com"


def sweep(app) -> TickReport:
    """One sweep of the clock at the real time (what the scheduler runs every interval)."""
    with app.app_context():
        report = tick(None, lambda: db.transaction(write=True, app=app), timeouts.ServiceClockHandlers())
    assert report.errors == 0, report.error_messages
    return report


def play_out(app, client, game_id: str, path: str, rng, steps: int) -> None:
    """Play a game against computer seats to its end: the clock's sweeps move the computers, the
    person plays a random button of their board each time it is their turn."""
    for _step in range(steps):
        sweep(app)
        if h.game_state(app, game_id)[2] == "finished":
            return
        action, fields = rng.choice(h.board_moves(client.get(path).text))
        assert client.post(action, data=fields).status_code == 303
    assert h.game_state(app, game_id)[2] == "finished"


def create(app, players, *, variant="classic", options=None, seed="computer-1"):
    with app.app_context(), db.transaction(write=True) as s:
        created = games.create_game(s, host_name="Ann", host_email=HUMAN, players=players, variant=variant,
                                       options=options if options is not None else {"target_score": 1},
                                       setup={"seed": seed})
        return created.game.id, created.tokens


def seat_rows(app, game_id) -> list[SeatRow]:
    return h.seats(app, game_id)


def engine_game(app, game_id) -> engine.Game:
    return engine.Game.from_json(h.game_state(app, game_id)[1])


def play_from_the_humans_mails(app, client, game_id, *, rng, check=None, max_steps=800) -> list[OutboxMail]:
    """Sweep the clock (the computers decide), then make the human's move from the newest mail that
    carries move links; until the game is over. After every sweep only the human owes decisions.
    `check(mails, g)`: called with the mails queued since the last step and the full engine game."""
    seen, latest, human_mails, board = 0, [], [], None
    for _step in range(max_steps):
        sweep(app)
        new = h.mails(app, seen)
        for m in new:
            seen = max(seen, m.id)
            assert m.to_addr == HUMAN, f"a mail to {m.to_addr!r}: only the person gets mail"
            human_mails.append(m)
            if h.move_links(m):
                latest = h.move_links(m)
        if check is not None:
            check(new, engine.Game.from_json(h.full_state(app, game_id)))
        _version, state, status = h.game_state(app, game_id)
        if status == "finished":
            return human_mails
        g = engine.Game.from_json(state)
        assert {p.seat for p in g.pending()} == {0}, f"after a sweep the computers owe nothing: {g.pending()}"
        owed = g.decision_id(0)
        links = [link for link in latest if h.decision_of(link) == owed and h.playable(g, 0, link)]
        if links:
            r = h.confirm(client, rng.choice(links))
        else:  # a decision owed right after the person's own move: on the board they landed on (15.2)
            assert board, "the person owes a decision but got no mail with links"
            buttons = h.board_moves(client.get(board).text)
            assert buttons and all(f["decision"] == owed for _a, f in buttons), "no board buttons for it"
            action, fields = rng.choice(buttons)
            r = client.post(action, data=fields)
        assert r.status_code == 303, r.text[-1500:]
        board = r.headers["Location"]
    raise AssertionError("the game did not finish")


# ---------------------------------------------------------------------------------------------------
# creation


def test_level_to_bot_is_the_engines_one_mapping():
    """Issue 18.2: easy is the greedy bot with mistakes, normal the greedy bot, strong the strong bot."""
    assert [computer.bot_for(x) for x in ("easy", "normal", "strong")] == ["easy", "greedy", "strong"]
    assert computer.LEVELS == ("easy", "normal", "strong")
    with pytest.raises(ValueError):
        computer.bot_for("nonsense")


def test_create_with_computer_seats_deals_at_once_and_mails_only_the_person(app):
    gid, tokens = create(app, [("", "", "strong"), ("Robo", "ignored@example.com", "easy")])
    rows = seat_rows(app, gid)
    assert [r.name for r in rows] == ["Ann", "Computer (strong)", "Robo (easy)"]
    assert [r.computer for r in rows] == [None, "strong", "easy"]
    gid2, _tokens = create(app, [("", "", "strong"), ("", "", "strong"), ("Computer", "", "strong")])
    assert [r.name for r in seat_rows(app, gid2)][1:] == ["Computer (strong)", "Computer 2 (strong)",
                                                          "Computer 3 (strong)"]
    assert [r.status for r in rows] == ["accepted"] * 3
    assert rows[1].email == rows[2].email == ""  # no address: nothing can reach it
    assert h.game_state(app, gid)[2] == "active"  # nobody to wait for
    mails = h.mails(app)
    assert {m.to_addr for m in mails} == {HUMAN}
    created = next(m for m in mails if "Your game is set up" in m.text_body)
    assert "The computer plays: Computer (strong), Robo (easy)." in created.text_body
    assert "invitations went to" not in created.text_body
    # the clock knows the computer's seats: their decisions are due at once, never reminded
    with app.app_context(), db.transaction() as s:
        clocks = {c.seat: c for c in s.exec(select(SeatClock).where(SeatClock.game_id == gid))}
        assert [clocks[i].computer for i in range(3)] == [False, True, True]
        assert clocks[1].address is None and clocks[1].mail_pref == "off"
        open_rows = list(s.exec(select(Deadline).where(Deadline.game_id == gid, Deadline.fired_at.is_(None))))
    events = {r.seat: r.next_event for r in open_rows}
    assert events == {0: "reminder", 1: "computer", 2: "computer"}
    assert all(r.reminders_left == [] for r in open_rows if r.seat != 0)


def test_the_new_game_form_takes_computer_seats(app, client):
    status, location = h.new_game(client, players=(("Ann", HUMAN), ("", "")), extra={
        "players-0-kind": "strong", "players-1-kind": "normal", "players-1-name": "Hal"})
    assert status == 303, location
    game = h.only_game(app)
    assert [(r.name, r.computer) for r in seat_rows(app, game.id)] == [
        ("Ann", None), ("Computer (strong)", "strong"), ("Hal (normal)", "normal")]
    page = client.get(h.path_of(location)).text
    assert "Your game has started" in page
    assert "Computer (strong)" in page
    # a level that does not exist is refused with the form (400), not a 500
    status, body = h.new_game(client, players=(("Ann", HUMAN), ("", "")), extra={"players-0-kind": "godlike"})
    assert status == 400 and "Not a valid choice" in body
    # a person still needs name and email
    status, body = h.new_game(client, players=(("Ann", HUMAN), ("Bo", "")))
    assert status == 400


def test_a_computer_level_that_does_not_exist_is_refused_by_the_use_case(app):
    with pytest.raises(Invalid), app.app_context(), db.transaction(write=True) as s:
        games.create_game(s, host_name="Ann", host_email=HUMAN, players=[("", "", "godlike")])


# ---------------------------------------------------------------------------------------------------
# playing


def test_computers_decide_at_the_clocks_sweep_not_in_the_persons_request(app, client):
    gid, tokens = create(app, [("", "", "normal"), ("", "", "easy")])
    g = engine_game(app, gid)
    assert {p.seat for p in g.pending()} == {0, 1, 2}  # the opening: everybody reveals
    before = h.game_state(app, gid)[0]
    report = sweep(app)
    assert report.computer >= 2 and report.timeouts == 0
    g = engine_game(app, gid)
    assert g.version > before
    assert {p.seat for p in g.pending()} == {0}, "the computers revealed their cards in that sweep"
    assert sweep(app).claimed == 0  # nothing else is due: the person's deadline is two days away
    # the person's move (a request) does not play the computers' turns: the next sweep does
    mail = [m for m in h.mails(app) if h.move_links(m)][-1]
    assert h.confirm(client, h.move_links(mail)[0]).status_code == 303
    after_request = engine_game(app, gid)
    with app.app_context(), db.transaction() as s:
        movers = [m.seat for m in s.exec(select(MoveRow).where(MoveRow.game_id == gid,
                                                                MoveRow.version_before >= after_request.version - 1))]
    assert set(movers) <= {0}


@sqlite_suffices  # a whole game: PostgreSQL adds nothing its race tests miss (tests/conftest.py)
@pytest.mark.parametrize("variant", ["classic", "action"])
def test_one_person_against_two_computers_plays_to_the_end_by_mail(app, client, variant):
    gid, _tokens = create(app, [("", "", "strong"), ("", "", "normal")], variant=variant,
                          seed=f"computer-{variant}")
    hidden_checked = []

    def no_hidden_card(new_mails, g):
        for m in new_mails:
            for part in (m.text_body, m.html_body or ""):
                if variant == "classic":  # (test_hidden's check knows classic's cards)
                    hidden_checked.append(check_hidden(part, g, 0, f"mail to {m.to_addr}"))

    mails = play_from_the_humans_mails(app, client, gid, rng=random.Random(7), check=no_hidden_card)
    assert h.game_state(app, gid)[2] == "finished"
    assert any("Game over" in m.text_body for m in mails)
    text = "\n".join(m.text_body for m in mails)
    # the mails say what the computers did, by name
    for name in ("Computer (strong)", "Computer (normal)"):  # (their opening reveals happen while the
        # person is on the board after their own, so the mails show their turns)
        assert re.search(re.escape(name) + r" (revealed|put the|discarded the|took|drew|turned)", text), name
    assert ("Computer (strong) put the" in text or "Computer (strong) discarded the" in text
            or "Computer (strong) took" in text)
    # the mails never ask the person for a computer's decision, and no reminder or timeout notice
    assert "time ran out" not in text and "played by the computer until" not in text
    assert "Computer (strong) has until" not in text and "Computer (normal) has until" not in text
    if variant == "classic":  # the final turns after a close were played by the computers too
        assert "closes the round; everyone else plays once more" in text
    if variant == "classic":
        assert sum(hidden_checked) > 0, "the hidden-card check had nothing to catch"
    # the record stays valid: replaying the export reproduces the game
    with app.app_context(), db.transaction() as s:
        record = games.export_record(s, gid)
        final = lookups.full_game(s, s.get(GameRow, gid))
    replayed = engine.replay(record)
    assert replayed.is_over and replayed.to_json()["vals"] == final.to_json()["vals"]
    with app.app_context(), db.transaction() as s:
        outcomes = {d.outcome for d in s.exec(select(Deadline).where(Deadline.game_id == gid, Deadline.seat > 0))}
    assert outcomes <= {"computer", "made"}, outcomes
    # a rematch keeps the computer seats (same names, same levels) and starts at once
    host_path = f"/s/{_tokens[0]}"
    assert h.post_form(client, host_path + "/rematch", page_path=host_path).status_code == 303
    with app.app_context(), db.transaction() as s:
        again = s.get(GameRow, s.get(GameRow, gid).rematch_id)
        rows = list(s.exec(select(SeatRow).where(SeatRow.game_id == again.id).order_by(SeatRow.position)))
    assert [(r.name, r.computer) for r in rows] == [("Ann", None), ("Computer (strong)", "strong"),
                                                    ("Computer (normal)", "normal")]
    assert again.status == "active"


def test_a_declined_seat_is_taken_over_by_the_computer_at_the_hosts_choice(app, client):
    gid, tokens = create(app, [("Bo", "bo@example.com"), ("Cy", "cy@example.com")])
    bo, cy, host = (f"/s/{tokens[i]}" for i in (1, 2, 0))
    assert h.post_form(client, bo + "/decline", page_path=bo).status_code == 303
    notice = [m for m in h.mails(app) if m.to_addr == HUMAN][-1]
    assert "let the computer play this seat" in notice.text_body
    page = client.get(host).text
    assert "Let the computer play this seat" in page
    # only the host, only a declined seat
    assert h.post_form(client, cy + "/computer", {"position": "1", "level": "strong"},
                       page_path=host).status_code == 403
    assert h.post_form(client, host + "/computer", {"position": "2", "level": "strong"},
                       page_path=host).status_code == 409
    assert h.post_form(client, host + "/computer", {"position": "1", "level": "godlike"},
                       page_path=host).status_code == 400
    r = h.post_form(client, host + "/computer", {"position": "1", "level": "strong"}, page_path=host)
    assert r.status_code == 303
    rows = seat_rows(app, gid)
    assert (rows[1].name, rows[1].computer, rows[1].status, rows[1].email) == (
        "Computer (strong)", "strong", "accepted", "")
    # the person who declined no longer reaches the seat with their old link
    assert client.get(bo).status_code == 404
    assert h.game_state(app, gid)[2] == "inviting"  # Cy has not answered yet
    assert h.post_form(client, cy + "/accept", page_path=cy).status_code == 303
    assert h.game_state(app, gid)[2] == "active"
    sweep(app)
    g = engine_game(app, gid)
    assert 1 not in {p.seat for p in g.pending()}, "the computer revealed for the taken-over seat"
    assert "bo@example.com" not in {m.to_addr for m in h.mails(app)[-5:]}


def test_a_two_player_game_whose_guest_declines_waits_for_the_host(app, client):
    gid, tokens = create(app, [("Bo", "bo@example.com")])
    bo, host = f"/s/{tokens[1]}", f"/s/{tokens[0]}"
    assert h.post_form(client, bo + "/decline", page_path=bo).status_code == 303
    assert h.game_state(app, gid)[2] == "inviting"
    assert h.post_form(client, host + "/computer", {"position": "1", "level": "normal"},
                       page_path=host).status_code == 303
    assert h.game_state(app, gid)[2] == "active"


def test_two_workers_sweeping_at_once_play_each_computer_decision_once(app):
    """On SQLite and PostgreSQL: the claim of a computer's deadline row is won by one sweep, and the
    game row is locked while a computer decides, so no decision is made twice and none fails."""
    gid, _tokens = create(app, [("", "", "normal"), ("", "", "normal"), ("", "", "easy")])
    barrier = threading.Barrier(2)
    reports: list[TickReport] = []

    def worker():
        barrier.wait()
        with app.app_context():
            # one row per claim: the two workers take rows of the same game at the same time
            reports.append(tick(None, lambda: db.transaction(write=True, app=app),
                                      timeouts.ServiceClockHandlers(), batch_size=1))

    threads = [threading.Thread(target=worker) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert len(reports) == 2 and all(r.errors == 0 for r in reports), [r.error_messages for r in reports]
    g = engine.Game.from_json(h.full_state(app, gid))
    assert {p.seat for p in g.pending()} == {0}
    reveals = [e for e in g.log if e["type"] == "reveal"]
    by_seat = {s: sum(1 for e in reveals if e["seat"] == s) for s in (1, 2, 3)}
    assert by_seat == {1: 2, 2: 2, 3: 2}, by_seat  # two opening reveals each, not one more
    with app.app_context(), db.transaction() as s:
        numbers = list(s.exec(select(MoveRow.number).where(MoveRow.game_id == gid)))
    assert len(numbers) == len(set(numbers)) == g.version
    # every computer decision applied once across both workers (one reveal each: all seats owe at once)
    assert sum(r.computer for r in reports) == sum(by_seat.values())


def test_the_clock_in_this_process_is_woken_when_a_computer_owes_a_decision(app):
    """`serve` runs the clock in its process: a transaction that makes a computer seat owe a
    decision wakes it when it commits, so the computer decides within moments, not at the next
    interval (an hour here)."""
    import time

    from service.clock.scheduler import start_in_process, stop_in_process

    sched = start_in_process(app, interval=3600, use_reloader=False)
    try:
        time.sleep(0.5)  # the sweep it runs when it starts
        gid, _tokens = create(app, [("", "", "normal")])
        for _ in range(100):
            if {p.seat for p in engine_game(app, gid).pending()} == {0}:
                break
            time.sleep(0.1)
        assert {p.seat for p in engine_game(app, gid).pending()} == {0}, "the computer did not reveal"
        assert sched.get_job("skyjo-clock-tick").trigger.interval.total_seconds() == 3600
    finally:
        stop_in_process()


def test_a_computer_caught_in_a_repeating_position_plays_a_random_move(app, monkeypatch):
    """The circle guard (issue 16.2, engine.times_seen): where the timeout bot stops and waits for its
    player, a computer seat has no player to wait for, so it plays a random legal move instead."""
    gid, _tokens = create(app, [("", "", "normal")])
    used = []
    real_turn = moves.bot_turn
    monkeypatch.setattr(computer.engine, "times_seen", lambda g: computer.CIRCLE_LIMIT)
    monkeypatch.setattr(moves, "bot_turn", lambda g, seat, bot, **kw: used.append(bot) or real_turn(g, seat, bot, **kw))
    sweep(app)
    assert used and set(used) == {"random"}
    assert {p.seat for p in engine_game(app, gid).pending()} == {0}


def _tie_deal() -> dict:
    """Round 1 dealt by hand: the person's grid has every value from -2 to 9 (any two-card sum from -3
    to 17 can be revealed), the computers' cards are 1 to 8 (their opening sums are 2 to 16)."""
    from engine.cards import CLASSIC_COUNTS

    grids = [[-2, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3, 4],
             [5, 6, 7, 8, 1, 2, 3, 4, 5, 6, 7, 8]]
    rest = dict(CLASSIC_COUNTS)
    for grid in grids:
        for v in grid:
            rest[v] -= 1
    pile = [v for v, n in sorted(rest.items()) for _ in range(n)]
    random.Random(5).shuffle(pile)
    return {"deal": {"grids": grids, "discard": pile[0], "draw": pile[1:]}}


def test_a_computer_tied_for_the_start_reveals_its_extra_card_on_the_clock(app, client):
    """C5 with `extra_reveal`: the person ties with the leading computer on purpose; the computer's
    tie reveal is a decision the clock plays like any other, and the person's mail tells of it."""
    with app.app_context(), db.transaction(write=True) as s:
        created = games.create_game(s, host_name="Ann", host_email=HUMAN, players=[("", "", "normal"),
                                       ("", "", "easy")], options={"target_score": 1, "start_tiebreak": "extra_reveal"},
                                       setup={"seed": "tie-1", "deals": [_tie_deal()]})
    gid, token = created.game.id, created.tokens[0]
    sweep(app)
    g = engine_game(app, gid)
    sums = {s: sum(g.vals[s][c] for c in range(12) if g.face[s][c] == engine.game.UP) for s in (1, 2)}
    leader = max(sums, key=lambda s: (sums[s], -s))
    want = sums[leader]
    pair = next((a, b) for a in range(12) for b in range(a + 1, 12) if g.vals[0][a] + g.vals[0][b] == want)
    names = [c["cell"] for c in engine.view(g, 0)["players"][0]["grid"]]
    for c in pair:
        with app.app_context(), db.transaction(write=True) as s:
            moves.play(s, token, [f"reveal {names[c]}"], h.game_state(app, gid)[0])
    g = engine_game(app, gid)
    tied = {p.seat for p in g.pending()}
    assert 0 in tied and leader in tied, g.pending()  # the tie: both owe one more card
    sweep(app)
    full = engine.Game.from_json(h.full_state(app, gid))
    assert any(e["type"] == "start_tie" for e in full.log)
    assert sum(1 for e in full.log if e["type"] == "reveal" and e["seat"] == leader) == 3
    assert leader not in {p.seat for p in engine_game(app, gid).pending()}
    text = "\n".join(m.text_body for m in h.mails(app))
    assert "are tied for the start" in text


def test_reminders_and_boards_never_list_a_computer_as_someone_to_wait_for(app, client):
    from datetime import timedelta

    gid, tokens = create(app, [("", "", "normal")])
    # the first turn mail is queued at the deal, while the computer's reveals are still open
    first = [m for m in h.mails(app) if h.move_links(m)]
    assert len(first) == 1 and "has until" not in first[0].text_body, first[0].text_body
    assert "Computer (normal)" in first[0].text_body
    sweep(app)  # the computer's opening reveals
    before = max((m.id for m in h.mails(app)), default=0)
    start = utcnow()
    reminders = []
    for hours in (25, 31, 37, 43):  # the 24-hours-before reminder, wherever quiet hours put it
        with app.app_context():
            tick(start + timedelta(hours=hours), lambda: db.transaction(write=True, app=app),
                       timeouts.ServiceClockHandlers())
        reminders = [m for m in h.mails(app, before) if "Reminder" in m.text_body]
        if reminders:
            break
    assert reminders and {m.to_addr for m in reminders} == {HUMAN}
    assert "Computer (normal)" in reminders[0].text_body  # its board is shown ...
    assert "Computer (normal) has until" not in reminders[0].text_body  # ... but nobody waits for it
    page = client.get(f"/s/{tokens[0]}").text
    assert "Computer (normal) has until" not in page
