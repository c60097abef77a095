"""Held decisions (`clock_service`, "held decisions"), on SQLite and PostgreSQL: in play the one
owed decision's deadline row is held on the game row and written by the move's own UPDATE; it
becomes a `clock_deadline` row when the sweep needs it, when the seat's deadlines are touched
(vacation, play now, mail preference) or when a move takes the clock's full path. Everything a
player sees and every deadline stays what it was with rows only (tests/service/test_clock_wiring.py
runs the same behaviour through the pages)."""

from __future__ import annotations

import threading
from datetime import timedelta

from sqlalchemy import event, func
from sqlmodel import select

from service.clock import core as clock
from service.play import clock_service, usecases
from service.render import board as render
from service.store import db, tokens
from service.store.clock_models import Deadline, SeatClock
from service.store.models import GameRow, MoveRow
from tests.service.helpers import post_form
from tests.service.test_clock_wiring import seat_link, start, sweep
from tests.service.test_move_path import _post_move

SEED = "held-decisions"


def game_of(app, game_id: str) -> GameRow:
    with app.app_context(), db.transaction() as s:
        return s.get(GameRow, game_id)


def table_rows(app, game_id: str) -> list[Deadline]:
    with app.app_context(), db.transaction() as s:
        return list(s.exec(select(Deadline).where(Deadline.game_id == game_id, Deadline.fired_at.is_(None))))


def decisions(app, game_id: str, seat: int | None = None) -> list[Deadline]:
    with app.app_context(), db.transaction() as s:
        return clock_service.open_decisions(s, s.get(GameRow, game_id), seat)


def new_started(app, seed: str = SEED, **create) -> tuple[str, dict[int, str]]:
    with app.app_context(), db.transaction(write=True) as s:
        created = usecases.create_game(s, host_name="Ann", host_email=f"ann-{seed}@example.com",
                                       players=[("Bo", f"bo-{seed}@example.com")], setup={"seed": seed}, **create)
        usecases.accept(s, created.tokens[1])
        return created.game.id, created.tokens


def play_one(app, game_id: str, seat_tokens: dict[int, str], *, post: bool = True) -> tuple[int, list[str]]:
    """The owing seat makes its first legal decision: through the Confirm POST (`post`) or `play`.
    Returns the seat and the decision's moves."""
    import engine

    g = engine.Game.from_json(game_of(app, game_id).state)
    p = g.pending()[0]
    texts = [str(sorted(g.legal_moves(p.seat), key=str)[0])]
    if texts == ["take"]:
        texts.append("swap A1")
    slug = render.slug_for(texts)
    if post:
        assert _post_move(app, seat_tokens[p.seat], slug, g.version, game_id, p.seat).status_code == 303
    else:
        with app.app_context(), db.transaction(write=True) as s:
            usecases.play(s, seat_tokens[p.seat], slug, g.version)
    return p.seat, texts


def into_play(app, game_id: str, seat_tokens: dict[int, str]) -> None:
    """Both seats reveal (and break ties) until the first turn, then that turn is played: from then
    on one decision is owed at a time, and the first turn's move took the clock's full path (the
    opening's rows) and held the next decision."""
    import engine

    for _ in range(12):
        g = engine.Game.from_json(game_of(app, game_id).state)
        if "draw" in {str(m) for m in g.legal_moves(g.pending()[0].seat)}:
            play_one(app, game_id, seat_tokens)
            return
        play_one(app, game_id, seat_tokens)
    raise AssertionError("the opening did not end")


def test_a_routine_move_holds_the_next_decision_on_the_game_row_and_writes_no_clock_table(app):
    game_id, seat_tokens = new_started(app)
    into_play(app, game_id, seat_tokens)
    # after the opening a move took the full path once: one decision owed, held, and no open row
    assert table_rows(app, game_id) == [] and game_of(app, game_id).clock_rows is False
    seen: list[str] = []
    eng = db.get_engine(app)

    def record(conn, cursor, statement, *args):
        seen.append(" ".join(statement.split()).upper())

    event.listen(eng, "before_cursor_execute", record)
    try:
        before = game_of(app, game_id)
        _seat, texts = play_one(app, game_id, seat_tokens)
    finally:
        event.remove(eng, "before_cursor_execute", record)
    writes = [q for q in seen if q.startswith(("INSERT", "UPDATE", "DELETE"))]
    assert writes and not [q for q in seen if "CLOCK_DEADLINE" in q]
    assert not [q for q in writes if "CLOCK_SEAT" in q.split(" SET ")[0]]
    game = game_of(app, game_id)
    held = game.clock_held
    assert table_rows(app, game_id) == [] and held is not None and game.version == before.version + len(texts)
    import engine

    p = engine.Game.from_json(game.state).pending()[0]
    assert (held["seat"], held["kind"], held["version"]) == (p.seat, p.kind, game.version)
    deadline = clock.held_values(held)["deadline_at"]
    assert timedelta(hours=47, minutes=59) < deadline - clock.utcnow() <= timedelta(hours=48)
    assert game.clock_next_at == clock.held_values(held)["next_at"]


def started_by_forms(app, client):
    """A game created and accepted through the pages (`test_clock_wiring.start`), played into its
    first turn; its id and the seats' link tokens."""
    game = start(app, client)
    with app.app_context(), db.transaction() as s:
        seat_tokens = {r.seat: tokens.seat_token(r.token_salt) for r in usecases.seats_of(s, game.id)}
    into_play(app, game.id, seat_tokens)
    return game.id, seat_tokens


def _moves(app, game_id):
    with app.app_context(), db.transaction() as s:
        return list(s.exec(select(MoveRow).where(MoveRow.game_id == game_id)))


def test_a_held_decision_becomes_a_row_when_its_reminder_is_due_and_is_handled_in_the_same_sweep(app, client):
    game_id, _tokens = started_by_forms(app, client)
    held = clock.held_values(game_of(app, game_id).clock_held)
    assert held["next_event"] == "reminder"
    assert sweep(app, held["next_at"] - timedelta(seconds=1)).handled == 0
    assert game_of(app, game_id).clock_held is not None  # not due: still held
    report = sweep(app, held["next_at"] + timedelta(seconds=1))
    assert report.reminders == 1
    rows = table_rows(app, game_id)
    assert len(rows) == 1 and game_of(app, game_id).clock_held is None and game_of(app, game_id).clock_rows
    row = rows[0]
    # the row is the one the move would have written: same decision, deadline and creation time
    assert (row.seat, row.kind, row.version, row.deadline_at, row.created_at) == (
        held["seat"], held["kind"], held["version"], held["deadline_at"], held["created_at"])
    assert row.reminders_sent == 1
    # the timeout comes from the row now, exactly once (exactly at the deadline: the next decision,
    # written at the real time of the bot's move, is not due in this fake-time sweep)
    assert sweep(app, row.deadline_at).timeouts == 1
    assert sweep(app, row.deadline_at).timeouts == 0


def test_two_sweeps_at_once_make_each_held_decision_a_row_once(app):
    games = [new_started(app, f"{SEED}-{i}") for i in range(6)]
    for game_id, seat_tokens in games:
        into_play(app, game_id, seat_tokens)
    due = max(clock.held_values(game_of(app, g).clock_held)["next_at"] for g, _t in games) + timedelta(seconds=1)
    results: list[int] = []

    def run():
        with app.app_context():
            results.append(clock_service.materialize_due(lambda: db.transaction(write=True, app=app), due))

    threads = [threading.Thread(target=run) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert sum(results) == len(games)
    for game_id, _t in games:
        assert len(table_rows(app, game_id)) == 1 and game_of(app, game_id).clock_held is None


def test_vacation_in_play_extends_the_held_decision(app, client):
    game_id, seat_tokens = started_by_forms(app, client)
    held = clock.held_values(game_of(app, game_id).clock_held)
    email = {0: "ann@example.com", 1: "bo@example.com"}[held["seat"]]
    board = seat_link(app, game_id, email)
    assert post_form(client, board + "/vacation", {"days": "3"}, page_path=board).status_code == 303
    rows = table_rows(app, game_id)
    assert len(rows) == 1 and game_of(app, game_id).clock_held is None
    assert rows[0].deadline_at >= held["deadline_at"] + timedelta(days=3) - timedelta(minutes=1)
    # the deadline that was held has passed: nothing times out during the vacation
    assert sweep(app, held["deadline_at"] + timedelta(minutes=1)).timeouts == 0
    # the next move closes the row and holds the next decision again
    play_one(app, game_id, seat_tokens)
    assert table_rows(app, game_id) == [] and game_of(app, game_id).clock_held is not None


def test_the_board_shows_the_held_deadline_to_everybody(app, client):
    game_id, seat_tokens = started_by_forms(app, client)
    held = clock.held_values(game_of(app, game_id).clock_held)
    owing, waiting = held["seat"], 1 - held["seat"]
    names = {0: "Ann", 1: "Bo"}
    when = clock_service.local_text(held["deadline_at"], "UTC")
    mine = client.get(f"/s/{seat_tokens[owing]}").text
    theirs = client.get(f"/s/{seat_tokens[waiting]}").text
    assert f"Please decide by {when}" in mine
    assert f"{names[owing]} has until {when} to decide." in theirs
    assert [(d.seat, d.kind) for d in decisions(app, game_id)] == [(held["seat"], held["kind"])]


def test_a_move_racing_the_sweep_takes_the_full_path_and_leaves_no_stale_row(app, monkeypatch):
    """The sweep makes the held decision a row between a Confirm POST's read and its write: the
    POST's UPDATE sees `clock_rows` changed, writes nothing, and `play` applies the move, closing
    the row (no open row of a decision already made is left for the sweep)."""
    game_id, seat_tokens = new_started(app)
    into_play(app, game_id, seat_tokens)
    real_prepare, real_save = usecases.prepare_link_move, usecases.save_prepared
    fell_back = []

    def prepare_then_sweep(*args, **kwargs):
        prepared = real_prepare(*args, **kwargs)
        clock_service.materialize_due(lambda: db.transaction(write=True, app=app), clock.utcnow() + timedelta(days=30))
        return prepared

    def save(s, prepared):
        saved = real_save(s, prepared)
        fell_back.append(saved is None)
        return saved

    monkeypatch.setattr(usecases, "prepare_link_move", prepare_then_sweep)
    monkeypatch.setattr(usecases, "save_prepared", save)
    version = game_of(app, game_id).version
    _seat, texts = play_one(app, game_id, seat_tokens)
    assert fell_back == [True]
    game = game_of(app, game_id)
    assert game.version == version + len(texts) == len(_moves(app, game_id))  # applied once
    assert table_rows(app, game_id) == [] and game.clock_held is not None and game.clock_rows is False


def _hand_over(app, game_id: str, seat_tokens: dict[int, str], to: int) -> None:
    """The other seat plays (Confirm POSTs) until `to` owes the decision."""
    import engine

    for _ in range(4):
        if engine.Game.from_json(game_of(app, game_id).state).pending()[0].seat == to:
            return
        play_one(app, game_id, seat_tokens)
    raise AssertionError(f"seat {to} never came to owe a decision")


def test_digest_and_bot_played_seats_are_never_held(app):
    """A digest seat's decisions stay rows (the digest lists `clock_deadline`); a bot-played seat's
    decision is due at once (a row with `bot_played`)."""
    for seed, change in (("digest", {"mail_pref": "digest"}), ("bot", {"bot_played": True, "consecutive_timeouts": 3})):
        game_id, seat_tokens = new_started(app, f"{SEED}-{seed}")
        into_play(app, game_id, seat_tokens)
        other = 1 - clock.held_values(game_of(app, game_id).clock_held)["seat"]
        with app.app_context(), db.transaction(write=True) as s:
            sc = s.get(SeatClock, (game_id, other))
            for key, value in change.items():
                setattr(sc, key, value)
        _hand_over(app, game_id, seat_tokens, other)
        rows = table_rows(app, game_id)
        assert [d.seat for d in rows] == [other] and game_of(app, game_id).clock_held is None, seed
        assert rows[0].bot_played == (seed == "bot")


def test_a_finished_game_holds_nothing(app, client):
    import random

    from tests.service import helpers as h

    h.new_game(client)
    h.accept_all(app, client)
    h.play_by_mail(app, client, rng=random.Random(5))
    game = h.only_game(app)
    assert game.status == "finished"
    assert game.clock_held is None and game.clock_next_at is None and table_rows(app, game.id) == []
    with app.app_context(), db.transaction() as s:
        assert s.exec(select(func.count()).select_from(Deadline).where(Deadline.fired_at.is_(None))).one() == 0
