"""The clock inside the real service (SQLite): timeouts play through `moves.play` with the bot,
reminders and digests become outbox mails, a human move ends bot play.

The use cases call `clock_service.dealt/moved` themselves (see test_clock_wiring.py for the whole
service through its pages on both databases).
"""

from __future__ import annotations

import secrets
from datetime import timedelta

import pytest
from sqlmodel import select

import engine
from service.clock.seats import play_now, set_seat_settings
from service.clock.tick import create_tables, tick
from service.clock.zones import defer_quiet, next_local_time
from service.play import clock_service, timeouts
from service.store.clock_models import Deadline, SeatClock, utcnow


@pytest.fixture
def app(tmp_path):
    from service import create_app
    from service.store import db

    app = create_app({"TESTING": True, "DATABASE_URL": f"sqlite:///{tmp_path / 'svc.sqlite3'}",
                      "SECRET_KEY": "test-" + secrets.token_hex(8), "BASE_URL": "http://localhost",
                      "ENV_NAME": "development"})
    with app.app_context():
        db.create_all()
        create_tables(db.get_engine())
    yield app
    db.get_engine(app).dispose()


def start_game(app):
    from service.play import games
    from service.store import db

    with app.app_context(), db.transaction(write=True) as s:
        created = games.create_game(s, host_name="Ann", host_email="ann@example.com",
                                       players=[("Bo", "bo@example.com")], decision_hours=48)
        games.accept(s, created.tokens[1])
        return created.game.id, created.tokens


def sweep(app, at):
    from service.store import db

    with app.app_context():
        r = tick(at, lambda: db.transaction(write=True, app=app), timeouts.ServiceClockHandlers())
    assert r.errors == 0, r.error_messages
    return r


def q(app, stmt):
    from service.mail.outbox import render_pending
    from service.store import db

    render_pending(db.get_engine(app), app.extensions["outbox_renderer"])  # mails get their bodies
    with app.app_context(), db.transaction() as s:
        return list(s.exec(stmt))


def test_timeouts_play_through_the_move_use_case(app):
    from service.store.models import GameRow, MoveRow
    from service.store.outbox_models import OutboxMail

    game_id, tokens = start_game(app)
    start = utcnow()
    rows = q(app, select(Deadline).where(Deadline.fired_at.is_(None)))
    assert sorted((d.seat, d.kind) for d in rows) == [(0, "reveal"), (1, "reveal")]

    mails_before = len(q(app, select(OutboxMail)))
    # the first reminder is due 24 h in, or at the end of quiet hours (22:00-08:00 in the seats' zone,
    # UTC here) when that falls in them: the test runs at any time of day
    r = sweep(app, defer_quiet(start + timedelta(hours=24, minutes=1), "UTC"))
    assert r.reminders == 2
    reminders = q(app, select(OutboxMail).where(OutboxMail.id > 0))[mails_before:]
    assert len(reminders) == 2 and all("Reminder" in m.text_body for m in reminders)

    at = start
    for _round in range(6):  # nobody answers: the bot reveals for both, then plays Ann's turns
        at += timedelta(days=3)
        sweep(app, at)
        ann = q(app, select(SeatClock).where(SeatClock.game_id == game_id, SeatClock.seat == 0))
        if ann and ann[0].bot_played:
            break
    moves = q(app, select(MoveRow).where(MoveRow.game_id == game_id).order_by(MoveRow.number))
    assert [m.move.split()[0] for m in moves[:4]] == ["reveal"] * 4
    assert ann[0].bot_played and ann[0].consecutive_timeouts >= 3
    game = q(app, select(GameRow).where(GameRow.id == game_id))[0]
    assert game.version == len(moves)  # every timeout went through the versioned use case once

    # Bo acts himself (from his link): his timeouts are forgiven.
    from service.play import lookups
    from service.play import moves as move_path
    from service.store import db

    with app.app_context(), db.transaction(write=True) as s:
        game = s.get(GameRow, game_id)
        g = lookups.load_engine_game(game)
        owed = {p.seat for p in g.pending()}
        if 1 in owed:
            first = str(engine.bot_move(g, 1, timeouts.BOT))
            move_path.play(s, tokens[1], [first] if first != "take" else [first, "swap A1"], game.version)
        else:
            clock_service.player_acted(s, game, lookups.seats_of(s, game_id)[1])
    bo = q(app, select(SeatClock).where(SeatClock.game_id == game_id, SeatClock.seat == 1))[0]
    assert (bo.consecutive_timeouts, bo.bot_played) == (0, False)


def test_digest_mail_lists_waiting_games(app):
    from service.mail.outbox import render_pending
    from service.store import db
    from service.store.outbox_models import OutboxMail

    ids = [start_game(app)[0] for _ in range(2)]
    with app.app_context(), db.transaction(write=True) as s:
        for gid in ids:
            set_seat_settings(s, gid, 1, mail_pref="digest", tz="Europe/Stockholm")
    eight = next_local_time(utcnow(), "Europe/Stockholm")
    sweep(app, eight)
    render_pending(db.get_engine(app), app.extensions["outbox_renderer"])  # the digest is an intent
    digests = q(app, select(OutboxMail).where(OutboxMail.to_addr == "bo@example.com",
                                             OutboxMail.subject.like("SKYJO: %waiting%")))
    assert len(digests) == 1
    assert "http://localhost/" in digests[0].text_body
    assert digests[0].text_body.count("SKYJO with Ann and Bo") == 2


def test_worker_once_with_the_services_default_handlers(app):
    from service import cli_service
    from service.store.models import MoveRow

    game_id, _tokens = start_game(app)
    with app.app_context():
        from service.store import db

        with db.transaction(write=True) as s:  # the host kicks both seats: due now
            assert play_now(s, game_id, 0) == 1 and play_now(s, game_id, 1) == 1
    assert cli_service.run_worker(app=app, once=True, mail=False) == 0
    assert len(q(app, select(MoveRow).where(MoveRow.game_id == game_id))) >= 2


def test_the_computer_stops_when_the_game_keeps_coming_back_to_one_position(app):
    """Issue 16.2: the clock plays one decision per sweep and keeps no guard in memory; a position
    seen three times (engine.times_seen) means playing on would never end the round: the computer
    stops, the decision waits for its player, and both players are told why."""
    import engine
    from service.play import games
    from service.play import moves as move_path
    from service.store import db
    from service.store.models import GameRow, MoveRow
    from service.store.outbox_models import OutboxMail

    with app.app_context(), db.transaction(write=True) as s:  # a fixed deal: the same circle every run
        created = games.create_game(s, host_name="Ann", host_email="ann@example.com",
                                       players=[("Bo", "bo@example.com")], decision_hours=48,
                                       setup={"seed": "circle-1"})
        games.accept(s, created.tokens[1])
        game_id, tokens = created.game.id, created.tokens

    def state():
        with app.app_context(), db.transaction() as s:
            game = s.get(GameRow, game_id)
            return engine.Game.from_json(game.state), game.version

    def play(seat: int, moves: list[str]) -> None:
        _g, version = state()
        with app.app_context(), db.transaction(write=True) as s:
            move_path.play(s, tokens[seat], moves, version)

    for cell in ("A1", "B1"):  # the opening: two reveals each
        for seat in (0, 1):
            play(seat, [f"reveal {cell}"])
    while True:  # both take the discard and put it on A1, again and again
        g, _version = state()
        if engine.times_seen(g) >= timeouts.CIRCLE_LIMIT:
            break
        play(g.pending()[0].seat, ["take", "swap A1"])
    owing = g.pending()[0].seat
    moves_before = len(q(app, select(MoveRow)))
    sweep(app, utcnow() + timedelta(hours=49))
    assert len(q(app, select(MoveRow))) == moves_before, "the computer did not play"
    assert state()[0].pending()[0].seat == owing
    told = q(app, select(OutboxMail).where(OutboxMail.text_body.like("%The computer stopped playing%")))
    assert sorted(m.to_addr for m in told) == ["ann@example.com", "bo@example.com"]


def test_reminders_timeout_notes_and_digests_are_in_each_seats_language(app):
    """Issue 17: the clock's mails are said in the recipient seat's language (Ann: German, Bo: Dutch)."""
    from service.play import games
    from service.store import db
    from service.store.outbox_models import OutboxMail

    with app.app_context(), db.transaction(write=True) as s:
        created = games.create_game(s, host_name="Ann", host_email="ann@example.com",
                                       players=[("Bo", "bo@example.com")], decision_hours=48,
                                       host_lang="de", langs=["nl"])
        games.accept(s, created.tokens[1])
    start = utcnow()
    before = len(q(app, select(OutboxMail)))
    sweep(app, defer_quiet(start + timedelta(hours=24, minutes=1), "UTC"))
    reminders = {m.to_addr: m for m in q(app, select(OutboxMail))[before:]}
    assert "Erinnerung: Bitte entscheide dich bis" in reminders["ann@example.com"].text_body
    assert "Herinnering: beslis uiterlijk" in reminders["bo@example.com"].text_body
    assert reminders["bo@example.com"].subject == "Herinnering: jouw beurt · ronde 1 · SKYJO met Ann en Bo"
    before = len(q(app, select(OutboxMail)))
    sweep(app, start + timedelta(days=3))  # both time out: the computer reveals for them
    notes = [m for m in q(app, select(OutboxMail))[before:] if m.to_addr == "bo@example.com"]
    assert notes and any("de computer" in m.text_body.lower() for m in notes), [m.text_body for m in notes]
    assert not any("computer made this decision" in m.text_body for m in notes)


def test_the_digest_is_in_the_language_of_the_addresss_seat(app):
    from service.mail.outbox import render_pending
    from service.play import games
    from service.store import db
    from service.store.outbox_models import OutboxMail

    with app.app_context(), db.transaction(write=True) as s:
        created = games.create_game(s, host_name="Ann", host_email="ann@example.com",
                                       players=[("Bo", "bo@example.com")], decision_hours=48, langs=["nl"])
        games.accept(s, created.tokens[1])
        set_seat_settings(s, created.game.id, 1, mail_pref="digest", tz="Europe/Amsterdam")
    sweep(app, next_local_time(utcnow(), "Europe/Amsterdam"))
    render_pending(db.get_engine(app), app.extensions["outbox_renderer"])
    digests = q(app, select(OutboxMail).where(OutboxMail.to_addr == "bo@example.com",
                                             OutboxMail.template == "digest"))
    assert len(digests) == 1 and digests[0].subject == "SKYJO: er wacht een spel op je"
    assert "Goedemorgen! Deze spellen wachten op je beslissing:" in digests[0].html_body
    assert "SKYJO met Ann en Bo" in digests[0].text_body
