"""Pages, forms, invitations, tokens, unsubscribe, links mail, error pages (SQLite and PostgreSQL)."""

from __future__ import annotations

import html
import os
import random
import re
import subprocess
import sys
from pathlib import Path

import engine
from service.render import links
from tests.conftest import sqlite_suffices
from tests.service import helpers as h

ROOT = Path(__file__).resolve().parents[2]
THREE = (("Ann", "ann@example.com"), ("Bo", "bo@example.com"), ("Cy", "cy@example.com"))


def seat_path(app, game_id, pos):
    from service.store import tokens

    with app.app_context():
        return links.seat_path(tokens.seat_token(h.seats(app, game_id)[pos].token_salt))


def test_new_game_form_shows_defaults_and_errors(client):
    page = client.get("/new")
    assert page.status_code == 200
    assert 'value="100"' in page.text  # target score default
    assert "default: on" in page.text
    status, body = h.new_game(client, players=(("Ann", "ann@example.com"), ("Bo", "not-an-email")))
    assert status == 400 and "Not a valid email address." in body
    status, body = h.new_game(client, players=(("Ann", "ann@example.com"), ("Bo", "ANN@example.com")))
    assert status == 400 and "different email" in body
    status, body = h.new_game(client, players=(("Ann", "ann@example.com"),))
    assert status == 400 and "at least one other player" in body
    status, body = h.new_game(client, extra={"opt_target_score": "0"})
    assert status == 400
    status, body = h.new_game(client, extra={"opt_round_starter": "nonsense"})
    assert status == 400 and "Not a valid choice" in body


def test_invitations_decline_then_deal_with_the_rest(app, client):
    status, host = h.new_game(client, players=THREE)
    game = h.only_game(app)
    bo, cy = seat_path(app, game.id, 1), seat_path(app, game.id, 2)
    # GET of the invitation changes nothing
    assert "Accept" in client.get(bo).text
    assert h.seats(app, game.id)[1].status == "invited"
    assert h.post_form(client, cy + "/decline", page_path=cy).status_code == 303
    assert any("Cy declined" in m.text_body and m.to_addr == "ann@example.com" for m in h.mails(app))
    assert h.game_state(app, game.id)[2] == "inviting"
    assert h.post_form(client, bo + "/accept", page_path=bo).status_code == 303
    assert any("Bo accepted" in m.text_body for m in h.mails(app))
    version, state, status = h.game_state(app, game.id)
    assert status == "active"
    assert engine.Game.from_json(state).n == 2
    # answering again after the deal: readable 409
    r = h.post_form(client, cy + "/accept", page_path=cy)
    assert r.status_code == 409 and "no longer waiting" in r.text


def test_host_cancels_before_the_deal(app, client):
    h.new_game(client, players=THREE)
    game = h.only_game(app)
    host, bo = seat_path(app, game.id, 0), seat_path(app, game.id, 1)
    assert h.post_form(client, bo + "/cancel", page_path=bo).status_code == 403
    assert h.post_form(client, host + "/cancel", page_path=host).status_code == 303
    assert h.game_state(app, game.id)[2] == "cancelled"
    assert any("cancelled" in m.text_body and m.to_addr == "bo@example.com" for m in h.mails(app))
    r = h.post_form(client, bo + "/accept", page_path=bo)
    assert r.status_code == 409


def test_forged_and_rotated_tokens(app, client):
    h.new_game(client)
    h.accept_all(app, client)
    game = h.only_game(app)
    r = client.get("/s/" + "A" * 27)
    assert r.status_code == 404 and "not valid" in r.text
    assert client.get("/s/x").status_code == 404
    ann = seat_path(app, game.id, 0)
    link = next(p for m in h.mails(app) if m.to_addr == "ann@example.com" for p in h.move_links(m))
    r = h.post_form(client, ann + "/rotate", page_path=ann)
    assert r.status_code == 303 and r.headers["Location"] != ann
    assert client.get(ann).status_code == 404
    assert client.get(link).status_code == 404
    assert client.get(r.headers["Location"]).status_code == 200
    assert any("new link" in m.text_body.lower() for m in h.mails(app))


def test_bad_inputs_get_4xx_pages(app, client):
    h.new_game(client)
    h.accept_all(app, client)
    game = h.only_game(app)
    ann = seat_path(app, game.id, 0)
    assert client.get(ann + "/m/reveal-z9?v=0").status_code == 404
    assert client.get(ann + "/m/reveal-a1").status_code == 404  # no version
    assert client.get(ann + "/m/reveal-a1?v=999").status_code == 200  # explains, changes nothing
    assert client.get(ann + "/m/%00%ff?v=0").status_code == 404
    assert client.post(ann + "/m/reveal-a1", data={"version": "0"}).status_code == 400  # no CSRF
    session_token = h.csrf_of(client.get("/links").text)
    r = client.post(ann + "/m/reveal-a1", data={"csrf_token": session_token, "game": game.id, "seat": "0",
                                                "move": "reveal-a1", "version": "0"})
    assert r.status_code == 400  # the session's token is not this move form's token
    assert h.game_state(app, game.id)[0] == 0
    r = h.post_move(app, client, ann + "/m/reveal-a1", {"game": game.id, "seat": "0", "move": "reveal-a1",
                                                         "version": "999"})
    assert r.status_code == 409
    r = h.post_move(app, client, ann + "/m/reveal-a1", {"game": "other", "seat": "0", "move": "reveal-a1",
                                                         "version": "0"})
    assert r.status_code == 400
    assert client.delete(ann).status_code == 405
    assert client.get("/nope").status_code == 404
    assert client.post("/s/" + "B" * 27 + "/accept").status_code in (400, 404)
    assert client.get("/watch/abc/def").status_code == 404
    for r in (client.get(ann + "/m/reveal-z9?v=0"), client.get("/nope")):
        assert "<h1>" in r.text  # a readable page, not a stack trace


def test_move_out_of_turn_is_409_with_reason(app, client):
    h.new_game(client)
    h.accept_all(app, client)
    game = h.only_game(app)
    rng = random.Random(5)
    while True:  # finish the opening via mail links
        version, state, _ = h.game_state(app, game.id)
        g = engine.Game.from_json(state)
        if {p.kind for p in g.pending()} == {"turn"}:
            break
        p = g.pending()[0]
        email = h.seats(app, game.id)[p.seat].email
        latest = [h.move_links(m) for m in h.mails(app) if m.to_addr == email and h.move_links(m)][-1]
        assert h.confirm(client, rng.choice(latest)).status_code == 303
    waiting = 1 - g.pending()[0].seat
    other = seat_path(app, game.id, waiting)
    name = g.names[g.pending()[0].seat]
    page = client.get(f"{other}/m/draw?v={version}")
    assert page.status_code == 200 and ("waiting for " + name).lower() in page.text.lower()
    r = h.post_move(app, client, f"{other}/m/draw", {"game": game.id, "seat": str(waiting), "move": "draw",
                                                      "version": str(version)})
    problem = re.search(r'<div class="problem" data-problem>(.*?)</div>', html.unescape(r.text)).group(1)
    assert r.status_code == 409 and f"it is {name}'s turn" in problem.replace("’", "'"), problem
    assert h.game_state(app, game.id)[0] == version


def test_unsubscribe_one_click_and_preferences(app, client):
    h.new_game(client)
    game = h.only_game(app)
    bo_mail = next(m for m in h.mails(app) if m.to_addr == "bo@example.com")
    # an invitation's one-click header is "no mail from this service" (issue 29, test_never_mail.py);
    # this game's unsubscribe is the same POST on the seat's /unsubscribe, as every later mail's header
    never = h.path_of(bo_mail.headers["List-Unsubscribe"].strip("<>"))
    unsub = never.removesuffix("/never") + "/unsubscribe"
    assert never.endswith("/never") and client.get(unsub).status_code == 200 and client.head(unsub).status_code == 200
    assert h.seats(app, game.id)[1].mail_pref == "every"
    r = client.post(unsub, data={"List-Unsubscribe": "One-Click"})  # as a mail client does: no CSRF
    assert r.status_code == 200
    assert h.seats(app, game.id)[1].mail_pref == "off"
    h.accept_all(app, client)
    before = len(h.mails(app))
    assert h.game_state(app, game.id)[2] == "active"
    assert not [m for m in h.mails(app) if m.to_addr == "bo@example.com" and h.move_links(m)]
    assert len(h.mails(app)) >= before
    prefs = unsub.replace("/unsubscribe", "/prefs")
    assert h.post_form(client, prefs, {"mail_pref": "every"}).status_code == 303
    assert h.seats(app, game.id)[1].mail_pref == "every"
    assert h.post_form(client, prefs, {"mail_pref": "bogus"}).status_code == 400


def test_mail_my_links_reveals_nothing_and_is_rate_limited(app, client):
    h.new_game(client)
    before = len(h.mails(app))
    known = h.post_form(client, "/links", {"email": "bo@example.com"})
    unknown = h.post_form(client, "/links", {"email": "nobody@example.com"})
    assert known.status_code == unknown.status_code == 200
    assert known.text == unknown.text
    new = h.mails(app)[before:]
    assert [m.to_addr for m in new] == ["bo@example.com"]
    assert "/me/" in new[0].text_body and "/s/" not in new[0].text_body  # one link to the page of its games (31.4)
    codes = [h.post_form(client, "/links", {"email": "x@example.com"}).status_code for _ in range(6)]
    assert 429 in codes


def test_spectator_page_is_read_only(app, client):
    h.new_game(client)
    h.accept_all(app, client)
    game = h.only_game(app)
    with app.app_context():
        path = links.watch_path(game.id, game.spectator_salt)
    page = client.get(path)
    assert page.status_code == 200 and 'class="grid"' in page.text
    assert "data-move=" not in page.text and "csrf_token" not in page.text
    assert client.get(path[:-2] + "xx").status_code == 404


def test_rematch_and_export_command(app, client, db_url):
    status, host = h.new_game(client)
    h.accept_all(app, client)
    gid = h.play_by_mail(app, client, rng=random.Random(1))
    before = len(h.mails(app))
    r = h.post_form(client, host + "/rematch", page_path=host)
    assert r.status_code == 303
    new_host = r.headers["Location"]
    again = h.post_form(client, host + "/rematch", page_path=host)
    assert again.headers["Location"] == new_host  # idempotent
    invites = [m for m in h.mails(app)[before:] if "invites you" in m.text_body]
    assert [m.to_addr for m in invites] == ["bo@example.com"]
    # export prints the engine record; replay reproduces the game
    env = dict(os.environ, DATABASE_URL=db_url, SECRET_KEY="x", SKYJO_ENV="development")
    out = subprocess.run([sys.executable, "-m", "service.cli", "export", gid], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    import json

    record = json.loads(out.stdout)
    assert engine.replay(record).to_json() == h.full_state(app, gid)
    bad = subprocess.run([sys.executable, "-m", "service.cli", "export", "nope"], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2
    # issue 32.1: `export --deals` prints the deal record, and `verify` checks it
    out = subprocess.run([sys.executable, "-m", "service.cli", "export", "--deals", gid], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    checked = subprocess.run([sys.executable, "-m", "service.cli", "verify", "-"], cwd=ROOT, input=out.stdout,
                             capture_output=True, text=True, timeout=60)
    assert checked.returncode == 0 and "all rounds check (1)" in checked.stdout, checked.stdout + checked.stderr


def test_secret_key_is_required_outside_development(monkeypatch, tmp_path):
    import pytest

    from service import create_app

    monkeypatch.delenv("SECRET_KEY", raising=False)
    with pytest.raises(RuntimeError, match="SECRET_KEY"):
        create_app({"ENV_NAME": "production", "DATABASE_URL": f"sqlite:///{tmp_path / 'p.sqlite3'}"})
    dev = create_app({"ENV_NAME": "development", "DATABASE_URL": f"sqlite:///{tmp_path / 'd.sqlite3'}"})
    assert dev.config["SECRET_KEY"]


@sqlite_suffices  # what pages and mails say: PostgreSQL adds nothing (tests/conftest.py)
def test_round_over_mail_with_score_sheet(app, client):
    import pytest

    h.new_game(client, target=500)
    h.accept_all(app, client)

    class RoundOver(Exception):
        pass

    def stop_at_round_end(new_mails):
        if any("Round 1 is over" in m.text_body for m in new_mails):
            raise RoundOver

    with pytest.raises(RoundOver):
        h.play_by_mail(app, client, rng=random.Random(9), on_step=stop_at_round_end)
    round_mails = [m for m in h.mails(app) if "Round 1 is over" in m.text_body]
    assert {m.to_addr for m in round_mails} == {"ann@example.com", "bo@example.com"}
    # the chart in a mail is table cells (Gmail and Outlook drop inline SVG; issue 15.4)
    assert all('class="sheet"' in m.html_body and 'data-chart="bars"' in m.html_body and "<svg" not in m.html_body
               for m in round_mails)


def test_confirm_needs_no_session_and_the_board_says_what_was_done(app, client):
    h.new_game(client)
    h.accept_all(app, client)
    game = h.only_game(app)
    link = next(p for m in h.mails(app) if m.to_addr == "ann@example.com" for p in h.move_links(m))
    scanner = app.test_client(use_cookies=False)
    page = scanner.get(link)  # a client that keeps no cookies: the Confirm form still works
    assert page.status_code == 200
    r = scanner.post(link.split("?")[0], data=h.confirm_fields(page.text))
    assert r.status_code == 303 and r.headers["Location"].endswith("?done=1")
    board = scanner.get(h.path_of(r.headers["Location"]))
    assert "Done: reveal" in board.text
    # success reads as success (issue 15): the green box, not the red one that explains a refusal;
    # it says what the move did, the card turned up too (issue 28.2)
    assert re.search(r'<div [^>]*class="flash" data-done>Done: reveal ([A-D][1-3])<br>'
                     r'<span data-done-event>Ann revealed \1: (-?\d+)\.</span><br>'
                     r'<span data-done-score>Game total 0 · face-up cards add up to \2</span></div>', board.text)
    assert "data-problem" not in board.text
    ann = h.path_of(r.headers["Location"]).split("?")[0]
    assert "Done:" not in scanner.get(ann + "?done=0").text  # no decision of Ann's ends there
    assert "Done:" not in scanner.get(ann + "?done=7").text
    bo = seat_path(app, game.id, 1)
    assert "Done:" not in scanner.get(bo + "?done=1").text  # Ann's move, not Bo's


def test_mail_my_links_is_limited_per_recipient_whatever_the_client(app, client):
    """Issue 20.5: 40 clients from 40 addresses used to send 40 mails to one player. Every client
    gets the same answer; the player gets at most LINKS_RECIPIENT_RATE_LIMIT mails (3 per hour)."""
    h.new_game(client)
    before = len(h.mails(app))
    for i in range(8):  # eight clients, each from its own address
        other = app.test_client()
        token = h.csrf_of(other.get("/links").text)
        r = other.post("/links", data={"email": "Bo@Example.com", "csrf_token": token},
                       environ_base={"REMOTE_ADDR": f"10.0.0.{i + 1}"})
        assert r.status_code == 200 and "If that address plays" in r.text
    sent = [m for m in h.mails(app)[before:] if m.to_addr == "bo@example.com"]
    assert len(sent) == 3


def test_mail_my_links_answers_known_and_unknown_addresses_after_the_same_floor(app, client):
    import time

    h.new_game(client)
    app.config["LINKS_ANSWER_SECONDS"] = 0.2
    took = {}
    for address in ["bo@example.com", "nobody@example.com"]:
        started = time.monotonic()
        assert h.post_form(client, "/links", {"email": address}).status_code == 200
        took[address] = time.monotonic() - started
    assert all(t >= 0.2 for t in took.values()), took


def test_proxy_hops_take_the_client_address_from_x_forwarded_for(db_url):
    from flask import request

    from tests.conftest import make_app

    app = make_app(db_url, PROXY_HOPS=1)
    app.add_url_rule("/whoami", "whoami", lambda: request.remote_addr)
    got = app.test_client().get("/whoami", headers={"X-Forwarded-For": "203.0.113.7"},
                                environ_base={"REMOTE_ADDR": "127.0.0.1"})
    assert got.text == "203.0.113.7"


def test_the_second_rematch_click_joins_the_rematch_with_its_time_zone(app, client):
    """Issue 15: the second player to press Rematch read "Invitations are on their way" though none
    were sent, had to accept again, and their time zone went back to the host's."""
    from sqlmodel import select

    from service.store import db
    from service.store.models import GameRow, SeatRow

    _status, host = h.new_game(client)
    h.accept_all(app, client)
    gid = h.play_by_mail(app, client, rng=random.Random(1))
    with app.app_context(), db.transaction(write=True) as s:
        bo = s.exec(select(SeatRow).where(SeatRow.game_id == gid, SeatRow.email == "bo@example.com")).one()
        bo.tz = "Europe/Amsterdam"
    first = h.post_form(client, host + "/rematch", page_path=host)
    assert first.status_code == 303
    bo_board = seat_path(app, gid, 1)
    browser = app.test_client()
    second = h.post_form(browser, bo_board + "/rematch", page_path=bo_board)
    assert second.status_code == 303
    page = browser.get(h.path_of(second.headers["Location"]))
    assert "You are in the rematch that was already started." in page.text
    with app.app_context(), db.transaction() as s:
        rematch = s.get(GameRow, s.get(GameRow, gid).rematch_id)
        seats = {r.email: r for r in s.exec(select(SeatRow).where(SeatRow.game_id == rematch.id))}
        assert seats["bo@example.com"].status == "accepted" and seats["bo@example.com"].tz == "Europe/Amsterdam"
        assert rematch.status == "active", "both are in: the rematch is dealt"
