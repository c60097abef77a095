"""The clock's data a board or a mail shows, as plain data: a mail intent stores it when the move
commits, and the sender writes the sentences from it when it renders the mail, in the recipient's
language (`service.render.clock_text`). No database here.

Entries: {"due": earliest deadline or None, "vacation_until", "bot_played", "policy", "tz"}; times
naive UTC, shown in the viewer's zone.
"""

from __future__ import annotations

from service.clock.zones import valid_zone
from service.store.models import GameRow, SeatRow


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
