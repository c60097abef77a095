"""Exactly once outside the move path (issue 20, point 1): Accept, Decline, Rematch and the settings
under 10 concurrent requests each, on SQLite and PostgreSQL. PostgreSQL runs them truly in parallel,
so a use case that reads and then writes without locking the game deals a game twice, or never.
"""

from __future__ import annotations

import random
import re
import threading

from sqlmodel import select

from service.store import db
from service.store.models import GameRow, SeatRow
from tests.service import helpers as h

N = 10
PLAYERS = (("Ann", "ann@example.com"), ("Bo", "bo@example.com"), ("Cy", "cy@example.com"))


def _invitation_paths(app) -> dict[str, str]:
    """Each invited player's seat page, by address."""
    found = {}
    for m in h.mails(app):
        if "invites you" in m.text_body:
            found[m.to_addr] = next(p for p in h.links_of(m) if re.fullmatch(r"/s/[A-Za-z0-9_-]+", p))
    return found


def _fire(app, requests: list[tuple[str, str]]) -> list[int]:
    """Every (page, action) pair as its own browser: it opened the page (and holds its form's CSRF
    token), then all press the button at the same moment."""
    prepared = []
    for page, action in requests:
        client = app.test_client()
        token = h.form_csrf(client.get(page).text, action)
        assert token, f"no form for {action} on {page}"
        prepared.append((client, action, {"csrf_token": token}))
    barrier = threading.Barrier(len(prepared))
    results: list[int] = []
    lock = threading.Lock()

    def press(client, action, data):
        barrier.wait()
        status = client.post(action, data=data).status_code
        with lock:
            results.append(status)

    threads = [threading.Thread(target=press, args=p) for p in prepared]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    return results


def _first_turn_mails(app, since: int) -> list:
    return [m for m in h.mails(app, since) if h.move_links(m)]


def _last_mail_id(app) -> int:
    mails = h.mails(app)
    return mails[-1].id if mails else 0


def test_double_clicked_accept_deals_once_and_says_so(app, client):
    h.new_game(client)  # Ann hosts, Bo is invited: Bo's accept deals the game
    bo = _invitation_paths(app)["bo@example.com"]
    before = _last_mail_id(app)
    statuses = _fire(app, [(bo, bo + "/accept")] * N)
    assert statuses == [303] * N, statuses
    game = h.only_game(app)
    assert h.game_state(app, game.id)[2] == "active"
    turn = _first_turn_mails(app, before)
    assert sorted(m.to_addr for m in turn) == ["ann@example.com", "bo@example.com"], "dealt once"
    notices = [m for m in h.mails(app, before) if "accepted the invitation" in m.text_body]
    assert len(notices) == 1
    # a losing click is told what happened
    browser = app.test_client()
    again = h.post_form(browser, bo + "/accept", page_path=bo)
    assert again.status_code == 303
    assert "You already accepted this invitation." in browser.get(again.headers["Location"]).text


def test_two_players_accepting_at_the_same_moment_start_the_game(app, client):
    h.new_game(client, players=PLAYERS)
    invited = _invitation_paths(app)
    before = _last_mail_id(app)
    requests = [(invited[a], invited[a] + "/accept") for a in ["bo@example.com", "cy@example.com"]] * (N // 2)
    statuses = _fire(app, requests)
    assert statuses == [303] * N, statuses
    game = h.only_game(app)
    assert h.game_state(app, game.id)[2] == "active", "every seat accepted: the game is dealt"
    turn = _first_turn_mails(app, before)
    assert sorted(m.to_addr for m in turn) == ["ann@example.com", "bo@example.com", "cy@example.com"]
    with app.app_context(), db.transaction() as s:
        seats = s.exec(select(SeatRow).where(SeatRow.game_id == game.id)).all()
        assert sorted(r.seat for r in seats) == [0, 1, 2]


def test_accept_and_decline_at_once_leave_one_answer(app, client):
    """Accept and the Decline step's button pressed many times at once: every answer is applied
    once. A decline may be followed by an accept (issue 28.7: a declined invitee may still accept
    while the game waits), never the other way round, and the host is told each change once: at
    most "declined" then "accepted", the last one the seat's final answer."""
    h.new_game(client, players=PLAYERS)
    invited = _invitation_paths(app)
    bo = invited["bo@example.com"]
    statuses = _fire(app, [(bo, bo + "/accept"), (bo + "/decline", bo + "/decline")] * (N // 2))
    assert all(status in {303, 409} for status in statuses), statuses
    with app.app_context(), db.transaction() as s:
        status = s.exec(select(SeatRow.status).where(SeatRow.email == "bo@example.com")).one()
    assert status in {"accepted", "declined"}
    answers = [("accepted" if "accepted" in m.text_body else "declined") for m in h.mails(app)
               if "the invitation." in m.text_body and "Bo " in m.text_body]
    assert answers in (["accepted"], ["declined"], ["declined", "accepted"]), answers
    assert answers[-1] == status


def test_double_clicked_rematch_creates_one_game(app, client):
    _status, host = h.new_game(client)
    h.accept_all(app, client)
    h.play_by_mail(app, client, rng=random.Random(1))
    host = h.path_of(host)
    before = _last_mail_id(app)
    statuses = _fire(app, [(host, host + "/rematch")] * N)
    assert statuses == [303] * N, statuses
    with app.app_context(), db.transaction() as s:
        assert len(s.exec(select(GameRow)).all()) == 2
    invites = [m for m in h.mails(app, before) if "invites you" in m.text_body]
    assert [m.to_addr for m in invites] == ["bo@example.com"]


def test_concurrent_mail_preference_changes_end_in_one_of_them(app, client):
    h.new_game(client)
    bo = _invitation_paths(app)["bo@example.com"]
    prepared = []
    for pref in ["off", "digest"] * (N // 2):
        c = app.test_client()
        token = h.form_csrf(c.get(bo + "/prefs").text, bo + "/prefs")
        prepared.append((c, {"csrf_token": token, "mail_pref": pref}))
    barrier = threading.Barrier(len(prepared))
    results = []

    def press(c, data):
        barrier.wait()
        results.append(c.post(bo + "/prefs", data=data).status_code)

    threads = [threading.Thread(target=press, args=p) for p in prepared]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert results == [303] * N
    with app.app_context(), db.transaction() as s:
        assert s.exec(select(SeatRow.mail_pref).where(SeatRow.email == "bo@example.com")).one() in {"off", "digest"}
