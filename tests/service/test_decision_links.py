"""Issue 15, points 1 and 2: move links bound to the decision they were sent for, one visit per turn,
held turn mails. On SQLite and PostgreSQL (the concurrency tests run truly in parallel there).

* A link (`/s/<token>/m/<slug>?d=<decision>`) stays good while its seat owes that decision and the
  move is legal: the second opening reveal from the same mail works (C4), another seat's reveal
  spoils nothing; once made, the link is refused with a message; GET/HEAD change nothing.
* After a Confirm the board shows what is owed now as POST buttons carrying the HMAC form token,
  which play at once; the mail for that decision is held (MAIL_HOLD_MINUTES) and sent only if the
  decision is still open then, never twice, also after a restart (it is an outbox row).
"""

from __future__ import annotations

import re
import threading
from datetime import timedelta

from sqlmodel import select

import engine
from service import create_app
from service.mail.delivery import deliver_due
from service.mail.transport import DevTransport
from service.play import reply_service
from service.store import db, tokens
from service.store.models import MoveRow
from service.store.outbox_models import OutboxMail, utcnow
from tests.service import helpers as h
from tests.service.test_reply_service import latest_reply_mail, reply_to

PLAYERS = (("Ann", "ann@example.com"), ("Bo", "bo@example.com"), ("Cy", "cy@example.com"))
ANN, BO, CY = (p[1] for p in PLAYERS)


def start(app, client):
    # a fixed deal: with reveals of A1 and B2 every seat ties for the start in some random deals (C5),
    # and these tests then play the first turn
    app.config["GAME_SETUP"] = {"seed": "decision-links-0"}
    h.new_game(client, players=PLAYERS)
    h.accept_all(app, client)
    return h.only_game(app)


def link(app, addr: str, slug: str) -> str:
    """The link to `slug` in the newest mail to `addr` that has move links."""
    newest = [m for m in h.mails(app) if m.to_addr == addr and h.move_links(m)][-1]
    found = [p for p in h.move_links(newest) if f"/m/{slug}?" in p]
    assert found, (slug, h.move_links(newest)[:3])
    return found[0]


def game_of(app, gid: str) -> engine.Game:
    return engine.Game.from_json(h.game_state(app, gid)[1])


def last_id(app) -> int:
    ms = h.mails(app)
    return ms[-1].id if ms else 0


def finish_opening(app, client, gid: str) -> engine.Game:
    for addr in (ANN, BO, CY):
        for slug in ("reveal-a1", "reveal-b2"):
            assert h.confirm(client, link(app, addr, slug)).status_code == 303
    g = game_of(app, gid)
    assert g.phase == "play"
    return g


def test_c4_the_second_opening_reveal_from_the_same_mail_works_and_no_second_opening_mail(app, client):
    game = start(app, client)
    since = last_id(app)
    r = h.confirm(client, link(app, ANN, "reveal-a1"))
    assert r.status_code == 303
    board = client.get(r.headers["Location"]).text
    assert "Done: reveal A1" in board
    buttons = h.board_moves(board)  # the second reveal, right there on the board
    assert buttons and {f["decision"] for _a, f in buttons} == {game_of(app, game.id).decision_id(0)}
    assert not [m for m in h.mails(app, since) if m.to_addr == ANN], "no second opening mail"
    r = h.confirm(client, link(app, ANN, "reveal-c3"))  # from the same mail
    assert r.status_code == 303
    g = game_of(app, game.id)
    assert g.revealed[0] == 2 and g.face[0][0] == engine.game.UP and g.face[0][10] == engine.game.UP


def test_c4_another_seats_reveal_does_not_spoil_a_link(app, client):
    game = start(app, client)
    ann_link = link(app, ANN, "reveal-a1")
    assert h.confirm(client, link(app, BO, "reveal-a1")).status_code == 303
    assert h.confirm(client, link(app, CY, "reveal-b2")).status_code == 303
    assert h.confirm(client, link(app, BO, "reveal-c3")).status_code == 303  # Bo's decision is made
    assert h.confirm(client, ann_link).status_code == 303
    assert game_of(app, game.id).revealed == [1, 2, 1]


def test_a_used_link_is_refused_with_its_message_and_get_head_change_nothing(app, client):
    game = start(app, client)
    spare = link(app, ANN, "reveal-b1")
    assert h.confirm(client, link(app, ANN, "reveal-a1")).status_code == 303
    again = client.get(link(app, ANN, "reveal-a1"))  # the same link twice: still the same decision
    assert "You already played “reveal A1” here; this link is used up." in again.text
    stale_form = h.confirm_fields(client.get(spare).text)  # a Confirm page left open
    assert h.confirm(client, link(app, ANN, "reveal-c3")).status_code == 303
    version = h.game_state(app, game.id)[0]
    for method in (client.get, client.head):
        page = method(spare)
        assert page.status_code == 200
    assert "You already played “reveal A1 + reveal C3” here; this link is used up." in client.get(spare).text
    posted = client.post(spare.split("?")[0], data=stale_form)
    assert posted.status_code == 409 and "this link is used up" in posted.text
    assert h.game_state(app, game.id)[0] == version  # nothing changed
    # another seat's token in the same form does nothing either
    bo_path = link(app, BO, "reveal-b1").split("?")[0]
    assert client.post(bo_path, data=stale_form).status_code == 400
    assert h.game_state(app, game.id)[0] == version


def test_old_version_links_still_work_while_their_seat_owes_that_decision_then_say_why_not(app, client):
    game = start(app, client)
    ann = link(app, ANN, "reveal-a1").split("/m/")[0]
    page = client.get(f"{ann}/m/reveal-a1?v=0")
    assert page.status_code == 200 and 'data-action="confirm"' in page.text
    assert h.confirm(client, f"{ann}/m/reveal-a1?v=0").status_code == 303
    assert h.confirm(client, f"{ann}/m/reveal-c3?v=0").status_code == 303  # the same decision (C4)
    refused = client.get(f"{ann}/m/reveal-b1?v=0")
    assert refused.status_code == 200 and "You already played “reveal A1” here; this link is used up." in refused.text
    assert client.get(f"{ann}/m/reveal-b1?d=not-a-decision").status_code == 200  # explains, no 500
    assert game_of(app, game.id).revealed[0] == 2


def test_c7_after_a_draw_the_board_offers_the_placement_as_post_buttons_and_its_mail_is_dropped(app, client):
    game = start(app, client)
    g = finish_opening(app, client, game.id)
    addr, seat = PLAYERS[g.turn][1], g.turn
    since = last_id(app)
    r = h.confirm(client, link(app, addr, "draw"))
    assert r.status_code == 303
    board = client.get(r.headers["Location"]).text
    owed = game_of(app, game.id).decision_id(seat)
    assert ".place_drawn." in owed
    buttons = h.board_moves(board)
    token = re.search(r"/s/([^/?]+)", r.headers["Location"]).group(1)
    with app.test_request_context():
        for action, fields in buttons:  # each a POST form with the HMAC form token of its move
            slug = action.rsplit("/", 1)[1]
            assert fields["decision"] == owed
            assert fields["csrf_token"] == tokens.move_form_token(token, slug, owed)
    assert {a.rsplit("/", 1)[1].split("-")[0] for a, _f in buttons} == {"swap", "flip"}
    held = [m for m in h.mails(app, since) if m.to_addr == addr]
    assert len(held) == 1 and held[0].hold_decision == owed and held[0].hold_game == game.id
    assert held[0].send_after >= utcnow() + timedelta(minutes=9)
    with app.app_context():
        deliver_due(db.get_engine(app), DevTransport())
    assert _row(app, held[0].id).sent_at is None  # held: not due yet
    # a forged form token does nothing; the genuine button plays at once (no confirm step)
    action, fields = next((a, f) for a, f in buttons if "/m/swap-" in a)
    assert client.post(action, data={**fields, "csrf_token": "x" * 27}).status_code == 400
    assert game_of(app, game.id).decision_id(seat) == owed
    placed = client.post(action, data=fields)
    assert placed.status_code == 303
    assert game_of(app, game.id).decision_id(seat) is None
    later = utcnow() + timedelta(minutes=11)
    with app.app_context():
        deliver_due(db.get_engine(app), DevTransport(), now=later)
        deliver_due(db.get_engine(app), DevTransport(), now=later + timedelta(minutes=1))
    row = _row(app, held[0].id)
    assert row.sent_at is not None and row.transport == "dropped" and row.attempts == 0
    assert f"/dev/mail/{row.id}\"" not in client.get("/dev/mail/").text
    assert client.get(f"/dev/mail/{row.id}").status_code == 404


def test_a_held_mail_goes_once_after_the_hold_when_still_owed_also_after_a_restart(app, client, db_url):
    game = start(app, client)
    g = finish_opening(app, client, game.id)
    addr = PLAYERS[g.turn][1]
    since = last_id(app)
    assert h.confirm(client, link(app, addr, "draw")).status_code == 303
    held = [m for m in h.mails(app, since) if m.to_addr == addr and m.hold_decision]
    assert len(held) == 1
    # a new process on the same database (the hold is an outbox row, not a timer)
    again = create_app({"TESTING": True, "DATABASE_URL": db_url, "SECRET_KEY": app.config["SECRET_KEY"],
                        "BASE_URL": "http://localhost", "ENV_NAME": "development"})
    later = utcnow() + timedelta(minutes=11)
    try:
        with again.app_context():
            deliver_due(db.get_engine(again), DevTransport(), now=later)
            first = _row(again, held[0].id)
            deliver_due(db.get_engine(again), DevTransport(), now=later + timedelta(minutes=5))
        assert first.sent_at is not None and first.transport == "dev"
        assert _row(again, held[0].id).sent_at == first.sent_at  # never twice
        assert "place" in first.text_body.lower() or "swap" in first.text_body.lower()
    finally:
        db.get_engine(again).dispose()


def test_a_reply_move_gets_its_answer_mail_and_no_turn_mail_for_the_same_decision(app, client):
    game = start(app, client)
    since = last_id(app)
    ann = latest_reply_mail(app, ANN)
    reply_service.handle_inbound(app, reply_to(ann, "reveal A1"))
    assert game_of(app, game.id).revealed[0] == 1
    to_ann = [m for m in h.mails(app, since) if m.to_addr == ANN]
    assert len(to_ann) == 1 and "Understood:" in to_ann[0].text_body
    assert any(h.decision_of(p) == game_of(app, game.id).decision_id(0) for p in h.move_links(to_ann[0]))
    # a second reply to the same opening mail plays the second reveal (the same decision, C4)
    reply_service.handle_inbound(app, reply_to(ann, "reveal C3"))
    assert game_of(app, game.id).revealed[0] == 2


def _row(app, row_id: int) -> OutboxMail:
    with app.app_context(), db.transaction() as s:
        return s.get(OutboxMail, row_id)


def _press_together(app, posts: list[tuple[str, dict]]) -> list[int]:
    barrier = threading.Barrier(len(posts))
    results: list[int] = []
    lock = threading.Lock()

    def press(action, data):
        c = app.test_client()
        barrier.wait()
        status = c.post(action, data=data).status_code
        with lock:
            results.append(status)

    threads = [threading.Thread(target=press, args=p) for p in posts]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    return results


def _confirm_form(client, path: str) -> tuple[str, dict]:
    page = client.get(path).text
    action = re.search(r'<form method="post" action="([^"]+)">\s*<input type="hidden" name="csrf_token"',
                       page).group(1)
    return action, h.confirm_fields(page)


def test_a_link_posted_many_times_at_once_plays_exactly_once(app, client):
    game = start(app, client)
    form = _confirm_form(client, link(app, ANN, "reveal-a1"))
    statuses = _press_together(app, [form] * 6)
    assert sorted(statuses) == [303] + [409] * 5, statuses
    g = finish_opening_rest(app, client, game.id)
    draw = _confirm_form(client, link(app, PLAYERS[g.turn][1], "draw"))
    statuses = _press_together(app, [draw] * 6)
    assert sorted(statuses) == [303] + [409] * 5, statuses
    with app.app_context(), db.transaction() as s:
        moves = [r.move for r in s.exec(select(MoveRow).where(MoveRow.game_id == game.id))]
    assert moves.count("reveal A1") == 3 and moves.count("draw") == 1


def finish_opening_rest(app, client, gid: str) -> engine.Game:
    """Ann has revealed A1: the rest of the opening."""
    assert h.confirm(client, link(app, ANN, "reveal-b2")).status_code == 303
    for addr in (BO, CY):
        for slug in ("reveal-a1", "reveal-b2"):
            assert h.confirm(client, link(app, addr, slug)).status_code == 303
    return game_of(app, gid)


def test_c4_opening_reveals_of_every_seat_at_the_same_moment_all_play(app, client):
    game = start(app, client)
    forms = [_confirm_form(client, link(app, addr, "reveal-a1")) for addr in (ANN, BO, CY)]
    statuses = _press_together(app, forms)
    assert statuses == [303] * 3, statuses
    assert game_of(app, game.id).revealed == [1, 1, 1]


def test_a_held_mail_holds_back_no_later_mail_and_a_failing_question_backs_it_off(app):
    """Delivery alone (`still_owed` given, as `create_app` gives it): a held row waits for its time
    without holding back the mails queued after it to the same address; a question that fails
    backs the held row off like a failed send (it is asked again later)."""
    from sqlalchemy.orm import Session

    from service.mail.outbox import queue_mail

    engine_ = db.get_engine(app)
    now = utcnow()
    with app.app_context(), Session(engine_, expire_on_commit=False) as s:
        held = queue_mail(s, to_addr="x@example.com", to_name="X", subject="turn", text="place it", seat=1,
                          hold_until=now + timedelta(minutes=10), hold_for=("g1", "2.place_drawn.40"))
        later = queue_mail(s, to_addr="x@example.com", to_name="X", subject="notice", text="later")
        s.commit()
    asked: list[tuple] = []

    def broken(session, game_id, seat, decision):
        asked.append((game_id, seat, decision))
        raise RuntimeError("no such game")

    now = utcnow()  # (the rows are due from when they were queued)
    assert deliver_due(engine_, DevTransport(), now=now, still_owed=broken) == 1
    assert _row(app, later.id).sent_at is not None and _row(app, held.id).sent_at is None and not asked
    assert deliver_due(engine_, DevTransport(), now=now + timedelta(minutes=11), still_owed=broken) == 0
    row = _row(app, held.id)
    assert asked == [("g1", 1, "2.place_drawn.40")] and row.sent_at is None and row.attempts == 1
    sent = deliver_due(engine_, DevTransport(), now=now + timedelta(hours=2), still_owed=lambda *a: True)
    assert sent == 1 and _row(app, held.id).transport == "dev"
