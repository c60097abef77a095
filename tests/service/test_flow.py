"""A whole game through the web and the mails, on SQLite and PostgreSQL."""

from __future__ import annotations

import json
import random
import re

import engine
from service.play import games
from service.store import db
from tests.conftest import sqlite_suffices
from tests.service import helpers as h


def test_new_game_accept_and_play_to_the_end(app, client):
    status, location = h.new_game(client)
    assert status == 303 and location.startswith("/s/")
    host_page = client.get(location)
    assert "Waiting for Bo to answer" in host_page.text  # whom the game waits for (issue 28.7)
    h.accept_all(app, client)
    game = h.only_game(app)
    assert h.game_state(app, game.id)[2] == "active"
    # one subject per kind (issue 15.3); one thread per game and seat, whatever the subject
    assert {m.subject for m in h.mails(app)} == {
        "Invitation from Ann: SKYJO with Ann and Bo", "Your game is set up: SKYJO with Ann and Bo",
        "Bo accepted the invitation · SKYJO with Ann and Bo", "Your turn · round 1 · SKYJO with Ann and Bo"}
    # (the seat's first mail, its invitation or the host's "set up" mail, is the thread's root)
    assert {(m.to_addr, m.headers.get("References", m.message_id).split("@")[0]) for m in h.mails(app)} == {
        ("ann@example.com", f"<game-{game.id}-0"), ("bo@example.com", f"<game-{game.id}-1")}
    gid = h.play_by_mail(app, client, rng=random.Random(7))
    version, state, status = h.game_state(app, gid)
    assert status == "finished"
    # game-over mails with standings went to both
    over = [m for m in h.mails(app) if "Game over" in m.text_body]
    assert {m.to_addr for m in over} == {"ann@example.com", "bo@example.com"}
    # the move log + first record is a complete game record: replay reproduces the state
    with app.app_context(), db.transaction() as s:
        record = games.export_record(s, gid)
    replayed = engine.replay(json.loads(json.dumps(record)))
    assert replayed.to_json() == h.full_state(app, gid)
    assert len(state["log"]) < len(replayed.log)  # the saved state does not grow with the history
    assert replayed.version == version
    # the finished page shows the standings and offers a rematch
    seat_path = location
    page = client.get(seat_path)
    assert "Final standings" in page.text and 'data-action="rematch"' in page.text
    assert "<svg" in page.text


def test_turn_mail_content(app, client):
    h.new_game(client, players=(("Ann", "ann@example.com"), ("Bo", "bo@example.com"), ("Cy", "cy@example.com")))
    h.accept_all(app, client)
    turn = [m for m in h.mails(app) if h.move_links(m)]
    assert {m.to_addr for m in turn} == {"ann@example.com", "bo@example.com", "cy@example.com"}
    m = turn[0]
    assert m.subject == "Your turn · round 1 · SKYJO with Ann, Bo and Cy"
    # opening: one link per cell to reveal in the HTML part; the text part names the cells and
    # links the board once (issue 15.3)
    assert len(h.move_links(m)) == 12
    assert not h.MOVE_LINK_RE.search(m.text_body) and "A1 B1 C1 D1 A2" in m.text_body
    for label in ("A", "B", "C", "D"):
        assert f">{label}</th>" in m.html_body
    assert "[  ]" in m.text_body and "Draw pile" in m.text_body
    assert "List-Unsubscribe" in m.headers and m.headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert 'style="' in m.html_body  # css inlined


def test_draw_then_follow_up_mail_and_page(app, client):
    h.new_game(client)
    h.accept_all(app, client)
    game = h.only_game(app)
    rng = random.Random(3)
    # finish the opening
    while True:
        version, state, _ = h.game_state(app, game.id)
        g = engine.Game.from_json(state)
        kinds = {p.kind for p in g.pending()}
        if kinds == {"turn"}:
            break
        latest = {}
        for m in h.mails(app):
            if h.move_links(m):
                latest[m.to_addr] = h.move_links(m)
        p = g.pending()[0]
        email = h.seats(app, game.id)[p.seat].email
        assert h.confirm(client, rng.choice(latest[email])).status_code == 303
    seat = g.pending()[0].seat
    row = h.seats(app, game.id)[seat]
    last = [m for m in h.mails(app) if m.to_addr == row.email][-1]
    links = h.move_links(last)
    draw = [p for p in links if "/m/draw?" in p]
    takes = [p for p in links if "/m/take-swap-" in p]
    assert len(draw) == 1 and len(takes) == 12
    before = h.mails(app)[-1].id
    r = h.confirm(client, draw[0])
    assert r.status_code == 303
    page = client.get(r.headers["Location"])
    assert "your card" in page.text and "/m/swap-a1" in page.text and "/m/flip-" in page.text
    follow = [m for m in h.mails(app, before) if m.to_addr == row.email]
    assert len(follow) == 1
    fl = h.move_links(follow[0])
    assert any("/m/swap-" in p for p in fl) and any("/m/flip-" in p for p in fl)
    # take + swap in one go is atomic: two moves in the log, version + 2
    assert re.search(r"Put the -?\d+ you hold", follow[0].text_body)


@sqlite_suffices  # a whole game: PostgreSQL adds nothing its race tests miss (tests/conftest.py)
def test_an_action_game_plays_to_the_end_by_mail(app, client):
    """SKYJO Action through the same service: every legal move is a link (names and hyphens in move
    texts travel in an encoded link part)."""
    status, location = h.new_game(client, extra={"variant": "action"})
    assert status == 303
    h.accept_all(app, client)
    game = h.only_game(app)
    assert engine.Game.from_json(h.game_state(app, game.id)[1]).variant == "action"
    gid = h.play_by_mail(app, client, rng=random.Random(4))
    assert h.game_state(app, gid)[2] == "finished"
    with app.app_context(), db.transaction() as s:
        record = games.export_record(s, gid)
    assert engine.replay(record).to_json() == h.full_state(app, gid)
