"""The board page's reads (issue 33.2): everything a seat's page or the spectator page shows, in
the caller's one read transaction, with one seat lookup (`lookups.seat_by_token`).

* `seat_board(s, token, done=..., whole_log=...)`: a seat's page: the seat, its game and seats,
  the view and timeline (`talk.board`: the current round's events unless `whole_log`) and the
  others' events since the seat's own last move (issue 28.1: the page marks what they changed), the
  decision of this seat that brought the game to version `done` and its events (the "Done:" box
  after a Confirm says what it did, issue 28.2), the clock's lines (`clock_service.board_clock`) and, before the deal, the game this
  one is a rematch of.
* `watch_board(s, game_id, token, whole_log=...)`: the spectator page's (None: not a valid link).
* `round_check(s, token, number)`: a seat's page "check this round" (issue 32.1): the round's
  commitment and revealed seed, whether the game's deal record checks for it, and that record.
* `seat_game`, `watched_game`, `public_version`: a game without its view, for the rules pages and
  the waiting pages' poll (issue 28.5, 28.6).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from flask_babel import gettext as _
from sqlmodel import Session, select

from engine import deals
from service.play import clock_service, games, moves, talk
from service.play.errors import NotFound
from service.play.lookups import load_engine_game, seat_by_token, seats_of
from service.store import tokens
from service.store.models import GameRow, MoveRow, SeatRow


@dataclass
class Board:
    game: GameRow
    seats: list[SeatRow]
    seat: SeatRow | None = None  # None: a spectator
    view: dict | None = None  # None: not dealt (inviting, cancelled)
    timeline: list[dict] = field(default_factory=list)
    since: list[dict] = field(default_factory=list)  # the others' events since the seat's own last move
    done: list[str] = field(default_factory=list)  # the moves of the decision `done` names ([]: none)
    done_events: list[dict] = field(default_factory=list)  # that decision's public events (issue 28.2)
    clock: dict = field(default_factory=dict)
    rematch_of: str | None = None


def seat_board(s: Session, token: str, *, done: int | None = None, whole_log: bool = False) -> Board:
    seat, game = seat_by_token(s, token)
    page = Board(game=game, seats=seats_of(s, game.id), seat=seat)
    if game.status in {"inviting", "cancelled"} or game.state is None:
        page.rematch_of = games.rematch_of_title(s, game)
        return page
    page.view, page.timeline, page.since = talk.board(s, game, seat.seat, whole_log=whole_log)
    if done is not None:
        page.done = moves.decision_at(s, game, seat, done)
        if page.done:  # what it did: the card, a removed column, the round's end and scores
            page.done_events = s.exec(select(MoveRow.events).where(MoveRow.game_id == game.id,
                                                                   MoveRow.number == done)).one() or []
    page.clock = clock_service.board_clock(s, game, seat if seat.seat is not None else None)
    return page


def watch_board(s: Session, game_id: str, token: str, *, whole_log: bool = False) -> Board | None:
    game = s.get(GameRow, game_id)
    if game is None or not tokens.check_spectator(game.id, game.spectator_salt, token):
        return None
    page = Board(game=game, seats=seats_of(s, game.id))
    if game.state is not None:
        page.view, page.timeline, _since = talk.board(s, game, None, whole_log=whole_log)
        page.clock = clock_service.board_clock(s, game, None)
    return page


def seat_game(s: Session, token: str) -> tuple[SeatRow, GameRow]:
    """A seat's game for its rules page and its version poll (issue 28.5, 28.6): no view is made."""
    return seat_by_token(s, token)


def round_check(s: Session, token: str, number: int) -> dict:
    """Issue 32.1: round `number` of the seat's game checked (`engine.deals.verify` on the game's
    deal record, the rounds that are over): `round`, `commitment`, `fingerprint`, `seed`, `checks`
    (True: the seed matches the commitment and gives the deal and reshuffles played), `game` and the
    deal record (`record`). NotFound for a round that is not over (its seed is still secret)."""
    _seat, game = seat_by_token(s, token)
    g = load_engine_game(game) if game.state is not None else None
    if g is None or not 1 <= number <= len(g.rounds):
        raise NotFound(_("Round %(n)s is not over: its seed is shown when it is.", n=number))
    record = deals.deal_record(g)
    sealed = deals.proof(g)["revealed"][number - 1]
    checks = not any(n == number for n, _problem in deals.verify(record))
    return {**sealed, "checks": checks, "game": game, "record": record}


def watched_game(s: Session, game_id: str, token: str) -> GameRow | None:
    """The game a spectator link shows (None: not a valid link), without its view."""
    game = s.get(GameRow, game_id)
    if game is None or not tokens.check_spectator(game.id, game.spectator_salt, token):
        return None
    return game


def public_version(game: GameRow) -> dict:
    """What a waiting page polls (issue 28.6): the game's status and version, both public (every
    page's forms carry the version); a page reloads when they change. Nothing hidden, no view."""
    return {"status": game.status, "version": game.version}
