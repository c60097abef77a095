"""Who is mailed what after a move: the turn mail to every seat that now owes a new decision,
round-over and game-over mails to everybody, the answer to a reply mail, and the clock's data that
those mails show (deadlines as of the move). Decided here, queued through `mail.compose` in the
move's transaction (a mail exists iff the move committed)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

from flask import current_app
from flask_babel import gettext as _
from sqlalchemy.orm import object_session
from sqlmodel import select

import engine
from service.clock.deadlines import open_deadlines
from service.clock.entries import clock_entry, others_entries, rules_of, viewer_zone
from service.i18n import speaking
from service.mail import compose
from service.mail.compose import send
from service.play import clock_service, lookups
from service.play.via import BY_CLOCK, ON_PAGE
from service.store.models import GameRow, SeatRow, utcnow
from service.words.sentences import with_texts


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


def calendar_event(s, game: GameRow, seat: SeatRow, view: dict | None) -> dict | None:
    """Issue 32.2: the decision a mail asks `seat` for, for its calendar invitation (`mail.ical`):
    the view's public decision id, the deadline of the seat's open clock row and how often it moved
    (the event's SEQUENCE), the game's reminder offsets (its alarms). None for a seat that did not
    ask for invitations or a decision without a deadline (one query, for those seats only)."""
    if not seat.calendar or seat.seat is None or not view or not view.get("decision"):
        return None
    rows = open_deadlines(s, game.id, seat.seat)
    if not rows:
        return None
    row = min(rows, key=lambda r: r.deadline_at)
    return {"decision": view["decision"], "deadline": row.deadline_at, "moves": row.moves,
            "alarms": list(game.reminder_hours or []), "row": row.id}


def decision_or_nothing(s, game: GameRow, seat: SeatRow, g: engine.Game, *, first: bool = False,
                        round_over: dict | None = None,
                        clock_note: str | None = None, seats: list[SeatRow] | None = None,
                        clock_status: dict | None = None, hold: bool = False, reminder: bool = False) -> None:
    """The turn mail; none for `off`, and none for `digest` (the daily digest lists the game).
    `hold`: the player is looking at this decision on the board right now (they just moved there):
    the mail waits MAIL_HOLD_MINUTES and goes only if the decision is still open then (issue 15.2;
    `mail.delivery` asks `still_owed`). `reminder`: the clock's reminder of a decision still open
    (its own subject). What the others did since the seat's previous mail comes with every mail
    (`mail.compose.send`)."""
    if seat.mail_pref in {"off", "digest"} or seat.seat is None:
        return
    view = lookups.seat_view(g, seat.seat)
    ctx = turn_context(game, seat, view, seats, clock_status)
    minutes = float(current_app.config.get("MAIL_HOLD_MINUTES", 10) or 0) if hold else 0
    held = {"hold_until": utcnow() + timedelta(minutes=minutes), "hold_for": (game.id, view["decision"])
            } if minutes > 0 and view.get("decision") else {}
    send(s, game, seat, "turn", asks=True, round_over=round_over, first=first,
          clock_note=clock_note, reminder=reminder, calendar=calendar_event(s, game, seat, view), **held, **ctx)


def still_owed(s, game_id: str, seat: int | None, decision: str) -> bool:
    """Does `seat` of game `game_id` still owe `decision` (engine `Game.decision_id`)? The outbox's
    question before it sends a held turn mail (`create_app` hands it to `mail.delivery`). The seat's
    mail preference at send time decides too (issue 34.2): a seat that turned its mails to `off` (or
    unsubscribed) or to `digest` while the mail was held owes no turn mail any more."""
    if seat is None:
        return False
    pref = s.execute(select(SeatRow.mail_pref).where(SeatRow.game_id == game_id, SeatRow.seat == seat)).scalar()
    if pref in {"off", "digest"}:
        return False
    state, status = s.execute(select(GameRow.state, GameRow.status).where(GameRow.id == game_id)).first() or (
        None, None)
    if state is None or status != "active":
        return False
    return engine.Game.from_json(state).decision_id(seat) == decision


def reply_answer(s, game: GameRow, seat: SeatRow, *, headline: str, details: list[str] | None = None,
                 events: list[dict] | None = None, error: bool = False, played: bool = False,
                 message_only: bool = False, g: engine.Game | None = None) -> None:
    """The answer to a reply mail, always to the seat's stored address (never to the reply's From):
    what was understood and done (or why nothing was done), the seat's own view of the board, and when
    the seat owes a decision the move links, the legal moves and the command help (replying plays).
    Its subject says what became of the reply: `played`, `message_only` (only table talk), or not
    played (refused, or the game moved on). `g`: the engine game of `game`'s state when the caller
    has it (the move that was just played), else it is decoded here."""
    if g is None and game.state is not None:
        g = engine.Game.from_json(game.state)
    view = engine.view(g, seat.seat, log=False) if g is not None and seat.seat is not None else None
    owes = bool(view) and g is not None and not g.is_over and any(p.seat == seat.seat for p in g.pending())
    ctx = turn_context(game, seat, view) if owes else {"view": view, "deadline": None}
    legal = sorted({m.text() for m in g.legal_moves(seat.seat)}) if owes and error else []
    send(s, game, seat, "answer", asks=owes, headline=headline, details=details or [],
          events=events or [], legal=legal, error=error, played=played, message_only=message_only,
          calendar=calendar_event(s, game, seat, view) if owes else None, **ctx)


def _round_record(view: dict) -> dict:
    """The round that just ended, as its mails' `round_over` (its number and scores, public, C10):
    without its final boards, which the mail's view already carries (`view["rounds"][-1]`)."""
    return {k: v for k, v in view["rounds"][-1].items() if k != "boards"}


def after_move(s, game: GameRow, seats: list[SeatRow], owed_before: dict[int, str | None], new: engine.Game,
               mover: int, events: list[dict], clock_status: dict | None = None, *, via: str = "link") -> None:
    """Mail every seat that now owes a new decision (`owed_before`: the decision ids owed before
    the move, by seat; the opening's second reveal is no new decision); round-over and game-over
    mails to everybody. When the clock played for `mover` (timeout), these mails say so, and the
    mover is told too. `clock_status`: the board status `clock_service.moved` returned in this
    transaction. `via`: where the decision was made (`play.via`). The mover's own next decision
    (issue 15.2): moved on a page (a link, a board button, the whole-turn field), its mail is held
    back (the board shows it); moved by a reply mail, the answer mail carries it."""
    playing = [r for r in seats if r.seat is not None and r.status == "accepted"]
    after = {p.seat for p in new.pending()}
    round_done = any(e.get("type") == "round_end" for e in events)
    clock_note = back_note = None
    tell_mover = by_clock = False
    if via in BY_CLOCK:
        by_clock = True
        if not new.is_over and any(p.seat == mover and p.kind == "place_drawn" for p in new.pending()):
            return  # the computer drew for a late player and places the card at once (next step)
        clock_note, back_note, already = clock_service.timeout_notes(s, game, seats, mover)
        tell_mover = bool(back_note) or not already
        clock_status = None  # the timeout notes may have changed the clocks: read them again
    mailed = set()  # each mail lists the others' moves since the seat's previous one (`mail.talk`)
    if new.is_over:
        for r in playing:
            if r.mail_pref != "off":
                send(s, game, r, "game_over", view=lookups.seat_view(new, r.seat),
                      clock_note=in_language_of(r, clock_note))
        return
    for r in playing:
        owes_new = r.seat in after and (round_done or new.decision_id(r.seat) != owed_before.get(r.seat))
        on_page = r.seat == mover and not by_clock and not round_done
        if owes_new and on_page and via == "reply":
            continue  # the reply's answer mail shows the board and this decision's links
        if owes_new:
            round_over = _round_record(engine.view(new, r.seat, log=False)) if round_done else None
            decision_or_nothing(s, game, r, new, round_over=round_over,
                                clock_note=in_language_of(r, clock_note), seats=seats,
                                clock_status=clock_status, hold=on_page and via in ON_PAGE)
            mailed.add(r.seat)
        elif round_done and r.mail_pref != "off":
            view = lookups.seat_view(new, r.seat)
            send(s, game, r, "round_over", view=view, round_over=_round_record(view),
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
