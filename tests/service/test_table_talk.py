"""Table talk (issue 19), on SQLite and PostgreSQL: messages from the board, from a reply with a move
and from a reply without one; each seat's next mail and every page show them once, in order,
escaped; 501 characters are refused clearly; the rate limit; the host hides; export carries them."""

from __future__ import annotations

import html
from datetime import timedelta

import pytest
from sqlalchemy import update
from sqlmodel import select

import engine
from service.mail.reply_text import ReplyCommands
from service.play import games, reply_service, talk
from service.store import db, tokens
from service.store.models import GameRow, MessageRow
from tests.service import helpers as h
from tests.service.test_reply_service import latest_reply_mail, reply_to, start

ANN, BO = "ann@example.com", "bo@example.com"
M1 = "Good luck! <script>alert(1)</script> see https://example.com/x"
M2 = "Ha! Take that, Ann"
M3 = "Nice one, Bo & co"


def seat_path(app, game_id: str, email: str) -> str:
    row = next(r for r in h.seats(app, game_id) if r.email == email)
    with app.app_context():
        return f"/s/{tokens.seat_token(row.token_salt)}"


def say(client, path: str, text: str):
    return h.post_form(client, path + "/talk", {"text": text}, page_path=path)


def messages(app, game_id: str) -> list[MessageRow]:
    with app.app_context(), db.transaction() as s:
        return list(s.exec(select(MessageRow).where(MessageRow.game_id == game_id).order_by(MessageRow.id)))


def mails_to(app, addr: str, since: int = 0):
    return [m for m in h.mails(app, since) if m.to_addr == addr]


def last_id(app) -> int:
    ms = h.mails(app)
    return ms[-1].id if ms else 0


def reply(app, addr: str, body: str) -> str:
    return reply_service.handle_inbound(app, reply_to(latest_reply_mail(app, addr), body))


def test_a_game_with_talk_from_the_board_and_from_replies(app, client):
    game = start(app, client)
    ann, bo = seat_path(app, game.id, ANN), seat_path(app, game.id, BO)
    v0 = h.game_state(app, game.id)[0]

    # 1. Ann writes from her board
    r = say(client, ann, M1)
    assert r.status_code == 303 and r.headers["Location"].endswith("#talk")
    assert "Your message is on the table." in client.get(ann).text
    assert h.game_state(app, game.id)[0] == v0  # a message is no move

    # 2. Bo replies with his move and a line under it: the move applies, the line goes to the table
    since = last_id(app)
    assert reply(app, BO, f"reveal A1, reveal C3\n\n{M2}") == "applied"
    v1 = h.game_state(app, game.id)[0]
    assert v1 == v0 + 2
    answer = mails_to(app, BO, since)[-1]
    assert "Understood: reveal A1, reveal C3" in answer.text_body
    assert f"Your message was passed on to the table: {M2}" in answer.text_body
    assert f"Ann wrote: {M1}" in answer.text_body  # what the table said since Bo's previous mail

    # 3. Ann replies without any move: only a message, and the answer says so
    since = last_id(app)
    assert reply(app, ANN, M3) == "message"
    assert h.game_state(app, game.id)[0] == v1
    answer = mails_to(app, ANN, since)[-1]
    assert "No move in your reply: your message was passed on to the table." in answer.text_body
    assert f"Bo wrote: {M2}" in answer.text_body
    assert "Ann wrote:" not in answer.text_body  # a seat's own messages are not mailed back

    # 4. more mails: Ann's reveals (answer, maybe a turn mail), and a message-only reply of Bo's
    assert reply(app, ANN, "reveal A1, reveal B1") == "applied"
    assert reply(app, BO, "ok") == "message"

    rows = messages(app, game.id)
    assert [m.text for m in rows] == [M1, M2, M3, "ok"]  # only what the players typed
    assert [m.version for m in rows[:3]] == [v0, v1, v1]  # M2 belongs after Bo's move
    assert [m.seat for m in rows] == [0, 1, 0, 1]

    # each seat's mails show each of the others' messages once, in order, escaped in HTML
    for addr, theirs, mine in ((ANN, [M2, "ok"], [M1, M3]), (BO, [M1, M3], [M2, "ok"])):
        got = mails_to(app, addr)
        texts = "\n".join(m.text_body for m in got)
        for text in theirs[:1] if addr == ANN else theirs:  # Ann has had no mail since Bo's "ok"
            assert texts.count(text) == 1, (addr, text)
        for text in mine:
            assert f"wrote: {text}" not in texts
        htmls = "\n".join(m.html_body for m in got)
        assert "<script>" not in htmls
        assert 'href="https://example.com/x"' not in htmls
    bo_html = "\n".join(m.html_body for m in mails_to(app, BO))
    assert html.escape(M1, quote=False) in bo_html
    bo_text = "\n".join(m.text_body for m in mails_to(app, BO))
    assert bo_text.index(M1) < bo_text.index(M3)

    # every page lists them in order with the moves (newest first), escaped, links as text
    with app.app_context(), db.transaction() as s:
        g = s.get(GameRow, game.id)
        watch = f"/watch/{g.id}/{tokens.spectator_token(g.id, g.spectator_salt)}"
    for path in (ann, bo, watch):
        page = client.get(path).text
        assert "<script>alert(1)" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
        assert 'href="https://example.com/x"' not in page
        log = page[page.index('<ol class="log"') :]
        at = [log.index(html.escape(t, quote=False)) for t in ("ok", M3, M2, "Bo revealed C3", M1)]
        assert at == sorted(at), (path, at)  # newest first; M2 after Bo's reveals, M1 before them
        assert log.count(html.escape(M2, quote=False)) == 1


def test_a_message_under_a_move_without_a_blank_line_and_a_failed_move(app, client):
    game = start(app, client)
    since = last_id(app)
    assert reply(app, ANN, "reveal A1, reveal B1\nWatch out, Bo") == "applied"
    assert [m.text for m in messages(app, game.id)] == ["Watch out, Bo"]
    # a mistyped move is refused and explained; the text after it still reaches the table
    assert reply(app, BO, "reveal A1, reveal Z9\n\nsorry, new phone") == "refused"
    answer = mails_to(app, BO, since)[-1]
    assert "Not applied: your reply could not be played." in answer.text_body
    assert "Your message was passed on to the table: sorry, new phone" in answer.text_body
    assert "Ann wrote: Watch out, Bo" in answer.text_body
    assert [m.text for m in messages(app, game.id)] == ["Watch out, Bo", "sorry, new phone"]


def test_501_characters_are_refused_clearly_and_the_move_still_applies(app, client):
    game = start(app, client)
    ann = seat_path(app, game.id, ANN)
    r = say(client, ann, "x" * 501)
    assert r.status_code == 400
    assert "Your message is 501 characters long; at most 500 fit. It was not passed on." in r.text
    assert "x" * 501 in r.text  # the text stays in the form
    assert messages(app, game.id) == []
    assert say(client, ann, "y" * 500).status_code == 303
    assert say(client, ann, "   ").status_code == 400
    since = last_id(app)
    v = h.game_state(app, game.id)[0]
    assert reply(app, BO, "reveal A1, reveal B1\n\n" + "z" * 501) == "applied"
    assert h.game_state(app, game.id)[0] == v + 2
    answer = mails_to(app, BO, since)[-1]
    assert "Understood: reveal A1, reveal B1" in answer.text_body
    assert "Your message is 501 characters long; at most 500 fit. It was not passed on." in answer.text_body
    assert [len(m.text) for m in messages(app, game.id)] == [500]


def test_rate_limit_per_seat(app, client):
    game = start(app, client)
    ann, bo = seat_path(app, game.id, ANN), seat_path(app, game.id, BO)
    token = h.form_csrf(client.get(ann).text, ann + "/talk")
    for i in range(talk.RATE_PER_HOUR):
        assert client.post(ann + "/talk", data={"csrf_token": token, "text": f"m{i}"}).status_code == 303
    r = client.post(ann + "/talk", data={"csrf_token": token, "text": "one too many"})
    assert r.status_code == 400 and "You have written 20 messages in the last hour" in r.text
    assert say(client, bo, "Bo may still talk").status_code == 303  # per seat
    # by reply too: the move applies, the message is refused
    assert reply(app, ANN, "reveal A1, reveal B1\n\nand another") == "applied"
    assert "and another" not in [m.text for m in messages(app, game.id)]
    # an hour later Ann may write again
    with app.app_context(), db.transaction(write=True) as s:
        s.exec(
            update(MessageRow)
            .where(MessageRow.game_id == game.id)
            .values(created_at=MessageRow.created_at - timedelta(minutes=61))
        )
    assert client.post(ann + "/talk", data={"csrf_token": token, "text": "back"}).status_code == 303


def test_the_host_hides_a_message(app, client):
    game = start(app, client)
    ann, bo = seat_path(app, game.id, ANN), seat_path(app, game.id, BO)
    assert say(client, bo, "something rude").status_code == 303
    mid = messages(app, game.id)[0].id
    assert 'data-action="hide"' in client.get(ann).text and 'data-action="hide"' not in client.get(bo).text
    assert h.post_form(client, f"{bo}/talk/{mid}/hide", page_path=bo).status_code == 403
    assert h.post_form(client, f"{ann}/talk/{mid}/hide", page_path=ann).status_code == 303
    for path in (ann, bo):
        page = client.get(path).text
        assert "something rude" not in page and "Bo wrote a message (hidden by the host)" in page
    since = last_id(app)
    assert reply(app, ANN, "reveal A1, reveal B1") == "applied"
    assert all("something rude" not in m.text_body for m in h.mails(app, since))
    with app.app_context(), db.transaction() as s:
        exported = games.export_record(s, game.id)["messages"]
    assert exported[0]["hidden"] is True and exported[0]["text"] is None
    assert h.post_form(client, f"{ann}/talk/999999/hide", page_path=ann).status_code == 404


def test_export_carries_the_messages_and_replay_ignores_them(app, client):
    game = start(app, client)
    assert say(client, seat_path(app, game.id, ANN), "hello table").status_code == 303
    assert reply(app, BO, "reveal A1, reveal B1\n\nhi Ann") == "applied"
    with app.app_context(), db.transaction() as s:
        record = games.export_record(s, game.id)
    assert [(m["name"], m["text"], m["hidden"]) for m in record["messages"]] == [
        ("Ann", "hello table", False),
        ("Bo", "hi Ann", False),
    ]
    assert engine.replay(record).to_json() == h.full_state(app, game.id)


def test_messages_wait_for_the_deal(app, client):
    h.new_game(client)
    host = h.only_game(app)
    path = seat_path(app, host.id, ANN)
    r = say(client, path, "anyone there?")
    assert r.status_code == 400 and "once the game has started" in r.text


@pytest.mark.parametrize(
    ("lines", "ignored", "move", "said"),
    [
        (["reveal A1, reveal B1"], ["gg"], "reveal A1, reveal B1", "gg"),
        (["reveal A1", "reveal B1"], [], "reveal A1\nreveal B1", ""),
        (["reveal A1, reveal B1", "Take that!"], ["x"], "reveal A1, reveal B1", "Take that!\nx"),
        (["Ha! Take that, Bo"], ["more"], "", "Ha! Take that, Bo\nmore"),
        (["hello there"], [], "", "hello there"),
        (["drwa swap B2"], ["sorry"], "drwa swap B2", "sorry"),
        (["swap Z9"], [], "swap Z9", ""),
        (["reveal"], [], "reveal", ""),
    ],
)
def test_split_reply(lines, ignored, move, said):
    g = engine.new_game(["Ann", "Bo"], seed=1)
    game = GameRow(id="g", spectator_salt="s", state=g.to_json())
    assert talk.split_reply(game, ReplyCommands(lines, ignored)) == (move, said)


def test_clean_keeps_plain_text_only():
    assert talk.clean("  hi\r\nthere\x00\u202e!\t ") == "hi\nthere!"
    assert talk.clean("a\x07\tb") == "a b"


def test_a_mail_per_message_only_for_seats_that_ask(app, client):
    game = start(app, client)
    ann, bo = seat_path(app, game.id, ANN), seat_path(app, game.id, BO)
    since = last_id(app)
    assert say(client, ann, "first").status_code == 303
    assert h.mails(app, since) == []  # off by default: the message waits for Bo's next mail
    r = h.post_form(client, bo + "/prefs", {"mail_pref": "every", "talk_mail": "y"}, page_path=bo + "/prefs")
    assert (
        r.status_code == 303
        and 'id="talk_mail" name="talk_mail" value="y" checked' in client.get(bo + "/prefs").text
    )
    since = last_id(app)
    assert say(client, ann, "second").status_code == 303
    got = h.mails(app, since)
    assert [m.to_addr for m in got] == [BO]
    assert "Ann wrote: first" in got[0].text_body and "Ann wrote: second" in got[0].text_body
    assert "Ann wrote:</b>" in got[0].html_body and ">second</span>" in got[0].html_body
    assert say(client, bo, "thanks").status_code == 303  # Ann did not ask: no mail
    since = last_id(app)
    assert reply(app, BO, "reveal A1, reveal B1") == "applied"
    assert all("Ann wrote" not in m.text_body for m in mails_to(app, BO, since))  # mailed once
    # digest (and off) get no mail per message, whatever the box says
    h.post_form(client, bo + "/prefs", {"mail_pref": "digest", "talk_mail": "y"}, page_path=bo + "/prefs")
    since = last_id(app)
    assert say(client, ann, "third").status_code == 303
    assert h.mails(app, since) == []


def test_a_digest_seat_reads_the_talk_in_its_digest(app, client):
    from service.clock.zones import next_local_time
    from service.store.clock_models import utcnow
    from tests.service.test_clock_wiring import sweep

    game = start(app, client)
    ann, bo = seat_path(app, game.id, ANN), seat_path(app, game.id, BO)
    h.post_form(client, bo + "/prefs", {"mail_pref": "digest", "talk_mail": "y"}, page_path=bo + "/prefs")
    since = last_id(app)
    assert say(client, ann, "See you at <8:00>").status_code == 303
    assert h.mails(app, since) == []  # no mail per message for a digest seat
    sweep(app, next_local_time(utcnow(), "UTC") + timedelta(seconds=1))
    digest = [m for m in mails_to(app, BO, since) if "waiting for you" in m.subject]
    assert len(digest) == 1
    assert "Ann wrote: See you at <8:00>" in digest[0].text_body
    assert "See you at &lt;8:00&gt;</span>" in digest[0].html_body
    since = last_id(app)
    assert reply(app, BO, "ok") == "message"
    assert all("Ann wrote" not in m.text_body for m in mails_to(app, BO, since))  # once
