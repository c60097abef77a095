"""The clock inside the service: its settings from the game row, the two calls the use cases make
(`dealt`, `moved`), and the handlers `tick` runs (`ServiceClockHandlers`).

Wiring (see docs/clock.md):
* `usecases.deal(...)`: after the state is saved, `clock_service.dealt(s, game, seats, g)`.
* `usecases.play(...)`: after the version-checked UPDATE and the move rows,
  `clock_service.moved(s, game, new, seat.seat)` (same transaction).
* `create_app`: `app.extensions["clock_handlers"] = clock_service.ServiceClockHandlers()`.

A timeout plays through `usecases.play` itself (the same function as a player's link), with the
seat's own token and the deadline's version as the expected version, so the usual checks apply:
the seat has not moved since, and the game row UPDATE is conditional on the version. While it runs,
`played_by_clock()` is True: `moved` then does not count it as the player acting, and mails may say
"played for you".
"""

from __future__ import annotations

import contextvars
from datetime import datetime
from html import escape

from flask_babel import gettext as _
from sqlmodel import Session, select

import engine
from service import clock, render, tokens
from service.clock import ClockSettings
from service.clock_models import Deadline, SeatClock
from service.models import GameRow, SeatRow

_by_clock: contextvars.ContextVar[bool] = contextvars.ContextVar("skyjo_played_by_clock", default=False)
BOT = "greedy"


def played_by_clock() -> bool:
    """True while the clock plays a timed-out decision (for mails: "played for you")."""
    return _by_clock.get()


def settings_for(game: GameRow) -> ClockSettings:
    """The game's clock settings: `decision_hours` (clamped to 1 h .. 14 d), and when the game row
    has them, `reminder_hours` (list) and `timeout_policy` (bot | wait)."""
    hours = min(max(float(getattr(game, "decision_hours", 48) or 48), 1.0), 14 * 24.0)
    reminders = getattr(game, "reminder_hours", None)
    policy = getattr(game, "timeout_policy", None) or "bot"
    return ClockSettings.from_hours(hours, reminders if reminders is not None else (24, 4), policy)


def dealt(s: Session, game: GameRow, seats: list[SeatRow], g: engine.Game, now: datetime | None = None) -> None:
    """At the deal: each seat's address, time zone (its own, else the host's, else UTC) and mail
    preference, then the first decisions' deadlines."""
    now = now or clock.utcnow()
    host = next((r for r in seats if r.is_host), None)
    host_tz = getattr(host, "tz", None) if host else None
    for r in seats:
        if r.seat is None:
            continue
        pref = r.mail_pref if r.mail_pref in clock.MAIL_PREFS else "every"
        tz = getattr(r, "tz", None) or host_tz or "UTC"
        clock.set_seat_settings(s, game.id, r.seat, now=now, address=r.email,
                                tz=tz if clock.valid_zone(tz) else "UTC", mail_pref=pref)
    clock.schedule_decisions(s, game.id, g.pending(), g.version, now, settings_for(game))


def moved(s: Session, game: GameRow, new: engine.Game, seat: int, now: datetime | None = None) -> None:
    """After a decision was applied (in its transaction): a human move ends bot play and resets the
    timeout count; then the deadlines follow the new pending decisions (or all close at game over)."""
    now = now or clock.utcnow()
    if not played_by_clock():
        clock.note_player_acted(s, game.id, seat, now)
    if new.is_over:
        clock.close_game(s, game.id, now)
    else:
        clock.schedule_decisions(s, game.id, new.pending(), new.version, now, settings_for(game),
                                 acted_seats=[seat])


def player_acted(s: Session, game: GameRow, seat: SeatRow, now: datetime | None = None) -> None:
    """Any other POST by the player (vacation, preferences, ...): ends bot play."""
    if seat.seat is not None:
        clock.note_player_acted(s, game.id, seat.seat, now)


def bot_decision(g: engine.Game, seat: int) -> list[str]:
    """The bot's texts for one decision; `take` and its `swap` are one decision (one link)."""
    first = str(engine.bot_move(g, seat, BOT))
    if first != "take":
        return [first]
    probe = engine.Game.from_json(g.to_json())
    probe.play(seat, first)
    return [first, str(engine.bot_move(probe, seat, BOT))]


def _seat_row(s: Session, game_id: str, seat: int) -> SeatRow | None:
    return s.exec(select(SeatRow).where(SeatRow.game_id == game_id, SeatRow.seat == seat)).first()


def _owes(g: engine.Game, seat: int, kind: str | None = None) -> bool:
    return any(p.seat == seat and (kind is None or p.kind == kind) for p in g.pending())


def _when(t: datetime, tz: str) -> str:
    local = clock.to_local(t, tz)
    return f"{local:%Y-%m-%d %H:%M} ({tz})"


class ServiceClockHandlers:
    """`tick`'s handlers for the service (they need an app context: the scheduler provides one)."""

    def on_timeout(self, s: Session, d: Deadline) -> bool:
        from service import usecases

        game = s.get(GameRow, d.game_id)
        if game is None or game.status != "active" or game.state is None:
            return False
        seat = _seat_row(s, d.game_id, d.seat)
        g = usecases.load_engine_game(game)
        if seat is None or not _owes(g, d.seat, d.kind):
            return False
        token = tokens.seat_token(seat.token_salt)
        mark = _by_clock.set(True)
        try:
            expected = d.version
            for _step in range(3):  # a drawn card is placed at once too (draw, then swap/flip)
                # Conflict (somebody moved at the same moment) propagates: the clock retries later.
                usecases.play(s, token, render.slug_for(bot_decision(g, d.seat)), expected)
                s.refresh(game)
                g = usecases.load_engine_game(game)
                if game.status != "active" or not _owes(g, d.seat, "place_drawn"):
                    break
                expected = game.version
        finally:
            _by_clock.reset(mark)
        return True

    def on_reminder(self, s: Session, d: Deadline) -> bool:
        from service import mails, usecases

        game = s.get(GameRow, d.game_id)
        if game is None or game.status != "active" or game.state is None:
            return False
        seat = _seat_row(s, d.game_id, d.seat)
        if seat is None or not _owes(usecases.load_engine_game(game), d.seat, d.kind):
            return False
        sc = s.get(SeatClock, (d.game_id, d.seat))
        tz = sc.tz if sc else "UTC"
        if d.policy == "wait":
            msg = _("Reminder: the game is waiting for your decision (it was due %(when)s).",
                    when=_when(d.deadline_at, tz))
        else:
            msg = _("Reminder: please decide by %(when)s, or the computer will play this decision for you.",
                    when=_when(d.deadline_at, tz))
        mails.notice(s, game, seat, msg)
        return True

    def on_digest(self, s: Session, seat_clocks: list[SeatClock], now: datetime) -> None:
        from service.outbox import queue_mail
        from service.usecases import load_engine_game

        parts_text, parts_html, to_name = [], [], ""
        for sc in seat_clocks:
            game = s.get(GameRow, sc.game_id)
            seat = _seat_row(s, sc.game_id, sc.seat)
            if game is None or seat is None or game.status != "active" or game.state is None:
                continue
            view = engine.view(load_engine_game(game), sc.seat)
            url = render.seat_url(tokens.seat_token(seat.token_salt))
            due = [r for r in clock.open_deadlines(s, sc.game_id, sc.seat)]
            when = _("Please decide by %(when)s.", when=_when(due[0].deadline_at, sc.tz)) if due else ""
            board = render.text_board(view)
            parts_text.append(f"{game.title}\n{render.status_line(view)} {when}\n\n{board}\n\n{url}\n")
            parts_html.append(f"<h2>{escape(game.title)}</h2><p>{escape(render.status_line(view))} "
                              f"{escape(when)}</p><pre>{escape(board)}</pre>"
                              f'<p><a href="{escape(url)}">{escape(_("Open the game"))}</a></p>')
            to_name = seat.name
        if not parts_text:
            return
        subject = _("SKYJO: %(n)s games are waiting for you", n=len(parts_text)) if len(parts_text) > 1 \
            else _("SKYJO: a game is waiting for you")
        head = _("Good morning! These games are waiting for your decision:")
        queue_mail(s, to_addr=seat_clocks[0].address, to_name=to_name, subject=subject,
                   text=head + "\n\n" + "\n".join(parts_text),
                   html=f"<p>{escape(head)}</p>" + "".join(parts_html),
                   thread_key=f"digest-{seat_clocks[0].address}", now=now)
