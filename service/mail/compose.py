"""What mails the service sends, composed from engine views only and queued as intents in the
caller's transaction (`service.mail.render` makes the bodies when the sender takes them)."""

from __future__ import annotations

from datetime import datetime, timedelta

import orjson
from flask import render_template
from flask_babel import gettext as _

import engine
from service.mail.outbox import insert_mail, queue_mail
from service.mail.render import is_view
from service.render import board as render
from service.store import tokens
from service.store.models import GameRow, GameSnapshot, SeatRow, SeatSnapshot


def _thread(game: GameRow, seat: SeatRow) -> str:
    # one thread per game and player (the email stays the same through a token rotation)
    return f"game-{game.id}-{seat.position}"


def reply_to_of(game: GameRow, seat: SeatRow) -> str:
    """The seat's secret reply address for a mail showing the game's current version."""
    from service.mail.replies import reply_address

    return reply_address(tokens.mail_domain(), tokens.reply_token(game.id, seat.token_hash), game.version)


def _send(s, game: GameRow, seat: SeatRow, template: str, *, asks: bool = False, **ctx) -> None:
    """Queue one mail to `seat` as an intent: the template's name and a JSON context (the seat's
    view, never the state), rendered by `render_intent` when the sender takes the row. Mail goes out
    iff the caller's transaction commits; the move's transaction stays small.

    `asks=True`: the mail asks the seat for a decision, so replying to it plays (Reply-To is the
    seat's reply address with the game version, and the two lines of command help are shown)."""
    token = tokens.seat_token(seat.token_salt)
    context = _plain({**ctx, "game": _game_ctx(game), "seat": _seat_ctx(seat), "token": token,
                      "base": render.base_url(), "asks": asks})
    insert_mail(s, to_addr=seat.email, to_name=seat.name, subject=game.title, template=template, context=context,
                game_id=None, seat=seat.seat if seat.seat is not None else seat.position,
                thread_key=_thread(game, seat), unsubscribe_url=render.unsubscribe_url(token),
                reply_to=reply_to_of(game, seat) if asks else None)


def _game_ctx(game: GameRow) -> dict:
    return {"id": game.id, "title": game.title, "status": game.status}


def _seat_ctx(seat: SeatRow) -> dict:
    return {"name": seat.name, "seat": seat.seat, "position": seat.position, "is_host": seat.is_host}


def _json_default(value):
    if isinstance(value, SeatRow | SeatSnapshot):
        return _seat_ctx(value)
    if isinstance(value, GameRow | GameSnapshot):
        return _game_ctx(value)
    if isinstance(value, datetime):
        return {"$dt": value.isoformat()}
    raise TypeError(f"{type(value).__name__} does not belong in a mail context")


def _plain(ctx: dict) -> orjson.Fragment:
    """A mail context as JSON text, ready for the outbox's JSON column: seats and games as the few
    fields templates show, datetimes tagged (`_revive` turns them back), views without their event
    log (no mail shows it). One orjson call (in C) instead of walking the context in Python, and
    nothing is serialized twice: this runs for every mail a move queues."""
    ctx = {k: {n: x for n, x in v.items() if n != "log"} if is_view(v) and "log" in v else v
           for k, v in ctx.items()}
    return orjson.Fragment(orjson.dumps(ctx, default=_json_default,
                                        option=orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_NON_STR_KEYS))


def invitation(s, game: GameRow, seat: SeatRow, host: SeatRow, seats: list[SeatRow]) -> None:
    _send(s, game, seat, "invitation", host=host, seats=seats)


def host_created(s, game: GameRow, host: SeatRow, seats: list[SeatRow]) -> None:
    _send(s, game, host, "created", seats=seats)


def notice(s, game: GameRow, seat: SeatRow, message: str) -> None:
    if seat.mail_pref == "off":
        return
    _send(s, game, seat, "notice", message=message)


def new_link(s, game: GameRow, seat: SeatRow) -> None:
    _send(s, game, seat, "notice", message=_("Your link was replaced; the old one no longer works. "
                                             "This is your new link."))


def links(s, entries: list[tuple[GameRow, SeatRow]]) -> None:
    first_game, first_seat = entries[0]
    items = [{"title": g.title, "status": g.status, "url": render.seat_url(tokens.seat_token(r.token_salt))}
             for g, r in entries]
    html = render_template("mail/links.html", items=items)
    text = render_template("mail/links.txt", items=items)
    queue_mail(s, to_addr=first_seat.email, to_name=first_seat.name, subject=_("Your SKYJO links"),
               text=text, html=html, thread_key=f"links-{first_seat.email.lower()}")


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
    from sqlalchemy.orm import object_session

    from service.play import clock_service, usecases

    if game.status != "active":
        return {"deadline_text": None, "clock_notes": []}
    if status is None or seats is None:  # a move's mails have both (and may have no ORM game)
        s = object_session(game)
        if s is None:
            return {"deadline_text": None, "clock_notes": []}
        if status is None:
            status = clock_service.board_status_of(s, game)
        if seats is None:
            seats = usecases.seats_of(s, game.id)
    mine = clock_service.clock_entry(status.get(seat.seat)) if seat.seat is not None else None
    return {"clock": {"mine": mine, "others": clock_service.others_entries(status, seats, seat),
                      "tz": clock_service.viewer_zone(status, seat), "rules": clock_service.rules_of(game)}}


def decision_or_nothing(s, game: GameRow, seat: SeatRow, g: engine.Game, *, first: bool = False,
                        events: list[dict] | None = None, round_over: dict | None = None,
                        clock_note: str | None = None, seats: list[SeatRow] | None = None,
                        clock_status: dict | None = None) -> None:
    """The turn mail; none for `off`, and none for `digest` (the daily digest lists the game)."""
    if seat.mail_pref in {"off", "digest"} or seat.seat is None:
        return
    view = engine.view(g, seat.seat, log=False)
    ctx = turn_context(game, seat, view, seats, clock_status)
    _send(s, game, seat, "turn", asks=True, events=events or [], round_over=round_over, first=first,
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
    _send(s, game, seat, "answer", asks=owes, headline=headline, details=details or [],
          events=events or [], legal=legal, error=error, **ctx)


def after_move(s, game: GameRow, seats: list[SeatRow], pending_before: set[int], new: engine.Game,
               mover: int, events: list[dict], clock_status: dict | None = None) -> None:
    """Mail every seat that now owes a new decision; round-over and game-over mails to everybody.
    When the clock played for `mover` (timeout), these mails say so, and the mover is told too.
    `clock_status`: the board status `clock_service.moved` returned in this transaction."""
    from service.play import clock_service

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
                _send(s, game, r, "game_over", view=engine.view(new, r.seat, log=False), events=events,
                      clock_note=clock_note)
        return
    for r in playing:
        owes_new = r.seat in after and (r.seat == mover or r.seat not in pending_before or round_done)
        if owes_new:
            round_over = engine.view(new, r.seat, log=False)["rounds"][-1] if round_done else None
            decision_or_nothing(s, game, r, new, events=events, round_over=round_over, clock_note=clock_note,
                                seats=seats, clock_status=clock_status)
            mailed.add(r.seat)
        elif round_done and r.mail_pref != "off":
            view = engine.view(new, r.seat, log=False)
            _send(s, game, r, "round_over", view=view, events=events, round_over=view["rounds"][-1],
                  clock_note=clock_note)
            mailed.add(r.seat)
    if tell_mover and (mover not in mailed or back_note):
        me = next((r for r in playing if r.seat == mover), None)
        if me is not None:
            lines = [_("Your time ran out: the computer made this decision for you.")]
            lines += [e["text"] for e in events if e.get("text")][:6]
            if back_note:
                lines.append(back_note)
            notice(s, game, me, "\n".join(lines))
