"""The clock with a fake clock: reminders, timeouts, policies, vacation, quiet hours, digests, bot play.

Every test runs on SQLite and on PostgreSQL (fresh schema; skipped locally when unreachable, a
failure under CI=true). Time never comes from the wall clock: each call gets `now`.
"""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from sqlalchemy import Column, Integer, MetaData, String, Table, event, func, select, update
from sqlalchemy.types import JSON

import engine as skyjo
from service.clock import tick
from service.clock.deadlines import (
    ClockError,
    ClockSettings,
    board_status,
    close_game,
    schedule_decisions,
    seat_states,
)
from service.clock.seats import (
    end_vacation,
    note_player_acted,
    play_now,
    set_seat_settings,
    set_vacation,
    vacation_left,
)
from service.clock.tick import session_factory_for
from service.clock.zones import defer_quiet, to_local
from service.store.clock_models import Deadline, SeatClock
from tests.service.test_clock_support import RecordingHandlers, effect, pg_schema_url, setup_db

H = timedelta(hours=1)
D = timedelta(days=1)
T0 = datetime(2027, 1, 11, 12, 0)  # a Monday, noon UTC


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db(request, tmp_path):
    if request.param == "sqlite":
        url, drop = f"sqlite:///{tmp_path / 'clock.sqlite3'}", None
    else:
        url, drop = pg_schema_url()
    eng = setup_db(url)
    yield eng, session_factory_for(eng)
    eng.dispose()
    if drop:
        drop()


def schedule(factory, game_id, pending, version, now, settings=None, acted=()):
    with factory() as s:
        return schedule_decisions(s, game_id, pending, version, now, settings, acted_seats=acted)


def rows(factory, game_id=None) -> list[Deadline]:
    with factory() as s:
        q = select(Deadline).order_by(Deadline.id)
        if game_id:
            q = q.where(Deadline.game_id == game_id)
        return list(s.execute(q).scalars())


def effects(factory) -> list[tuple]:
    with factory() as s:
        return [tuple(r) for r in s.execute(select(effect.c.deadline_id, effect.c.event, effect.c.n)
                                            .order_by(effect.c.id))]


def test_reminders_at_offsets_then_one_timeout_and_idempotent(db):
    _eng, f = db
    schedule(f, "g1", [(0, "turn")], 5, T0)
    h = RecordingHandlers()
    assert tick.tick(T0 + 24 * H - timedelta(seconds=1), f, h).handled == 0
    r = tick.tick(T0 + 24 * H, f, h)  # 24 h before the 48 h deadline
    assert (r.reminders, r.timeouts) == (1, 0)
    assert tick.tick(T0 + 24 * H, f, h).claimed == 0  # running it again does nothing again
    assert tick.tick(T0 + 44 * H - timedelta(seconds=1), f, h).handled == 0
    assert tick.tick(T0 + 44 * H, f, h).reminders == 1  # 4 h before
    assert tick.tick(T0 + 48 * H - timedelta(seconds=1), f, h).handled == 0
    r = tick.tick(T0 + 48 * H, f, h)
    assert r.timeouts == 1
    for _ in range(2):
        assert tick.tick(T0 + 60 * H, f, h).claimed == 0
    assert h.timeouts == [("g1", 0, "turn", 5)]
    assert [x[3] for x in h.reminders] == [0, 1]
    (row,) = rows(f)
    assert (row.outcome, row.fired_at, row.reminders_sent, row.next_at) == ("timeout", T0 + 48 * H, 2, None)
    with f() as s:
        assert s.get(SeatClock, ("g1", 0)).consecutive_timeouts == 1


def test_short_decision_time_drops_reminders_that_would_come_at_once(db):
    _eng, f = db
    schedule(f, "g", [(1, "reveal")], 0, T0, ClockSettings.from_hours(3))
    (row,) = rows(f)
    assert row.reminders_left == []  # 24 h and 4 h before a 3 h deadline are already past
    assert (row.next_event, row.next_at) == ("timeout", T0 + 3 * H)


def test_decision_made_meanwhile_does_nothing(db):
    _eng, f = db
    schedule(f, "g", [(0, "reveal"), (1, "reveal")], 0, T0)
    # seat 0 reveals: seat 1 still owes its reveal and keeps its deadline; seat 0 gets a new one
    schedule(f, "g", [(0, "reveal"), (1, "reveal")], 1, T0 + 10 * H, acted=[0])
    # seat 1 reveals its second card and seat 0 its too: only seat 0's turn is left
    schedule(f, "g", [(0, "turn")], 3, T0 + 30 * H, acted=[0, 1])
    h = RecordingHandlers()
    tick.tick(T0 + 48 * H, f, h)  # seat 1's first deadline would have been now
    assert h.timeouts == [] and h.reminders == []
    open_ = [r for r in rows(f) if r.fired_at is None]
    assert [(r.seat, r.kind, r.deadline_at) for r in open_] == [(0, "turn", T0 + 78 * H)]
    assert [r.outcome for r in rows(f) if r.fired_at] == ["made", "made", "made"]


def test_pending_kept_for_other_seat_keeps_deadline(db):
    _eng, f = db
    schedule(f, "g", [(0, "reveal"), (1, "reveal")], 0, T0)
    schedule(f, "g", [(0, "reveal"), (1, "reveal")], 1, T0 + 5 * H, acted=[0])
    by_seat = {r.seat: r for r in rows(f) if r.fired_at is None}
    assert by_seat[1].deadline_at == T0 + 48 * H
    assert by_seat[0].deadline_at == T0 + 53 * H


def test_wait_policy_never_times_out_but_reminds_and_play_now_kicks(db):
    _eng, f = db
    schedule(f, "g", [(0, "turn")], 2, T0, ClockSettings(policy="wait"))
    h = RecordingHandlers()
    for day in range(1, 40):
        tick.tick(T0 + day * D, f, h)
    assert h.timeouts == []
    assert len(h.reminders) == 2
    (row,) = rows(f)
    assert row.fired_at is None and row.next_at is None
    with f() as s:
        assert play_now(s, "g", 0, T0 + 40 * D) == 1
    assert tick.tick(T0 + 40 * D, f, h).timeouts == 1
    assert h.timeouts == [("g", 0, "turn", 2)]


def test_vacation_pauses_and_extends(db):
    _eng, f = db
    schedule(f, "g", [(0, "turn")], 1, T0)
    with f() as s:
        set_vacation(s, "g", 0, T0 + 4 * D, T0 + D)  # 1 day left when it starts
    (row,) = rows(f)
    assert row.deadline_at == T0 + 5 * D
    h = RecordingHandlers()
    for hours in range(25, 96):  # nothing during the vacation (old deadline T0+2d included)
        assert tick.tick(T0 + hours * H, f, h).handled == 0
    r = tick.tick(T0 + 4 * D, f, h)  # the 24 h reminder, when the vacation ends
    assert r.reminders == 1
    assert tick.tick(T0 + 5 * D - 4 * H - timedelta(seconds=1), f, h).handled == 0
    assert tick.tick(T0 + 5 * D - 4 * H, f, h).reminders == 1
    assert tick.tick(T0 + 5 * D - timedelta(seconds=1), f, h).handled == 0
    assert tick.tick(T0 + 5 * D, f, h).timeouts == 1


def test_decision_during_vacation_gets_full_time_after_it_and_early_return(db):
    _eng, f = db
    with f() as s:
        set_vacation(s, "g", 1, T0 + 3 * D, T0)
    schedule(f, "g", [(1, "turn")], 7, T0 + D)
    (row,) = rows(f)
    assert row.deadline_at == T0 + 5 * D
    with f() as s:
        end_vacation(s, "g", 1, T0 + 2 * D)  # back a day early: 2 days from now
        sc = s.get(SeatClock, ("g", 1))
        assert sc.vacation_until is None and sc.vacation_used_s == 2 * 86400
    (row,) = rows(f)
    assert row.deadline_at == T0 + 4 * D


def test_vacation_is_at_most_14_days_per_game(db):
    _eng, f = db
    with f() as s:
        set_vacation(s, "g", 0, T0 + 10 * D, T0)
    with pytest.raises(ClockError):
        with f() as s:
            set_vacation(s, "g", 0, T0 + 20 * D, T0 + 11 * D)  # 10 used + 9 > 14
    with f() as s:
        set_vacation(s, "g", 0, T0 + 15 * D, T0 + 11 * D)  # 10 + 4 = 14: fine
        set_vacation(s, "h", 0, T0 + 14 * D, T0)  # another game has its own 14 days
        # replacing the current vacation gives back its unused part
        set_vacation(s, "h", 0, T0 + 2 * D, T0 + D)
        assert vacation_left(s.get(SeatClock, ("h", 0)), T0 + D) == timedelta(days=13)


@pytest.mark.parametrize(("raw_utc", "expected_utc"), [
    # Europe/Stockholm, spring forward on 2027-03-28 (02:00 CET -> 03:00 CEST)
    (datetime(2027, 3, 27, 22, 30), datetime(2027, 3, 28, 6, 0)),  # 23:30 CET -> 08:00 CEST
    (datetime(2027, 3, 28, 0, 30), datetime(2027, 3, 28, 6, 0)),  # 01:30 CET -> 08:00 CEST
    (datetime(2027, 3, 26, 6, 59), datetime(2027, 3, 26, 7, 0)),  # 07:59 CET -> 08:00 CET
    (datetime(2027, 3, 26, 7, 0), datetime(2027, 3, 26, 7, 0)),  # 08:00 CET: not quiet
    (datetime(2027, 3, 28, 19, 59), datetime(2027, 3, 28, 19, 59)),  # 21:59 CEST: not quiet
    (datetime(2027, 3, 28, 20, 0), datetime(2027, 3, 29, 6, 0)),  # 22:00 CEST -> 08:00 CEST
    # fall back on 2027-10-31 (03:00 CEST -> 02:00 CET)
    (datetime(2027, 10, 30, 21, 0), datetime(2027, 10, 31, 7, 0)),  # 23:00 CEST -> 08:00 CET
    (datetime(2027, 10, 31, 0, 30), datetime(2027, 10, 31, 7, 0)),  # 02:30 CEST (1st) -> 08:00 CET
    (datetime(2027, 10, 31, 1, 30), datetime(2027, 10, 31, 7, 0)),  # 02:30 CET (2nd) -> 08:00 CET
])
def test_defer_quiet_is_dst_correct(raw_utc, expected_utc):
    assert defer_quiet(raw_utc, "Europe/Stockholm") == expected_utc


@pytest.mark.parametrize(("deadline", "first_reminder"), [
    # 24 h reminder at 23:30 CET on the eve of spring forward -> 08:00 CEST = 06:00 UTC
    (datetime(2027, 3, 28, 22, 30), datetime(2027, 3, 28, 6, 0)),
    # 24 h reminder at 23:00 CEST on the eve of fall back -> 08:00 CET = 07:00 UTC
    (datetime(2027, 10, 31, 21, 0), datetime(2027, 10, 31, 7, 0)),
])
def test_quiet_hours_defer_reminders_not_deadlines(db, deadline, first_reminder):
    _eng, f = db
    now = deadline - 2 * D
    with f() as s:
        set_seat_settings(s, "g", 0, now=now, tz="Europe/Stockholm", address="ann@example.org")
    schedule(f, "g", [(0, "turn")], 1, now)
    h = RecordingHandlers()
    assert tick.tick(first_reminder - timedelta(seconds=1), f, h).handled == 0
    assert tick.tick(first_reminder, f, h).reminders == 1
    # the 4 h reminder (18:30/17:00 UTC = evening local) is not quiet; the deadline is never deferred
    assert tick.tick(deadline - 4 * H, f, h).reminders == 1
    assert tick.tick(deadline - timedelta(seconds=1), f, h).handled == 0
    assert tick.tick(deadline, f, h).timeouts == 1


def test_reminder_deferred_past_the_deadline_is_dropped(db):
    _eng, f = db
    # deadline 07:00 Stockholm (06:00 UTC in winter); the 4 h reminder (03:00 local) would go at 08:00
    deadline = datetime(2027, 1, 15, 6, 0)
    now = deadline - 2 * D
    with f() as s:
        set_seat_settings(s, "g", 0, now=now, tz="Europe/Stockholm")
    schedule(f, "g", [(0, "turn")], 1, now)
    h = RecordingHandlers()
    for minutes in range(0, 2 * 24 * 60 + 1, 30):
        tick.tick(now + timedelta(minutes=minutes), f, h)
    assert len(h.reminders) == 1 and len(h.timeouts) == 1  # 24 h reminder (07:00 local) only


def test_digest_collects_several_games_at_8_local(db):
    _eng, f = db
    now = datetime(2027, 1, 11, 9, 0)  # 10:00 in Stockholm
    with f() as s:
        for game in ("ga", "gb", "gc"):
            set_seat_settings(s, game, 1, now=now, address="Bo@Example.org", tz="Europe/Stockholm",
                                    mail_pref="digest")
        set_seat_settings(s, "gd", 0, now=now, address="cy@example.org")  # every decision
    for game in ("ga", "gb"):
        schedule(f, game, [(1, "turn")], 3, now)
    schedule(f, "gc", [(0, "turn")], 3, now)  # gc waits for seat 0, not Bo
    schedule(f, "gd", [(0, "turn")], 3, now)
    h = RecordingHandlers()
    eight = datetime(2027, 1, 12, 7, 0)  # 08:00 in Stockholm next morning
    assert tick.tick(eight - timedelta(seconds=1), f, h).digests == 0
    r = tick.tick(eight, f, h)
    assert r.digests == 1
    assert h.digests == [("bo@example.org", [("ga", 1), ("gb", 1)], eight)]
    assert tick.tick(eight + H, f, h).digests == 0
    # digest seats get no individual reminders; the every-decision seat does
    tick.tick(now + 24 * H, f, h)
    assert sorted(x[0] for x in h.reminders) == ["gc", "gd"]  # gc: seat 0 has no digest preference
    schedule(f, "ga", [(0, "turn")], 4, now + 30 * H, acted=[1])  # Bo played in ga
    r = tick.tick(eight + D, f, h)
    assert r.digests == 1 and h.digests[-1][1] == [("gb", 1)]


# --------------------------------------------------------------------------------------------------
# A small stand-in for the service: games in a table, timeouts played by the engine's greedy bot
# through a version-checked "use case" that also calls schedule_decisions (as the move use case will).

meta = MetaData()
games = Table("clock_test_game", meta, Column("id", String(24), primary_key=True),
              Column("state", JSON, nullable=False), Column("version", Integer, nullable=False))


class EngineHandlers(RecordingHandlers):
    def on_timeout(self, session, deadline):
        super().on_timeout(session, deadline)
        g = skyjo.Game.from_json(session.execute(select(games.c.state).where(games.c.id == deadline.game_id))
                                 .scalar_one())
        if (deadline.seat, deadline.kind) not in {(p.seat, p.kind) for p in g.pending()}:
            return False
        play(session, deadline.game_id, g, deadline.seat, skyjo.bot_move(g, deadline.seat, "greedy"),
             now=self.now, human=False)
        return True


def play(session, game_id, g, seat, move, *, now, human):
    """The move use case in miniature: version-checked update + clock bookkeeping, one transaction."""
    before = g.version
    new, _events = skyjo.apply_move(g, seat, move)
    res = session.execute(update(games).where(games.c.id == game_id, games.c.version == before)
                          .values(state=new.to_json(), version=new.version))
    if res.rowcount != 1:
        raise RuntimeError("concurrent move: retry")
    if human:
        note_player_acted(session, game_id, seat, now)
    schedule_decisions(session, game_id, new.pending(), new.version, now, acted_seats=[seat])
    return new


def test_third_timeout_turns_seat_to_bot_play_and_acting_turns_it_back(db):
    eng, f = db
    meta.create_all(eng)
    g = skyjo.new_game(["Ann", "Bo"], seed=7)
    with f() as s:
        s.execute(games.insert().values(id="g", state=g.to_json(), version=g.version))
        schedule_decisions(s, "g", g.pending(), g.version, T0)
    h = EngineHandlers()
    now = T0
    timeouts_of_ann = 0

    def load():
        with f() as s:
            return skyjo.Game.from_json(s.execute(select(games.c.state)).scalar_one())

    def ann_clock():
        with f() as s:
            return s.get(SeatClock, ("g", 0))

    # Bo always answers at once; Ann never does until she is played by the bot.
    while True:
        g = load()
        owed = {p.seat for p in g.pending()}
        if 1 in owed:
            with f() as s:
                play(s, "g", g, 1, skyjo.bot_move(g, 1, "greedy"), now=now, human=True)
            continue
        assert owed == {0}
        due = min(r.next_at for r in rows(f) if r.fired_at is None and r.seat == 0)
        now = max(now, due)
        h.now = now
        r = tick.tick(now, f, h)
        assert r.errors == 0, r.error_messages
        timeouts_of_ann += r.timeouts
        if (ann_clock() or SeatClock()).bot_played:
            break
    # the third timeout turned Ann to bot play; her next decisions in the same sweep went at once
    assert ann_clock().consecutive_timeouts >= 3 and timeouts_of_ann == ann_clock().consecutive_timeouts
    # From now on Ann's decisions are due at once (no 2-day wait, no reminders).
    g = load()
    if 0 in {p.seat for p in g.pending()}:
        (row,) = [r for r in rows(f) if r.fired_at is None and r.seat == 0]
        assert row.bot_played and row.next_at == now and row.next_event == "timeout"
    # Ann acts again from a page: bot play ends, her open decision gets a full decision time.
    later = now + H
    with f() as s:
        assert note_player_acted(s, "g", 0, later) is True
    sc = ann_clock()
    assert (sc.bot_played, sc.consecutive_timeouts) == (False, 0)
    for row in rows(f):
        if row.fired_at is None and row.seat == 0:
            assert not row.bot_played and row.deadline_at == later + 48 * H
    assert len(h.timeouts) == len({(e[0], e[1]) for e in effects(f) if e[1] == "timeout"})


def test_whole_game_played_by_timeouts(db):
    """Nobody ever answers: every decision is played by the bot, each exactly once, to the end."""
    eng, f = db
    meta.create_all(eng)
    g = skyjo.new_game(["Ann", "Bo", "Cy"], seed=11, options={"target_score": 20})
    with f() as s:
        s.execute(games.insert().values(id="g", state=g.to_json(), version=g.version))
        schedule_decisions(s, "g", g.pending(), g.version, T0)
    h = EngineHandlers()
    now = T0
    for _ in range(200):
        open_ = [r for r in rows(f, "g") if r.fired_at is None]
        if not open_:
            break
        now = max(now, min(r.next_at for r in open_))
        h.now = now
        r = tick.tick(now, f, h)
        assert r.errors == 0, r.error_messages
    with f() as s:
        final = skyjo.Game.from_json(s.execute(select(games.c.state)).scalar_one())
        n_timeouts = s.execute(select(func.count()).select_from(Deadline)
                               .where(Deadline.outcome == "timeout")).scalar_one()
    assert final.is_over
    assert n_timeouts == final.version  # every move was one timeout, none twice
    assert all(r.fired_at is not None for r in rows(f, "g"))


# --------------------------------------------------------------------------------------------------
# Crash safety and errors in one process


def test_unfinished_claim_expires_and_is_retried_once(db):
    _eng, f = db
    schedule(f, "g", [(0, "turn")], 1, T0, ClockSettings.from_hours(1, ()))
    d = Deadline.__table__
    due = d.c.fired_at.is_(None) & (d.c.next_at <= T0 + H)
    # a worker claims the row and dies before handling it
    assert tick._claim(f, d, due, d.c.next_at, T0 + H, "deadbeef", 10, timedelta(minutes=5))
    h = RecordingHandlers()
    assert tick.tick(T0 + H + timedelta(minutes=4), f, h).claimed == 0  # the claim is still live
    assert tick.tick(T0 + H + timedelta(minutes=5), f, h).timeouts == 1
    assert tick.tick(T0 + H + timedelta(minutes=11), f, h).claimed == 0
    assert len(effects(f)) == 1


def test_failing_handler_rolls_back_and_retries_later(db):
    _eng, f = db
    schedule(f, "g", [(0, "turn")], 1, T0, ClockSettings.from_hours(1, ()))

    class Flaky(RecordingHandlers):
        fail = True

        def on_timeout(self, session, deadline):
            super().on_timeout(session, deadline)  # its write must be rolled back
            if self.fail:
                raise RuntimeError("SMTP is down")
            return True

    h = Flaky()
    r = tick.tick(T0 + H, f, h)
    assert r.errors == 1 and effects(f) == []
    (row,) = rows(f)
    assert row.fired_at is None and row.attempts == 1 and "SMTP is down" in row.last_error
    with f() as s:
        assert s.get(SeatClock, ("g", 0)) is None or s.get(SeatClock, ("g", 0)).consecutive_timeouts == 0
    assert tick.tick(T0 + H + timedelta(seconds=10), f, h).claimed == 0  # backing off
    h.fail = False
    assert tick.tick(T0 + H + timedelta(minutes=1), f, h).timeouts == 1
    assert len(effects(f)) == 1


def test_timeout_of_decision_no_longer_owed_is_stale(db):
    _eng, f = db
    schedule(f, "g", [(0, "turn")], 1, T0, ClockSettings.from_hours(1, ()))
    h = RecordingHandlers(timeout_result=False)
    r = tick.tick(T0 + H, f, h)
    assert (r.timeouts, r.stale) == (0, 1)
    (row,) = rows(f)
    assert row.outcome == "stale" and row.fired_at is not None
    with f() as s:
        sc = s.get(SeatClock, ("g", 0))
        assert sc is None or sc.consecutive_timeouts == 0


def test_game_over_closes_everything(db):
    _eng, f = db
    schedule(f, "g", [(0, "reveal"), (1, "reveal")], 0, T0)
    with f() as s:
        close_game(s, "g", T0 + H)
    assert all(r.outcome == "made" for r in rows(f))
    assert tick.tick(T0 + 10 * D, f, RecordingHandlers()).claimed == 0


def test_board_status(db):
    _eng, f = db
    schedule(f, "g", [(0, "reveal"), (1, "reveal")], 0, T0)
    with f() as s:
        set_seat_settings(s, "g", 2, now=T0, tz="Europe/Stockholm", mail_pref="off")
        set_vacation(s, "g", 1, T0 + 3 * D, T0)
        st = board_status(s, "g", T0 + H)
    assert st[0]["deadlines"] == [("reveal", T0 + 2 * D)] and st[0]["vacation_until"] is None
    assert st[1]["deadlines"] == [("reveal", T0 + 5 * D)] and st[1]["vacation_until"] == T0 + 3 * D
    assert 2 not in st and st[0]["policy"] == "bot"
    assert to_local(T0, "Europe/Stockholm").hour == 13


def test_settings_are_validated():
    with pytest.raises(ClockError):
        ClockSettings.from_hours(0.5)
    with pytest.raises(ClockError):
        ClockSettings.from_hours(15 * 24)
    with pytest.raises(ClockError):
        ClockSettings(policy="never")
    assert ClockSettings.from_hours(1).decision_seconds == 3600
    assert ClockSettings.from_hours(14 * 24).policy == "bot"


@pytest.fixture
def pg_db():
    url, drop = pg_schema_url()
    eng = setup_db(url)
    yield eng, session_factory_for(eng)
    eng.dispose()
    drop()


@pytest.mark.postgres
def test_move_committing_during_a_reminder_rolls_the_reminder_back(pg_db):
    """PostgreSQL runs the move and the sweep truly at once (SQLite serializes writers)."""
    import threading

    _eng, f = pg_db
    schedule(f, "g", [(0, "turn")], 1, T0)
    in_handler, move_done = threading.Event(), threading.Event()

    class Slow(RecordingHandlers):
        def on_reminder(self, session, deadline):
            super().on_reminder(session, deadline)
            in_handler.set()
            assert move_done.wait(10)
            return True

    def move():
        in_handler.wait(10)
        schedule(f, "g", [(1, "turn")], 2, T0 + 24 * H, acted=[0])
        move_done.set()

    t = threading.Thread(target=move)
    t.start()
    r = tick.tick(T0 + 24 * H, f, Slow())
    t.join()
    assert r.reminders == 0 and r.skipped == 1  # the handler ran, but its transaction was rolled back
    assert effects(f) == []
    assert [(x.seat, x.outcome) for x in rows(f)] == [(0, "made"), (1, None)]


def test_timeouts_count_even_if_the_handlers_move_notes_the_player_acting(db):
    _eng, f = db

    class Careless(RecordingHandlers):
        def on_timeout(self, session, deadline):
            super().on_timeout(session, deadline)
            note_player_acted(session, deadline.game_id, deadline.seat, self.now)
            schedule_decisions(session, deadline.game_id, [(0, "turn")], deadline.version + 1, self.now,
                                     ClockSettings.from_hours(1, ()), acted_seats=[0])
            return True

    schedule(f, "g", [(0, "turn")], 1, T0, ClockSettings.from_hours(1, ()))
    h = Careless()
    for k in (1, 2, 3):
        h.now = T0 + k * H
        assert tick.tick(h.now, f, h, max_rows=1).timeouts == 1  # one row per sweep: no cascade
    with f() as s:
        sc = s.get(SeatClock, ("g", 0))
        assert (sc.consecutive_timeouts, sc.bot_played) == (3, True)
    (row,) = [r for r in rows(f) if r.fired_at is None]
    assert row.bot_played and row.next_at == T0 + 3 * H


# --------------------------------------------------------------------------------------------------
# The move path: Core statements, few of them, and the session's ORM objects kept in step


def statements(eng):
    """The SQL statements `eng` runs until `stop()` (first three words of each)."""
    seen: list[str] = []

    def record(_conn, _cursor, statement, _params, _context, _executemany):
        seen.append(" ".join(statement.split()[:3]))

    event.listen(eng, "before_cursor_execute", record)
    return seen, lambda: event.remove(eng, "before_cursor_execute", record)


def a_move(s, game_id, seat, pending, version, now):
    """What `clock_service.moved` does for a human move."""
    clocks = seat_states(s, game_id)
    note_player_acted(s, game_id, seat, now, clocks=clocks)
    open_rows = schedule_decisions(s, game_id, pending, version, now, acted_seats=[seat], clocks=clocks)
    return board_status(s, game_id, now, clocks=clocks, open_rows=open_rows)


def test_a_move_costs_four_statements_and_writes_the_seat_clock_only_when_it_changes(db):
    eng, f = db
    with f() as s:
        for seat in (0, 1):
            set_seat_settings(s, "g", seat, now=T0, tz="Europe/Berlin")
    schedule(f, "g", [(0, "reveal"), (1, "reveal")], 0, T0)
    seen, stop = statements(eng)
    try:
        with f() as s:
            a_move(s, "g", 0, [(0, "reveal"), (1, "reveal")], 1, T0 + H)
    finally:
        stop()
    assert [x for x in seen if x.split()[0] in ("SELECT", "UPDATE", "INSERT")] == [
        "SELECT clock_seat.seat, clock_seat.tz,", "SELECT clock_deadline.id, clock_deadline.seat,",
        "UPDATE clock_deadline SET", "INSERT INTO clock_deadline"]
    with f() as s:
        assert s.get(SeatClock, ("g", 0)).updated_at == T0  # nothing to reset: not written
        s.execute(update(SeatClock).where(SeatClock.seat == 0).values(consecutive_timeouts=2))
    seen, stop = statements(eng)
    try:
        with f() as s:
            a_move(s, "g", 0, [(0, "turn")], 2, T0 + 2 * H)  # seat 1's reveal is no longer owed: 2 closed
    finally:
        stop()
    assert [x for x in seen if x.split()[0] in ("SELECT", "UPDATE", "INSERT")] == [
        "SELECT clock_seat.seat, clock_seat.tz,", "UPDATE clock_seat SET",
        "SELECT clock_deadline.id, clock_deadline.seat,", "UPDATE clock_deadline SET", "INSERT INTO clock_deadline"]
    with f() as s:
        sc = s.get(SeatClock, ("g", 0))
        assert (sc.consecutive_timeouts, sc.updated_at) == (0, T0 + 2 * H)
    open_ = [r for r in rows(f) if r.fired_at is None]
    assert [(r.seat, r.kind, r.deadline_at) for r in open_] == [(0, "turn", T0 + 50 * H)]
    # the reminders of the row inserted by Core are planned as before (24 h before, daytime in Berlin)
    assert (open_[0].reminders_left, open_[0].next_event, open_[0].next_at) == ([86400, 14400], "reminder",
                                                                                 T0 + 26 * H)


def test_the_board_status_a_move_returns_is_the_one_read_afterwards(db):
    _eng, f = db
    with f() as s:
        set_seat_settings(s, "g", 1, now=T0, tz="Asia/Tokyo", mail_pref="digest")
        set_vacation(s, "g", 2, T0 + 3 * D, T0)
    schedule(f, "g", [(0, "reveal"), (1, "reveal"), (2, "reveal")], 0, T0)
    pending = [(0, "reveal"), (0, "turn"), (1, "reveal"), (2, "reveal")]  # two rows for seat 0 (order)
    with f() as s:
        returned = a_move(s, "g", 1, pending, 1, T0 + H)
        again = board_status(s, "g", T0 + H)
    assert returned == again
    assert [k for k, _t in returned[0]["deadlines"]] == ["reveal", "turn"]
    assert returned[1]["deadlines"] == [("reveal", T0 + 49 * H)] and returned[1]["tz"] == "Asia/Tokyo"
    assert returned[2]["vacation_until"] == T0 + 3 * D and returned[2]["deadlines"] == [("reveal", T0 + 5 * D)]


def test_orm_objects_in_the_session_follow_the_core_writes(db):
    """The sweep holds the claimed row and its seat clock as ORM objects while the move it plays
    runs `schedule_decisions` (and a careless handler `note_player_acted`) with Core statements:
    those objects take the new values, and later ORM writes keep them."""
    _eng, f = db
    schedule(f, "g", [(0, "turn"), (1, "reveal")], 1, T0)
    with f() as s:
        set_seat_settings(s, "g", 0, now=T0)
        s.get(SeatClock, ("g", 0)).consecutive_timeouts = 2
    with f() as s:
        row = s.execute(select(Deadline).where(Deadline.seat == 0)).scalar_one()
        sc = s.get(SeatClock, ("g", 0))
        assert note_player_acted(s, "g", 0, T0 + H) is False  # not bot-played: False, but reset
        assert (sc.consecutive_timeouts, sc.updated_at) == (0, T0 + H)
        schedule_decisions(s, "g", [(0, "turn"), (1, "reveal")], 2, T0 + H, acted_seats=[0])
        assert (row.fired_at, row.outcome, row.next_at, row.next_event) == (T0 + H, "made", None, None)
        assert row not in s.dirty and sc not in s.dirty
        row.last_error = "noted"  # a later ORM write of other columns keeps the Core values
        sc.tz = "Europe/Berlin"
    with f() as s:
        sc = s.get(SeatClock, ("g", 0))
        assert (sc.consecutive_timeouts, sc.tz) == (0, "Europe/Berlin")
    old = [r for r in rows(f) if r.seat == 0 and r.fired_at is not None]
    assert [(r.outcome, r.fired_at, r.last_error) for r in old] == [("made", T0 + H, "noted")]
    assert len([r for r in rows(f) if r.fired_at is None]) == 2
