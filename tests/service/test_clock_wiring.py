"""The clock through the real service, as players use it (SQLite and PostgreSQL): the new-game and
accept forms, move links, the board page's vacation and "play for them now" forms, the mail
settings page, and `tick(now, ...)` with a fake clock standing in for the scheduler.

Deals and moves use the real time; the sweeps are given times relative to the deadlines the deal
wrote. Time zones are chosen (Etc/GMT±N, fixed offsets) so that a reminder lands at a known local
hour whatever the hour the test runs.
"""

from __future__ import annotations

import html
import re
from datetime import timedelta

import pytest
from sqlmodel import select

import engine
from service.clock.tick import tick
from service.clock.zones import next_local_time, to_local
from service.play import clock_service, timeouts
from service.play import notify as service_mails
from service.store import db, tokens
from service.store.clock_models import Deadline, SeatClock, utcnow
from service.store.models import GameRow, MoveRow, SeatRow
from service.store.outbox_models import OutboxMail
from tests.service.helpers import (
    confirm,
    csrf_of,
    game_state,
    links_of,
    mails,
    move_links,
    new_game,
    only_game,
    playable,
    post_form,
)

SEAT_PATH = re.compile(r"/s/[A-Za-z0-9_-]+")


# ---------------------------------------------------------------------------------------------------
# helpers


def rows(app, stmt):
    with app.app_context(), db.transaction() as s:
        return list(s.exec(stmt))


def sweep(app, at):
    with app.app_context():
        r = tick(at, lambda: db.transaction(write=True, app=app), timeouts.ServiceClockHandlers())
    assert r.errors == 0, r.error_messages
    return r


def zone_for(local_hour: int, utc_hour: int) -> str:
    """A fixed-offset zone in which `utc_hour` (UTC) is `local_hour` local time."""
    n = (local_hour - utc_hour) % 24
    if n > 14:
        n -= 24
    return "UTC" if n == 0 else f"Etc/GMT{'-' if n > 0 else '+'}{abs(n)}"


def seat_path_in(mail: OutboxMail) -> str:
    return next(p for p in links_of(mail) if SEAT_PATH.fullmatch(p))


def start(app, client, players=(("Ann", "ann@example.com"), ("Bo", "bo@example.com")), *, host_tz="UTC",
          tzs=None, extra=None, since=0) -> GameRow:
    """Create a game from the form and accept every invitation from its page (with a time zone when
    `tzs` names one for that address)."""
    form = {"host_tz": host_tz}
    form.update(extra or {})
    status, where = new_game(client, players, extra=form)
    assert status == 303, where
    for m in mails(app, since):
        if "invites you" in m.text_body:
            path = seat_path_in(m)
            data = {"tz": (tzs or {}).get(m.to_addr)} if (tzs or {}).get(m.to_addr) else {}
            r = post_form(client, path + "/accept", data, page_path=path)
            assert r.status_code == 303, r.text
    game = only_game(app)
    assert game.status == "active"
    return game


def open_rows(app, game_id, seat=None):
    """The game's open decisions: its `clock_deadline` rows, and the decision held on the game row."""
    with app.app_context(), db.transaction() as s:
        return clock_service.open_decisions(s, s.get(GameRow, game_id), seat)


def seat_clock(app, game_id, seat) -> SeatClock:
    return rows(app, select(SeatClock).where(SeatClock.game_id == game_id, SeatClock.seat == seat))[0]


def last_mail_to(app, addr, since=0) -> OutboxMail:
    found = [m for m in mails(app, since) if m.to_addr == addr]
    assert found, f"no mail to {addr}"
    return found[-1]


def seat_link(app, game_id, email) -> str:
    """The player's board path (the link their mails carry)."""
    from service.store import tokens

    with app.app_context(), db.transaction() as s:
        row = s.exec(select(SeatRow).where(SeatRow.game_id == game_id, SeatRow.email == email)).one()
        return f"/s/{tokens.seat_token(row.token_salt)}"


def play_opening_by_links(app, client, game_id):
    """Both players reveal their two opening cards by following their mails' links."""
    for _step in range(8):
        _v, state, _st = game_state(app, game_id)
        g = engine.Game.from_json(state)
        pend = [p for p in g.pending() if p.kind in {"reveal", "tie_reveal"}]
        if not pend:
            return g
        seat = pend[0].seat
        email = {r.seat: r.email for r in rows(app, select(SeatRow).where(SeatRow.game_id == game_id))}[seat]
        link = next(p for p in move_links(last_mail_to(app, email)) if playable(g, seat, p))
        assert confirm(client, link).status_code == 303
    raise AssertionError("opening did not end")


# ---------------------------------------------------------------------------------------------------
# deadlines follow the game


def test_deal_creates_deadlines_and_a_move_moves_them_in_its_transaction(app, client, monkeypatch):
    game = start(app, client)
    first = open_rows(app, game.id)
    assert sorted((d.seat, d.kind) for d in first) == [(0, "reveal"), (1, "reveal")]
    assert all(timedelta(hours=47) < d.deadline_at - d.created_at <= timedelta(hours=48) for d in first)
    assert game.reminder_hours == [24, 4] and game.timeout_policy == "bot"

    # A move whose transaction fails later (here: while queueing its mails) leaves the clock as it was.
    link = move_links(last_mail_to(app, "bo@example.com"))[0]

    def broken(*_a, **_k):
        raise RuntimeError("mail layer down")

    monkeypatch.setattr(service_mails, "after_move", broken)
    with pytest.raises(RuntimeError):
        confirm(client, link)
    assert [(d.id, d.fired_at) for d in open_rows(app, game.id)] == [(d.id, None) for d in first]
    assert rows(app, select(MoveRow)) == []
    monkeypatch.undo()

    # Bo reveals one card: his row is closed as made, a new one (full time) opens for the second card;
    # Ann's deadline is untouched.
    assert confirm(client, link).status_code == 303
    closed = rows(app, select(Deadline).where(Deadline.seat == 1, Deadline.fired_at.is_not(None)))
    assert [(d.outcome, d.kind) for d in closed] == [("made", "reveal")]
    now_open = {d.seat: d for d in open_rows(app, game.id)}
    assert now_open[0].id == first[0].id and now_open[1].id != first[1].id
    assert now_open[1].deadline_at > first[1].deadline_at


def test_turn_mail_and_board_show_the_deadline_in_the_zone_chosen_at_acceptance(app, client):
    game = start(app, client, (("Ann", "ann@example.com"), ("Bo", "bo@example.com"), ("Cy", "cy@example.com")),
                 host_tz="Europe/Berlin", tzs={"bo@example.com": "Asia/Tokyo"})
    by_seat = {r.email: r.seat for r in rows(app, select(SeatRow).where(SeatRow.game_id == game.id))}
    for email, tz in (("ann@example.com", "Europe/Berlin"), ("bo@example.com", "Asia/Tokyo"),
                      ("cy@example.com", "Europe/Berlin")):  # Cy chose nothing: the host's zone
        d = open_rows(app, game.id, by_seat[email])[0]
        expected = f"{to_local(d.deadline_at, tz):%b %-d, %Y %H:%M}, {tz.split('/')[-1]} time"  # Babel's medium date, the zone's city (28.3)
        mail = last_mail_to(app, email)
        assert f"Please decide by {expected}" in mail.text_body, mail.text_body
        assert expected in mail.html_body
        assert seat_clock(app, game.id, by_seat[email]).tz == tz
    bo_board = client.get(seat_link(app, game.id, "bo@example.com"))
    assert "Tokyo time" in bo_board.text and "Ann has until" in bo_board.text
    rules = ("Clock: 2 days per decision; reminders 24 h, 4 h before the deadline; when time runs out the "
             "computer makes the decision.")
    assert rules in bo_board.text and rules in last_mail_to(app, "bo@example.com").text_body


def test_new_game_and_accept_forms_reject_bad_clock_settings(app, client):
    for field, value, message in (("decision_hours", "500", "From 1 hour to 14 days"),
                                  ("decision_hours", "0", "From 1 hour to 14 days"),
                                  ("host_tz", "Mars/Olympus", "Unknown time zone"),
                                  ("reminder_hours", "soon", "numbers separated by commas"),
                                  ("reminder_hours", "24, 60", "less than the time per decision"),
                                  ("timeout_policy", "shrug", "Not a valid choice")):
        status, body = new_game(client, extra={field: value})
        assert status == 400 and message in body, (field, value)
    status, where = new_game(client, extra={"decision_hours": "6", "reminder_hours": "2; 1",
                                            "timeout_policy": "wait", "host_tz": "America/New_York"})
    assert status == 303
    game = only_game(app)
    assert (game.decision_hours, game.reminder_hours, game.timeout_policy) == (6, [2, 1], "wait")
    invite = next(m for m in mails(app) if "invites you" in m.text_body)
    page = client.get(seat_path_in(invite))
    assert '<option value="America/New_York" selected>' in page.text  # the host's zone is the default
    r = post_form(client, seat_path_in(invite) + "/accept", {"tz": "Nowhere/Land"}, page_path=seat_path_in(invite))
    assert r.status_code == 400 and "Unknown time zone" in r.text
    assert only_game(app).status == "inviting"


# ---------------------------------------------------------------------------------------------------
# reminders, quiet hours, timeouts


def test_reminders_at_the_offsets_in_daytime(app, client):
    now = utcnow()
    tz = zone_for(13, (now + timedelta(hours=24)).hour)  # the 24 h reminder at 13:xx, the 4 h one at 09:xx
    game = start(app, client, host_tz=tz)
    d = open_rows(app, game.id, 1)[0]
    seen = max(m.id for m in mails(app))
    assert sweep(app, d.deadline_at - timedelta(hours=24, minutes=1)).reminders == 0
    assert sweep(app, d.deadline_at - timedelta(hours=23, minutes=59)).reminders == 2
    new = mails(app, seen)
    assert sorted(m.to_addr for m in new) == ["ann@example.com", "bo@example.com"]
    expected = f"{to_local(d.deadline_at, tz):%b %-d, %Y %H:%M}, {tz.split('/')[-1]} time"  # Babel's medium date, the zone's city (28.3)
    assert all("Reminder" in m.text_body and "http://localhost/s/" in m.text_body for m in new)
    assert any(expected in m.text_body for m in new)
    # a reminder is the turn mail again: move links that play, and a Reply-To that plays
    assert all(move_links(m) and "Reply-To" in m.headers for m in new)
    seen = max(m.id for m in mails(app))
    assert sweep(app, d.deadline_at - timedelta(hours=4, minutes=1)).reminders == 0
    assert sweep(app, d.deadline_at - timedelta(hours=3, minutes=59)).reminders == 2
    assert len(mails(app, seen)) == 2
    assert sweep(app, d.deadline_at - timedelta(minutes=1)).handled == 0  # idempotent: nothing more


def test_quiet_hours_defer_a_2300_reminder_to_0800(app, client):
    now = utcnow()
    tz = zone_for(23, (now + timedelta(hours=24)).hour)  # the 24 h reminder falls at 23:xx local
    game = start(app, client, host_tz=tz)
    d = open_rows(app, game.id, 1)[0]
    due = d.deadline_at - timedelta(hours=24)
    assert to_local(due, tz).hour == 23
    seen = max(m.id for m in mails(app))
    assert sweep(app, due + timedelta(minutes=1)).reminders == 0
    eight = next_local_time(due, tz)
    assert to_local(eight, tz).hour == 8 and eight - due < timedelta(hours=9, minutes=1)
    assert sweep(app, eight - timedelta(minutes=1)).reminders == 0
    assert mails(app, seen) == []
    assert sweep(app, eight + timedelta(seconds=1)).reminders == 2
    assert len(mails(app, seen)) == 2


def test_a_timeout_plays_through_the_move_use_case_and_the_next_mails_say_so(app, client):
    game = start(app, client)
    play_opening_by_links(app, client, game.id)
    version, state, _s = game_state(app, game.id)
    g = engine.Game.from_json(state)
    late = g.pending()[0].seat
    names = {0: "Ann", 1: "Bo"}
    emails = {0: "ann@example.com", 1: "bo@example.com"}
    d = open_rows(app, game.id, late)[0]
    assert d.kind == "turn"
    seen = max(m.id for m in mails(app))
    assert sweep(app, d.deadline_at - timedelta(seconds=1)).timeouts == 0
    # exactly at the deadline: the next player's fresh deadline (written at the real time of the bot's
    # move) is not due in this fake-time sweep
    assert sweep(app, d.deadline_at).timeouts == 1

    new_version, _state, _st = game_state(app, game.id)
    moves = rows(app, select(MoveRow).where(MoveRow.game_id == game.id).order_by(MoveRow.number))
    assert new_version == len(moves) > version  # version-checked use case, one MoveRow per step
    assert {m.seat for m in moves if m.version_before >= version} == {late}
    other = 1 - late
    note = f"{names[late]}'s time ran out: the computer made this decision for them."
    to_other = [m for m in mails(app, seen) if m.to_addr == emails[other] and note in m.text_body]
    assert len(to_other) == 1 and note in to_other[0].html_body
    assert move_links(to_other[0])  # and it is the other player's turn now
    to_late = last_mail_to(app, emails[late], seen)
    assert "Your time ran out: the computer made this decision for you." in to_late.text_body
    assert seat_clock(app, game.id, late).consecutive_timeouts == 1
    assert sweep(app, d.deadline_at).timeouts == 0  # fired exactly once


def test_third_timeout_turns_the_seat_to_bot_play_and_a_post_turns_it_back(app, client):
    game = start(app, client, extra={"opt_target_score": "500"})  # long enough to outlast the test
    ann = seat_link(app, game.id, "ann@example.com")
    for _i in range(20):  # Bo never answers; Ann visits her settings now and then (so she is not bot-played)
        assert post_form(client, ann + "/prefs", {"mail_pref": "every"}, page_path=ann + "/prefs").status_code == 303
        sweep(app, min(d.deadline_at for d in open_rows(app, game.id)))  # the next deadline passes
        if seat_clock(app, game.id, 1).bot_played:
            break
    bo = seat_clock(app, game.id, 1)
    assert bo.bot_played and bo.consecutive_timeouts >= 3
    told = [m for m in mails(app) if m.to_addr == "bo@example.com" and "computer plays for you from now on" in m.text_body]
    assert len(told) == 1 and "open any link of ours or your board page" in told[0].text_body
    board = seat_link(app, game.id, "bo@example.com")
    page = client.get(board)  # a GET (or a link scanner) changes nothing
    assert page.status_code == 200 and "The computer is playing for you" in page.text
    assert client.head(board).status_code == 200
    assert seat_clock(app, game.id, 1).bot_played
    assert only_game(app).status == "active"
    ann_page = client.get(seat_link(app, game.id, "ann@example.com"))
    assert "Bo's decisions are played by the computer" in html.unescape(ann_page.text)
    r = post_form(client, board + "/prefs", {"mail_pref": "every"}, page_path=board + "/prefs")
    assert r.status_code == 303
    bo = seat_clock(app, game.id, 1)
    assert (bo.bot_played, bo.consecutive_timeouts) == (False, 0)

    # Bot play again (as after three more timeouts); this time Bo confirms an old link from his first
    # mail: the move is refused (used up), but he is back in control all the same.
    with app.app_context(), db.transaction(write=True) as s:
        sc = s.get(SeatClock, (game.id, 1))
        sc.bot_played, sc.consecutive_timeouts = True, 3
    first = next(m for m in mails(app) if m.to_addr == "bo@example.com" and move_links(m))
    path, _q, decision = move_links(first)[0].partition("?d=")
    slug = path.rsplit("/", 1)[1]
    with app.test_request_context():  # the Confirm form Bo opened back then carries this token
        form_token = tokens.move_form_token(path.split("/")[2], slug, decision)
    r = post_form(client, path, {"game": game.id, "seat": "1", "move": slug, "decision": decision,
                                 "csrf_token": form_token}, page_path=board)
    assert r.status_code == 409 and "used up" in r.text
    assert not seat_clock(app, game.id, 1).bot_played


# ---------------------------------------------------------------------------------------------------
# policy `wait`, vacations, digests


def test_wait_never_times_out_and_the_host_can_play_for_them_now(app, client):
    game = start(app, client, extra={"timeout_policy": "wait"})
    d = open_rows(app, game.id, 1)[0]
    assert d.policy == "wait"
    for days in (3, 10, 30):
        assert sweep(app, d.deadline_at + timedelta(days=days)).timeouts == 0
    assert rows(app, select(MoveRow)) == []
    ann, bo = seat_link(app, game.id, "ann@example.com"), seat_link(app, game.id, "bo@example.com")
    page = client.get(ann)
    assert "Let the computer play for Bo now" in page.text and "(the game waits for you)" in page.text
    assert "when time runs out the game waits (the host can let the computer play)." in page.text
    assert "Let the computer play for" not in client.get(bo).text  # only the host gets the button
    r = post_form(client, bo + "/play-now", {"seat": "0"}, page_path=bo)
    assert r.status_code == 403 and "Only the host" in r.text
    r = post_form(client, ann + "/play-now", {"seat": "9"}, page_path=ann)
    assert r.status_code == 400
    r = post_form(client, ann + "/play-now", {"seat": "1"}, page_path=ann)
    assert r.status_code == 303
    report = sweep(app, utcnow() + timedelta(seconds=1))
    assert report.timeouts == 1
    moves = rows(app, select(MoveRow))
    assert [(m.seat, m.move.split()[0]) for m in moves] == [(1, "reveal")]


def test_vacation_from_the_board_page_pauses_the_deadlines(app, client):
    game = start(app, client)
    bo = seat_link(app, game.id, "bo@example.com")
    before = open_rows(app, game.id, 1)[0]
    page = client.get(bo)
    assert 'action="' + bo + '/vacation"' in page.text and "Vacation days left in this game: 14 of 14." in page.text
    assert client.get(bo + "/vacation").status_code == 405  # never on GET
    r = post_form(client, bo + "/vacation", {"days": "3"}, page_path=bo)
    assert r.status_code == 303
    after = open_rows(app, game.id, 1)[0]
    assert after.deadline_at >= before.deadline_at + timedelta(days=3) - timedelta(minutes=1)
    sweep(app, before.deadline_at + timedelta(minutes=1))  # Ann's deadline passes, Bo's does not
    assert {m.seat for m in rows(app, select(MoveRow))} == {0}
    ann_page = client.get(seat_link(app, game.id, "ann@example.com"))
    assert "Bo is on vacation until" in ann_page.text
    assert "You are on vacation until" in client.get(bo).text
    for days, message in (("20", "A vacation lasts from 1 to 14 days."), ("x", "Give the number of days")):
        r = post_form(client, bo + "/vacation", {"days": days}, page_path=bo)
        assert r.status_code == 400 and message in r.text, (days, r.text[-500:])
    r = client.post(bo + "/vacation", data={"days": "3"})  # no CSRF token: refused
    assert r.status_code == 400
    r = post_form(client, bo + "/vacation/end", page_path=bo)
    assert r.status_code == 303
    back = open_rows(app, game.id, 1)[0]
    assert back.deadline_at < after.deadline_at - timedelta(days=2)
    # Ten days of vacation taken earlier in this game (as if they had passed): twelve more is too much.
    with app.app_context(), db.transaction(write=True) as s:
        s.get(SeatClock, (game.id, 1)).vacation_used_s = 10 * 86400
    assert "Vacation days left in this game: 4 of 14." in client.get(bo).text
    r = post_form(client, bo + "/vacation", {"days": "12"}, page_path=bo)
    assert r.status_code == 400 and "At most 14 days of vacation per game; 4.0 days left." in r.text
    assert sweep(app, back.deadline_at + timedelta(seconds=1)).timeouts == 1


def test_digest_preference_collects_two_games_in_one_mail(app, client):
    tz = "Europe/Stockholm"
    g1 = start(app, client, host_tz=tz)
    seen = max(m.id for m in mails(app))
    g2 = start(app, client, (("Cy", "cy@example.com"), ("Bo", "bo@example.com")), host_tz=tz, since=seen)
    assert g1.id != g2.id
    for gid in (g1.id, g2.id):
        board = seat_link(app, gid, "bo@example.com")
        page = client.get(board + "/prefs")
        assert 'value="digest"' in page.text
        r = post_form(client, board + "/prefs", {"mail_pref": "digest"}, page_path=board + "/prefs")
        assert r.status_code == 303
        assert seat_clock(app, gid, 1).mail_pref == "digest"
    seen = max(m.id for m in mails(app))
    # Cy reveals a card: no turn mail goes to Bo (digest), Cy's own mail still does.
    cy_link = move_links(last_mail_to(app, "cy@example.com"))[0]
    assert confirm(client, cy_link).status_code == 303
    eight = next_local_time(utcnow(), tz)
    sweep(app, eight + timedelta(seconds=1))
    to_bo = [m for m in mails(app, seen) if m.to_addr == "bo@example.com"]
    assert len(to_bo) == 1, [m.subject for m in to_bo]
    digest = to_bo[0]
    assert "2 games are waiting" in digest.subject
    assert "SKYJO with Ann and Bo" in digest.text_body and "SKYJO with Cy and Bo" in digest.text_body
    assert digest.text_body.count("http://localhost/s/") >= 2
    # the same sweep sends no reminders or turn mails to Bo; tomorrow's digest comes a day later
    assert sweep(app, eight + timedelta(seconds=2)).digests == 0


def test_unsubscribe_mutes_the_clock_too(app, client):
    game = start(app, client)
    bo = seat_link(app, game.id, "bo@example.com")
    r = client.post(bo + "/unsubscribe")
    assert r.status_code == 200
    assert seat_clock(app, game.id, 1).mail_pref == "off"
    # csrf_of is only here to show the settings page still works for turning mails back on
    assert csrf_of(client.get(bo + "/prefs").text)


# ---------------------------------------------------------------------------------------------------
# the command line


def test_serve_starts_the_clock_once_and_worker_is_a_command(app, monkeypatch):
    import argparse

    from service import cli_service
    from service.clock import scheduler
    from service.mail import sender

    calls = []
    monkeypatch.setattr(cli_service, "_app", lambda: app)
    monkeypatch.setattr(cli_service, "upgrade_database", lambda url: None)
    monkeypatch.setattr(sender, "start_background_sender", lambda *a, **k: None)
    monkeypatch.setattr(scheduler, "start_in_process", lambda a, **k: calls.append((a, k)))
    monkeypatch.setattr(app, "run", lambda **k: calls.append(("run", k)))
    args = argparse.Namespace(host="127.0.0.1", port=5999, debug=True)
    assert cli_service.cmd_serve(args) == 0
    assert calls[0] == (app, {"use_reloader": True})  # the reloader's watcher process gets no clock
    assert calls[1][0] == "run" and len(calls) == 2

    parser = argparse.ArgumentParser()
    cli_service.add_commands(parser.add_subparsers(dest="cmd"))
    parsed = parser.parse_args(["worker", "--once", "--no-mail"])
    assert parsed.func is cli_service.cmd_worker and parsed.once and parsed.no_mail
