"""The one move path. Every decision comes in through `decide` as the engine's values, the seat
and where it was made (`via`, see `play.via`): a move link or a board button (`play`: the URL slug
was read at the edge, the moves are parsed once here, `engine.Move`), a whole-turn plan from the
board or a reply mail (`play_plan`, `play_plan_for`: the plan's text, read with the engine's grammar
once the game is loaded), a timeout or the host's "play now" (`play.timeouts`) and a computer seat
(`play.computer`): a bot's play. `decide` loads the state once, checks once that the seat may still
make the decision (`refusal`: the game's status; a link's decision still owed, `engine.Game.
decision_id`; a plan or old link: the seat has not moved since its version, or still owes the
decision it owed then, so the opening's simultaneous reveals never spoil each other), plays it with
`engine.Game.play` (a plan's information guard, `engine.plans`, is checked on the current state),
and writes, in the caller's one transaction,

1. the game row: `UPDATE game SET state, version, status ... WHERE id = :id AND version = :before`.
   Every caller locked the game row before reading it (`seat_by_token(..., lock=True)`,
   `lookups.lock_game`; SQLite: `BEGIN IMMEDIATE` lets one writer in at a time), so decisions of
   different seats made at the same moment are applied one after the other, each on the state the
   one before left; the version condition stays as a guard (rowcount 0: `Conflict`, nothing written);
2. one `move` row per step (one INSERT; the decision's public events on its last row);
3. the clock's deadline rows (`clock_service.moved`);
4. the mail intents (`notify.after_move`), written by the outbox when the transaction commits.

Rendering (pages, mails) only ever sees `engine.view(game, seat)`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from flask_babel import gettext as _
from sqlalchemy import bindparam, insert, update
from sqlalchemy.orm.attributes import set_committed_value
from sqlmodel import Session, select

import engine
from engine.view import with_text
from service.i18n import current
from service.play import clock_service, notify
from service.play.errors import Conflict, Forbidden, Invalid, NotFound, UseCaseError
from service.play.lookups import load_engine_game, seat_by_token, seats_of
from service.play.via import BY_CLOCK, Via
from service.render.links import texts_of_slug
from service.store.models import GameRow, MoveRow, SeatRow, utcnow
from service.words.reply_words import in_words_of, to_english
from service.words.sentences import say


@dataclass(frozen=True)
class Turn:
    """One decision of a seat, as the engine reads it: a link's moves (`moves`, e.g. `take` and
    `swap B2`), a whole-turn plan's text (`plan`, in the seat's language or English; parsed with the
    engine's grammar on the loaded game), or a bot's play (`bot`: an engine bot's name; a timeout
    plays the late seat's decision and places a drawn card, a computer seat goes on while it alone
    owes a decision)."""

    moves: tuple[engine.Move, ...] = ()
    plan: str | None = None
    bot: str | None = None


@dataclass
class Played:
    game: GameRow
    seat: SeatRow
    moves: list[str]
    events: list[dict]
    engine_game: engine.Game | None = field(default=None, repr=False)  # the game after the decision


@dataclass
class PlanPlayed(Played):
    plan_text: str = ""
    stopped: str | None = None  # why the plan stopped early (issue 20.3), for the player


def parse_slug(slug: str) -> list[str]:
    """Move texts of a link: `take-swap-B2` -> ["take", "swap B2"] (the route reads its URL once with
    this). Raises NotFound for a malformed link."""
    texts = texts_of_slug(slug)
    if texts is None:
        raise NotFound(_("This move link is not valid."))
    return texts


def parse_moves(g: engine.Game, texts: Sequence[str]) -> tuple[engine.Move, ...]:
    """A link's move texts as the engine's moves (the game's variant's grammar), each parsed once.
    Raises NotFound for a text the grammar does not read (or no move at all)."""
    try:
        moves = tuple(g.parse_move(t) for t in texts)
    except ValueError as exc:
        raise NotFound(_("This move link is not valid.")) from exc
    if not moves:
        raise NotFound(_("This move link is not valid."))
    return moves


def parse_decision(decision: str | None) -> tuple[int, str, int] | None:
    """A link's decision id (`engine.Game.decision_id`: `<round>.<kind>.<since>`) as (round, kind,
    since), or None when it is not one."""
    parts = (decision or "").split(".")
    if len(decision or "") > 64 or len(parts) != 3 or not (decision or "").isascii():
        return None
    rnd, kind, since = parts
    if not (rnd.isdigit() and since.isdigit() and kind.replace("_", "").isalpha()):
        return None
    return int(rnd), kind, int(since)


def stale_reason(s: Session, game: GameRow, seat: SeatRow, moves: Sequence[str | engine.Move],
                 expected_version: int | None = None, *, decision: str | None = None, check_legal: bool = True,
                 g: engine.Game | None = None) -> str | None:
    """Why a move link can no longer be used, or None if it can (the Confirm page asks this; a POST
    asks `refusal`, which says the same as the use case's error).

    A link names the decision it was sent for (`decision`, issue 15.1): it stays good while its
    seat still owes that decision and the move is legal, so the second opening reveal from the same
    mail works and another seat's move spoils nothing. A link mailed before decision ids, a reply
    address and the board's plan form name a version instead (`expected_version`): good while the
    seat has not moved since, or still owes the decision it owed then (the opening's reveals)."""
    return _closed_reason(game, seat) or _open_reason(s, game, seat, moves, expected_version, decision,
                                                      check_legal, g)


def _closed_reason(game: GameRow, seat: SeatRow) -> str | None:
    if game.status == "inviting":
        return _("The game has not started yet.")
    if game.status == "cancelled":
        return _("This game was cancelled.")
    if game.status == "finished":
        return _("The game is over.")
    if seat.seat is None:
        return _("You are not playing in this game.")
    return None


def refusal(s: Session, game: GameRow, seat: SeatRow, moves: Sequence[engine.Move], *,
            expected_version: int | None, decision: str | None, check_legal: bool,
            g: engine.Game | None) -> UseCaseError | None:
    """The move path's one check (`stale_reason`) as the error its use case raises, or None: a game
    not running is a Conflict, a spectator's link Forbidden, a decision made (or a move not legal
    now) a Conflict with `stale=True`."""
    closed = _closed_reason(game, seat)
    if closed:
        return Forbidden(closed) if seat.seat is None else Conflict(closed, game=game, seat=seat)
    reason = _open_reason(s, game, seat, moves, expected_version, decision, check_legal, g)
    return Conflict(reason, game=game, seat=seat, stale=True) if reason else None


def _open_reason(s: Session, game: GameRow, seat: SeatRow, moves: Sequence[str | engine.Move],
                 expected_version: int | None, decision: str | None, check_legal: bool,
                 g: engine.Game | None) -> str | None:
    if decision is not None:
        return _decision_reason(s, game, seat, moves, decision, check_legal, g)
    if expected_version is None or expected_version > game.version or expected_version < 0:
        return _("This move link is not valid.")
    played = _decision_played_since(s, game, seat, expected_version)
    if played:
        # the same rule as a decision's link: still good while the seat owes the decision it owed at
        # that version (a reply to the opening mail after one reveal; a decision that began by then)
        g = g if g is not None else load_engine_game(game)
        since = parse_decision(g.decision_id(seat.seat))
        if since is None or since[2] > expected_version:
            return _used_up(played)
    return _legal_reason(g or load_engine_game(game), seat, moves) if check_legal else None


def _used_up(played: list[str]) -> str:
    """The stale link's answer, its move in the reader's words (issue 28.3: `reveal A1` is English)."""
    return _("You already played “%(move)s” here; this link is used up.",
             move=in_words_of(" + ".join(played), current()))


def _decision_reason(s: Session, game: GameRow, seat: SeatRow, moves: Sequence[str | engine.Move], decision: str,
                     check_legal: bool, g: engine.Game | None) -> str | None:
    parsed = parse_decision(decision)
    if parsed is None or parsed[2] > game.version:
        return _("This move link is not valid.")
    _round, kind, since = parsed
    g = g if g is not None else load_engine_game(game)
    decisions = 2 if kind == "reveal" else 1  # the opening's two reveals are one decision (C4)
    if g.decision_id(seat.seat) != decision:  # made (or never this seat's): used up, or why not
        played = _decision_played_since(s, game, seat, since, decisions=decisions)
        if played:
            return _used_up(played)
        return _legal_reason(g, seat, moves) or _(
            "This link was sent for a decision that is no longer open. Here is your board.")
    reason = _legal_reason(g, seat, moves) if check_legal else None
    if reason:  # e.g. the same reveal link twice: say it was played
        played = _decision_played_since(s, game, seat, since, decisions=decisions)
        if moves and str(moves[0]) in played:
            return _used_up([str(moves[0])])
    return reason


def _legal_reason(g: engine.Game, seat: SeatRow, moves: Sequence[str | engine.Move]) -> str | None:
    """Why `moves` cannot be played by `seat` now (not its move, or not legal), or None."""
    if not moves:
        return None
    try:
        first = moves[0] if not isinstance(moves[0], str) else g.parse_move(moves[0])
    except ValueError:
        return _("This move link is not valid.")
    if first in g.legal_moves(seat.seat):
        return None
    pending = g.pending()
    if not pending:
        return _("The game is over.")
    waiting = sorted({p.seat for p in pending})
    names = ", ".join(g.names[i] for i in waiting)
    if seat.seat not in waiting:
        return _("It is not your move: waiting for %(names)s.", names=names)
    return _("“%(move)s” is not possible now.", move=" + ".join(str(m) for m in moves))


def _decision_played_since(s: Session, game: GameRow, seat: SeatRow, version: int, *,
                           decisions: int = 1) -> list[str]:
    """The moves of the seat's first `decisions` decisions since `version` (e.g. `take`, `swap B2`),
    or []. A decision's events are stored on its last move row, so a decision ends at the first row
    that has them."""
    if version >= game.version:
        return []  # nothing was played since
    rows = s.exec(select(MoveRow.move, MoveRow.events).where(
        MoveRow.game_id == game.id, MoveRow.seat == seat.seat, MoveRow.version_before >= version)
        .order_by(MoveRow.number).limit(4 * decisions)).all()
    played = []
    for move, events in rows:
        played.append(move)
        if events is not None:
            decisions -= 1
            if decisions == 0:
                break
    return played


def decide(s: Session, game: GameRow, seat: SeatRow, turn: Turn, *, via: Via, g: engine.Game | None = None,
           decision: str | None = None, expected_version: int | None = None) -> PlanPlayed:
    """THE move path (see the module docstring): check once that `seat` may still make the decision
    a link made for `decision` (or a mail, a form or the clock made at `expected_version`) asks
    for, play `turn` on the saved state, and write the game row, the move rows, the deadlines and
    the mails in `s`'s transaction. The caller locked the game row before it read `game`; `g` is the
    engine game when the caller decoded it from `game` already (else it is decoded here, once).
    `via`: where the decision was made (`play.via`: the clock and the mails act on it). Raises
    Conflict (with `stale=True`) when the decision was made already or the move is not legal now,
    Invalid for a plan the engine refuses, Forbidden for a spectator's link; nothing is written."""
    if g is None and game.state is not None:
        g = load_engine_game(game)  # the one decode of this request
    # a decision's link: its move must be legal for that decision (else the engine's refusal says why)
    refused = refusal(s, game, seat, turn.moves, expected_version=expected_version, decision=decision,
                      check_legal=bool(turn.moves) and decision is not None, g=g)
    if refused:
        raise refused
    if g is None:  # (a running game has a state: refusal said so otherwise)
        raise RuntimeError("a running game without a state")
    before = g.version
    if before != game.version:
        raise RuntimeError("stored version and engine version disagree")
    log0 = len(g.log)  # the event log as saved; this decision's events go on its move rows
    owed_before = {p.seat: g.decision_id(p.seat) for p in g.pending()}
    played = _play_turn(g, game, seat, turn, via)
    _write(s, game, seat, before, g, played.moves, log0)
    status = clock_service.moved(s, game, g, seat.seat, by_clock=via in BY_CLOCK)
    notify.after_move(s, game, seats_of(s, game.id), owed_before, g, seat.seat, played.events, clock_status=status,
                      via=via)
    played.engine_game = g
    return played


def _play_turn(g: engine.Game, game: GameRow, seat: SeatRow, turn: Turn, via: Via) -> PlanPlayed:
    """Play `turn` on `g` in place (`engine.Game.play`): the moves' texts and events (with the
    sentences players read); for a plan also its canonical text and where it stopped."""
    if turn.plan is not None:
        return _play_plan(g, game, seat, turn.plan)
    if turn.bot is not None:
        texts, events = bot_turn(g, seat.seat, turn.bot, whole_turn=via == "computer")
        return PlanPlayed(game, seat, texts, events)
    events: list[dict] = []
    try:
        for m in turn.moves:
            events.extend(with_text(e, g.names) for e in g.play(seat.seat, m))
    except (engine.IllegalMove, engine.MoveParseError) as exc:
        raise Conflict(say(exc), game=game, seat=seat) from exc
    return PlanPlayed(game, seat, [str(m) for m in turn.moves], events)


def _play_plan(g: engine.Game, game: GameRow, seat: SeatRow, text: str) -> PlanPlayed:
    """A whole-turn plan (`engine.plans`): checked from what the seat sees now, then played (or
    played up to where it stops). Messages never name the drawn card."""
    from engine.plans import read_plan

    if not (text or "").strip():
        raise Invalid(_("No move found: write your move on the first line, e.g. “draw swap B2”."),
                      game=game, seat=seat)
    try:
        plan = read_plan(g, plan_text(g, seat, text))  # the seat's language or English
        steps = plan.apply(g, seat.seat)  # checked from what the seat sees (C13), then played (or stopped)
    except engine.EngineError as exc:
        raise Invalid(say(exc), game=game, seat=seat) from exc
    stop = steps.stopped
    stopped = None if stop is None else _(
        "Your plan stopped before “%(move)s”: whether it may be played depends on the cards your moves "
        "just turned up. Look at them and send your next move.", move=in_words_of(stop.move.text(), seat.lang))
    return PlanPlayed(game, seat, [m.text() for m, _events in steps], [e for _m, evs in steps for e in evs],
                      plan_text=plan.text(), stopped=stopped)


MAX_STEPS = 6  # moves a bot plays in one decision at most (draw, place, an Action effect's choice ...)


def bot_turn(g: engine.Game, seat: int, bot: str, *, whole_turn: bool) -> tuple[list[str], list[dict]]:
    """Play `bot`'s decision for `seat` on `g` in place (`engine.bot_move`, from the seat's view).
    A timeout (`whole_turn=False`): the decision owed (`take` and its place are one), then a drawn
    card's place. A computer seat (`whole_turn=True`, issue 18): on while that seat alone owes a
    decision (a drawn card is placed at once, an Action effect's choice follows). The moves' texts
    and their events (with the sentences players read)."""
    played: list[str] = []
    events: list[dict] = []
    for _step in range(MAX_STEPS):
        move = engine.bot_move(g, seat, bot)
        events.extend(with_text(e, g.names) for e in g.play(seat, move))
        played.append(str(move))
        if g.is_over:
            break
        if whole_turn:
            if {p.seat for p in g.pending()} != {seat}:
                break
        elif str(move) != "take" and not any(p.seat == seat and p.kind == "place_drawn" for p in g.pending()):
            break
    return played, events


# The move's two writes, built once (issue 33.3; the values are bound per call): the game row, on
# the condition that nobody moved since it was read, and the decision's move rows (one executemany).
_SAVE_GAME = (update(GameRow).where(GameRow.id == bindparam("game_id"), GameRow.version == bindparam("before"))
              .values(state=bindparam("new_state"), version=bindparam("new_version"), updated_at=bindparam("now"),
                      status=bindparam("new_status"))
              .execution_options(synchronize_session=False))  # the session's game is set below
_INSERT_MOVES = insert(MoveRow)


def _write(s: Session, game: GameRow, seat: SeatRow, before: int, new: engine.Game, moves: list[str],
           log0: int) -> None:
    """The game row (conditional on the version) and the decision's move rows."""
    now = utcnow()
    state = new.to_json(copy=False)  # (`new` plays no further move: it is only viewed from here)
    # the event log stays in the move log: the state keeps the log it was loaded with, and this
    # decision's events go on its last move row (`lookups.full_game` puts them together again)
    history = state["log"][log0:]
    state["log"] = state["log"][:log0]
    saved_values = {"state": state, "version": new.version, "updated_at": now,
                    "status": "finished" if new.is_over else "active"}
    saved = s.execute(_SAVE_GAME, {"game_id": game.id, "before": before, "new_state": state,
                                   "new_version": new.version, "now": now, "new_status": saved_values["status"]})
    if saved.rowcount != 1:
        # nothing was written: on PostgreSQL the winner has committed by now (our UPDATE waited
        # for its row lock): when it was this seat's own decision (a double click), say so
        s.expire(game)
        played = _decision_played_since(s, game, seat, before)
        raise Conflict(_used_up(played) if played else _("Somebody else moved at the same moment. Here is the current board."),
                       game=game, seat=seat, stale=bool(played), race=not played)
    for key, value in saved_values.items():  # the session's game as written (the clock and mails read it)
        set_committed_value(game, key, value)
    s.execute(_INSERT_MOVES, [
        {"game_id": game.id, "number": before + i, "seat": seat.seat, "move": m, "version_before": before + i - 1,
         "created_at": now, "events": history if i == len(moves) else None}
        for i, m in enumerate(moves, start=1)])


def play(s: Session, token: str, texts: Sequence[str], expected_version: int | None = None, *,
         decision: str | None = None, form_game: str | None = None, form_seat: int | None = None,
         via: Via = "link") -> Played:
    """Apply one decision (one engine move, or `take` + `swap X`) of a link exactly once: `texts`
    (the link's slug as the route read it, `parse_slug`) bound to the decision it answers
    (`decision`), or to a version (a link of before decision ids). A form POST also names the game
    and seat it was made for: they must match the token's. The game row is locked first."""
    seat, game = seat_by_token(s, token, lock=True)
    if form_game is not None and (form_game != game.id or form_seat != seat.seat):
        raise Invalid(_("This form does not belong to this game."))
    g = load_engine_game(game) if game.state is not None else None
    moves = parse_moves(g, texts) if g is not None else ()
    return decide(s, game, seat, Turn(moves=moves), via=via, g=g, decision=decision,
                  expected_version=expected_version)


def play_plan_for(s: Session, seat: SeatRow, game: GameRow, text: str, expected_version: int, *,
                  via: Via = "reply", g: engine.Game | None = None) -> PlanPlayed:
    """Apply a whole turn written as a plan (`draw: if 4 or less swap B2, else flip C3`) for a seat
    already identified (reply address or link token; the caller locked the game row before it read
    `game`), exactly once. Bound to the seat's decision like a link: good while the seat has not
    moved since `expected_version`, or still owes the decision it owed then, whatever the other
    seats did meanwhile (the opening's simultaneous reveals, C4). A plan is checked against what the
    seat can see: refused as a whole (nothing applied) only for what was visible; once it reaches a
    move whose validity depends on a card its own moves turned up, it stops there (the moves before
    are played, `stopped` says why; engine.plans.Stop). Raises Conflict (with `stale=True` when the
    seat's decision was made since) or Invalid with a message for the player; nothing is applied
    then. `g`: the engine game of `game` when the caller decoded it already."""
    return decide(s, game, seat, Turn(plan=text), via=via, g=g, expected_version=expected_version)


def plan_text(g: engine.Game, seat: SeatRow, text: str) -> str:
    """A plan written in the seat's language (or English) as the engine's English grammar reads it
    (`reply_words.to_english`; in the opening, its verb for turning a card up is reveal)."""
    if (seat.lang or "en") == "en":
        return text
    opening = any(m.text().startswith("reveal") for m in g.legal_moves(seat.seat)) if seat.seat is not None else False
    return to_english(text, seat.lang, opening=opening)


def play_plan(s: Session, token: str, text: str, expected_version: int, *, form_game: str | None = None,
              form_seat: int | None = None) -> PlanPlayed:
    """The whole-turn form of the web board (same checks as a move link's POST; the game row is
    locked first)."""
    seat, game = seat_by_token(s, token, lock=True)
    if form_game is not None and (form_game != game.id or form_seat != seat.seat):
        raise Invalid(_("This form does not belong to this game."))
    return play_plan_for(s, seat, game, text, expected_version, via="plan")


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
