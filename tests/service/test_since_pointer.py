"""Issue 28.1: what "since the seat's previous mail" means (service.mail.talk.events): the others'
public events of the move rows after the version the seat's previous mail showed, never its own; a
turn mail held back while the seat looks at its board leaves the pointer (a dropped one hides
nothing from the next mail); a seat of before the pointer (None) gets the events since its own last
move. Read from the queued intents' contexts (the outbox rows before the sender renders them)."""

from __future__ import annotations

from sqlmodel import select

import engine
from service.mail import talk
from service.render.links import slug_for
from service.store import db, tokens
from service.store.models import GameRow, SeatRow
from service.store.outbox_models import OutboxMail
from tests.service import helpers as h

PLAYERS = (("Ann", "ann@example.com"), ("Bo", "bo@example.com"), ("Carla", "carla@example.com"))


def _tokens(app, game_id: str) -> dict[int, str]:
    with app.app_context():
        return {r.seat: tokens.seat_token(r.token_salt) for r in h.seats(app, game_id)}


def _move(app, client, game_id: str, token: str, seat: int, texts: list[str]) -> None:
    g = engine.Game.from_json(h.game_state(app, game_id)[1])
    slug = slug_for(texts)
    r = h.post_move(app, client, f"/s/{token}/m/{slug}",
                    {"decision": g.decision_id(seat), "move": slug, "game": game_id, "seat": str(seat)})
    assert r.status_code == 303, r.text[-800:]


def _pointer(app, game_id: str, seat: int) -> int | None:
    with app.app_context(), db.transaction() as s:
        return s.exec(select(SeatRow.mailed_version).where(SeatRow.game_id == game_id, SeatRow.seat == seat)).one()


def _queued(app, after: int) -> list[OutboxMail]:
    with app.app_context(), db.transaction() as s:
        return list(s.exec(select(OutboxMail).where(OutboxMail.id > after).order_by(OutboxMail.id)))


def test_the_others_moves_since_the_previous_mail_a_held_mail_keeps_the_pointer(app, client):
    h.new_game(client, PLAYERS, target=999)
    h.accept_all(app, client)
    game_id = h.only_game(app).id
    tok = _tokens(app, game_id)
    g = engine.Game.from_json(h.game_state(app, game_id)[1])
    for seat in range(3):  # the opening: each seat's two reveals, by link
        for cell in ("A1", "B1"):
            _move(app, client, game_id, tok[seat], seat, [f"reveal {cell}"])
    g = engine.Game.from_json(h.game_state(app, game_id)[1])
    while g.pending()[0].kind == "tie_reveal":  # a C5 tie for the start (the deal is random): reveal again
        p = g.pending()[0]
        _move(app, client, game_id, tok[p.seat], p.seat, [str(g.legal_moves(p.seat)[0])])
        g = engine.Game.from_json(h.game_state(app, game_id)[1])
    mover = g.turn
    before = _pointer(app, game_id, mover)
    last = max(m.id for m in _queued(app, 0))
    _move(app, client, game_id, tok[mover], mover, ["draw"])  # on a page: its next mail is held
    held = [m for m in _queued(app, last) if m.hold_decision]
    assert held, "the mover's next decision (place the drawn card) was not held"
    assert _pointer(app, game_id, mover) == before, "a held mail moved the pointer"
    last = max(m.id for m in _queued(app, 0))
    _move(app, client, game_id, tok[mover], mover, ["flip C3"])
    g = engine.Game.from_json(h.game_state(app, game_id)[1])
    nxt = g.turn
    mail = next(m for m in _queued(app, last) if m.template == "turn" and m.seat == nxt)
    events = mail.context["since"]["events"]
    assert [e["type"] for e in events[-2:]] == ["draw", "flip"] and {e["seat"] for e in events[-2:]} == {mover}
    assert all(e.get("seat") != nxt or e["type"] == "start" for e in events), "its own moves are not news"
    assert _pointer(app, game_id, nxt) == g.version
    # the same mail's events again: nothing new since it
    with app.app_context(), db.transaction() as s:
        game = s.get(GameRow, game_id)
        seat = s.exec(select(SeatRow).where(SeatRow.game_id == game_id, SeatRow.seat == nxt)).one()
        assert talk.events(s, game, seat) is None
        # a seat of before the pointer: since its own last move (its opening reveal)
        seat.mailed_version = None
        since = talk.events(s, game, seat, move=False)
        assert since is not None and since["events"][-1]["type"] == "flip"
        assert all(e.get("seat") != nxt or e["type"] == "start" for e in since["events"])
        assert seat.mailed_version is None
        s.rollback()
