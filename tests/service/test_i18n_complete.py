"""The translation is complete (issue 17, point 5), checked in every run: a new text in the code
or a template fails here until it is translated in every catalogue (docs/i18n.md, the translation
pass).

1. every msgid of the code and templates is in every catalogue, translated and not fuzzy;
2. every mail kind and every page, rendered in each language, has no English left over (names,
   cells, numbers and the words every language shares are allowed)."""

from __future__ import annotations

import random
import re
from html import unescape as html_unescape

import pytest
from babel.messages.pofile import read_po
from sqlmodel import select

from service import i18n
from service.cli_i18n import extract, status
from service.store import db
from service.store.outbox_models import OutboxMail
from service.words.reply_words import in_words_of
from tests.conftest import sqlite_suffices
from tests.service import helpers as h

pytestmark = pytest.mark.i18n_complete

PLAYERS = (("Ann", "ann@example.com"), ("Bo", "bo@example.com"), ("Cy", "cy@example.com"),
           ("Dirk", "dirk@example.com"))
LANG_OF = {"ann@example.com": "af", "bo@example.com": "sv", "cy@example.com": "nl", "dirk@example.com": "de"}
# words that are no English left over in any language: the game's name, names, units, the languages'
# own names on the language menus, technical words of mails
ALLOWED = {"skyjo", "action", "ann", "dirk", "http", "https", "localhost", "utc", "english",
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
        # a placeholder's name (`%(flip)s`, `%(reveal)s`) is no word the translation uses
        used = {w.lower() for m in cat if m.id for s in ([m.string] if isinstance(m.string, str) else m.string)
                for w in WORD.findall(re.sub(r"%\(\w+\)[sdr]", " ", s or ""))}
        out[lang] = english - used - ALLOWED
    return out


# attributes a reader sees or hears (issue 28.3: the whole-turn field's placeholder was English)
SAID_ATTRIBUTES = re.compile(r'\b(?:placeholder|aria-label|title|alt|label)="([^"]*)"')


def _visible_text(html_or_text: str) -> str:
    """The text a reader sees or hears: text, the said attributes and the time-zone list (its
    regions and places in the reader's language, issue 28.3; no zone's IANA name is shown)."""
    t = re.sub(r"<(style|script)\b.*?</\1>", " ", html_or_text, flags=re.S | re.I)
    said = " ".join(SAID_ATTRIBUTES.findall(t))  # taken out before the tags go
    t = re.sub(r"<[^>]+>", " ", t) + " " + html_unescape(said)
    t = re.sub(r"https?://\S+", " ", t)
    # places of the zone list that CLDR names in English in every language (Babel's city names)
    return re.sub(r"\b(?:Swift Current|Tell City|Lower Prince’s Quarter)", " ", t)


def _leftovers(text: str, english: set[str]) -> set[str]:
    return {w for w in WORD.findall(_visible_text(text)) if w.lower() in english} | _english_zone_list(text)


def _english_zone_list(html: str) -> set[str]:
    """The time-zone select in English (issue 28.3: "Vienna (Austria)", "Europe"): more than half of
    its labels as the English list has them (a city and country both written alike in a language,
    "Kabul (Afghanistan)", may stay)."""
    select = re.search(r"<select\b[^>]*\bname=\"(?:host_)?tz\"[^>]*>(.*?)</select>", html, re.S)
    if select is None:
        return set()
    from service.clock.zones import zone_groups

    english = {label for _region, zones in zone_groups() for _name, label in zones if "(" in label}
    labels = [html_unescape(x) for x in re.findall(r"<option[^>]*>([^<]*)</option>", select.group(1))]
    same = [x for x in labels if x in english]
    return {"time-zone list in English: " + ", ".join(same[:3])} if len(same) * 2 > len(labels) else set()


@sqlite_suffices  # a whole game: PostgreSQL adds nothing its race tests miss (tests/conftest.py)
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
    # a refused reply in the opening: the answer lists what is possible now, in the reader's words
    from service.play import reply_service
    from tests.service.test_reply_service import latest_reply_mail, reply_to

    since = h.mails(app)[-1].id
    for email, lang in LANG_OF.items():  # "swap B2", as the player writes it
        reply_service.handle_inbound(app, reply_to(latest_reply_mail(app, email), in_words_of("swap B2", lang)))
    refused = [m for m in h.mails(app, since) if m.template == "answer"]
    assert len(refused) == len(LANG_OF)
    for m in refused:
        check("mail answer, refused (text)", LANG_OF[m.to_addr], m.text_body)
        check("mail answer, refused (html)", LANG_OF[m.to_addr], m.html_body or "")
    boards = {}
    first_links: dict[str, str] = {}  # lang -> a move link of its first decision (stale later)
    stale_seen: dict[str, str] = {}

    def on_step(new: list[OutboxMail]) -> None:
        for m in new:
            lang = LANG_OF.get(m.to_addr)
            if lang:
                check(f"mail {m.template} (text)", lang, m.text_body)
                check(f"mail {m.template} (html)", lang, m.html_body or "")
                check(f"mail {m.template} (subject)", lang, m.subject)
                for p in h.move_links(m)[:1]:
                    check("confirm page", lang, client.get(p).text)
                    if lang in first_links and h.decision_of(p) != h.decision_of(first_links[lang]) \
                            and lang not in stale_seen:  # the first decision is made: "You already played ..."
                        stale = client.get(first_links[lang]).text
                        check("stale link page", lang, stale)
                        stale_seen[lang] = stale
                    first_links.setdefault(lang, p)
                seat = next((p for p in h.links_of(m) if re.fullmatch(r"/s/[A-Za-z0-9_-]+", p)), None)
                if seat and lang not in boards:
                    boards[lang] = seat
                    check("board page (deciding)", lang, client.get(seat).text)  # the whole-turn field

    h.play_by_mail(app, client, rng=random.Random(17), on_step=on_step)
    assert set(stale_seen) == set(i18n.TRANSLATED)
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
        if m.template == "links":  # its one link: the page of the address's games (issue 31.4)
            me = next(p for p in h.links_of(m) if p.startswith("/me/"))
            check("my games page", LANG_OF[m.to_addr], client.get(me).text)
            lang = {"Accept-Language": LANG_OF[m.to_addr]}
            check("my games page, a bad link", LANG_OF[m.to_addr], client.get(me + "x", headers=lang).text)
    with app.app_context(), db.transaction() as s:
        kinds = {m.template for m in s.exec(select(OutboxMail))}
    assert {"invitation", "created", "notice", "turn", "game_over", "answer", "links"} <= kinds
    assert not found, "\n".join(f"{k}: {sorted(v)[:12]}" for k, v in sorted(found.items()))


@sqlite_suffices  # what pages and mails say: PostgreSQL adds nothing (tests/conftest.py)
def test_skyjo_actions_done_box_says_a_classic_move_in_the_readers_words(app, client) -> None:
    """In a SKYJO Action game the "Done:" box after a classic move (the opening's reveal) is in the
    reader's words, not `reveal A1` (issue 28.3)."""
    from tests.service.test_action_pages import press

    extra = {"variant": "action", "opt_target_score": "100", "host_lang": "af", "players-0-lang": "sv",
             "players-1-lang": "nl", "players-2-lang": "de"}
    assert h.new_game(client, PLAYERS, extra=extra)[0] == 303
    for m in h.mails(app):
        if m.template == "invitation":
            seat = next(p for p in h.links_of(m) if re.fullmatch(r"/s/[A-Za-z0-9_-]+", p))
            assert h.post_form(client, seat + "/accept", page_path=seat).status_code == 303
    english = _english_words()
    boards = {}
    for m in h.mails(app):
        seat = next((p for p in h.links_of(m) if re.fullmatch(r"/s/[A-Za-z0-9_-]+", p)), None)
        if seat and m.to_addr in LANG_OF:
            boards.setdefault(LANG_OF[m.to_addr], seat)
    assert set(boards) == set(i18n.TRANSLATED)
    for lang, seat in boards.items():
        r = press(client, client.get(seat).text, "reveal A1")
        assert r.status_code == 303, r.text[-500:]
        page = client.get(r.headers["Location"]).text
        done = re.search(r'<div id="done"[^>]*>(.*?)</div>', page, re.S)
        assert done is not None, page[:3000]
        assert "A1" in done.group(1) and not _leftovers(done.group(1), english[lang] | {"reveal"}), (lang, done.group(1))
