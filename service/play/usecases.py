"""Use cases: one function per thing a person can do. Each runs inside a transaction the caller opens
with `db.transaction(write=True)`; mails go into the outbox in that same transaction, so a mail exists
iff the change committed.

Rendering (pages, mails) only ever sees `engine.view(game, seat)`.
"""

from __future__ import annotations

from contextlib import nullcontext
from dataclasses import dataclass, field
from datetime import timedelta

from flask_babel import gettext as _
from sqlalchemy import JSON, and_, bindparam, case, event, exists, func, insert, update
from sqlalchemy.engine import Connection
from sqlmodel import Session, select

import engine
from engine.view import with_text
from service.clock import core as clock
from service.mail import compose as mails
from service.mail import outbox
from service.play import clock_service
from service.render import board as render
from service.store import tokens
from service.store.clock_models import SeatClock
from service.store.db import CoreTx, NeedsSession
from service.store.direct import batch, direct
from service.store.models import GameRow, GameSnapshot, MoveRow, SeatRow, SeatSnapshot, holds, utcnow

MAX_PLAYERS = 8
MIN_PLAYERS = 2


class UseCaseError(Exception):
    status = 400

    def __init__(self, message: str, **context):
        super().__init__(message)
        self.message = message
        self.context = context


class Invalid(UseCaseError):
    status = 400


class NotFound(UseCaseError):
    status = 404


class Forbidden(UseCaseError):
    status = 403


class Conflict(UseCaseError):
    status = 409


# ---------------------------------------------------------------------------------------------------
# lookups


# Built once (statement construction costs more than running them on SQLite): every seat of the game
# a token belongs to, each with that game; a game's seats.
_SEATS_OF_TOKEN = (select(SeatRow, GameRow).join(GameRow, GameRow.id == SeatRow.game_id)
                   .where(SeatRow.game_id == select(SeatRow.game_id)
                          .where(SeatRow.token_hash == bindparam("token_hash")).scalar_subquery())
                   .order_by(SeatRow.position))
_SEATS_OF_GAME = select(SeatRow).where(SeatRow.game_id == bindparam("game_id")).order_by(SeatRow.position)


@event.listens_for(Session, "after_transaction_end")
def _forget_seats(session: Session, transaction) -> None:
    """`seats_of`'s answers hold for one transaction only (a session may live through several)."""
    if transaction.parent is None:
        session.info.pop("seats_of", None)


def seat_by_token(s: Session, token: str, *, for_update: bool = False) -> tuple[SeatRow, GameRow]:
    """The seat a link token belongs to and its game, in one query that brings all the game's seats
    too: `seats_of` answers from them for the rest of the transaction."""
    if not tokens.looks_like_token(token):
        raise NotFound(_("This link is not valid. It may have been replaced by a newer one."))
    token_hash = tokens.hash_token(token)
    rows = s.exec(_SEATS_OF_TOKEN, params={"token_hash": token_hash}).all()
    seats = [seat for seat, _game in rows]
    seat = next((r for r in seats if r.token_hash == token_hash), None)
    if seat is None:
        raise NotFound(_("This link is not valid. It may have been replaced by a newer one."))
    s.info.setdefault("seats_of", {})[seat.game_id] = seats
    return seat, rows[0][1]


def seats_of(s: Session, game_id: str) -> list[SeatRow]:
    """The game's seats in order (from `seat_by_token`'s load when this transaction made it: a game
    never gains or loses seats after it was created, and these are the same ORM objects)."""
    known = s.info.get("seats_of", {}).get(game_id)
    if known is not None:
        return list(known)
    return list(s.exec(_SEATS_OF_GAME, params={"game_id": game_id}))


_GT, _ST, _CT = GameRow.__table__, SeatRow.__table__, SeatClock.__table__
# What a move needs of the game and its seats: not the deal (`record`, `setup`) nor the creation
# times; and each seat's clock (`clock.SeatState`: the clock's step of a routine move needs no query
# of its own). The game's JSON columns come on the moving seat's row only, so they are decoded once.
_SNAP_SEAT_COLS = [c for c in _ST.c if c.key != "created_at"]
_SNAP_GAME_COLS = [c for c in _GT.c if c.key not in {"record", "setup", "created_at", "updated_at", "clock_next_at"}]
_SNAP_CLOCK_COLS = [_CT.c.seat, _CT.c.tz, _CT.c.mail_pref, _CT.c.consecutive_timeouts, _CT.c.bot_played,
                    _CT.c.vacation_until]
_MINE = _ST.c.token_hash == bindparam("token_hash")
_SEAT_SNAPSHOTS_OF_TOKEN = (
    select(*_SNAP_SEAT_COLS, *(case((_MINE, c)).label(f"g_{c.key}") if isinstance(c.type, JSON) else c.label(f"g_{c.key}")
                               for c in _SNAP_GAME_COLS),
           *(c.label(f"c_{c.key}") for c in _SNAP_CLOCK_COLS))
    .join(_GT, _GT.c.id == _ST.c.game_id)
    .outerjoin(_CT, and_(_CT.c.game_id == _ST.c.game_id, _CT.c.seat == _ST.c.seat))
    .where(_ST.c.game_id == select(_ST.c.game_id).where(_MINE).scalar_subquery())
    .order_by(_ST.c.position))
_SEAT_KEYS = [c.key for c in _SNAP_SEAT_COLS]
_GAME_KEYS = [c.key for c in _SNAP_GAME_COLS]
_TOKEN_HASH_AT = _SEAT_KEYS.index("token_hash")


def snapshots_by_token(conn: Connection, token_hash: str
                       ) -> tuple[GameSnapshot, list[SeatSnapshot], dict[int, clock.SeatState]] | None:
    """The game a token hash belongs to (without its deal and creation times), all its seats
    (without their creation times) and their clocks by engine seat, in one Core query (None: no
    such seat)."""
    rows = direct(conn, _SEAT_SNAPSHOTS_OF_TOKEN, {"token_hash": token_hash}).rows
    mine = next((r for r in rows if r[_TOKEN_HASH_AT] == token_hash), None)
    if mine is None:
        return None
    n, m = len(_SEAT_KEYS), len(_SEAT_KEYS) + len(_GAME_KEYS)
    seats = [SeatSnapshot(**dict(zip(_SEAT_KEYS, r[:n], strict=True))) for r in rows]
    game = GameSnapshot(**dict(zip(_GAME_KEYS, mine[n:m], strict=True)))
    clocks = {r[m]: clock.SeatState(*r[m:]) for r in rows if r[m] is not None}
    return game, seats, clocks


def game_title(names: list[str]) -> str:
    if len(names) == 1:
        joined = names[0]
    else:
        joined = _("%(first)s and %(last)s", first=", ".join(names[:-1]), last=names[-1])
    return _("SKYJO with %(names)s", names=joined)


def load_engine_game(game: GameRow) -> engine.Game:
    """The engine game from the saved state: all a move needs. Its event log and move list hold only
    what the state had when the game was dealt (see `save_moves`); `full_game` adds the rest."""
    return engine.Game.from_json(game.state)


_EVENTS = select(MoveRow.events).where(MoveRow.game_id == bindparam("game_id")).order_by(MoveRow.number)


def full_game(s: Session, game: GameRow) -> engine.Game:
    """The engine game with its whole event log: the saved state's log (as it was when the game was
    dealt, or for games saved before move rows carried events, as it was then; their rows have
    NULL), then the events of the move rows."""
    g = load_engine_game(game)
    for events in s.exec(_EVENTS, params={"game_id": game.id}):
        g.log.extend(events or ())  # NULL (or JSON null): no events on this row
    return g


def view_for(s: Session, game: GameRow, seat: int | None) -> dict:
    """What pages show: the seat's (or a spectator's) view, with the whole event log."""
    return engine.view(full_game(s, game), seat)


def default_options(variant: str = "classic") -> dict:
    g = engine.new_game(["A", "B"], variant=variant, seed=1)
    return dict(engine.view(g, None)["options"])


# ---------------------------------------------------------------------------------------------------
# new game and invitations


@dataclass
class Created:
    game: GameRow
    tokens: dict[int, str] = field(default_factory=dict)  # position -> token


def create_game(s: Session, *, host_name: str, host_email: str, players: list[tuple[str, str]],
                variant: str = "classic", options: dict | None = None, decision_hours: int = 48,
                setup: dict | None = None, rematch_of: str | None = None, host_tz: str | None = None,
                reminder_hours: list | None = None, timeout_policy: str = "bot") -> Created:
    everyone = [(host_name.strip(), host_email.strip())] + [(n.strip(), e.strip()) for n, e in players]
    if not MIN_PLAYERS <= len(everyone) <= MAX_PLAYERS:
        raise Invalid(_("A game needs 2 to 8 players."))
    emails = [e.lower() for _n, e in everyone]
    if len(set(emails)) != len(emails):
        raise Invalid(_("Every player needs a different email address."))
    names = [n for n, _e in everyone]
    if len({n.casefold() for n in names}) != len(names):
        raise Invalid(_("Every player needs a different name."))
    try:  # validate variant and options with the engine itself (the game is dealt later)
        engine.new_game(names, variant=variant, options=options or {}, seed=1)
    except ValueError as exc:
        raise Invalid(str(exc)) from exc
    if host_tz is not None and not clock.valid_zone(host_tz):
        raise Invalid(_("Unknown time zone."))
    reminder_hours = [24, 4] if reminder_hours is None else list(reminder_hours)
    try:
        clock.ClockSettings.from_hours(decision_hours, reminder_hours, timeout_policy)
    except clock.ClockError as exc:
        raise Invalid(_("The clock settings are not valid: %(why)s", why=str(exc))) from exc
    game = GameRow(id=tokens.new_game_id(), variant=variant, options=dict(options or {}),
                   decision_hours=decision_hours, title=game_title(names), setup=dict(setup or {}),
                   spectator_salt=tokens.new_salt(), rematch_of=rematch_of, reminder_hours=reminder_hours,
                   timeout_policy=timeout_policy)
    s.add(game)
    created = Created(game)
    seat_rows = []
    for pos, (name, email) in enumerate(everyone):
        salt = tokens.new_salt()
        token = tokens.seat_token(salt)
        row = SeatRow(game_id=game.id, position=pos, name=name, email=email, is_host=pos == 0,
                      status="accepted" if pos == 0 else "invited", token_salt=salt,
                      token_hash=tokens.hash_token(token), tz=host_tz if pos == 0 else None)
        s.add(row)
        seat_rows.append(row)
        created.tokens[pos] = token
    s.flush()
    host = seat_rows[0]
    for row in seat_rows[1:]:
        mails.invitation(s, game, row, host, seat_rows)
    mails.host_created(s, game, host, seat_rows)
    return created


def _check_deal(s: Session, game: GameRow, seats: list[SeatRow]) -> None:
    live = [r for r in seats if r.status != "declined"]
    if len(live) < MIN_PLAYERS:
        game.status = "cancelled"
        game.updated_at = utcnow()
        for r in live:
            mails.notice(s, game, r, _("The game is cancelled: not enough players accepted."))
        return
    if all(r.status == "accepted" for r in live):
        deal(s, game, seats)


def deal(s: Session, game: GameRow, seats: list[SeatRow]) -> engine.Game:
    players = [r for r in seats if r.status == "accepted"]
    for i, r in enumerate(players):
        r.seat = i
    g = engine.new_game([r.name for r in players], variant=game.variant, options=game.options,
                        seed=game.setup.get("seed"), deals=game.setup.get("deals"))
    game.state = g.to_json()
    game.record = g.record()
    game.version = g.version
    game.status = "active"
    game.updated_at = utcnow()
    s.flush()
    clock_service.dealt(s, game, seats, g)  # deadlines first: the turn mails show them
    for r in players:
        mails.decision_or_nothing(s, game, r, g, first=True)
    return g


def accept(s: Session, token: str, tz: str | None = None) -> tuple[SeatRow, GameRow]:
    """`tz`: the player's time zone (IANA name; None = the host's)."""
    if tz is not None and not clock.valid_zone(tz):
        raise Invalid(_("Unknown time zone."))
    seat, game = seat_by_token(s, token)
    if game.status != "inviting":
        raise Conflict(_("This game is no longer waiting for answers."))
    if seat.status == "accepted":
        return seat, game
    if seat.status == "declined":
        raise Conflict(_("You already declined this invitation."))
    seat.status = "accepted"
    seat.tz = tz or seat.tz
    seats = seats_of(s, game.id)
    host = next(r for r in seats if r.is_host)
    mails.notice(s, game, host, _("%(name)s accepted the invitation.", name=seat.name))
    _check_deal(s, game, seats)
    return seat, game


def decline(s: Session, token: str) -> tuple[SeatRow, GameRow]:
    seat, game = seat_by_token(s, token)
    if game.status != "inviting":
        raise Conflict(_("This game is no longer waiting for answers."))
    if seat.is_host:
        raise Invalid(_("The host cannot decline; cancel the game instead."))
    if seat.status == "declined":
        return seat, game
    seat.status = "declined"
    seats = seats_of(s, game.id)
    host = next(r for r in seats if r.is_host)
    mails.notice(s, game, host, _("%(name)s declined the invitation.", name=seat.name))
    _check_deal(s, game, seats)
    return seat, game


def cancel(s: Session, token: str) -> GameRow:
    seat, game = seat_by_token(s, token)
    if not seat.is_host:
        raise Forbidden(_("Only the host can cancel the game."))
    if game.status != "inviting":
        raise Conflict(_("Only a game that has not started yet can be cancelled."))
    game.status = "cancelled"
    game.updated_at = utcnow()
    for r in seats_of(s, game.id):
        if r.status != "declined" and not r.is_host:
            mails.notice(s, game, r, _("%(name)s cancelled the game.", name=seat.name))
    return game


# ---------------------------------------------------------------------------------------------------
# moves


def parse_slug(slug: str, game: engine.Game | None = None) -> list[str]:
    """Move texts of a link: `take-swap-B2` -> ["take", "swap B2"]; canonical when the engine game is
    given (its variant's grammar). Raises NotFound for a malformed link."""
    texts = render.texts_of_slug(slug)
    if texts is None:
        raise NotFound(_("This move link is not valid."))
    if game is None:
        return texts
    try:
        return [str(game.parse_move(t)) for t in texts]
    except ValueError as exc:
        raise NotFound(_("This move link is not valid.")) from exc


def stale_reason(s: Session, game: GameRow, seat: SeatRow, moves: list[str], expected_version: int,
                 *, check_legal: bool = True) -> str | None:
    """Why a move link (made at `expected_version`) can no longer be used, or None if it can.

    A link stays good while its seat has not moved since it was made: in the opening every seat
    decides at once, and another seat's reveal must not spoil this seat's links."""
    if game.status == "inviting":
        return _("The game has not started yet.")
    if game.status == "cancelled":
        return _("This game was cancelled.")
    if game.status == "finished":
        return _("The game is over.")
    if seat.seat is None:
        return _("You are not playing in this game.")
    if expected_version > game.version or expected_version < 0:
        return _("This move link is not valid.")
    if expected_version == game.version:
        mine_since = None  # nothing was played since the link was made
    else:
        mine_since = s.exec(select(MoveRow).where(MoveRow.game_id == game.id, MoveRow.seat == seat.seat,
                                                  MoveRow.version_before >= expected_version)
                            .order_by(MoveRow.number)).first()
    if mine_since is not None:
        return _("You already played “%(move)s” here; this link is used up.", move=mine_since.move)
    if check_legal:
        g = load_engine_game(game)
        try:
            first = g.parse_move(moves[0])
        except ValueError:
            return _("This move link is not valid.")
        if first not in g.legal_moves(seat.seat):
            pending = g.pending()
            if not pending:
                return _("The game is over.")
            waiting = sorted({p.seat for p in pending})
            names = ", ".join(g.names[i] for i in waiting)
            if seat.seat not in waiting:
                return _("It is not your move: waiting for %(names)s.", names=names)
            return _("“%(move)s” is not possible now.", move=" + ".join(moves))
    return None


@dataclass
class Played:
    game: GameRow
    seat: SeatRow
    moves: list[str]
    events: list[dict]


def play(s: Session, token: str, slug: str, expected_version: int, *, form_game: str | None = None,
         form_seat: int | None = None) -> Played:
    """Apply one decision (one engine move, or `take` + `swap X`) exactly once. A form POST also
    names the game and seat it was made for: they must match the token's."""
    seat, game = seat_by_token(s, token)
    if form_game is not None and (form_game != game.id or form_seat != seat.seat):
        raise Invalid(_("This form does not belong to this game."))
    g = load_engine_game(game) if game.state is not None else None
    moves = parse_slug(slug, g)
    if game.status == "inviting":
        raise Conflict(_("The game has not started yet."), game=game, seat=seat)
    if game.status == "cancelled":
        raise Conflict(_("This game was cancelled."), game=game, seat=seat)
    if game.status == "finished":
        raise Conflict(_("The game is over."), game=game, seat=seat)
    if seat.seat is None:
        raise Forbidden(_("You are not playing in this game."))
    reason = stale_reason(s, game, seat, moves, expected_version, check_legal=False)
    if reason:
        raise Conflict(reason, game=game, seat=seat)
    before_version = g.version
    if before_version != game.version:
        raise RuntimeError("stored version and engine version disagree")
    pending_before = {p.seat for p in g.pending()}
    try:
        events = apply_moves(g, seat.seat, moves)  # a private copy just loaded from JSON: in place
    except (engine.IllegalMove, engine.MoveParseError) as exc:
        raise Conflict(str(exc), game=game, seat=seat) from exc
    save_moves(s, game, seat, before_version, g, moves, pending_before, events)
    return Played(game, seat, moves, events)


def apply_moves(g: engine.Game, seat: int, moves: list[str]) -> list[dict]:
    """Play one decision's moves on `g` in place; their events, with the text players read."""
    events: list[dict] = []
    for m in moves:
        events.extend(with_text(e, g.names) for e in g.play(seat, m))
    return events


@dataclass
class Prepared:
    """A move link's decision applied to a private copy of the engine game, not saved yet."""
    token_hash: str
    seat: SeatSnapshot
    game: GameSnapshot
    seats: list[SeatSnapshot]
    new: engine.Game
    moves: list[str]
    pending_before: set[int]
    events: list[dict]
    clocks: dict[int, clock.SeatState]  # the seats' clocks, read with the game
    log0: int  # the length of the saved state's event log (see `save_moves`)


def prepare_link_move(conn: Connection, token: str, slug: str, expected_version: int, *,
                      form_game: str | None, form_seat: int | None) -> Prepared | None:
    """The common case of a move link's POST, read-only and with Core: the link is current (made at
    the game's version), the form is the link's, the game is on and the engine takes the moves.
    Returns the decision ready for `save_prepared`, or None when anything is off: then `play` (in a
    write transaction) decides, and says what is wrong. It reads with ONE statement (game and seats
    together), so `conn` need not be in a transaction (see `db.single_read`)."""
    if not tokens.looks_like_token(token):
        return None
    token_hash = tokens.hash_token(token)
    found = snapshots_by_token(conn, token_hash)
    if found is None:
        return None
    game, seats, clocks = found
    seat = next(r for r in seats if r.token_hash == token_hash)
    if (game.status != "active" or game.state is None or seat.seat is None or form_game != game.id
            or form_seat != seat.seat or expected_version != game.version):
        return None
    log0 = len(game.state["log"])
    g = engine.Game.from_json(game.state, copy=False)  # the state was just decoded for this request alone
    if g.version != game.version:
        return None
    texts = render.texts_of_slug(slug)
    pending_before = {p.seat for p in g.pending()}
    try:
        moves = [str(g.parse_move(t)) for t in texts or ()]
        events = apply_moves(g, seat.seat, moves)
    except ValueError:  # a malformed link, an illegal move: `play` says which
        return None
    if not moves:
        return None
    return Prepared(token_hash, seat, game, seats, g, moves, pending_before, events, clocks, log0)


def save_prepared(s: Session | CoreTx, p: Prepared) -> Played | None:
    """Write a decision `prepare_link_move` made (all its writes in `s`'s transaction, which may
    begin after the read: on SQLite the read runs before the writer's lock). Returns None, having
    written nothing, when the game moved on or the link's seat changed since (a rotated token):
    the version UPDATE checks both, so no second read is needed; `play` decides then. In a `CoreTx`
    a move that needs the ORM raises `db.NeedsSession` (game over, a returning timed-out player)."""
    try:
        save_moves(s, p.game, p.seat, p.game.version, p.new, p.moves, p.pending_before, p.events, seats=p.seats,
                   token_hash=p.token_hash, clocks=p.clocks, log0=p.log0)
    except Conflict:  # the conditional UPDATE found another version or seat: nothing was written
        return None
    return Played(p.game, p.seat, p.moves, p.events)


_GT_C, _ST_C = GameRow.__table__.c, SeatRow.__table__.c
_SAVE_STATE = (update(GameRow.__table__)
               .where(_GT_C.id == bindparam("game_id"), _GT_C.version == bindparam("before"))
               .values(state=bindparam("state"), version=bindparam("version"),
                       updated_at=bindparam("updated_at"), status=bindparam("status")))
# A game row read in this transaction (`play`, plans, replies, timeouts): the clock's columns as
# they are now come back (on PostgreSQL the sweep may have moved a held decision to the clock's
# table since the read; the UPDATE's row lock holds them from here on).
_SAVE_GAME = _SAVE_STATE.returning(_GT_C.clock_held, _GT_C.clock_rows)
# A decision prepared before the write transaction began (`save_prepared`): only while the link's
# token still belongs to the moving seat and the clock's columns are as read (a held decision moved
# to the clock's table meanwhile sets `clock_rows`); then `play` decides.
_SAVE_GAME_OF_SEAT = _SAVE_STATE.where(
    exists().where(_ST_C.game_id == _GT_C.id, _ST_C.token_hash == bindparam("token_hash"),
                   _ST_C.seat == bindparam("seat")),
    _GT_C.clock_rows == bindparam("clock_rows_read"))
# the same, with the decision the move hands on held on the game row (`clock_service.hold_candidate`)
_SAVE_GAME_OF_SEAT_HOLDING = _SAVE_GAME_OF_SEAT.values(clock_held=bindparam("held"),
                                                       clock_next_at=bindparam("held_next_at"))
_LOG_MOVE = insert(MoveRow.__table__).inline()  # no RETURNING: nothing reads the new ids


def save_moves(s: Session | CoreTx, game: GameRow | GameSnapshot, seat: SeatRow | SeatSnapshot, before_version: int,
               new: engine.Game, moves: list[str], pending_before: set[int], events: list[dict], *,
               seats: list | None = None, token_hash: str | None = None,
               clocks: dict[int, clock.SeatState] | None = None, log0: int | None = None) -> None:
    """The shared tail of every applied decision (link POST, plan form, reply mail): the conditional
    version UPDATE, one MoveRow per step, then the mails (and the clock) in the same transaction.
    `seats`: the game's seats (default: `seats_of`). `token_hash`: the UPDATE also checks that this
    token still belongs to `seat` (when the seat was read before this transaction). `clocks`: the
    seats' clocks read with them; then a routine move's clock step is the held decision its UPDATE
    writes (`clock_service.hold_candidate`), with no clock statement at all. `log0`: the length of
    the saved state's event log (default: read from `game.state`, which must then be as loaded).
    `new` is not played on after this (its state is saved without a copy)."""
    now = utcnow()
    new_state = new.to_json(copy=False)
    # the event log stays in the move log: the state keeps the log it was loaded with, and this
    # decision's events go on its last move row (usecases.full_game puts them together again)
    if log0 is None:
        log0 = len(game.state["log"])
    history = new_state["log"][log0:]
    new_state["log"] = new_state["log"][:log0]
    new_status = "finished" if new.is_over else "active"
    conn = s.connection()
    values = {"game_id": game.id, "before": before_version, "state": new_state, "version": new.version,
              "updated_at": now, "status": new_status}
    held = None
    if token_hash is None:
        res = direct(conn, _SAVE_GAME, values)
        for row in res.rows:  # the clock's columns as they are now (see _SAVE_GAME)
            for key, value in zip(("clock_held", "clock_rows"), row, strict=True):
                holds(game, key, value)
    else:
        values.update(token_hash=token_hash, seat=seat.seat, clock_rows_read=game.clock_rows)
        if clocks is not None:
            held = clock_service.hold_candidate(game, new, seat.seat, clocks, now)
        if held is None:
            res = direct(conn, _SAVE_GAME_OF_SEAT, values)
        else:
            held_data = clock.held_json(held)
            res = direct(conn, _SAVE_GAME_OF_SEAT_HOLDING, {**values, "held": held_data, "held_next_at": held["next_at"]})
    if res.rowcount != 1:
        raise Conflict(_("Somebody else moved at the same moment. Here is the current board."),
                       game=game, seat=seat)
    # the row now holds these values: tell the session without another SELECT of the state
    changed = [("state", new_state), ("version", new.version), ("updated_at", now), ("status", new_status)]
    if held is not None:
        changed += [("clock_held", held_data), ("clock_next_at", held["next_at"])]
    for key, value in changed:
        holds(game, key, value)
    if seats is None:
        seats = seats_of(s, game.id)
    s.flush()  # whatever the session holds is written now: the batches below run `direct` statements only
    move_rows = [{"game_id": game.id, "number": before_version + i, "seat": seat.seat, "move": m,
                  "version_before": before_version + i - 1, "created_at": now,
                  "events": history if i == len(moves) else None}
                 for i, m in enumerate(moves, start=1)]
    if held is not None:  # the move log and the mails: one round trip on PostgreSQL
        with batch(conn):
            direct(conn, _LOG_MOVE, move_rows)
            mails.after_move(s, game, seats, pending_before, new, seat.seat, events,
                             clock_status=clock_service.held_status(clocks, held, now))
            outbox.flush_mails(s)
        return
    # the move log (one INSERT for the decision's steps) and the clock's read: one round trip on PostgreSQL
    with batch(conn):
        direct(conn, _LOG_MOVE, move_rows)
        known = clock_service.clock_of(s, game, new)
    routine = clock_service.routine(new, seat.seat, known)
    if not routine and isinstance(s, CoreTx):
        raise NeedsSession("game over, or a seat's timeouts to reset: the clock's ORM path")
    # the deadlines, then the mails: in a routine move only writes, sent in one round trip too
    with batch(conn) if routine else nullcontext():
        status = clock_service.moved(s, game, new, seat.seat, known=known)
        mails.after_move(s, game, seats, pending_before, new, seat.seat, events, clock_status=status)
        outbox.flush_mails(s)


def decision_at(s: Session, game: GameRow, seat: SeatRow, version: int) -> list[str]:
    """The moves of `seat`'s decision that brought the game to `version` (e.g. ["take", "swap B2"]),
    or [] when no decision of this seat ends there."""
    rows = s.exec(select(MoveRow).where(MoveRow.game_id == game.id, MoveRow.number <= version,
                                        MoveRow.number > version - 2).order_by(MoveRow.number)).all()
    rows = [r for r in rows if r.seat == seat.seat]
    if not rows or rows[-1].number != version:
        return []
    last = rows[-1]
    return [r.move for r in rows if r.created_at == last.created_at]


@dataclass
class PlanPlayed(Played):
    plan_text: str = ""


def play_plan_for(s: Session, seat: SeatRow, game: GameRow, text: str, expected_version: int) -> PlanPlayed:
    """Apply a whole turn written as a plan (`draw: if 4 or less swap B2, else flip C3`) for a seat
    already identified (reply address or link token), exactly once and all-or-nothing. Raises
    Conflict (with `stale=True` when the game moved on since `expected_version`) or Invalid with a
    message for the player; nothing is applied then. Messages never name the drawn card."""
    from engine.plans import parse_plan

    reason = stale_reason(s, game, seat, [], expected_version, check_legal=False)
    if reason:
        raise Conflict(reason, game=game, seat=seat, stale=True)
    if not (text or "").strip():
        raise Invalid(_("No move found: write your move on the first line, e.g. “draw swap B2”."),
                      game=game, seat=seat)
    g = load_engine_game(game)
    before_version = g.version
    if before_version != game.version:
        raise RuntimeError("stored version and engine version disagree")
    pending_before = {p.seat for p in g.pending()}
    try:
        plan = parse_plan(g, seat.seat, text)
        steps = plan.apply(g, seat.seat)  # validated first; all-or-nothing on this private copy
    except engine.EngineError as exc:
        raise Invalid(str(exc), game=game, seat=seat) from exc
    moves = [m.text() for m, _events in steps]
    events = [e for _m, evs in steps for e in evs]
    save_moves(s, game, seat, before_version, g, moves, pending_before, events)
    return PlanPlayed(game, seat, moves, events, plan_text=plan.text())


def play_plan(s: Session, token: str, text: str, expected_version: int, *, form_game: str | None = None,
              form_seat: int | None = None) -> PlanPlayed:
    """The whole-turn form of the web board (same checks as a move link's POST)."""
    seat, game = seat_by_token(s, token)
    if form_game is not None and (form_game != game.id or form_seat != seat.seat):
        raise Invalid(_("This form does not belong to this game."))
    return play_plan_for(s, seat, game, text, expected_version)


def export_record(s: Session, game_id: str) -> dict:
    game = s.get(GameRow, game_id)
    if game is None or game.record is None:
        raise NotFound(_("No such game, or it has not been dealt yet."))
    moves = s.exec(select(MoveRow).where(MoveRow.game_id == game_id).order_by(MoveRow.number)).all()
    record = dict(game.record)
    record["moves"] = list(record.get("moves") or []) + [f"{m.seat}: {m.move}" for m in moves]
    return record


# ---------------------------------------------------------------------------------------------------
# seats: tokens, preferences, links


def rotate_token(s: Session, token: str) -> tuple[SeatRow, str]:
    seat, game = seat_by_token(s, token)
    seat.token_salt = tokens.new_salt()
    new = tokens.seat_token(seat.token_salt)
    seat.token_hash = tokens.hash_token(new)
    clock_service.player_acted(s, game, seat)
    mails.new_link(s, game, seat)
    return seat, new


def set_mail_pref(s: Session, token: str, pref: str) -> SeatRow:
    if pref not in {"every", "digest", "off"}:
        raise Invalid(_("Unknown mail preference."))
    seat, game = seat_by_token(s, token)
    seat.mail_pref = pref
    clock_service.player_acted(s, game, seat)
    clock_service.mirror_mail_pref(s, game, seat)
    return seat


def mail_my_links(s: Session, email: str) -> int:
    """Mail the address its active games' links. Returns how many games (never shown to the user)."""
    email = email.strip()
    rows = s.exec(select(SeatRow).where(func.lower(SeatRow.email) == email.lower(),
                                        SeatRow.status != "declined")).all()
    entries = []
    for r in rows:
        game = s.get(GameRow, r.game_id)
        if game.status in {"inviting", "active", "finished"}:
            entries.append((game, r))
    if entries:
        mails.links(s, entries)
    return len(entries)


def rematch(s: Session, token: str) -> tuple[GameRow, str]:
    """New game, same players and options, the asker is host; idempotent per finished game."""
    seat, game = seat_by_token(s, token)
    if game.status != "finished":
        raise Conflict(_("A rematch can be started once the game is over."))
    seats = [r for r in seats_of(s, game.id) if r.status == "accepted"]
    if game.rematch_id:
        mine = s.exec(select(SeatRow).where(SeatRow.game_id == game.rematch_id,
                                            func.lower(SeatRow.email) == seat.email.lower())).first()
        if mine is None:
            raise Conflict(_("A rematch was already started."))
        return s.get(GameRow, game.rematch_id), tokens.seat_token(mine.token_salt)
    others = [(r.name, r.email) for r in seats if r.id != seat.id]
    created = create_game(s, host_name=seat.name, host_email=seat.email, players=others,
                          variant=game.variant, options=game.options, decision_hours=game.decision_hours,
                          rematch_of=game.id, host_tz=seat.tz, reminder_hours=game.reminder_hours,
                          timeout_policy=game.timeout_policy)
    game.rematch_id = created.game.id
    return created.game, created.tokens[0]


def deadline_of(game: GameRow):
    return game.updated_at + timedelta(hours=game.decision_hours)
