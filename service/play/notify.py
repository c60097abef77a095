"""Who is mailed what after a move: the turn mail to every seat that now owes a new decision,
round-over and game-over mails to everybody, the answer to a reply mail, and the clock's data that
those mails show (deadlines as of the move). Decided here, queued through `mail.compose` in the
move's transaction (a mail exists iff the move committed)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

from flask_babel import gettext as _
from sqlalchemy.orm import object_session

import engine
from service.clock.entries import clock_entry, others_entries, rules_of, viewer_zone
from service.i18n import speaking
from service.mail import compose
from service.mail.compose import send
from service.play import clock_service, lookups
from service.render.events import with_texts
from service.store.models import GameRow, SeatRow


def in_language_of(seat: SeatRow, note: Callable[[], str] | str | None) -> str | None:
    """A note said to `seat` (a function: in the seat's language; a text as it is)."""
    if note is None or isinstance(note, str):
        return note
    with speaking(seat.lang):
        return note()

def turn_context(game: GameRow, seat: SeatRow, view: dict, seats: list[SeatRow] | None = None,
                 clock_status: dict | None = None) -> dict:
    """What a mail asking for a decision shows besides the view: its move links (built at render
    time from the view) and the clock's lines as of now."""
    deadline = game.updated_at + timedelta(hours=game.decision_hours)
    return {"view": view, "links": True, "deadline": deadline,
            **clock_context(game, seat, seats, clock_status)}


def clock_context(game: GameRow, seat: SeatRow, seats: list[SeatRow] | None = None,
                  status: dict | None = None) -> dict:
    """The clock's data for a mail to `seat` as of now: its own entry, the others' entries and the
    game's clock rules (`clock`), which `render_intent` turns into the lines (`deadline_text`, in the
    seat's zone, and `clock_notes`) in the mail's language. `seats`: the game's seats when the caller
    already loaded them in this transaction, `status` the game's `clock.board_status` as of now in
    this transaction (each saves queries)."""
    if game.status != "active":
        return {"deadline_text": None, "clock_notes": []}
    if status is None or seats is None:  # a move's mails have both (and may have no ORM game)
        s = object_session(game)
        if s is None:
            return {"deadline_text": None, "clock_notes": []}
        if status is None:
            status = clock_service.board_status_of(s, game)
        if seats is None:
            seats = lookups.seats_of(s, game.id)
    mine = clock_entry(status.get(seat.seat)) if seat.seat is not None else None
    return {"clock": {"mine": mine, "others": others_entries(status, seats, seat),
                      "tz": viewer_zone(status, seat), "rules": rules_of(game)}}


def decision_or_nothing(s, game: GameRow, seat: SeatRow, g: engine.Game, *, first: bool = False,
                        events: list[dict] | None = None, round_over: dict | None = None,
                        clock_note: str | None = None, seats: list[SeatRow] | None = None,
                        clock_status: dict | None = None) -> None:
    """The turn mail; none for `off`, and none for `digest` (the daily digest lists the game)."""
    if seat.mail_pref in {"off", "digest"} or seat.seat is None:
        return
    view = engine.view(g, seat.seat, log=False)
    ctx = turn_context(game, seat, view, seats, clock_status)
    send(s, game, seat, "turn", asks=True, events=events or [], round_over=round_over, first=first,
          clock_note=clock_note, **ctx)


def reply_answer(s, game: GameRow, seat: SeatRow, *, headline: str, details: list[str] | None = None,
                 events: list[dict] | None = None, error: bool = False) -> None:
    """The answer to a reply mail, always to the seat's stored address (never to the reply's From):
    what was understood and done (or why nothing was done), the seat's own view of the board, and when
    the seat owes a decision the move links, the legal moves and the command help (replying plays)."""
    g = engine.Game.from_json(game.state) if game.state is not None else None
    view = engine.view(g, seat.seat, log=False) if g is not None and seat.seat is not None else None
    owes = bool(view) and g is not None and not g.is_over and any(p.seat == seat.seat for p in g.pending())
    ctx = turn_context(game, seat, view) if owes else {"view": view, "deadline": None}
    legal = sorted({m.text() for m in g.legal_moves(seat.seat)}) if owes and error else []
    send(s, game, seat, "answer", asks=owes, headline=headline, details=details or [],
          events=events or [], legal=legal, error=error, **ctx)


def after_move(s, game: GameRow, seats: list[SeatRow], pending_before: set[int], new: engine.Game,
               mover: int, events: list[dict], clock_status: dict | None = None) -> None:
    """Mail every seat that now owes a new decision; round-over and game-over mails to everybody.
    When the clock played for `mover` (timeout), these mails say so, and the mover is told too.
    `clock_status`: the board status `clock_service.moved` returned in this transaction."""
    playing = [r for r in seats if r.seat is not None and r.status == "accepted"]
    after = {p.seat for p in new.pending()}
    round_done = any(e.get("type") == "round_end" for e in events)
    clock_note = back_note = None
    tell_mover = False
    if clock_service.played_by_clock():
        if not new.is_over and any(p.seat == mover and p.kind == "place_drawn" for p in new.pending()):
            return  # the computer drew for a late player and places the card at once (next step)
        clock_note, back_note, already = clock_service.timeout_notes(s, game, seats, mover)
        tell_mover = bool(back_note) or not already
        clock_status = None  # the timeout notes may have changed the clocks: read them again
    mailed = set()
    if new.is_over:
        for r in playing:
            if r.mail_pref != "off":
                send(s, game, r, "game_over", view=engine.view(new, r.seat, log=False), events=events,
                      clock_note=in_language_of(r, clock_note))
        return
    for r in playing:
        owes_new = r.seat in after and (r.seat == mover or r.seat not in pending_before or round_done)
        if owes_new:
            round_over = engine.view(new, r.seat, log=False)["rounds"][-1] if round_done else None
            decision_or_nothing(s, game, r, new, events=events, round_over=round_over,
                                clock_note=in_language_of(r, clock_note),
                                seats=seats, clock_status=clock_status)
            mailed.add(r.seat)
        elif round_done and r.mail_pref != "off":
            view = engine.view(new, r.seat, log=False)
            send(s, game, r, "round_over", view=view, events=events, round_over=view["rounds"][-1],
                  clock_note=in_language_of(r, clock_note))
            mailed.add(r.seat)
    if tell_mover and (mover not in mailed or back_note):
        me = next((r for r in playing if r.seat == mover), None)
        if me is not None:
            with speaking(me.lang):
                lines = [_("Your time ran out: the computer made this decision for you.")]
                lines += [e["text"] for e in with_texts(events, new.names) if e.get("text")][:6]
            if back_note:
                lines.append(in_language_of(me, back_note))
            compose.notice(s, game, me, "\n".join(lines))
