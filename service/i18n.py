"""Languages (issue 17): which language a page or mail is in, the catalogues, local times.

A seat's pages and mails use the seat's language (`SeatRow.lang`); a page without a seat (the
start page, /new, a spectator's page) follows the browser's Accept-Language. `use_seat` is called
where a request finds its seat (`play.lookups.seat_by_token`), so everything said after that, the
flashed messages of a POST too, is in the seat's language; the mail renderer wraps each mail in
`flask_babel.force_locale(lang)`.

The catalogues are `translations/<lang>/LC_MESSAGES/messages.po` in the repository (English is the
msgids); `compile_catalogues` writes the `.mo` files next to them at app start when a `.po` is newer
(they are never committed). `skyjo-pbem i18n update` extracts the msgids and updates the catalogues.
"""

from __future__ import annotations

import logging
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from functools import lru_cache
from pathlib import Path

from babel import Locale
from babel.dates import format_date, format_skeleton, get_timezone_location
from flask import g, has_request_context, request
from flask_babel import force_locale, get_locale, gettext, refresh

from service.clock.zones import COUNTRY_OF, to_local
from service.clock.zones import zone_groups as zone_groups_of
from service.words.names import joined_names

ROOT = Path(__file__).resolve().parent.parent
TRANSLATIONS = ROOT / "translations"
DEFAULT = "en"
# each language's name in itself (what the language menus show)
LANGUAGES: dict[str, str] = {"en": "English", "sv": "Svenska", "nl": "Nederlands", "af": "Afrikaans",
                             "de": "Deutsch"}
TRANSLATED = tuple(code for code in LANGUAGES if code != DEFAULT)

log = logging.getLogger(__name__)


def known(code: str | None) -> str:
    """`code` if it is one of ours, else the default (a form field or an old row never breaks a page)."""
    code = (code or "").strip().lower().replace("_", "-").split("-")[0]
    return code if code in LANGUAGES else DEFAULT


def browser_language() -> str:
    """The best of our languages for the browser's Accept-Language (English when none fits)."""
    if not has_request_context():
        return DEFAULT
    return request.accept_languages.best_match(list(LANGUAGES)) or DEFAULT


def language_choices() -> list[tuple[str, str]]:
    return list(LANGUAGES.items())


def select_locale() -> str:
    """Flask-Babel's locale selector: the seat's language once the request has found its seat,
    else the browser's."""
    lang = g.get("seat_lang") if has_request_context() else None
    return lang or browser_language()


def use_seat(lang: str | None) -> None:
    """The request now acts for a seat whose language is `lang`: what it says from here on is in it."""
    if not has_request_context():
        return
    lang = known(lang)
    if g.get("seat_lang") != lang:
        g.seat_lang = lang
        refresh()  # Flask-Babel caches the locale per request


def current() -> str:
    locale = get_locale()
    return str(locale) if locale is not None else DEFAULT


def local_time(t: datetime, tz: str | None) -> str:
    """A naive-UTC time in the reader's zone, in the reader's language, the zone named by its city
    in that language (Babel's exemplar city, issue 28.3): `Dec 2, 2026 14:00, Berlin time`,
    `2 dec. 2026 14:00, Berlin-tid`, `02.12.2026 14:00, Ortszeit Berlin`; `... 14:00 UTC`."""
    tz = tz or "UTC"
    local, lang = to_local(t, tz), current()
    when = f"{format_date(local, 'medium', locale=lang)} {format_skeleton('Hm', local, tzinfo=local.tzinfo, locale=lang)}"
    if tz == "UTC" or "/" not in tz:
        return gettext("%(when)s UTC", when=when)
    return gettext("%(when)s, %(city)s time", when=when, city=zone_city(tz, lang))


def zone_city(tz: str, lang: str) -> str:
    """A zone's city in `lang` (`Europe/Vienna` -> de "Wien", sv "Wien", af ...)."""
    return get_timezone_location(tz, locale=lang, return_city=True)


def _regions() -> dict[str, str]:
    return {"Africa": gettext("Africa"), "America": gettext("America"), "Antarctica": gettext("Antarctica"),
            "Arctic": gettext("Arctic"), "Asia": gettext("Asia"), "Atlantic": gettext("Atlantic"),
            "Australia": gettext("Australia"), "Europe": gettext("Europe"), "Indian": gettext("Indian Ocean"),
            "Pacific": gettext("Pacific")}


def zone_groups() -> list[tuple[str, list[tuple[str, str]]]]:
    """The time-zone select's groups (`clock.zones.zone_groups`) in the reader's language: regions
    and labels "Wien (Österreich)" from Babel's city and territory names (issue 28.3)."""
    return _zone_groups(current())


@lru_cache(maxsize=8)
def _zone_groups(lang: str) -> list[tuple[str, list[tuple[str, str]]]]:
    territories = Locale.parse(lang).territories

    def label(name: str, english: str) -> str:
        city, country = zone_city(name, lang), territories.get(COUNTRY_OF.get(name, ""), "")
        return f"{city} ({country})" if country and country != city else city

    regions = _regions()
    groups = [(regions.get(region, region), sorted(zones, key=lambda z: z[1].casefold()))
              for region, zones in zone_groups_of(label)]
    return groups[:1] + sorted(groups[1:], key=lambda g: g[0].casefold())


# ---------------------------------------------------------------------------------------------------
# catalogues


def catalogue_files(root: Path = TRANSLATIONS) -> list[Path]:
    return sorted(root.glob("*/LC_MESSAGES/messages.po"))


def compile_catalogues(root: Path = TRANSLATIONS, *, force: bool = False) -> list[Path]:
    """Write `messages.mo` beside each `messages.po` that is newer than it (or has none); the .mo
    files that were written. Atomic (a temporary file renamed), so processes starting together do
    not read half a file; a read-only install with current .mo files is left alone."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    written = []
    for po in catalogue_files(root):
        mo = po.with_suffix(".mo")
        if not force and mo.exists() and mo.stat().st_mtime >= po.stat().st_mtime:
            continue
        with po.open("rb") as f:
            catalog = read_po(f, locale=po.parent.parent.name)
        try:
            fd, tmp = tempfile.mkstemp(dir=po.parent, suffix=".mo.tmp")
            with os.fdopen(fd, "wb") as out:
                write_mo(out, catalog, use_fuzzy=False)
            os.replace(tmp, mo)
        except OSError as exc:  # pragma: no cover - a read-only install
            log.warning("cannot compile %s: %s", po, exc)
            continue
        written.append(mo)
    return written


def init_app(app, babel) -> None:
    """Flask-Babel with our catalogues and locale selector; the catalogues compiled when stale."""
    app.config.setdefault("BABEL_TRANSLATION_DIRECTORIES", str(TRANSLATIONS))
    compile_catalogues(Path(app.config["BABEL_TRANSLATION_DIRECTORIES"]))
    babel.init_app(app, locale_selector=select_locale)
    app.jinja_env.globals.update(languages=LANGUAGES, current_language=current)


@contextmanager
def speaking(lang: str | None) -> Iterator[None]:
    """What is said inside is in `lang` (a seat's language): a mail to that seat, a notice for it,
    the answer to its reply. Needs an app context (without one, English)."""
    with force_locale(known(lang)):
        yield


def game_title(names: list[str]) -> str:
    """A game's title in the current language: `SKYJO with Ann, Bo and Cy`."""
    return gettext("SKYJO with %(names)s", names=joined_names(names))
