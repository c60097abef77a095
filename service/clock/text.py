"""The clock's lines as players read them (board page, turn mails), from plain data: a mail intent
stores this data when the move commits, and the sender writes the sentences when it renders the
mail, in the recipient's language (`mail.render.clock_lines`). No database here.

Entries: {"due": earliest deadline or None, "vacation_until", "bot_played", "policy", "tz"}; times
naive UTC, shown in the viewer's zone.
"""

from __future__ import annotations

from datetime import datetime

from flask_babel import gettext as _

from service.clock.zones import to_local, valid_zone
from service.store.models import GameRow, SeatRow


def local_text(t: datetime, tz: str | None) -> str:
    """A naive-UTC time in the viewer's zone, with the zone named: `2026-12-02 14:00 (Europe/Berlin)`."""
    local = to_local(t, tz or "UTC")
    return f"{local:%Y-%m-%d %H:%M} ({tz or 'UTC'})"


def viewer_zone(status: dict, seat_row: SeatRow | None) -> str:
    if seat_row is not None and seat_row.seat is not None and seat_row.seat in status:
        return status[seat_row.seat]["tz"]
    tz = getattr(seat_row, "tz", None) if seat_row is not None else None
    return tz if tz and valid_zone(tz) else "UTC"


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
        return _("The computer is playing for you until you act again: open any link of ours or your "
                        "board page and make a move (or change a setting) to take over.")
    if not mine or mine["due"] is None:
        return None
    tz, due = mine["tz"], mine["due"]
    if mine["vacation_until"]:
        return _("You are on vacation until %(until)s; then please decide by %(when)s.",
                        until=local_text(mine["vacation_until"], tz), when=local_text(due, tz))
    if mine["policy"] == "wait":
        return _("Please decide by %(when)s (the game waits for you).", when=local_text(due, tz))
    return _("Please decide by %(when)s, or the computer will play this decision for you.",
                    when=local_text(due, tz))


def others_lines(others: list[dict], tz: str) -> list[str]:
    lines = []
    for st in others:
        if st["vacation_until"]:
            lines.append(_("%(name)s is on vacation until %(until)s.", name=st["name"],
                                  until=local_text(st["vacation_until"], tz)))
        if st["bot_played"]:
            lines.append(_("%(name)s's decisions are played by the computer until they act again.",
                                  name=st["name"]))
        elif st["due"] is not None and not st["vacation_until"]:
            lines.append(_("%(name)s has until %(when)s to decide.", name=st["name"],
                                  when=local_text(st["due"], tz)))
    return lines


def _hours(h) -> str:
    h = float(h)
    if h >= 48 and h % 24 == 0:
        return _("%(n)s days", n=int(h // 24))
    return _("%(n)s h", n=int(h) if h == int(h) else h)


def rules_line(decision_hours: float, reminder_hours: list, timeout_policy: str) -> str:
    parts = [_("Clock: %(t)s per decision", t=_hours(decision_hours))]
    if reminder_hours:
        parts.append(_("reminders %(list)s before the deadline",
                              list=", ".join(_hours(h) for h in reminder_hours)))
    if timeout_policy == "wait":
        parts.append(_("when time runs out the game waits (the host can let the computer play)"))
    else:
        parts.append(_("when time runs out the computer makes the decision"))
    return "; ".join(parts) + "."
