"""Time zones and quiet hours of the clock (no database).

Times are naive UTC everywhere; a zone matters only for quiet hours (22:00-08:00 local: no reminder
or digest goes out then; deadlines themselves are never deferred), for the 08:00 digest and for
showing a time to a player. DST-correct through `zoneinfo`.
"""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta
from functools import lru_cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from service.store.clock_models import utcnow

QUIET_START = time(22, 0)
QUIET_END = time(8, 0)


@lru_cache(maxsize=512)
def zone(name: str | None) -> ZoneInfo:
    try:
        return ZoneInfo(name or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def valid_zone(name: str) -> bool:
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return False
    return True



def naive(value: datetime | None) -> datetime:
    """`value` as naive UTC (None: now)."""
    if value is None:
        return utcnow()
    if value.tzinfo is not None:
        return value.astimezone(UTC).replace(tzinfo=None)
    return value



def to_local(t: datetime, tz: str | None) -> datetime:
    """Naive UTC -> aware local time (for showing deadlines in the player's zone)."""
    return naive(t).replace(tzinfo=UTC).astimezone(zone(tz))




def is_quiet(t: datetime, tz: str | None) -> bool:
    local = to_local(t, tz).time()
    return local >= QUIET_START or local < QUIET_END


def next_local_time(t: datetime, tz: str | None, at: time = QUIET_END, *, strict: bool = True) -> datetime:
    """The first moment after `t` (naive UTC; at or after when strict=False) when the wall clock in
    `tz` shows `at`; naive UTC. DST-correct: the wall time is built in the zone, then converted."""
    z = zone(tz)
    local = to_local(t, tz)
    candidate = datetime.combine(local.date(), at, tzinfo=z)
    base = naive(t)
    for _ in range(3):
        utc = candidate.astimezone(UTC).replace(tzinfo=None)
        if utc > base or (not strict and utc == base):
            return utc
        candidate = datetime.combine(candidate.date() + timedelta(days=1), at, tzinfo=z)
    raise AssertionError("unreachable")  # pragma: no cover


def defer_quiet(t: datetime, tz: str | None) -> datetime:
    """`t` if it is outside quiet hours in `tz`, else the next 08:00 local (naive UTC)."""
    t = naive(t)
    return next_local_time(t, tz, QUIET_END) if is_quiet(t, tz) else t



def _all_zones() -> list[str]:
    names = sorted(z for z in available_timezones() if "/" in z and not z.startswith(("Etc/", "SystemV/")))
    return ["UTC"] + names


_ZONES = _all_zones()


def zone_choices() -> list[str]:
    """IANA zone names for the time-zone selects (UTC first)."""
    return _ZONES
