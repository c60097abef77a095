"""Seat pages and invitations (issue 15.7 and its smaller items): rematch invitations say what they
are and the second Rematch click joins; a decline renames the game and tells the host; vacation days
say what is left of what; the favicon; the board's totals say what they count."""

from __future__ import annotations

import random
import re
from datetime import timedelta

from sqlmodel import select

from service.render import links
from service.store import db, tokens
from service.store.models import GameRow, SeatRow
from tests.conftest import sqlite_suffices
from tests.service import helpers as h

THREE = (("Ann", "ann@example.com"), ("Bo", "bo@example.com"), ("Cy", "cy@example.com"))


def seat_path(app, game_id: str, pos: int) -> str:
    with app.app_context():
        return links.seat_path(tokens.seat_token(h.seats(app, game_id)[pos].token_salt))


def finished_game(app, client, players=THREE) -> str:
    status, _ = h.new_game(client, players=players)
    assert status == 303
    h.accept_all(app, client)
    return h.play_by_mail(app, client, rng=random.Random(3))


@sqlite_suffices  # what pages and mails say: PostgreSQL adds nothing (tests/conftest.py)
def test_rematch_invitation_says_it_is_a_rematch_and_the_second_click_joins(app, client):
    gid = finished_game(app, client)
    with app.app_context(), db.transaction(write=True) as s:
        old_title = s.get(GameRow, gid).title
        cy = s.exec(select(SeatRow).where(SeatRow.game_id == gid, SeatRow.email == "cy@example.com")).one()
        cy.tz = "Africa/Johannesburg"
    before = max(m.id for m in h.mails(app))
    ann = seat_path(app, gid, 0)
    first = h.post_form(client, ann + "/rematch", page_path=ann)
    assert first.status_code == 303
    assert "Invitations are on their way" in client.get(h.path_of(first.headers["Location"])).text
    invitations = [m for m in h.mails(app, before) if "invites you" in m.text_body]
    assert sorted(m.to_addr for m in invitations) == ["bo@example.com", "cy@example.com"]
    for m in invitations:  # the mail says it is a rematch, of which game, and who plays
        assert "Ann invites you to a rematch" in m.text_body
        assert f"A rematch of “{old_title}”" in m.text_body and f"A rematch of “{old_title}”" in m.html_body
        assert "Players: Ann, Bo, Cy" in m.text_body
    bo_invite = next(p for p in h.links_of(invitations[0]) if re.fullmatch(r"/s/[A-Za-z0-9_-]+", p))
    assert f"A rematch of “{old_title}”" in client.get(bo_invite).text

    # Cy presses Rematch on the finished game's page: Cy joins Ann's rematch, keeps the zone, and
    # is not told that invitations are on their way, nor asked to accept again
    mark = max(m.id for m in h.mails(app))
    cy_old = seat_path(app, gid, 2)
    browser = app.test_client()
    second = h.post_form(browser, cy_old + "/rematch", page_path=cy_old)
    assert second.status_code == 303
    page = browser.get(h.path_of(second.headers["Location"])).text
    assert "You are in the rematch that was already started." in page
    assert "Invitations are on their way" not in page and 'data-action="accept"' not in page
    assert not [m for m in h.mails(app, mark) if "invites you" in m.text_body]  # no second round of invitations
    with app.app_context(), db.transaction() as s:
        rematch = s.get(GameRow, s.get(GameRow, gid).rematch_id)
        seats = {r.email: r for r in s.exec(select(SeatRow).where(SeatRow.game_id == rematch.id))}
    assert rematch.status == "inviting"  # Bo has not answered yet
    assert seats["cy@example.com"].status == "accepted" and seats["cy@example.com"].tz == "Africa/Johannesburg"
    assert seats["bo@example.com"].status == "invited"


def test_a_declined_rematch_is_not_joined_by_pressing_rematch(app, client):
    gid = finished_game(app, client, players=THREE[:2])
    ann, bo_old = seat_path(app, gid, 0), seat_path(app, gid, 1)
    assert h.post_form(client, ann + "/rematch", page_path=ann).status_code == 303
    with app.app_context(), db.transaction() as s:
        rematch_id = s.get(GameRow, gid).rematch_id
    bo_new = seat_path(app, rematch_id, 1)
    browser = app.test_client()
    assert h.post_form(browser, bo_new + "/decline", page_path=bo_new).status_code == 303
    again = h.post_form(browser, bo_old + "/rematch", page_path=bo_old)
    assert again.status_code == 409 and "You declined the rematch." in again.text


def test_decline_renames_the_game_and_tells_the_host(app, client):
    status, _ = h.new_game(client, players=THREE)
    assert status == 303
    game = h.only_game(app)
    assert game.title == "SKYJO with Ann, Bo and Cy"
    mark = max(m.id for m in h.mails(app))
    bo = seat_path(app, game.id, 1)
    assert h.post_form(client, bo + "/decline", page_path=bo).status_code == 303
    game = h.only_game(app)
    assert game.status == "inviting" and game.title == "SKYJO with Ann and Cy"
    told = [m for m in h.mails(app, mark) if m.to_addr == "ann@example.com"]
    assert len(told) == 1 and "Bo declined the invitation." in told[0].text_body
    assert told[0].subject.endswith("SKYJO with Ann and Cy")
    page = client.get(seat_path(app, game.id, 0)).text
    assert "<h1>SKYJO with Ann and Cy</h1>" in page


def _running(app, client) -> tuple[str, str]:
    status, _ = h.new_game(client, players=THREE[:2], target=100)
    assert status == 303
    h.accept_all(app, client)
    game = h.only_game(app)
    assert game.status == "active"
    return game.id, seat_path(app, game.id, 1)


def test_vacation_days_say_what_is_left_of_what(app, client):
    _gid, bo = _running(app, client)
    page = client.get(bo).text
    assert "Vacation days left in this game: 14 of 14." in page
    assert "Pause my deadlines for this many days (up to 14):" in page
    assert h.post_form(client, bo + "/vacation", {"days": "3"}, page_path=bo).status_code == 303
    page = client.get(bo).text
    # three of the fourteen days are booked: the form offers the 11 left (issue 28.7; it offered 13,
    # the current vacation's rest given back, rounded down), added to the current vacation
    assert "Vacation days left in this game: 11 of 14." in page
    assert "You are on vacation until" in page
    assert "Add this many days to the vacation (up to 11):" in page
    assert 'max="11"' in page and 'max="13"' not in page
    assert h.post_form(client, bo + "/vacation", {"days": "12"}, page_path=bo).status_code == 400  # 3 + 12 > 14
    assert h.post_form(client, bo + "/vacation", {"days": "11"}, page_path=bo).status_code == 303
    page = client.get(bo).text
    # the days add up: 14 of 14 are booked, nothing more to offer
    assert "Your vacation is 11 days longer." in page
    assert "Vacation days left in this game: 0 of 14." in page and "I am back" in page
    assert "No vacation days left in this game." in page


def test_vacation_form_pressed_twice_adds_its_days_once(app, client):
    """Issue 28.7 made the form add days to a running vacation; a double click (or the same form in
    two tabs) must not add them twice: the form carries the vacation it was shown with, and the
    second press finds it changed, does nothing and says so (409)."""
    _gid, bo = _running(app, client)
    h.post_form(client, bo + "/vacation", {"days": "2"}, page_path=bo)
    page = client.get(bo).text
    form = re.search(rf'<form[^>]*action="{re.escape(bo)}/vacation"[^>]*>(.*?)</form>', page, re.S).group(1)
    fields = {"csrf_token": h.csrf_of(form), "seen": re.search(r'name="seen" value="([^"]*)"', form).group(1),
              "days": "3"}
    assert fields["seen"]  # the running vacation's end
    assert client.post(bo + "/vacation", data=fields).status_code == 303
    again = client.post(bo + "/vacation", data=fields)
    assert again.status_code == 409 and "already changed from another page" in again.text
    assert "Vacation days left in this game: 9 of 14." in client.get(bo).text  # 2 + 3, not 2 + 3 + 3


def test_vacation_days_after_an_ended_vacation(app, client):
    from service.clock.seats import end_vacation, set_vacation
    from service.store.clock_models import utcnow

    gid, bo = _running(app, client)
    with app.app_context(), db.transaction(write=True) as s:
        now = utcnow()
        set_vacation(s, gid, 1, now - timedelta(days=2) + timedelta(days=5), now - timedelta(days=2))
        end_vacation(s, gid, 1, now)  # two days used, three given back
    page = client.get(bo).text
    assert "Vacation days left in this game: 12 of 14." in page
    assert "Pause my deadlines for this many days (up to 12):" in page


def test_favicon_is_served_and_linked(client):
    icon = client.get("/favicon.ico")
    assert icon.status_code == 200 and icon.mimetype == "image/svg+xml"
    assert icon.text.startswith("<svg") and "<script" not in icon.text
    assert '<link rel="icon" href="/favicon.ico"' in client.get("/").text
    assert '<link rel="icon" href="/favicon.ico"' in client.get("/new").text


def test_board_totals_say_what_they_count(app, client):
    _gid, bo = _running(app, client)
    page = client.get(bo).text
    assert re.search(r"Game total -?\d+ · face-up cards add up to -?\d+", page)
    assert "showing" not in page
