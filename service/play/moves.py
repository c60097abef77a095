"""The one move path. A link move (`play`), a whole-turn plan from the board or a reply mail
(`play_plan_for`), a timeout and the host's "play now" (both through `play`, see `play.timeouts`)
all go through `decide`: it checks the link's decision (the seat still owes the decision the link
was sent for, `engine.Game.decision_id`; a plan or an old link: the seat has not moved since its
version), applies the engine to the saved state, and writes, in the caller's one transaction,

1. the game row: `UPDATE game SET state, version, status ... WHERE id = :id AND version = :before`
   (an ORM-enabled UPDATE; rowcount 0 = somebody moved first: `Conflict`, nothing is written, and
   the transaction is rolled back by the caller). Exactly once on SQLite (`BEGIN IMMEDIATE`: one
   writer at a time) and PostgreSQL (the second UPDATE waits for the first's row lock, then finds
   another version);
2. one `move` row per step (one INSERT; the decision's public events on its last row);
3. the clock's deadline rows (`clock_service.moved`);
4. the mail intents (`notify.after_move`), written by the outbox when the transaction commits.

Rendering (pages, mails) only ever sees `engine.view(game, seat)`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from flask_babel import gettext as _
from sqlalchemy import insert, update
from sqlmodel import Session, select

import engine
from engine.view import with_text
from service.play import clock_service, notify
from service.play.errors import Conflict, Forbidden, Invalid, NotFound
from service.play.lookups import load_engine_game, seat_by_token, seats_of
from service.render.links import texts_of_slug
from service.store.models import GameRow, MoveRow, SeatRow, utcnow
from service.words.reply_words import in_words_of, to_english
from service.words.sentences import say


@dataclass
class Played:
    game: GameRow
    seat: SeatRow
    moves: list[str]
    events: list[dict]


@dataclass
class PlanPlayed(Played):
    plan_text: str = ""
    stopped: str | None = None  # why the plan stopped early (issue 20.3), for the player


def parse_slug(slug: str, game: engine.Game | None = None) -> list[str]:
    """Move texts of a link: `take-swap-B2` -> ["take", "swap B2"]; canonical when the engine game is
    given (its variant's grammar). Raises NotFound for a malformed link."""
    texts = texts_of_slug(slug)
    if texts is None:
        raise NotFound(_("This move link is not valid."))
    if game is None:
        return texts
    try:
        return [str(game.parse_move(t)) for t in texts]
    except ValueError as exc:
        raise NotFound(_("This move link is not valid.")) from exc


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


def stale_reason(s: Session, game: GameRow, seat: SeatRow, moves: list[str], expected_version: int | None = None,
                 *, decision: str | None = None, check_legal: bool = True,
                 g: engine.Game | None = None) -> str | None:
    """Why a move link can no longer be used, or None if it can.

    A link names the decision it was sent for (`decision`, issue 15.1): it stays good while its
    seat still owes that decision and the move is legal, so the second opening reveal from the same
    mail works and another seat's move spoils nothing. A link mailed before decision ids, a reply
    address and the board's plan form name a version instead (`expected_version`): good while the
    seat has not moved since, or still owes the decision it owed then (the opening's reveals)."""
    if game.status == "inviting":
        return _("The game has not started yet.")
    if game.status == "cancelled":
        return _("This game was cancelled.")
    if game.status == "finished":
        return _("The game is over.")
    if seat.seat is None:
        return _("You are not playing in this game.")
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
    return _("You already played “%(move)s” here; this link is used up.", move=" + ".join(played))


def _decision_reason(s: Session, game: GameRow, seat: SeatRow, moves: list[str], decision: str,
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
        if moves and moves[0] in played:
            return _used_up([moves[0]])
    return reason


def _legal_reason(g: engine.Game, seat: SeatRow, moves: list[str]) -> str | None:
    """Why `moves` cannot be played by `seat` now (not its move, or not legal), or None."""
    if not moves:
        return None
    try:
        first = g.parse_move(moves[0])
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
    return _("“%(move)s” is not possible now.", move=" + ".join(moves))


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


def apply_moves(g: engine.Game, seat: int, moves: list[str]) -> list[dict]:
    """Play one decision's moves on `g` in place; their events, with the text players read."""
    events: list[dict] = []
    for m in moves:
        events.extend(with_text(e, g.names) for e in g.play(seat, m))
    return events


Decision = Callable[[engine.Game], tuple[list[str], list[dict]]]
"""Applies a seat's decision to the engine game in place: (the moves' texts, their events). Raises
the use case's error when the engine refuses (nothing is written then)."""


def decide(s: Session, game: GameRow, seat: SeatRow, expected_version: int | None, apply: Decision, *,
           g: engine.Game | None = None, decision: str | None = None,
           via: str = "web") -> tuple[list[str], list[dict]]:
    """THE move path (see the module docstring): check that `seat` may still act on a link made for
    `decision` (or a mail made at `expected_version`), apply its decision to the saved state, and
    write the game row (conditional on the loaded version), the move rows, the deadlines and the
    mails in `s`'s transaction. `g`: the engine game when the caller loaded it from `game` already.
    `via`: where the mover decided ("web": on a page, so the mail for a decision it owes right after
    is held back, issue 15.2; "reply": its answer mail carries what it owes next). Raises Conflict
    (with `stale=True`) when the link is used up, or (without) when somebody moved at the same
    moment."""
    g = g if g is not None else load_engine_game(game)
    reason = stale_reason(s, game, seat, [], expected_version, decision=decision, check_legal=False, g=g)
    if reason:
        raise Conflict(reason, game=game, seat=seat, stale=True)
    before = g.version
    if before != game.version:
        raise RuntimeError("stored version and engine version disagree")
    log0 = len(g.log)  # the event log as saved; this decision's events go on its move rows
    owed_before = {p.seat: g.decision_id(p.seat) for p in g.pending()}
    moves, events = apply(g)
    _write(s, game, seat, before, g, moves, log0)
    status = clock_service.moved(s, game, g, seat.seat)
    notify.after_move(s, game, seats_of(s, game.id), owed_before, g, seat.seat, events, clock_status=status,
                      via=via)
    return moves, events


def _write(s: Session, game: GameRow, seat: SeatRow, before: int, new: engine.Game, moves: list[str],
           log0: int) -> None:
    """The game row (conditional on the version) and the decision's move rows."""
    now = utcnow()
    state = new.to_json(copy=False)  # (`new` plays no further move: it is only viewed from here)
    # the event log stays in the move log: the state keeps the log it was loaded with, and this
    # decision's events go on its last move row (`lookups.full_game` puts them together again)
    history = state["log"][log0:]
    state["log"] = state["log"][:log0]
    saved = s.execute(update(GameRow).where(GameRow.id == game.id, GameRow.version == before)
                      .values(state=state, version=new.version, updated_at=now,
                              status="finished" if new.is_over else "active"))
    if saved.rowcount != 1:
        # nothing was written; the session's copy of the game took the values it meant to write
        # (the ORM synchronizes the objects it holds): read it again. On PostgreSQL the winner has
        # committed by now (our UPDATE waited for its row lock): when it was this seat's own
        # decision (a double click), say so.
        s.expire(game)
        played = _decision_played_since(s, game, seat, before)
        raise Conflict(_used_up(played) if played else _("Somebody else moved at the same moment. Here is the current board."),
                       game=game, seat=seat, stale=bool(played), race=not played)
    s.execute(insert(MoveRow), [
        {"game_id": game.id, "number": before + i, "seat": seat.seat, "move": m, "version_before": before + i - 1,
         "created_at": now, "events": history if i == len(moves) else None}
        for i, m in enumerate(moves, start=1)])


def play(s: Session, token: str, slug: str, expected_version: int | None = None, *, decision: str | None = None,
         form_game: str | None = None, form_seat: int | None = None, via: str = "web") -> Played:
    """Apply one decision (one engine move, or `take` + `swap X`) exactly once: a link's, bound to
    the decision it answers (`decision`), or one bound to a version (a timeout, a link of before
    decision ids). A form POST also names the game and seat it was made for: they must match the
    token's."""
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

    def apply(g: engine.Game) -> tuple[list[str], list[dict]]:
        try:
            return moves, apply_moves(g, seat.seat, moves)
        except (engine.IllegalMove, engine.MoveParseError) as exc:
            raise Conflict(say(exc), game=game, seat=seat) from exc

    if decision is not None:  # the move itself must be legal for the decision (not only the decision open)
        reason = stale_reason(s, game, seat, moves, decision=decision, g=g)
        if reason:
            raise Conflict(reason, game=game, seat=seat, stale=True)
    _moves, events = decide(s, game, seat, expected_version, apply, g=g, decision=decision, via=via)
    return Played(game, seat, moves, events)


def play_plan_for(s: Session, seat: SeatRow, game: GameRow, text: str, expected_version: int, *,
                  via: str = "reply") -> PlanPlayed:
    """Apply a whole turn written as a plan (`draw: if 4 or less swap B2, else flip C3`) for a seat
    already identified (reply address or link token), exactly once. A plan is checked against what
    the seat could see when writing it: refused as a whole (nothing applied) only for what was
    visible; once it reaches a move whose validity depends on a card its own moves turned up, it
    stops there (the moves before are played, `stopped` says why; engine.plans.Stop). Raises
    Conflict (with `stale=True` when the game moved on since `expected_version`) or Invalid with a
    message for the player; nothing is applied then. Messages never name the drawn card."""
    from engine.plans import parse_plan

    plans = []
    stops = []

    def apply(g: engine.Game) -> tuple[list[str], list[dict]]:
        if not (text or "").strip():
            raise Invalid(_("No move found: write your move on the first line, e.g. “draw swap B2”."),
                          game=game, seat=seat)
        try:
            plan = parse_plan(g, seat.seat, plan_text(g, seat, text))  # the seat's language or English
            steps = plan.apply(g, seat.seat)  # checked from what the seat saw, then played (or stopped)
        except engine.EngineError as exc:
            raise Invalid(say(exc), game=game, seat=seat) from exc
        plans.append(plan)
        stops.append(steps.stopped)
        return [m.text() for m, _events in steps], [e for _m, evs in steps for e in evs]

    moves, events = decide(s, game, seat, expected_version, apply, via=via)
    stop = stops[0]
    stopped = None if stop is None else _(
        "Your plan stopped before “%(move)s”: whether it may be played depends on the cards your moves "
        "just turned up. Look at them and send your next move.", move=in_words_of(stop.move.text(), seat.lang))
    return PlanPlayed(game, seat, moves, events, plan_text=plans[0].text(), stopped=stopped)


def plan_text(g: engine.Game, seat: SeatRow, text: str) -> str:
    """A plan written in the seat's language (or English) as the engine's English grammar reads it
    (`reply_words.to_english`; in the opening, its verb for turning a card up is reveal)."""
    if (seat.lang or "en") == "en":
        return text
    opening = any(m.text().startswith("reveal") for m in g.legal_moves(seat.seat)) if seat.seat is not None else False
    return to_english(text, seat.lang, opening=opening)


def play_plan(s: Session, token: str, text: str, expected_version: int, *, form_game: str | None = None,
              form_seat: int | None = None) -> PlanPlayed:
    """The whole-turn form of the web board (same checks as a move link's POST)."""
    seat, game = seat_by_token(s, token)
    if form_game is not None and (form_game != game.id or form_seat != seat.seat):
        raise Invalid(_("This form does not belong to this game."))
    return play_plan_for(s, seat, game, text, expected_version, via="web")


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
