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
from functools import lru_cache
from html import escape

from flask_babel import gettext as _
from sqlalchemy import bindparam, update
from sqlmodel import Session, select

import engine
from service.clock import core as clock
from service.clock.core import ClockSettings
from service.render import board as render
from service.store import tokens
from service.store.clock_models import Deadline, SeatClock
from service.store.direct import direct
from service.store.models import GameRow, SeatRow, holds

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
    return _settings(hours, tuple(reminders) if reminders is not None else (24, 4), policy)


@lru_cache(maxsize=256)
def _settings(hours: float, reminder_hours: tuple, policy: str) -> ClockSettings:
    return ClockSettings.from_hours(hours, reminder_hours, policy)  # frozen: one object per game setting


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


def clock_of(s: Session, game: GameRow, new: engine.Game) -> clock.GameClock | None:
    """What `moved` reads (the game's seat clocks and open rows, one SELECT), or None at game over.
    A move reads it right after its version UPDATE (`usecases.save_moves` sends it together with the
    move log, in one round trip on PostgreSQL)."""
    return None if new.is_over else clock.game_clock(s, game.id)


def routine(new: engine.Game, seat: int, known: clock.GameClock | None) -> bool:
    """`moved` will only write deadlines (no statement of SQLAlchemy's own, no reads): a player's
    move, not the last one, by a seat that had not timed out. The timeout notes of a move played by
    the clock read the clocks; game over and a returning player go through the ORM."""
    return (known is not None and not new.is_over and not played_by_clock()
            and not clock.resets_seat(known[0], seat))


# ---------------------------------------------------------------------------------------------------
# Held decisions
#
# In play one decision is owed at a time, and most moves hand it from one seat to the next (or from
# a seat's draw to its placing the card). Such a decision's deadline row (the values
# `clock.new_decision` makes) is held on the game row (`clock_held`, with `clock_next_at`, its
# `next_at`, for the sweep) and written by the move's own UPDATE: the move reads and writes no
# clock table (`hold_candidate`, `usecases.save_moves`). The row becomes a `clock_deadline` row,
# exactly as it would have been written at the move, when
#   * the sweep reaches its `next_at` (the first reminder, or the timeout): `materialize_due`;
#   * something reads or changes the seat's deadlines: vacation, play now, mail preference
#     (`materialize`);
#   * a later move takes the clock's full path (`moved`), which also holds the next decision again
#     when it is the only one left.
# `clock_rows` says that `clock_deadline` may hold open rows of the game. A move may hold only when
# it is false, and its UPDATE checks that it still is: a materialization between a move's read and
# its write sends the move down the full path. Only decisions of a seat that the computer does not
# play and that gets its mails one by one are held (the digest lists `clock_deadline` rows; a
# bot-played seat's decisions are due at once).

_GT = GameRow.__table__
_STORE_HELD = (update(_GT).where(_GT.c.id == bindparam("game_id"))
               .values(clock_held=bindparam("held"), clock_next_at=bindparam("next_at"), clock_rows=bindparam("rows")))


def holdable(sc: clock.SeatState | SeatClock | None) -> bool:
    return not (sc is not None and (sc.bot_played or sc.mail_pref == "digest"))


def held_of(game: GameRow) -> dict | None:
    """The decision held on the game row, as row values (naive UTC datetimes), or None."""
    data = getattr(game, "clock_held", None)
    return clock.held_values(data) if data else None


def hold_candidate(game: GameRow, new: engine.Game, mover: int, clocks: dict[int, clock.SeatState],
                   now: datetime) -> dict | None:
    """A routine move's one clock step, or None: when the game has no open `clock_deadline` rows,
    the mover has no timeouts to reset and exactly one decision is owed after the move (by a seat
    whose decisions may be held), that decision's row values, to hold on the game row."""
    if played_by_clock() or new.is_over or getattr(game, "clock_rows", True) or clock.resets_seat(clocks, mover):
        return None
    return _holdable_decision(game, new.pending(), new.version, clocks, now)


def _holdable_decision(game: GameRow, pending: list, version: int, clocks: dict[int, clock.SeatState],
                       now: datetime) -> dict | None:
    """The row values of the one decision owed, when exactly one is and its seat's may be held."""
    if len(pending) != 1 or not holdable(clocks.get(pending[0].seat)):
        return None
    p = pending[0]
    return clock.new_decision(game.id, p.seat, p.kind, version, settings_for(game), clocks.get(p.seat), now)


def held_status(clocks: dict[int, clock.SeatState], held: dict, now: datetime) -> dict[int, dict]:
    """`clock.board_status` of a game whose only open decision is `held` (no query)."""
    return clock.board_status(None, held["game_id"], now, clocks=clocks, open_rows=[clock.held_row(held)])


def _store_held(s: Session, game: GameRow, held: dict | None, rows: bool) -> None:
    """The game row's clock columns (one UPDATE, only when they change), and the same values on
    `game` (an ORM row or a snapshot)."""
    data = clock.held_json(held) if held is not None else None
    next_at = held["next_at"] if held is not None else None
    if getattr(game, "clock_held", None) == data and getattr(game, "clock_rows", True) == rows:
        return
    direct(s.connection(), _STORE_HELD, {"game_id": game.id, "held": data, "next_at": next_at, "rows": rows})
    _holds_clock(game, data, next_at, rows)


def _holds_clock(game: GameRow, data: dict | None, next_at: datetime | None, rows: bool) -> None:
    for key, value in (("clock_held", data), ("clock_next_at", next_at), ("clock_rows", rows)):
        holds(game, key, value)


# `clock_rows` set first, returning the held decision as it is now (on PostgreSQL the row is locked
# from here: no move can hold another one, and the sweep's `materialize_due` waits)
_TAKE_HELD = update(_GT).where(_GT.c.id == bindparam("game_id")).values(clock_rows=True).returning(_GT.c.clock_held)
_CLEAR_HELD = update(_GT).where(_GT.c.id == bindparam("game_id")).values(clock_held=None, clock_next_at=None)


def materialize(s: Session, game: GameRow) -> None:
    """Before anything reads or changes a seat's open deadlines outside a move (vacation, play now,
    mail preference): the game's held decision becomes a `clock_deadline` row, and `clock_rows` is
    set (also when nothing is held), so a move that read the game before this takes the full path.
    The held decision is the one the game row has now (the sweep may have taken it meanwhile)."""
    s.flush()
    conn = s.connection()
    found = direct(conn, _TAKE_HELD, {"game_id": game.id}).rows
    data = found[0][0] if found else None
    if data:
        clock.insert_decision(s, clock.held_values(data))
        direct(conn, _CLEAR_HELD, {"game_id": game.id})
    _holds_clock(game, None, None, True)


_DUE_HELD = select(_GT.c.id).where(_GT.c.clock_next_at <= bindparam("now")).order_by(_GT.c.clock_next_at)
_HELD_OF = select(_GT.c.clock_held, _GT.c.clock_next_at).where(_GT.c.id == bindparam("game_id"))
_RELEASE_HELD = (update(_GT).where(_GT.c.id == bindparam("game_id"), _GT.c.clock_next_at == bindparam("seen"))
                 .values(clock_held=None, clock_next_at=None, clock_rows=True))


def materialize_due(session_factory, now: datetime, limit: int = 500) -> int:
    """The sweep's first step (`clock.tick` calls it through `before_sweep`): every held decision
    whose `next_at` has come becomes a `clock_deadline` row, due now, for the same sweep to handle.
    Exactly once: the game row's UPDATE is conditional on the `clock_next_at` read (rowcount 1 wins;
    a move that changed it meanwhile holds its own decision). Returns how many."""
    done = 0
    with session_factory() as s:
        ids = [r[0] for r in s.execute(_DUE_HELD.limit(limit), {"now": now})]
    for game_id in ids:
        with session_factory() as s:
            q = _HELD_OF.with_for_update() if s.get_bind().dialect.name == "postgresql" else _HELD_OF
            row = s.execute(q, {"game_id": game_id}).first()
            if row is None or row[0] is None or row[1] is None or row[1] > now:
                continue
            if s.execute(_RELEASE_HELD, {"game_id": game_id, "seen": row[1]}).rowcount != 1:
                continue
            clock.insert_decision(s, clock.held_values(row[0]))
            done += 1
    return done


def moved(s: Session, game: GameRow, new: engine.Game, seat: int, now: datetime | None = None, *,
          known: clock.GameClock | None = None) -> dict[int, dict] | None:
    """After a decision was applied (in its transaction), the clock's full path: a human move ends
    bot play and resets the timeout count; then the deadlines follow the new pending decisions (or
    all close at game over), and when exactly one decision is left that may be held, it is held on
    the game row. Returns the game's `clock.board_status` as of this move (None at game over), for
    the turn mails. (A move that can hold its decision at once does not come here: `hold_candidate`.)

    The game's held decision, if any, counts as an open row: it keeps its deadline (as a
    `clock_deadline` row now) when its seat still owes it and did not act, else it is dropped."""
    now = now or clock.utcnow()
    held = held_of(game)
    if new.is_over:
        if not played_by_clock():
            clock.note_player_acted(s, game.id, seat, now)
        clock.close_game(s, game.id, now)
        _store_held(s, game, None, False)
        return None
    # one query for the game's seat clocks and open rows, shared by the three calls (note_player_acted
    # updates the clocks); `known`: the caller read them in this transaction (`clock_of`)
    clocks, open_rows = known if known is not None else clock.game_clock(s, game.id)
    if not played_by_clock() and clock.note_player_acted(s, game.id, seat, now, clocks=clocks):
        open_rows = None  # bot play ended: the seat's rows changed, read them again
    pending = new.pending()
    owed = {(p.seat, p.kind) for p in pending}
    if held is not None and (held["seat"], held["kind"]) in owed and held["seat"] != seat:
        clock.insert_decision(s, held)  # still owed by a seat that did not act: it keeps its deadline
        open_rows = None
    if open_rows is None:
        open_rows = clock.game_open_rows(s, game.id)
    kept = [r for r in open_rows if (r.seat, r.kind) in owed and r.seat != seat]
    hold = None if kept else _holdable_decision(game, pending, new.version, clocks, now)
    if hold is not None:
        pending = []  # nothing for the table: its open rows all close
    rows = clock.schedule_decisions(s, game.id, pending, new.version, now, settings_for(game),
                                    acted_seats=(seat,), clocks=clocks, open_rows=open_rows)
    _store_held(s, game, hold, bool(rows))
    return clock.board_status(s, game.id, now, clocks=clocks, open_rows=rows + ([clock.held_row(hold)] if hold else []))


def open_decisions(s: Session, game: GameRow, seat: int | None = None) -> list[Deadline]:
    """The game's open decisions (of one seat) as `Deadline` rows by seat: its `clock_deadline` rows,
    and the held decision as a row that is not in the table (for looking at: tools, tests)."""
    rows = clock.open_deadlines(s, game.id, seat)
    held = held_of(game)
    if held is not None and seat in (None, held["seat"]):
        rows.append(Deadline(**held))
    return sorted(rows, key=lambda d: d.seat)


def board_status_of(s: Session, game: GameRow, now: datetime | None = None) -> dict[int, dict]:
    """`clock.board_status` of the game, its held decision included (pages, mails outside a move)."""
    held = held_of(game)
    rows = clock.game_open_rows(s, game.id)
    return clock.board_status(s, game.id, now, open_rows=rows + ([clock.held_row(held)] if held else []))


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

    def before_sweep(self, session_factory, now: datetime) -> int:
        return materialize_due(session_factory, now)

    def on_timeout(self, s: Session, d: Deadline) -> bool:
        from service.play import usecases

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
        from service.mail import compose as mails
        from service.play import usecases

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
        # the turn mail again, with the reminder on top: its move links and Reply-To still play
        mails.decision_or_nothing(s, game, seat, usecases.load_engine_game(game), clock_note=msg)
        return True

    def on_digest(self, s: Session, seat_clocks: list[SeatClock], now: datetime) -> None:
        from service.mail.outbox import queue_mail
        from service.play.usecases import load_engine_game

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


# ---------------------------------------------------------------------------------------------------
# What players see (board page, turn mails) and the page actions of the clock


def zone_choices() -> list[str]:
    """IANA zone names for the time-zone selects (UTC first)."""
    return _ZONES


def _all_zones() -> list[str]:
    from zoneinfo import available_timezones

    names = sorted(z for z in available_timezones() if "/" in z and not z.startswith(("Etc/", "SystemV/")))
    return ["UTC"] + names


_ZONES = _all_zones()


def local_text(t: datetime, tz: str | None) -> str:
    """A naive-UTC time in the viewer's zone, with the zone named: `2026-12-02 14:00 (Europe/Berlin)`."""
    return _when(t, tz or "UTC")


def viewer_zone(status: dict, seat_row: SeatRow | None) -> str:
    if seat_row is not None and seat_row.seat is not None and seat_row.seat in status:
        return status[seat_row.seat]["tz"]
    tz = getattr(seat_row, "tz", None) if seat_row is not None else None
    return tz if tz and clock.valid_zone(tz) else "UTC"


def deadline_text(s: Session, game: GameRow, seat_row: SeatRow, now: datetime | None = None,
                  status: dict | None = None) -> str | None:
    """The seat's own deadline as a sentence in its zone (turn mails, its board), or None."""
    if seat_row.seat is None or game.status != "active":
        return None
    status = status if status is not None else board_status_of(s, game, now)
    return own_line(clock_entry(status.get(seat_row.seat)))


def others_notes(s: Session, game: GameRow, seats: list[SeatRow], viewer: SeatRow | None,
                 now: datetime | None = None, status: dict | None = None) -> list[str]:
    """Lines about the other players' clocks, in the viewer's zone: vacations, bot play, and when
    the decisions they owe are due."""
    if game.status != "active":
        return []
    status = status if status is not None else board_status_of(s, game, now)
    return others_lines(others_entries(status, seats, viewer), viewer_zone(status, viewer))


def rules_text(game: GameRow) -> str:
    """The game's clock in one sentence (board and turn mails): time per decision, reminders, what
    happens when time runs out."""
    return rules_line(**rules_of(game))


# The same lines from plain data (a mail intent stores this data when the move commits and the
# sender writes the sentences when it renders the mail, in the recipient's language). Entries:
# {"due": earliest deadline or None, "vacation_until", "bot_played", "policy", "tz"}; times naive UTC.


def clock_entry(st: dict | None) -> dict | None:
    """One seat's `clock.board_status` entry as the lines need it."""
    if not st:
        return None
    return {"due": min((t for _k, t in st["deadlines"]), default=None), "vacation_until": st["vacation_until"],
            "bot_played": st["bot_played"], "policy": st["policy"], "tz": st["tz"]}


def others_entries(status: dict, seats: list[SeatRow], viewer: SeatRow | None) -> list[dict]:
    """The other seats' entries with their names, in seat order (only seats with something to show)."""
    return [dict(clock_entry(status[r.seat]), name=r.name) for r in seats
            if r.seat is not None and (viewer is None or r.seat != viewer.seat) and r.seat in status]


def rules_of(game: GameRow) -> dict:
    return {"decision_hours": game.decision_hours,
            "reminder_hours": list(getattr(game, "reminder_hours", None) or []),
            "timeout_policy": getattr(game, "timeout_policy", "bot")}


def own_line(mine: dict | None) -> str | None:
    if mine and mine["bot_played"]:
        return render._("The computer is playing for you until you act again: open any link of ours or your "
                        "board page and make a move (or change a setting) to take over.")
    if not mine or mine["due"] is None:
        return None
    tz, due = mine["tz"], mine["due"]
    if mine["vacation_until"]:
        return render._("You are on vacation until %(until)s; then please decide by %(when)s.",
                        until=local_text(mine["vacation_until"], tz), when=local_text(due, tz))
    if mine["policy"] == "wait":
        return render._("Please decide by %(when)s (the game waits for you).", when=local_text(due, tz))
    return render._("Please decide by %(when)s, or the computer will play this decision for you.",
                    when=local_text(due, tz))


def others_lines(others: list[dict], tz: str) -> list[str]:
    lines = []
    for st in others:
        if st["vacation_until"]:
            lines.append(render._("%(name)s is on vacation until %(until)s.", name=st["name"],
                                  until=local_text(st["vacation_until"], tz)))
        if st["bot_played"]:
            lines.append(render._("%(name)s's decisions are played by the computer until they act again.",
                                  name=st["name"]))
        elif st["due"] is not None and not st["vacation_until"]:
            lines.append(render._("%(name)s has until %(when)s to decide.", name=st["name"],
                                  when=local_text(st["due"], tz)))
    return lines


def _hours(h) -> str:
    h = float(h)
    if h >= 48 and h % 24 == 0:
        return render._("%(n)s days", n=int(h // 24))
    return render._("%(n)s h", n=int(h) if h == int(h) else h)


def rules_line(decision_hours: float, reminder_hours: list, timeout_policy: str) -> str:
    parts = [render._("Clock: %(t)s per decision", t=_hours(decision_hours))]
    if reminder_hours:
        parts.append(render._("reminders %(list)s before the deadline",
                              list=", ".join(_hours(h) for h in reminder_hours)))
    if timeout_policy == "wait":
        parts.append(render._("when time runs out the game waits (the host can let the computer play)"))
    else:
        parts.append(render._("when time runs out the computer makes the decision"))
    return "; ".join(parts) + "."


def timeout_notes(s: Session, game: GameRow, seats: list[SeatRow], mover: int) -> tuple[str, str | None, bool]:
    """While the clock plays for `mover`: the line the mails of this move show; for the mover, the
    line that tells how to take over again when the seat has just become played by the computer; and
    whether the seat was played by the computer already (then the mover is not told again)."""
    name = next((r.name for r in seats if r.seat == mover), "?")
    sc = clock.seat_clock(s, game.id, mover)
    count = sc.consecutive_timeouts if sc is not None else 0
    already = bool(sc is not None and sc.bot_played and count > clock.BOT_PLAYED_AFTER)
    if sc is not None and sc.bot_played:
        everyone = _("The computer made this decision for %(name)s (it plays for them until they act again).",
                     name=name)
    else:
        everyone = _("%(name)s's time ran out: the computer made this decision for them.", name=name)
    back = None
    if sc is not None and sc.bot_played and count == clock.BOT_PLAYED_AFTER:
        back = _("You missed %(n)s deadlines in a row, so the computer plays for you from now on. To take "
                 "over again, open any link of ours or your board page and make a move or change a "
                 "setting.", n=clock.BOT_PLAYED_AFTER)
    return everyone, back, already


def _owned(s: Session, token: str) -> tuple[SeatRow, GameRow]:
    from service.play import usecases

    seat, game = usecases.seat_by_token(s, token)
    if game.status != "active" or seat.seat is None:
        raise usecases.Conflict(_("This is only possible while the game is running."), game=game, seat=seat)
    return seat, game


def start_vacation(s: Session, token: str, days: int, now: datetime | None = None) -> datetime:
    """The board's vacation form: pause the seat's deadlines for `days` days (1..14 in total per
    game). Returns the end (naive UTC). ClockError (too much vacation) -> 400 for the page."""
    from datetime import timedelta

    from service.play import usecases

    if not isinstance(days, int) or not 1 <= days <= 14:
        raise usecases.Invalid(_("A vacation lasts from 1 to 14 days."))
    seat, game = _owned(s, token)
    now = now or clock.utcnow()
    until = now + timedelta(days=days)
    materialize(s, game)
    try:
        clock.set_vacation(s, game.id, seat.seat, until, now)
    except clock.ClockError as exc:
        left = clock.vacation_left(clock.seat_clock(s, game.id, seat.seat), now)
        raise usecases.Invalid(_("At most 14 days of vacation per game; %(days)s days left.",
                                 days=round(left.total_seconds() / 86400, 1)), clock_error=str(exc)) from exc
    return until


def stop_vacation(s: Session, token: str, now: datetime | None = None) -> None:
    seat, game = _owned(s, token)
    materialize(s, game)
    clock.end_vacation(s, game.id, seat.seat, now)
    player_acted(s, game, seat, now)


def host_play_now(s: Session, token: str, seat_no: int, now: datetime | None = None) -> str:
    """The host's "play for them now" (games with policy `wait`): the seat's owed decisions are
    played by the computer at the next sweep. Returns the player's name."""
    from service.play import usecases

    host, game = _owned(s, token)
    if not host.is_host:
        raise usecases.Forbidden(_("Only the host can do this."))
    if getattr(game, "timeout_policy", "bot") != "wait":
        raise usecases.Conflict(_("In this game the computer plays for late players by itself."))
    target = _seat_row(s, game.id, seat_no)
    if target is None or target.seat == host.seat:
        raise usecases.Invalid(_("No such player in this game."))
    player_acted(s, game, host, now)
    materialize(s, game)
    if clock.play_now(s, game.id, target.seat, now) == 0:
        raise usecases.Conflict(_("%(name)s owes no decision right now.", name=target.name))
    return target.name


def mirror_mail_pref(s: Session, game: GameRow, seat: SeatRow, now: datetime | None = None) -> None:
    """`seat.mail_pref` changed: the clock's copy follows (reminders, digests)."""
    if seat.seat is not None and game.state is not None:
        if game.status == "active":
            materialize(s, game)  # a held decision is re-planned too (reminders on or off)
        clock.set_seat_settings(s, game.id, seat.seat, now=now, address=seat.email, mail_pref=seat.mail_pref)
