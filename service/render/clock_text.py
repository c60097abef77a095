"""The clock's sentences from plain data: a seat's own deadline, the other players' clocks and the
game's clock rules, in the reader's zone and language.

A mail intent stores the data when its move commits (`mail.compose.clock_context`) and the sender
writes the sentences when it renders the mail (`clock_lines`), in the recipient's language; the
board page writes the same sentences from the same data. Entries: {"due": earliest deadline or
None, "vacation_until", "bot_played", "policy", "tz"} (others' entries add "name"); times naive UTC."""

from __future__ import annotations

from flask_babel import gettext as _

from service.i18n import local_time


def own_line(mine: dict | None) -> str | None:
    """The seat's own deadline as a sentence, or None (no decision due)."""
    if mine and mine["bot_played"]:
        return _(
            "The computer is playing for you until you act again: open any link of ours or your "
            "board page and make a move (or change a setting) to take over."
        )
    if not mine or mine["due"] is None:
        return None
    tz, due = mine["tz"], mine["due"]
    if mine["vacation_until"]:
        return _(
            "You are on vacation until %(until)s; then please decide by %(when)s.",
            until=local_time(mine["vacation_until"], tz),
            when=local_time(due, tz),
        )
    if mine["policy"] == "wait":
        return _("Please decide by %(when)s (the game waits for you).", when=local_time(due, tz))
    return _(
        "Please decide by %(when)s, or the computer will play this decision for you.",
        when=local_time(due, tz),
    )


def others_lines(others: list[dict], tz: str) -> list[str]:
    """A line per other player with something to say: vacation, bot play, or when they must decide."""
    lines = []
    for st in others:
        if st["vacation_until"]:
            lines.append(
                _(
                    "%(name)s is on vacation until %(until)s.",
                    name=st["name"],
                    until=local_time(st["vacation_until"], tz),
                )
            )
        if st["bot_played"]:
            lines.append(
                _("%(name)s's decisions are played by the computer until they act again.", name=st["name"])
            )
        elif st["due"] is not None and not st["vacation_until"]:
            lines.append(
                _("%(name)s has until %(when)s to decide.", name=st["name"], when=local_time(st["due"], tz))
            )
    return lines


def hours_text(h) -> str:
    h = float(h)
    if h >= 48 and h % 24 == 0:
        return _("%(n)s days", n=int(h // 24))
    return _("%(n)s h", n=int(h) if h == int(h) else h)


def rules_line(decision_hours: float, reminder_hours: list, timeout_policy: str) -> str:
    """The game's clock in one sentence: time per decision, reminders, what happens when time runs out."""
    parts = [_("Clock: %(t)s per decision", t=hours_text(decision_hours))]
    if reminder_hours:
        parts.append(
            _("reminders %(list)s before the deadline", list=", ".join(hours_text(h) for h in reminder_hours))
        )
    if timeout_policy == "wait":
        parts.append(_("when time runs out the game waits (the host can let the computer play)"))
    else:
        parts.append(_("when time runs out the computer makes the decision"))
    return "; ".join(parts) + "."


def clock_lines(data: dict) -> dict:
    """A mail intent's clock data (`mine`, `others`, `tz`, `rules`) as the lines its templates show:
    `deadline_text` (the seat's own) and `clock_notes` (the others', then the rules)."""
    return {
        "deadline_text": own_line(data["mine"]),
        "clock_notes": others_lines(data["others"], data["tz"]) + [rules_line(**data["rules"])],
    }


def shown_times(others: list[dict], tz: str) -> list[dict]:
    """The times `others_lines` writes, each as written (`shown`) and as an ISO instant in UTC
    (`iso`): the spectator's page, which has no seat and so no zone, marks them as <time> and a
    script says them in the browser's zone (issue 28.7); without it they stay in `tz`, named."""
    return [{"shown": local_time(t, tz), "iso": t.replace(tzinfo=None).isoformat(timespec="seconds") + "Z"}
            for st in others for t in (st["vacation_until"], st["due"]) if t is not None]
