"""The move link's lean path (`usecases.prepare_link_move` + `save_prepared`, used by the Confirm POST)
against the use case it shortens (`usecases.play`), on SQLite and PostgreSQL: it writes the same
rows, and when the game or the seat changed between its read and its write it writes nothing (the
POST then falls back to `play`, which explains or applies)."""

from __future__ import annotations

import pytest
from sqlmodel import select

import engine
from service.play import usecases
from service.render import board as render
from service.store import db, tokens
from service.store.clock_models import Deadline, SeatClock
from service.store.models import GameRow, MoveRow
from service.store.outbox_models import OutboxMail

SEED = "lean-path-seed"


def start(app, seed: str = SEED) -> tuple[str, dict[int, str]]:
    with app.app_context(), db.transaction(write=True) as s:
        created = usecases.create_game(s, host_name="Ann", host_email=f"ann-{seed}@example.com",
                                       players=[("Bo", f"bo-{seed}@example.com")], setup={"seed": seed})
        usecases.accept(s, created.tokens[1])
        return created.game.id, created.tokens


def state_of(app, game_id: str) -> dict:
    """What a move writes, without what differs between two games by design (ids, tokens, times)."""
    with app.app_context(), db.transaction() as s:
        game = s.get(GameRow, game_id)
        moves = s.exec(select(MoveRow).where(MoveRow.game_id == game_id).order_by(MoveRow.number)).all()
        open_rows = s.exec(select(Deadline).where(Deadline.game_id == game_id, Deadline.fired_at.is_(None))
                           .order_by(Deadline.seat, Deadline.id)).all()
        closed = s.exec(select(Deadline).where(Deadline.game_id == game_id, Deadline.fired_at.is_not(None))).all()
        mails = s.exec(select(OutboxMail).order_by(OutboxMail.id)).all()
        held = [game.clock_held] if game.clock_held else []  # the decision held on the game row
        return {
            "version": game.version, "status": game.status, "state": game.state,
            "moves": [(m.number, m.seat, m.move, m.version_before, m.events) for m in moves],
            "open": [(d.seat, d.kind, d.version, d.policy) for d in open_rows]
            + [(h["seat"], h["kind"], h["version"], h["policy"]) for h in held],
            "clock_rows": game.clock_rows,
            "closed": sorted((d.seat, d.kind, d.outcome) for d in closed),
            "mails": [(m.to_addr.split("-")[0], m.template, sorted(m.context)) for m in mails
                      if m.context and m.context.get("game", {}).get("id") == game_id],
        }


def opening_slug(seat: int) -> str:
    """The seat's first reveal in the game dealt from SEED (the deal is known, as in the bench)."""
    g = engine.new_game(["Ann", "Bo"], seed=SEED)
    return render.slug_for([str(sorted(g.legal_moves(seat), key=str)[0])])


def test_lean_path_writes_what_play_writes(app):
    lean_id, lean_tokens = start(app, SEED)
    play_id, play_tokens = start(app, SEED)
    seat, slug = 0, opening_slug(0)
    with app.app_context():
        with db.transaction(write=True) as s:
            prepared = usecases.prepare_link_move(s.connection(), lean_tokens[seat], slug, 0, form_game=lean_id, form_seat=seat)
            assert prepared is not None
            played = usecases.save_prepared(s, prepared)
            assert played is not None and played.game.version == 1
        with db.transaction(write=True) as s:
            usecases.play(s, play_tokens[seat], slug, 0, form_game=play_id, form_seat=seat)
    lean, played_state = state_of(app, lean_id), state_of(app, play_id)
    assert lean["version"] == 1 and lean["moves"] and lean["mails"] is not None
    assert lean == played_state


def test_lean_path_leaves_anything_unusual_to_play(app):
    game_id, tokens = start(app)
    seat, slug = 0, opening_slug(0)
    with app.app_context(), db.transaction() as s:
        def ask(**kw):
            return usecases.prepare_link_move(
                s.connection(), kw.get("token", tokens[seat]), kw.get("slug", slug), kw.get("version", 0),
                form_game=kw.get("game", game_id), form_seat=kw.get("seat", seat))

        assert ask() is not None
        assert ask(version=1) is None  # not the game's version (play: used up, or still good)
        assert ask(seat=1) is None  # the form of another seat
        assert ask(game="another") is None
        assert ask(slug="swap-Z9") is None  # the engine refuses it
        assert ask(slug="nonsense!") is None
        assert ask(token="x" * 43) is None  # no such seat


def test_token_rotated_between_read_and_write_writes_nothing(app):
    game_id, tokens = start(app)
    seat, slug = 0, opening_slug(0)
    with app.app_context():
        with db.transaction() as s:
            prepared = usecases.prepare_link_move(s.connection(), tokens[seat], slug, 0, form_game=game_id, form_seat=seat)
        before = state_of(app, game_id)
        with db.transaction(write=True) as s:
            usecases.rotate_token(s, tokens[seat])
        with db.transaction(write=True) as s:
            assert usecases.save_prepared(s, prepared) is None
    after = state_of(app, game_id)
    assert (after["version"], after["moves"], after["open"]) == (before["version"], before["moves"], before["open"])


def test_game_moved_on_between_read_and_write_writes_nothing(app):
    game_id, tokens = start(app)
    slug0, slug1 = opening_slug(0), opening_slug(1)
    with app.app_context():
        with db.transaction() as s:
            prepared = usecases.prepare_link_move(s.connection(), tokens[0], slug0, 0, form_game=game_id, form_seat=0)
        with db.transaction(write=True) as s:  # Bo reveals first (the opening: both decide at once)
            usecases.play(s, tokens[1], slug1, 0)
        before = state_of(app, game_id)
        with db.transaction(write=True) as s:
            assert usecases.save_prepared(s, prepared) is None
        assert state_of(app, game_id) == before
        with db.transaction(write=True) as s:  # what the POST does then: Ann's link is still good
            played = usecases.play(s, tokens[0], slug0, 0, form_game=game_id, form_seat=0)
    assert played.game.version == 2


def test_lean_path_writes_what_play_writes_for_take_and_swap(app):
    """A whole turn in one link (take the discard, swap it into a cell) after the opening, on two
    games dealt alike: the lean path and `play` leave the same rows (state, moves, deadlines, mails)."""
    g = engine.new_game(["Ann", "Bo"], seed=SEED)
    opening = []
    while any(p.kind == "reveal" for p in g.pending()):
        p = g.pending()[0]
        text = str(sorted(g.legal_moves(p.seat), key=str)[0])
        opening.append((p.seat, text, g.version))
        g.play(p.seat, text)
    turn = g.pending()[0]
    texts = ["take", "swap A1"]
    slug, version = render.slug_for(texts), g.version
    games = [start(app, SEED), start(app, SEED)]
    with app.app_context():
        for game_id, seat_tokens in games:
            for seat, text, v in opening:
                with db.transaction(write=True) as s:
                    usecases.play(s, seat_tokens[seat], render.slug_for([text]), v, form_game=game_id, form_seat=seat)
        (lean_id, lean_tokens), (play_id, play_tokens) = games
        with db.transaction() as s:
            prepared = usecases.prepare_link_move(s.connection(), lean_tokens[turn.seat], slug, version, form_game=lean_id,
                                                  form_seat=turn.seat)
        assert prepared is not None and prepared.moves == texts
        with db.transaction(write=True) as s:
            assert usecases.save_prepared(s, prepared) is not None
        with db.transaction(write=True) as s:
            usecases.play(s, play_tokens[turn.seat], slug, version, form_game=play_id, form_seat=turn.seat)
    lean, played = state_of(app, lean_id), state_of(app, play_id)
    assert lean["version"] == version + 2 and [m[2] for m in lean["moves"][-2:]] == texts
    assert lean == played


def test_read_phase_is_one_statement_outside_a_transaction(app, db_url):
    """SQLite's POST reads with `db.single_read` (no BEGIN, no Session): one SELECT, atomic on its own."""
    game_id, tokens = start(app)
    seat, slug = 0, opening_slug(0)
    with app.app_context():
        with db.single_read() as conn:
            prepared = usecases.prepare_link_move(conn, tokens[seat], slug, 0, form_game=game_id, form_seat=seat)
            assert prepared is not None and not conn.in_transaction()
            if db_url.startswith("sqlite"):
                assert not conn.connection.dbapi_connection.in_transaction  # no BEGIN went to SQLite
        with db.transaction(write=True) as s:
            assert usecases.save_prepared(s, prepared) is not None
    assert state_of(app, game_id)["version"] == 1


def _post_move(app, token: str, slug: str, version: int, game_id: str, seat: int):
    """The Confirm POST of a move link, with the form's own CSRF token (as the Confirm page has it)."""
    with app.test_request_context():
        form_token = tokens.move_form_token(token, slug, version)
    return app.test_client().post(f"/s/{token}/m/{slug}", data={
        "csrf_token": form_token, "game": game_id, "seat": seat, "move": slug, "version": version})


def test_confirm_post_writes_in_a_core_transaction(app, monkeypatch):
    """The common Confirm POST saves through `db.core_write` (no Session) and writes what `play`
    writes: the same rows as the use case on a game dealt alike."""
    lean_id, lean_tokens = start(app, SEED)
    play_id, play_tokens = start(app, SEED)
    seen = []
    real = usecases.save_prepared
    monkeypatch.setattr(usecases, "save_prepared", lambda s, p: seen.append(type(s)) or real(s, p))
    r = _post_move(app, lean_tokens[0], opening_slug(0), 0, lean_id, 0)
    assert r.status_code == 303 and seen == [db.CoreTx]
    with app.app_context(), db.transaction(write=True) as s:
        usecases.play(s, play_tokens[0], opening_slug(0), 0, form_game=play_id, form_seat=0)
    assert state_of(app, lean_id) == state_of(app, play_id)


def test_core_transaction_leaves_a_returning_timed_out_player_to_play(app):
    """A seat whose timeouts the move resets needs the clock's ORM path: in a `CoreTx` the save
    raises `NeedsSession` and writes nothing, and the Confirm POST then plays it through `play`
    (once: the count is reset, the version is up by one)."""
    game_id, seat_tokens = start(app)
    with app.app_context(), db.transaction(write=True) as s:
        sc = s.get(SeatClock, (game_id, 0))
        sc.consecutive_timeouts = 2
    slug = opening_slug(0)
    with app.app_context():
        before = state_of(app, game_id)
        with db.single_read() as conn:
            prepared = usecases.prepare_link_move(conn, seat_tokens[0], slug, 0, form_game=game_id, form_seat=0)
            assert prepared is not None
            with pytest.raises(db.NeedsSession), db.core_write(conn) as tx:
                usecases.save_prepared(tx, prepared)
        assert state_of(app, game_id) == before
    r = _post_move(app, seat_tokens[0], slug, 0, game_id, 0)
    assert r.status_code == 303
    after = state_of(app, game_id)
    assert after["version"] == 1 and len(after["moves"]) == 1
    with app.app_context(), db.transaction() as s:
        assert s.get(SeatClock, (game_id, 0)).consecutive_timeouts == 0
