"""The translation is complete (issue 17, point 5), checked in every run: a new text in the code
or a template fails here until it is translated in every catalogue (docs/i18n.md, the translation
pass).

1. every msgid of the code and templates is in every catalogue, translated and not fuzzy;
2. every mail kind and every page, rendered in each language, has no English left over (names,
   cells, numbers and the words every language shares are allowed)."""

from __future__ import annotations

import random
import re

import pytest
from babel.messages.pofile import read_po
from sqlmodel import select

from service import i18n
from service.cli_i18n import extract, status
from service.store import db
from service.store.outbox_models import OutboxMail
from tests.conftest import whole_game_sqlite_only
from tests.service import helpers as h

pytestmark = pytest.mark.i18n_complete

PLAYERS = (("Ann", "ann@example.com"), ("Bo", "bo@example.com"), ("Cy", "cy@example.com"),
           ("Dirk", "dirk@example.com"))
LANG_OF = {"ann@example.com": "af", "bo@example.com": "sv", "cy@example.com": "nl", "dirk@example.com": "de"}
# words that are no English left over in any language: the game's name, names, units, the languages'
# own names on the language menus, technical words of mails
ALLOWED = {"skyjo", "action", "ann", "dirk", "http", "https", "localhost", "utc", "europe", "asia", "english",
           "svenska", "nederlands", "afrikaans", "deutsch", "html", "mailto", "email", "e-mail"}
WORD = re.compile(r"[^\W\d_]{4,}")


@pytest.mark.parametrize("lang", i18n.TRANSLATED)
def test_every_msgid_is_translated_in_every_catalogue(lang: str) -> None:
    st = status(lang, extract())
    assert not st["missing"], f"{lang}: {len(st['missing'])} msgids missing (run `skyjo-pbem i18n update`)"
    assert not st["fuzzy"], f"{lang}: {len(st['fuzzy'])} fuzzy: {st['fuzzy'][:5]}"
    assert not st["untranslated"], f"{lang}: {len(st['untranslated'])} untranslated: {st['untranslated'][:5]}"


def _english_words() -> dict[str, set[str]]:
    """Per language: the words of the English msgids that the language's translations never use."""
    ids = [m for m in extract() if m.id]
    english = {w.lower() for m in ids for part in ([m.id] if isinstance(m.id, str) else m.id)
               for w in WORD.findall(re.sub(r"%\(\w+\)[sdr]", " ", part))}
    out = {}
    for lang in i18n.TRANSLATED:
        with (i18n.TRANSLATIONS / lang / "LC_MESSAGES" / "messages.po").open("rb") as f:
            cat = read_po(f)
        used = {w.lower() for m in cat if m.id for s in ([m.string] if isinstance(m.string, str) else m.string)
                for w in WORD.findall(s or "")}
        out[lang] = english - used - ALLOWED
    return out


def _visible_text(html_or_text: str) -> str:
    t = re.sub(r"<(style|script)\b.*?</\1>", " ", html_or_text, flags=re.S | re.I)
    t = re.sub(r"<select\b[^>]*\bname=\"(?:host_)?tz\"[^>]*>.*?</select>", " ", t, flags=re.S)  # time zones: places
    t = re.sub(r"<[^>]+>", " ", t)
    t = re.sub(r"https?://\S+", " ", t)
    t = re.sub(r"\b[A-Z][a-z]+/[A-Za-z_/+-]+", " ", t)  # time zone names (America/Swift_Current)
    return t


def _leftovers(text: str, english: set[str]) -> set[str]:
    return {w for w in WORD.findall(_visible_text(text)) if w.lower() in english}


@whole_game_sqlite_only  # a whole game: PostgreSQL adds nothing its race tests miss (tests/conftest.py)
def test_every_mail_and_page_is_free_of_english_in_every_language(app, client) -> None:
    english = _english_words()
    found: dict[str, set[str]] = {}

    def check(where: str, lang: str, text: str) -> None:
        left = _leftovers(text, english[lang])
        if left:
            found[f"{lang} {where}"] = left

    # pages without a seat, in the browser's language
    for lang in i18n.TRANSLATED:
        for path in ("/", "/new", "/links"):
            check(path, lang, client.get(path, headers={"Accept-Language": lang}).text)
    extra = {"host_lang": "af", "players-0-lang": "sv", "players-1-lang": "nl", "players-2-lang": "de"}
    h.new_game(client, PLAYERS, target=30, extra=extra)
    for m in h.mails(client.application):
        if m.template == "invitation":
            seat = next(p for p in h.links_of(m) if re.fullmatch(r"/s/[A-Za-z0-9_-]+", p))
            check("invite page", LANG_OF[m.to_addr], client.get(seat).text)
            check("prefs page", LANG_OF[m.to_addr], client.get(seat + "/prefs").text)
            assert h.post_form(client, seat + "/accept", page_path=seat).status_code == 303
    boards = {}

    def on_step(new: list[OutboxMail]) -> None:
        for m in new:
            lang = LANG_OF.get(m.to_addr)
            if lang:
                check(f"mail {m.template} (text)", lang, m.text_body)
                check(f"mail {m.template} (html)", lang, m.html_body or "")
                check(f"mail {m.template} (subject)", lang, m.subject)
                for p in h.move_links(m)[:1]:
                    check("confirm page", lang, client.get(p).text)
                seat = next((p for p in h.links_of(m) if re.fullmatch(r"/s/[A-Za-z0-9_-]+", p)), None)
                if seat and lang not in boards:
                    boards[lang] = seat

    h.play_by_mail(app, client, rng=random.Random(17), on_step=on_step)
    for lang, seat in boards.items():
        check("board page (game over)", lang, client.get(seat).text)
        check("unsubscribe page", lang, client.get(seat + "/unsubscribe").text)
    game = h.only_game(app)
    from service.render.links import watch_path

    with app.app_context():
        watch = watch_path(game.id, game.spectator_salt)
    for lang in i18n.TRANSLATED:  # pages without a seat follow the browser
        check("spectator page", lang, client.get(watch, headers={"Accept-Language": lang}).text)
        check("404 page", lang, client.get("/s/no-such-token", headers={"Accept-Language": lang}).text)
    # answers to replies (the game is over: "not applied"), and "mail me my links"
    from service.play import reply_service
    from tests.service.test_reply_service import latest_reply_mail, reply_to

    since = h.mails(app)[-1].id
    for email in LANG_OF:
        mail = latest_reply_mail(app, email)
        if mail is not None:
            reply_service.handle_inbound(app, reply_to(mail, "draw swap B2"))
        h.post_form(client, "/links", {"email": email})
    for m in h.mails(app, since):
        check(f"mail {m.template} (text)", LANG_OF[m.to_addr], m.text_body)
        check(f"mail {m.template} (html)", LANG_OF[m.to_addr], m.html_body or "")
        check(f"mail {m.template} (subject)", LANG_OF[m.to_addr], m.subject)
    with app.app_context(), db.transaction() as s:
        kinds = {m.template for m in s.exec(select(OutboxMail))}
    assert {"invitation", "created", "notice", "turn", "game_over", "answer", "links"} <= kinds
    assert not found, "\n".join(f"{k}: {sorted(v)[:12]}" for k, v in sorted(found.items()))
