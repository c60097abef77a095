"""The one move path (`play.moves.decide`), on SQLite and PostgreSQL: a link POST, a whole-turn plan
and a timeout write the same rows as each other for the same decision (state, moves, deadlines,
mails) in one transaction; when the game or the seat changed since the link was made, nothing is
written and the player is told why."""

from __future__ import annotations

import random
import re

import pytest
from sqlmodel import select

import engine
from service.play import games, lookups, moves, settings
from service.play.errors import Conflict
from service.render.links import slug_for
from service.store import db, tokens
from service.store.clock_models import Deadline, SeatClock
from service.store.models import GameRow, MoveRow
from service.store.outbox_models import OutboxMail
from tests.service import helpers as h

SEED = "move-path-seed"


def start(app, seed: str = SEED) -> tuple[str, dict[int, str]]:
    with app.app_context(), db.transaction(write=True) as s:
        created = games.create_game(s, host_name="Ann", host_email=f"ann-{seed}@example.com",
                                       players=[("Bo", f"bo-{seed}@example.com")], setup={"seed": seed})
        games.accept(s, created.tokens[1])
        return created.game.id, created.tokens


def state_of(app, game_id: str) -> dict:
    """What a move writes, without what differs between two games by design (ids, tokens, times)."""
    with app.app_context(), db.transaction() as s:
        game = s.get(GameRow, game_id)
        rows = s.exec(select(MoveRow).where(MoveRow.game_id == game_id).order_by(MoveRow.number)).all()
        open_rows = s.exec(select(Deadline).where(Deadline.game_id == game_id, Deadline.fired_at.is_(None))
                           .order_by(Deadline.seat, Deadline.id)).all()
        closed = s.exec(select(Deadline).where(Deadline.game_id == game_id, Deadline.fired_at.is_not(None))).all()
        mails = s.exec(select(OutboxMail).order_by(OutboxMail.id)).all()
        return {
            "version": game.version, "status": game.status, "state": game.state,
            "moves": [(m.number, m.seat, m.move, m.version_before, m.events) for m in rows],
            "open": [(d.seat, d.kind, d.version, d.policy) for d in open_rows],
            "closed": sorted((d.seat, d.kind, d.outcome) for d in closed),
            "mails": [(m.to_addr.split("-")[0], m.template, sorted(m.context)) for m in mails
                      if m.context and m.context.get("game", {}).get("id") == game_id],
        }


def opening_texts(seat: int) -> list[str]:
    """The seat's first reveal in the game dealt from SEED (the deal is known, as in the bench)."""
    g = engine.new_game(["Ann", "Bo"], seed=SEED)
    return [str(sorted(g.legal_moves(seat), key=str)[0])]


def opening_slug(seat: int) -> str:
    return slug_for(opening_texts(seat))


def _post_move(app, token: str, slug: str, version: int, game_id: str, seat: int):
    """The Confirm POST of a move link, with the form's own CSRF token (as the Confirm page has it)."""
    with app.test_request_context():
        form_token = tokens.move_form_token(token, slug, version)
    return app.test_client().post(f"/s/{token}/m/{slug}", data={
        "csrf_token": form_token, "game": game_id, "seat": seat, "move": slug, "version": version})


def test_confirm_post_goes_through_the_one_path(app, monkeypatch):
    """The Confirm POST plays through `moves.decide` (once) and writes what the use case writes on a
    game dealt alike: the same state, move rows, deadlines and mails."""
    post_id, post_tokens = start(app, SEED)
    play_id, play_tokens = start(app, SEED)
    seen = []
    real = moves.decide
    monkeypatch.setattr(moves, "decide", lambda *a, **k: seen.append(k["expected_version"]) or real(*a, **k))
    r = _post_move(app, post_tokens[0], opening_slug(0), 0, post_id, 0)
    assert r.status_code == 303 and seen == [0]
    with app.app_context(), db.transaction(write=True) as s:
        moves.play(s, play_tokens[0], opening_texts(0), 0, form_game=play_id, form_seat=0)
    posted = state_of(app, post_id)
    assert posted["version"] == 1 and posted["moves"] and posted["mails"]
    assert posted == state_of(app, play_id)


def test_a_plan_writes_what_a_link_writes_for_take_and_swap(app):
    """A whole turn (take the discard, swap it into a cell) after the opening, on two games dealt
    alike: as a link and as a plan, the same rows (state, moves, deadlines, mails but the answer)."""
    g = engine.new_game(["Ann", "Bo"], seed=SEED)
    opening = []
    while any(p.kind == "reveal" for p in g.pending()):
        p = g.pending()[0]
        text = str(sorted(g.legal_moves(p.seat), key=str)[0])
        opening.append((p.seat, text, g.version))
        g.play(p.seat, text)
    turn = g.pending()[0]
    texts = ["take", "swap A1"]
    version = g.version
    games = [start(app, SEED), start(app, SEED)]
    with app.app_context():
        for game_id, seat_tokens in games:
            for seat, text, v in opening:
                with db.transaction(write=True) as s:
                    moves.play(s, seat_tokens[seat], [text], v, form_game=game_id, form_seat=seat)
        (link_id, link_tokens), (plan_id, plan_tokens) = games
        with db.transaction(write=True) as s:
            played = moves.play(s, link_tokens[turn.seat], texts, version, form_game=link_id, form_seat=turn.seat)
        assert played.moves == texts
        with db.transaction(write=True) as s:
            planned = moves.play_plan(s, plan_tokens[turn.seat], "take swap A1", version, form_game=plan_id,
                                         form_seat=turn.seat)
        assert planned.moves == texts
    link, plan = state_of(app, link_id), state_of(app, plan_id)
    assert link["version"] == version + 2 and [m[2] for m in link["moves"][-2:]] == texts
    assert link == plan


def test_token_rotated_before_the_post_writes_nothing(app):
    game_id, seat_tokens = start(app)
    with app.app_context(), db.transaction(write=True) as s:
        settings.rotate_token(s, seat_tokens[0])
    before = state_of(app, game_id)
    r = _post_move(app, seat_tokens[0], opening_slug(0), 0, game_id, 0)
    assert r.status_code == 404
    after = state_of(app, game_id)
    assert (after["version"], after["moves"], after["open"]) == (before["version"], before["moves"], before["open"])


# PostgreSQL only: there another transaction can commit between this one's read and its UPDATE (READ
# COMMITTED) when the read did not lock the game row. On SQLite `BEGIN IMMEDIATE` holds the database
# from the read on, so no other writer gets in (tests/service/test_db.py shows the second writer waiting).
@pytest.mark.parametrize("db_url", [pytest.param("postgres", marks=pytest.mark.postgres)], indirect=True)
def test_the_version_guard_writes_nothing_for_a_game_read_without_its_lock(app, monkeypatch):
    """Every entry locks the game row before it reads the game (issue 34.1), so decisions of
    several seats are applied one after the other. The conditional UPDATE stays as a guard: a
    decision made on a game read without the lock, when another seat's move commits before its
    UPDATE, writes nothing and says so; the link itself is still good (the opening: both seats
    decide at once)."""
    game_id, seat_tokens = start(app)
    real = moves._write

    def other_seat_first(s, game, *args, **kw):
        if game.version == 0 and not getattr(other_seat_first, "done", False):
            other_seat_first.done = True
            with db.transaction(write=True, app=app) as other:
                moves.play(other, seat_tokens[1], opening_texts(1), 0)
        return real(s, game, *args, **kw)

    monkeypatch.setattr(moves, "_write", other_seat_first)
    with app.app_context():
        with db.transaction(write=True) as s:
            seat, game = lookups.seat_by_token(s, seat_tokens[0])  # read without the lock
            g = lookups.load_engine_game(game)
            turn = moves.Turn(moves=moves.parse_moves(g, opening_texts(0)))
            with pytest.raises(Conflict, match="at the same moment"):
                moves.decide(s, game, seat, turn, via="link", g=g, expected_version=0)
            # the session's game is the one in the database, not what the refused move meant to write
            # (a reply mail's answer is written from it in the same transaction)
            committed = state_of(app, game_id)
            assert (game.version, game.state) == (committed["version"], committed["state"])
        after = state_of(app, game_id)
        assert after["version"] == 1 and [m[1] for m in after["moves"]] == [1]
        monkeypatch.setattr(moves, "_write", real)
        with db.transaction(write=True) as s:  # what the player does then: Ann's link is still good
            played = moves.play(s, seat_tokens[0], opening_texts(0), 0, form_game=game_id, form_seat=0)
    assert played.game.version == 2


def test_a_returning_timed_out_player_moves_once_and_is_reset(app):
    """A seat whose timeouts the move resets: the same path, once (the count is reset, the version is
    up by one)."""
    game_id, seat_tokens = start(app)
    with app.app_context(), db.transaction(write=True) as s:
        sc = s.get(SeatClock, (game_id, 0))
        sc.consecutive_timeouts = 2
    r = _post_move(app, seat_tokens[0], opening_slug(0), 0, game_id, 0)
    assert r.status_code == 303
    after = state_of(app, game_id)
    assert after["version"] == 1 and len(after["moves"]) == 1
    with app.app_context(), db.transaction() as s:
        assert s.get(SeatClock, (game_id, 0)).consecutive_timeouts == 0


def test_c7_a_used_take_and_swap_link_names_the_whole_decision(app, client):
    """Issue 20.8: the answer to a repeated take + swap named only "take"."""
    h.new_game(client)
    h.accept_all(app, client)

    class Found(Exception):
        pass

    def stop_at_a_take(new_mails):
        for m in new_mails:
            for p in h.move_links(m):
                if "/m/take" in p:
                    raise Found(p)

    try:
        h.play_by_mail(app, client, rng=random.Random(3), on_step=stop_at_a_take)
        take = None
    except Found as found:
        take = found.args[0]
    assert take is not None
    page = client.get(take)
    action = re.search(r'<form method="post" action="([^"]+)">\s*<input type="hidden" name="csrf_token"',
                       page.text).group(1)
    fields = h.confirm_fields(page.text)
    assert client.post(action, data=fields).status_code == 303
    again = client.post(action, data=fields)
    assert again.status_code == 409
    assert re.search(r"You already played “take \+ swap [A-D][1-3]”", again.text), re.findall(r"already[^<]*|not possible[^<]*", again.text)
