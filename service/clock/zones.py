"""Time zones and quiet hours of the clock (no database).

Times are naive UTC everywhere; a zone matters only for quiet hours (22:00-08:00 local: no reminder
or digest goes out then; deadlines themselves are never deferred), for the 08:00 digest and for
showing a time to a player. DST-correct through `zoneinfo`.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, time, timedelta
from functools import lru_cache
from pathlib import Path
from zoneinfo import TZPATH, ZoneInfo, ZoneInfoNotFoundError, available_timezones

from service.store.outbox_models import naive_utc

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






def to_local(t: datetime, tz: str | None) -> datetime:
    """Naive UTC -> aware local time (for showing deadlines in the player's zone)."""
    return naive_utc(t).replace(tzinfo=UTC).astimezone(zone(tz))




def is_quiet(t: datetime, tz: str | None) -> bool:
    local = to_local(t, tz).time()
    return local >= QUIET_START or local < QUIET_END


def next_local_time(t: datetime, tz: str | None, at: time = QUIET_END, *, strict: bool = True) -> datetime:
    """The first moment after `t` (naive UTC; at or after when strict=False) when the wall clock in
    `tz` shows `at`; naive UTC. DST-correct: the wall time is built in the zone, then converted."""
    z = zone(tz)
    local = to_local(t, tz)
    candidate = datetime.combine(local.date(), at, tzinfo=z)
    base = naive_utc(t)
    for _ in range(3):
        utc = candidate.astimezone(UTC).replace(tzinfo=None)
        if utc > base or (not strict and utc == base):
            return utc
        candidate = datetime.combine(candidate.date() + timedelta(days=1), at, tzinfo=z)
    raise AssertionError("unreachable")  # pragma: no cover


def defer_quiet(t: datetime, tz: str | None) -> datetime:
    """`t` if it is outside quiet hours in `tz`, else the next 08:00 local (naive UTC)."""
    t = naive_utc(t)
    return next_local_time(t, tz, QUIET_END) if is_quiet(t, tz) else t



# Old names that `available_timezones()` still lists (backward links, POSIX and System V names): a
# person picks from the current IANA names; such a name still validates when typed or sent.
_OLD_PREFIXES = ("Etc/", "SystemV/", "US/", "Brazil/", "Canada/", "Chile/", "Mexico/", "posix/", "right/")


def _tab(name: str) -> list[list[str]]:
    """The rows of a tzdata table (`zone.tab`, `iso3166.tab`) from the first zoneinfo directory
    that has it; [] when none does."""
    for directory in TZPATH:
        path = Path(directory) / name
        if path.is_file():
            lines = path.read_text(encoding="utf-8").splitlines()
            return [line.split("\t") for line in lines if line and not line.startswith("#")]
    return []


def _curated() -> list[tuple[str, str]]:
    """(name, label) of the current zones: tzdata's `zone.tab` (one or more zones per country,
    current names only: Europe/Kyiv, not Europe/Kiev), labelled "Stockholm (Sweden)"; without it,
    the zones Python knows minus the old-style names."""
    countries = {row[0]: row[1] for row in _tab("iso3166.tab") if len(row) >= 2}
    rows = [(row[2], row[0].split(",")[0]) for row in _tab("zone.tab") if len(row) >= 3]
    if not rows:
        rows = [(z, "") for z in available_timezones() if "/" in z and not z.startswith(_OLD_PREFIXES)]
    out = []
    for name, code in rows:
        if not valid_zone(name):
            continue
        COUNTRY_OF[name] = code
        country = countries.get(code, "")
        place = name.split("/", 1)[1].replace("_", " ").replace("/", " / ")
        out.append((name, f"{place} ({country})" if country and country != place else place))
    return out


COUNTRY_OF: dict[str, str] = {}  # zone name -> ISO 3166 code (zone.tab's first), for labels in a language
_CURATED = _curated()
_NAMES = ["UTC"] + sorted(name for name, _label in _CURATED)


def zone_choices() -> list[str]:
    """The IANA zone names a person picks from (UTC first; current names only, see `_curated`)."""
    return _NAMES


def zone_groups(label: Callable[[str, str], str] | None = None) -> list[tuple[str, list[tuple[str, str]]]]:
    """The same zones for a select: grouped by region (Africa, America, ..., Pacific), each group
    sorted by its labels; `("", [("UTC", "UTC")])` first. `label(name, english_label)`: a zone's
    label in the reader's language (`service.i18n.zone_groups`)."""
    groups: dict[str, list[tuple[str, str]]] = {}
    for name, english in _CURATED:
        groups.setdefault(name.split("/", 1)[0], []).append((name, label(name, english) if label else english))
    return [("", [("UTC", "UTC")])] + [(region, sorted(groups[region], key=lambda z: z[1].casefold()))
                                       for region in sorted(groups)]
