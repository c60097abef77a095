"""Reading a game: the seat a link token belongs to (with its game and all its seats in one query),
a game's seats, the engine game from the saved state, and the whole event log for pages."""

from __future__ import annotations

from datetime import timedelta

from flask_babel import gettext as _
from sqlalchemy import bindparam, event
from sqlmodel import Session, select

import engine
from engine import deals
from service.i18n import use_seat
from service.play.errors import NotFound
from service.store import tokens
from service.store.models import GameRow, MoveRow, SeatRow

# Built once (SQLAlchemy caches the compiled form): every seat of the game a token belongs to, each
# with that game; a game's seats.
_SEATS_OF_TOKEN = (select(SeatRow, GameRow).join(GameRow, GameRow.id == SeatRow.game_id)
                   .where(SeatRow.game_id == select(SeatRow.game_id)
                          .where(SeatRow.token_hash == bindparam("token_hash")).scalar_subquery())
                   .order_by(SeatRow.position))
# Every state-changing use case (a move, accept, decline, cancel, rematch, settings)
# first locks the game row its token belongs to: on PostgreSQL two requests would otherwise both
# read "not yet accepted" / "no rematch yet" and both write (a game dealt twice, two rematches). The
# seats and the game are then read after the lock, so what a use case decides on is what it writes
# on. (SQLite: the write transaction's BEGIN IMMEDIATE already lets one writer in at a time, and
# FOR UPDATE is left out of its SQL.) The move path locks too (issue 34.1): decisions several seats
# make at once (the opening's reveals) are then applied one after the other instead of all but one
# losing on the version.
_LOCK_GAME_OF_TOKEN = (select(GameRow.id)
                       .where(GameRow.id == select(SeatRow.game_id)
                              .where(SeatRow.token_hash == bindparam("token_hash")).scalar_subquery())
                       .with_for_update())
_LOCK_GAME = select(GameRow.id).where(GameRow.id == bindparam("game_id")).with_for_update()
_SEATS_OF_GAME = select(SeatRow).where(SeatRow.game_id == bindparam("game_id")).order_by(SeatRow.position)
_SEAT_AT = select(SeatRow).where(SeatRow.game_id == bindparam("game_id"), SeatRow.seat == bindparam("seat"))
_EVENTS = (select(MoveRow.number, MoveRow.events).where(MoveRow.game_id == bindparam("game_id"),
                                                          MoveRow.number >= bindparam("since"))
           .order_by(MoveRow.number))


@event.listens_for(Session, "after_transaction_end")
def _forget_seats(session: Session, transaction) -> None:
    """`seats_of`'s answers hold for one transaction only (a session may live through several)."""
    if transaction.parent is None:
        session.info.pop("seats_of", None)


def seat_by_token(s: Session, token: str, *, lock: bool = False) -> tuple[SeatRow, GameRow]:
    """The seat a link token belongs to and its game, in one query that brings all the game's seats
    too: `seats_of` answers from them for the rest of the transaction. `lock=True`: the game row
    is locked first (`_LOCK_GAME_OF_TOKEN`), for a use case that changes the game or its seats."""
    if not tokens.looks_like_token(token):
        raise NotFound(_("This link is not valid. It may have been replaced by a newer one."))
    token_hash = tokens.hash_token(token)
    if lock and _row_locks(s):
        s.exec(_LOCK_GAME_OF_TOKEN, params={"token_hash": token_hash}).all()
    rows = s.exec(_SEATS_OF_TOKEN, params={"token_hash": token_hash}).all()
    seats = [seat for seat, _game in rows]
    seat = next((r for r in seats if r.token_hash == token_hash), None)
    if seat is None:
        raise NotFound(_("This link is not valid. It may have been replaced by a newer one."))
    s.info.setdefault("seats_of", {})[seat.game_id] = seats
    use_seat(seat.lang)  # a request for this seat speaks its language from here on (issue 17)
    return seat, rows[0][1]


def lock_game(s: Session, game_id: str) -> None:
    """Lock the game row (as `seat_by_token(..., lock=True)` does) for a use case that found its
    game another way (a reply mail's address, a clock's deadline row)."""
    if _row_locks(s):
        s.exec(_LOCK_GAME, params={"game_id": game_id}).all()


def _row_locks(s: Session) -> bool:
    """Whether the database needs the game row's lock statement: SQLite's write transaction (`BEGIN
    IMMEDIATE`) holds the whole database already, and it has no FOR UPDATE (the statement would be a
    plain SELECT, one query for nothing)."""
    return s.get_bind().dialect.name != "sqlite"


def seats_of(s: Session, game_id: str) -> list[SeatRow]:
    """The game's seats in order (from `seat_by_token`'s load when this transaction made it: a game
    never gains or loses seats after it was created, and these are the same ORM objects)."""
    known = s.info.get("seats_of", {}).get(game_id)
    if known is not None:
        return list(known)
    return list(s.exec(_SEATS_OF_GAME, params={"game_id": game_id}))


def seat_at(s: Session, game_id: str, seat: int) -> SeatRow | None:
    """The game's seat with engine seat number `seat` (None: no such seat)."""
    return s.exec(_SEAT_AT, params={"game_id": game_id, "seat": seat}).first()


def load_engine_game(game: GameRow) -> engine.Game:
    """The engine game from the saved state: all a move needs. Its event log and move list hold only
    what the state had when the game was dealt (see `moves.decide`); `full_game` adds the rest."""
    return engine.Game.from_json(game.state)


def full_game(s: Session, game: GameRow) -> engine.Game:
    """The engine game with its whole event log: the saved state's log (as it was when the game was
    dealt, or for games saved before move rows carried events, as it was then; their rows have
    NULL), then the events of the move rows."""
    return log_by_move(s, game)[0]


def log_by_move(s: Session, game: GameRow, *, current_round: bool = False,
                g: engine.Game | None = None) -> tuple[engine.Game, dict[int, int], int]:
    """`full_game`, with where each move left the log: the log's length after each move row (by its
    number, which is the game version after it) and before the first one (pages place the table
    talk by the version it came with). `current_round=True`: only the current round's events (from
    its `round_start` event on; the move rows from the version the round was dealt at), so a page
    costs what the round costs, not what the game does. `g`: the engine game of `game`, decoded
    already (its log is extended in place)."""
    g = g if g is not None else load_engine_game(game)
    since = g.round_start if current_round else 0
    start = len(g.log)
    after: dict[int, int] = {}
    for number, events in s.exec(_EVENTS, params={"game_id": game.id, "since": since}):
        g.log.extend(events or ())  # NULL (or JSON null): no events on this row
        after[number] = len(g.log)
    if current_round:  # the saved state's deal-time log and the end of the round before go
        first = next((i for i in range(len(g.log) - 1, -1, -1) if g.log[i].get("type") == "round_start"), 0)
        del g.log[:first]
        start = max(0, start - first)
        after = {n: at - first for n, at in after.items()}
    return g, after, start


def seat_view(g: engine.Game, seat: int | None) -> dict:
    """What a mail or page of `seat` shows (None: a spectator): its view without the event log, and
    the game's public deal facts (`deals`: the round's seal and the seeds of the rounds that are
    over, `engine.deals.proof`, issue 32.1)."""
    return {**engine.view(g, seat, log=False), "deals": deals.proof(g)}


def view_for(s: Session, game: GameRow, seat: int | None) -> dict:
    """The seat's (or a spectator's) view of the saved state, without the event log (the page of an
    address's games, issue 31.4; a board's log comes from `talk.board`, the current round's)."""
    return engine.view(load_engine_game(game), seat, log=False)


def deadline_of(game: GameRow):
    return game.updated_at + timedelta(hours=game.decision_hours)
