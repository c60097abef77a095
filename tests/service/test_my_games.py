"""My games, without an account (issue 31.4): "mail me my links" mails one signed, expiring link to
the page of the address's games; the page lists them (waiting on you with the deadline, waiting on
others, finished with results and a rematch), sets the mail preference and language of all of them
and pauses all of them, each POST with the session's CSRF token and exactly once. On SQLite and
PostgreSQL (the `app` fixture); the finished game is played on SQLite only (conftest)."""

from __future__ import annotations

import random
import re
import time
from datetime import timedelta

import pytest
from sqlmodel import select

import engine
from engine.bots import bot_move
from service.play import games, moves, settings
from service.play.lookups import load_engine_game
from service.store import db
from service.store.clock_models import Deadline, SeatClock, utcnow
from service.store.models import GameRow, SeatRow
from tests.conftest import sqlite_suffices
from tests.service import helpers as h

ME_LINK = re.compile(r"https?://localhost(/me/[A-Za-z0-9_.-]+)")


def start(app, host=("Ann", "ann@example.com"), other=("Bo", "bo@example.com"), *, deal=True, options=None,
          seed="mine") -> tuple[str, list[str]]:
    with app.app_context(), db.transaction(write=True) as s:
        created = games.create_game(s, host_name=host[0], host_email=host[1], players=[other],
                                    setup={"seed": seed}, options=options)
        if deal:
            games.accept(s, created.tokens[1])
        return created.game.id, [created.tokens[0], created.tokens[1]]


def my_link(app, client, email: str) -> str:
    """Ask for the links as a person does (/links) and take the one link of the mail."""
    since = h.mails(app)[-1].id if h.mails(app) else 0
    assert h.post_form(client, "/links", {"email": email}).status_code == 200
    mail = [m for m in h.mails(app, since) if m.to_addr == email][-1]
    found = ME_LINK.findall(mail.text_body)
    assert len(found) == 1 and "/s/" not in mail.text_body  # one link, no game's own link
    assert found[0] in mail.html_body and email not in found[0]
    return found[0]


def owing(app, game_id: str) -> set[int]:
    with app.app_context(), db.transaction() as s:
        return {p.seat for p in load_engine_game(s.get(GameRow, game_id)).pending()}


def play_once(app, game_id: str, toks: list[str], seat: int | None = None) -> None:
    """One decision (the greedy bot's move) of `seat`, or of the first seat that owes one."""
    with app.app_context(), db.transaction(write=True) as s:
        g = load_engine_game(s.get(GameRow, game_id))
        seat = g.pending()[0].seat if seat is None else seat
        move = bot_move(g, seat, "greedy", random.Random(g.version))
        moves.play(s, toks[seat], [str(move)], decision=g.decision_id(seat))


def rows(app) -> str:
    """The seats and the clock's rows, to see that a GET changed nothing."""
    with app.app_context(), db.transaction() as s:
        return repr([r.model_dump() for model in (SeatRow, SeatClock, Deadline) for r in s.exec(select(model))])


def section(page: str, heading: str) -> str:
    m = re.search(rf'<h2 id="\w+">{heading}</h2>(.*?)</section>', page, re.S)
    return m.group(1) if m else ""


def test_one_link_opens_the_page_of_every_game_of_the_address(app, client):
    yours, _ = start(app, seed="y")  # Bo's turn or Ann's: the opening asks both
    invited, _ = start(app, ("Cy", "cy@example.com"), ("Bo", "bo@example.com"), deal=False, seed="i")
    others, toks = start(app, ("Di", "di@example.com"), ("Bo", "bo@example.com"), seed="o")
    while 1 in owing(app, others):  # Bo reveals his two cards; then Di owes, Bo waits
        play_once(app, others, toks, seat=1)
    start(app, ("Eve", "eve@example.com"), ("Fay", "fay@example.com"), seed="x")  # not Bo's
    link = my_link(app, client, "bo@example.com")
    before = rows(app)
    page = client.get(link)
    assert page.status_code == 200 and rows(app) == before  # GET changes nothing
    text = page.text
    mine, theirs = section(text, "Waiting for you"), section(text, "Waiting for the others")
    assert f'data-game="{yours}"' in mine and f'data-game="{invited}"' in mine
    assert "You are invited to play" in mine and "data-deadline" in mine
    assert f'data-game="{others}"' in theirs
    assert "Eve" not in text and "fay@" not in text
    assert "csrf_token" in text and 'action="/me/' in text


def test_a_forged_an_expired_or_a_forgotten_link_offers_a_new_one(app, client, monkeypatch):
    start(app)
    link = my_link(app, client, "bo@example.com")
    forged = client.get(link[:-3] + ("aaa" if not link.endswith("aaa") else "bbb"))
    assert forged.status_code == 404 and 'action="/links"' in forged.text and "not valid" in forged.text
    later = time.time() + 8 * 86400
    monkeypatch.setattr("itsdangerous.timed.time.time", lambda: later)
    expired = client.get(link)
    assert expired.status_code == 410 and "has expired" in expired.text and 'action="/links"' in expired.text
    monkeypatch.undo()
    assert client.get(link).status_code == 200
    from service.play import forget

    with app.app_context(), db.transaction(write=True) as s:
        forget.forget(s, "bo@example.com")
    assert client.get(link).status_code == 404
    assert client.get("/me/x").status_code == 404


def test_settings_for_all_games_at_once(app, client):
    a, _ = start(app, seed="a")
    b, _ = start(app, ("Cy", "cy@example.com"), ("Bo", "bo@example.com"), deal=False, seed="b")
    link = my_link(app, client, "bo@example.com")
    assert 'id="calendar"' in client.get(link).text and 'id="calendar" name="calendar" value="y" checked' not in (
        client.get(link).text)  # calendar invitations (issue 32.2): off by default
    r = h.post_form(client, link + "/settings", {"mail_pref": "digest", "lang": "nl", "calendar": "y"},
                    page_path=link)
    assert r.status_code == 303 and r.headers["Location"] == link
    with app.app_context(), db.transaction() as s:
        bo = s.exec(select(SeatRow).where(SeatRow.email == "bo@example.com")).all()
        assert {(x.mail_pref, x.lang, x.calendar) for x in bo} == {("digest", "nl", True)} and len(bo) == 2
        clock = s.get(SeatClock, (a, 1))
        assert clock.mail_pref == "digest"  # the clock's copy follows (settings.set_mail_pref's path)
    dutch = client.get(link).text  # the page in Dutch now
    assert '<html lang="nl"' in dutch and "Jouw spellen" in dutch
    no_csrf = client.post(link + "/settings", data={"mail_pref": "off", "lang": "en"})
    assert no_csrf.status_code == 400
    bad = h.post_form(client, link + "/settings", {"mail_pref": "sometimes", "lang": "en"}, page_path=link)
    assert bad.status_code == 400
    with app.app_context(), db.transaction() as s:
        assert {x.mail_pref for x in s.exec(select(SeatRow).where(SeatRow.email == "bo@example.com"))} == {"digest"}


def test_pause_all_running_games_with_each_game_s_limits_and_twice_is_once(app, client):
    a, _ = start(app, seed="a")
    b, toks_b = start(app, ("Cy", "cy@example.com"), ("Bo", "bo@example.com"), seed="b")
    start(app, ("Di", "di@example.com"), ("Bo", "bo@example.com"), deal=False, seed="c")  # not running
    with app.app_context(), db.transaction(write=True) as s:
        settings.start_vacation(s, toks_b[1], 10, now=utcnow() - timedelta(days=11))  # 10 days used, over
        used_b = s.get(SeatClock, (b, 1)).vacation_used_s
    link = my_link(app, client, "bo@example.com")
    r = h.post_form(client, link + "/pause", {"days": "7"}, page_path=link)
    assert r.status_code == 303
    page = client.get(link).text
    assert page.count("your deadlines are paused for 7 days") == 1 and "not paused" in page
    with app.app_context(), db.transaction() as s:
        clock_a = s.get(SeatClock, (a, 1))
        assert clock_a.vacation_until is not None and clock_a.vacation_used_s == 7 * 86400
        assert s.get(SeatClock, (b, 1)).vacation_used_s == used_b  # refused: unchanged
        deadlines = s.exec(select(Deadline).where(Deadline.game_id == a, Deadline.seat == 1,
                                                  Deadline.fired_at.is_(None))).all()
        assert deadlines and all(d.deadline_at > clock_a.vacation_until for d in deadlines)
    again = h.post_form(client, link + "/pause", {"days": "7"}, page_path=link)  # a double click
    assert again.status_code == 303
    with app.app_context(), db.transaction() as s:
        assert s.get(SeatClock, (a, 1)).vacation_used_s <= 7 * 86400 + 5  # replaced, not added
    assert h.post_form(client, link + "/pause", {"days": "15"}, page_path=link).status_code == 400
    assert h.post_form(client, link + "/pause", {"days": "x"}, page_path=link).status_code == 400


@sqlite_suffices
def test_finished_games_show_results_and_rematch_once(app, client):
    game_id, toks = start(app, options={"target_score": 1}, seed="end")
    for _ in range(500):
        with app.app_context(), db.transaction() as s:
            if s.get(GameRow, game_id).status == "finished":
                break
        play_once(app, game_id, toks)
    link = my_link(app, client, "bo@example.com")
    page = client.get(link).text
    done = section(page, "Finished")
    assert f'data-game="{game_id}"' in done and "winner" in done
    with app.app_context(), db.transaction() as s:
        g = engine.Game.from_json(s.get(GameRow, game_id).state)
    for name, total in zip(g.names, g.totals, strict=True):
        assert name in done and f"<td>{total}</td>" in done
    action = re.search(r'<form method="post" action="(/s/[^"]+/rematch)"', done).group(1)
    first = h.post_form(client, action, page_path=link)
    second = h.post_form(client, action, page_path=link)
    assert first.status_code == second.status_code == 303
    assert first.headers["Location"] == second.headers["Location"]
    with app.app_context(), db.transaction() as s:
        assert len(s.exec(select(GameRow).where(GameRow.rematch_of == game_id)).all()) == 1


@pytest.mark.parametrize("path", ["/settings", "/pause"])
def test_a_post_with_a_bad_link_changes_nothing(app, client, path):
    start(app)
    token = h.csrf_of(client.get("/links").text)
    r = client.post("/me/forged.link.here" + path, data={"csrf_token": token, "days": "3", "mail_pref": "off",
                                                           "lang": "en"})
    assert r.status_code == 404 and 'action="/links"' in r.text


def test_pause_pressed_at_once_in_three_tabs_is_one_vacation_per_game(app, client):
    """Three presses at the same moment (and a settings save beside them): every game locked in
    the same order, each press replaces the one before, so each game has one 7-day vacation."""
    import threading

    a, _ = start(app, seed="a")
    b, _ = start(app, ("Cy", "cy@example.com"), ("Bo", "bo@example.com"), seed="b")
    link = my_link(app, client, "bo@example.com")
    presses = [(link + "/pause", {"days": "7"})] * 3 + [(link + "/settings", {"mail_pref": "off", "lang": "de"})]
    prepared = []
    for action, data in presses:
        tab = app.test_client()
        prepared.append((tab, action, {"csrf_token": h.form_csrf(tab.get(link).text, action), **data}))
    barrier, codes = threading.Barrier(len(prepared)), []

    def press(tab, action, data):
        barrier.wait()
        codes.append(tab.post(action, data=data).status_code)

    threads = [threading.Thread(target=press, args=p) for p in prepared]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert codes == [303] * 4
    with app.app_context(), db.transaction() as s:
        for game_id in (a, b):
            clock = s.get(SeatClock, (game_id, 1))
            assert 7 * 86400 - 60 <= clock.vacation_used_s <= 7 * 86400 + 60, clock
        assert {(r.mail_pref, r.lang) for r in s.exec(select(SeatRow).where(SeatRow.email == "bo@example.com"))} == {
            ("off", "de")}


def test_nasty_input_on_a_genuine_link_is_a_4xx_never_a_500(app, client):
    start(app)
    link = my_link(app, client, "bo@example.com")
    for nasty in ("\x00", "a" * 3000, "😀", "-1", "99999999999", "%FF", "<script>"):
        for action, data in (("/pause", {"days": nasty}), ("/settings", {"mail_pref": nasty, "lang": "en"}),
                             ("/settings", {"mail_pref": "every", "lang": nasty})):
            r = h.post_form(client, link + action, data, page_path=link)
            assert r.status_code == 400, (action, nasty, r.status_code)
        assert client.get(f"/me/{nasty}").status_code == 404
    with app.app_context(), db.transaction() as s:
        assert {(r.mail_pref, r.lang) for r in s.exec(select(SeatRow))} == {("every", "en")}
