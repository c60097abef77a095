"""Languages per seat (issue 17): the language chosen on /new, on the accept page and in the
settings; pages and mails in the seat's language, spectators in the browser's; the engine's
refusals said in the player's language; the catalogues compiled from the repository's .po files."""

from __future__ import annotations

import re
from datetime import datetime

import pytest
from flask_babel import force_locale
from sqlmodel import select

import engine
from engine.errors import IllegalMove, MoveParseError
from service import i18n
from service.store.models import SeatRow
from service.words.reply_words import to_english
from service.words.sentences import command_help, event_text, say
from tests.engine.helpers import grid, new, position
from tests.service import helpers as h

NAMES = ["Ann", "Bo", "Cy"]
THREE = (("Ann", "ann@example.com"), ("Bo", "bo@example.com"), ("Cy", "cy@example.com"))


# ------------------------------------------------------------------------------ refusals
def test_a_refusal_keeps_its_english_text_and_carries_code_and_params() -> None:
    g = position(new([grid("1 2 3 4 / 5 6 7 8 / 9 10 11 12"), grid("0 0 0 0 / 1 1 1 1 / 2 2 2 2")]),
                 up={0: "A1 B1", 1: "A1 B1"}, turn=0)
    with pytest.raises(IllegalMove) as caught:
        g.play(1, "draw")
    assert str(caught.value) == "it is Ann's turn, not yours"
    assert (caught.value.code, caught.value.params) == ("not_your_turn", {"who": "Ann"})
    with pytest.raises(MoveParseError) as caught:
        engine.plans.parse_plan(g, 0, "draw swap Z9")
    assert caught.value.code in {"unreadable_moves", "not_a_cell"}


def test_refusals_are_said_in_the_current_language_nested_ones_too(app) -> None:
    g = position(new([grid("1 2 3 4 / 5 6 7 8 / 9 10 11 12"), grid("0 0 0 0 / 1 1 1 1 / 2 2 2 2")]),
                 up={0: "A1 B1", 1: "A1 B1"}, turn=0)
    with pytest.raises(IllegalMove) as caught:
        engine.plans.parse_plan(g, 0, "draw swap B2 flip C3")
    exc = caught.value
    with app.app_context():
        with force_locale("en"):
            assert say(exc) == str(exc)
        for lang in i18n.TRANSLATED:
            with force_locale(lang):
                said = say(exc)
            assert said != str(exc), (lang, said)


def test_an_unknown_code_is_shown_in_the_engines_english(app) -> None:
    with app.app_context(), force_locale("sv"):
        assert say(engine.errors.OptionError("bad options")) == "bad options"


def test_a_refusal_is_said_by_its_code_never_by_its_english(app) -> None:
    """No refusal is read back from its English (SKYJO Action's carry codes too): a text without a
    code stays English even in a known code's words; with the code it is said (A4)."""
    with app.app_context(), force_locale("sv"):
        assert say(IllegalMove("the game is over")) == "the game is over"
        assert say(IllegalMove("you hold no Thief card")) == "you hold no Thief card"
        assert say(IllegalMove.of("card_not_held", card="thief")) == "du har inget kort Actionkortstjuv"


# ------------------------------------------------------------------------------ a seat's language
def _langs(app) -> dict[str, str]:
    with app.app_context():
        from service.store.db import transaction

        with transaction() as s:
            return {r.email: r.lang for r in s.exec(select(SeatRow))}


def test_the_host_picks_each_invitees_language_default_the_hosts_own(app, client) -> None:
    status, _where = h.new_game(client, THREE, extra={"host_lang": "de", "players-0-lang": "sv"})
    assert status == 303
    assert _langs(app) == {"ann@example.com": "de", "bo@example.com": "sv", "cy@example.com": "de"}
    invitations = {m.to_addr: m for m in h.mails(app) if m.to_addr != "ann@example.com"}
    assert '<html lang="sv">' in invitations["bo@example.com"].html_body
    assert '<html lang="de">' in invitations["cy@example.com"].html_body


def test_new_preselects_the_browsers_language(client) -> None:
    page = client.get("/new", headers={"Accept-Language": "nl-BE,nl;q=0.9,en;q=0.5"}).text
    assert '<option selected value="nl">' in page or 'value="nl" selected' in page or \
        '<option value="nl" selected>' in page
    assert '<html lang="nl">' in page


def _seat_path(app, email: str) -> str:
    for m in reversed(h.mails(app)):
        if m.to_addr == email:
            return next(p for p in h.links_of(m) if re.fullmatch(r"/s/[^/]+", p))  # the seat's page, not its rules
    raise AssertionError(email)


def test_the_accept_page_preselects_the_browsers_language_and_accepting_keeps_the_choice(app, client) -> None:
    h.new_game(client, THREE)
    bo = _seat_path(app, "bo@example.com")
    page = client.get(bo, headers={"Accept-Language": "af"}).text
    assert '<option value="af" lang="af" selected>' in page
    assert '<html lang="en">' in page  # the seat's language until the player chooses (the host's: en)
    r = h.post_form(client, f"{bo}/accept", {"tz": "Europe/Stockholm", "lang": "af"}, page_path=bo)
    assert r.status_code == 303
    assert _langs(app)["bo@example.com"] == "af"
    assert '<html lang="af">' in client.get(bo).text


def test_the_settings_page_changes_the_language(app, client) -> None:
    h.new_game(client, THREE)
    ann = _seat_path(app, "ann@example.com")
    r = h.post_form(client, f"{ann}/prefs", {"mail_pref": "every", "lang": "nl"})
    assert r.status_code == 303
    assert _langs(app)["ann@example.com"] == "nl"
    assert '<html lang="nl">' in client.get(f"{ann}/prefs").text
    bad = h.post_form(client, f"{ann}/prefs", {"mail_pref": "every", "lang": "xx"})
    assert bad.status_code == 400


def test_a_spectators_page_follows_the_browser(app, client) -> None:
    h.new_game(client, THREE, extra={"host_lang": "de"})
    from service.render.links import watch_path

    game = h.only_game(app)
    with app.app_context():
        watch = watch_path(game.id, game.spectator_salt)
    assert '<html lang="sv">' in client.get(watch, headers={"Accept-Language": "sv"}).text


# ------------------------------------------------------------------------------ dates, help, catalogues
def test_dates_are_written_with_babels_formats_in_the_readers_language_and_zone(app) -> None:
    t = datetime(2026, 12, 2, 13, 5)
    with app.app_context():
        # the zone by its city in the reader's language (issue 28.3), never its IANA name
        with force_locale("en"):
            assert i18n.local_time(t, "Europe/Berlin") == "Dec 2, 2026 14:05, Berlin time"
            assert i18n.local_time(t, None) == "Dec 2, 2026 13:05 UTC"
        with force_locale("de"):
            assert i18n.local_time(t, "Europe/Vienna") == "02.12.2026 14:05, Ortszeit Wien"
        with force_locale("sv"):
            assert i18n.local_time(t, "Asia/Tokyo") == "2 dec. 2026 22:05, Tokyo-tid"
        with force_locale("nl"):
            assert i18n.local_time(t, "Europe/Amsterdam") == "2 dec 2026 14:05, tijd in Amsterdam"
        with force_locale("af"):
            assert i18n.local_time(t, "Africa/Johannesburg") == "02 Des. 2026 15:05, Johannesburg-tyd"


def test_the_time_zone_list_is_in_the_readers_language(app) -> None:
    """Regions and "city (country)" labels from Babel's names in each language (issue 28.3)."""
    expected = {"en": ("Europe", "Vienna (Austria)"), "sv": ("Europa", "Wien (Österrike)"),
                "nl": ("Europa", "Wenen (Oostenrijk)"), "af": ("Europa", "Wene (Oostenryk)"),
                "de": ("Europa", "Wien (Österreich)")}
    with app.app_context():
        for lang, (region, vienna) in expected.items():
            with force_locale(lang):
                groups = dict(i18n.zone_groups())
            assert dict(groups[region])["Europe/Vienna"] == vienna, lang
            assert groups[""] == [("UTC", "UTC")]


def test_the_reply_help_in_each_language_shows_only_working_commands(app) -> None:
    """The help's examples, in each language's words, play (issue 17, point 4)."""
    g = position(new([grid("1 2 3 4 / 5 6 7 8 / 9 10 11 12"), grid("0 0 0 0 / 1 1 1 1 / 2 2 2 2")]),
                 up={0: "A1 B1", 1: "A1 B1"}, turn=0)
    opening = new([grid("1 2 3 4 / 5 6 7 8 / 9 10 11 12"), grid("0 0 0 0 / 1 1 1 1 / 2 2 2 2")])
    for lang in i18n.LANGUAGES:
        with app.app_context(), force_locale(lang):
            first, second = command_help()
        examples = [e.strip().rstrip(".") for e in first.split(": ", 1)[1].split("|")]
        *turns, reveal = examples
        for text in turns:
            engine.plans.parse_plan(g, 0, to_english(text, lang))
        engine.plans.parse_plan(opening, 0, to_english(reveal, lang, opening=True))
        plan = second.split(": ", 1)[1].rstrip(".")
        assert engine.plans.parse_plan(g, 0, to_english(plan, lang)).text() == \
            "draw: if 4 or less swap B2, if 9 or more flip C3, else swap A1", (lang, plan)


def test_catalogues_are_compiled_when_a_po_is_newer(tmp_path) -> None:
    po = tmp_path / "sv" / "LC_MESSAGES" / "messages.po"
    po.parent.mkdir(parents=True)
    po.write_text('msgid ""\nmsgstr "Content-Type: text/plain; charset=utf-8\\n"\n\nmsgid "Save"\nmsgstr "Spara"\n',
                  encoding="utf-8")
    assert i18n.compile_catalogues(tmp_path) == [po.with_suffix(".mo")]
    assert i18n.compile_catalogues(tmp_path) == []  # up to date: nothing written
    from babel.messages.mofile import read_mo

    with po.with_suffix(".mo").open("rb") as f:
        assert read_mo(f).get("Save").string == "Spara"


# ------------------------------------------------------------------------------ replies and mails per seat
def _start_in(app, client, langs: dict[str, str]):
    """Ann hosts in English; each invitee in `langs` (email -> language); everybody accepts."""
    extra = {"host_lang": "en"}
    for i, (_name, email) in enumerate(THREE[1:]):
        extra[f"players-{i}-lang"] = langs.get(email, "en")
    h.new_game(client, THREE, extra=extra)
    for m in h.mails(app):
        if m.template == "invitation":
            seat = next(p for p in h.links_of(m) if re.fullmatch(r"/s/[A-Za-z0-9_-]+", p))
            assert h.post_form(client, seat + "/accept", page_path=seat).status_code == 303
    return h.only_game(app)


def test_each_seats_mails_are_in_its_own_language(app, client) -> None:
    _start_in(app, client, {"bo@example.com": "sv", "cy@example.com": "de"})
    mails = h.mails(app)
    by = {addr: [m for m in mails if m.to_addr == addr] for addr in ("ann@example.com", "bo@example.com",
                                                                    "cy@example.com")}
    # every subject says its kind (mail/subjects.py) and names the game, in the recipient's language
    assert all(m.subject.endswith("SKYJO with Ann, Bo and Cy") for m in by["ann@example.com"])
    assert all(m.subject.endswith("SKYJO med Ann, Bo och Cy") for m in by["bo@example.com"])
    assert all(m.subject.endswith("SKYJO mit Ann, Bo und Cy") for m in by["cy@example.com"])
    assert {m.subject for m in by["bo@example.com"] if m.template == "invitation"} == {
        "Inbjudan från Ann: SKYJO med Ann, Bo och Cy"}
    assert {m.subject for m in by["cy@example.com"] if m.template == "turn"} <= {
        "Du bist dran · Runde 1 · SKYJO mit Ann, Bo und Cy"}
    invitation_bo = next(m for m in by["bo@example.com"] if m.template == "invitation")
    assert "Tacka ja eller nej" in invitation_bo.text_body
    turn_cy = next(m for m in by["cy@example.com"] if m.template == "turn")
    assert "Antworte mit deinem Zug in der ersten Zeile: ziehe tausche B2" in turn_cy.text_body
    # the host's notices say who accepted, in the host's language (English here)
    assert any(m.template == "notice" and "Bo accepted the invitation." in m.text_body
               for m in by["ann@example.com"])


def test_a_reply_in_swedish_plays_a_whole_turn_and_is_answered_in_swedish(app, client) -> None:
    from service.play import reply_service
    from tests.service.test_reply_service import latest_reply_mail, reply_to

    game = _start_in(app, client, {"bo@example.com": "sv", "cy@example.com": "sv"})
    for r in h.seats(app, game.id):  # the opening, each in its language ("vänd upp" reveals, C4)
        words = {"sv": "vänd upp A1, vänd upp B1"}.get(r.lang, "reveal A1, reveal B1")
        assert reply_service.handle_inbound(app, reply_to(latest_reply_mail(app, r.email), words)) == "applied"
    g = engine.Game.from_json(h.game_state(app, game.id)[1])
    while g.owes(g.pending()[0].seat) != "turn":  # extra reveals on a tie
        p = g.pending()[0].seat
        row = next(r for r in h.seats(app, game.id) if r.seat == p)
        mail = latest_reply_mail(app, row.email)
        text = g.legal_moves(p)[0].text().replace("reveal", "vänd upp" if row.lang == "sv" else "reveal")
        assert reply_service.handle_inbound(app, reply_to(mail, text)) == "applied"
        g = engine.Game.from_json(h.game_state(app, game.id)[1])
    seat = g.pending()[0].seat
    row = next(r for r in h.seats(app, game.id) if r.seat == seat)
    if row.lang != "sv":  # Ann (English) starts: she plays in English, then it is a Swedish seat's turn
        mail = latest_reply_mail(app, row.email)
        assert reply_service.handle_inbound(app, reply_to(mail, "draw: if 4 or less swap C1, else swap C2")) \
            == "applied"
        g = engine.Game.from_json(h.game_state(app, game.id)[1])
        seat = g.pending()[0].seat
        row = next(r for r in h.seats(app, game.id) if r.seat == seat)
    assert row.lang == "sv"
    # a reply it cannot play is explained in Swedish, with the help in Swedish; nothing is played
    before, since = h.game_state(app, game.id)[0], h.mails(app)[-1].id
    mail = latest_reply_mail(app, row.email)
    assert reply_service.handle_inbound(app, reply_to(mail, "byt Z9", mid="<bad@x>")) == "refused"
    refused = next(m for m in h.mails(app, since) if m.to_addr == row.email)
    assert "Inte genomfört" in refused.text_body and "Svara med ditt drag på första raden" in refused.text_body
    assert h.game_state(app, game.id)[0] == before
    # the whole turn in Swedish
    since = h.mails(app)[-1].id
    plan = "dra: om 4 eller mindre byt C1, annars byt C2"
    assert reply_service.handle_inbound(app, reply_to(mail, plan)) == "applied"
    assert h.game_state(app, game.id)[0] == before + 2  # draw and swap: the whole turn
    answer = next(m for m in h.mails(app, since) if m.to_addr == row.email and m.template == "answer")
    assert "Uppfattat: dra: om 4 eller mindre byt C1, annars byt C2" in answer.text_body



def _assert_said_in_every_language(app, e: dict, names: list[str]) -> None:
    """An event's sentence: in English the engine's `text`, in every other language another."""
    with app.app_context():
        with force_locale("en"):
            assert event_text(e, names) == e["text"], e
        for lang in i18n.TRANSLATED:
            with force_locale(lang):
                assert event_text(e, names) != e["text"], (lang, e)


@pytest.mark.parametrize("variant, types", [
    ("classic", {"round_start", "reveal", "start", "draw", "take", "swap", "flip", "close", "round_end",
                 "game_over"}),
    ("action", {"take_action", "play_action", "star_trigger"}),
])
def test_event_sentences_are_translated_in_every_language(app, variant: str, types: set[str]) -> None:
    """Every event type of whole bot games (C4-C12, A4-A11) is said in every language (its message
    id is the engine's English: one source, engine/words.py)."""
    from engine.bots import bot_move

    seen: set[str] = set()
    for seed in range(6 if variant == "classic" else 4):
        g = engine.new_game(["Ann", "Bo", "Cy"], variant=variant, seed=f"i18n-{variant}-{seed}",
                            options={"target_score": 60})
        rng = __import__("random").Random(seed)
        while not g.is_over:
            p = g.pending()[0].seat
            g.play(p, bot_move(g, p, "greedy" if variant == "classic" else "random", rng))
        for e in engine.view(g, None)["log"]:
            seen.add(e["type"])
            _assert_said_in_every_language(app, e, g.names)
    assert types <= seen, sorted(types - seen)


ACTION_EVENTS = [  # SKYJO Action's events that were English in every language before issue 27
    {"type": "swap_player", "seat": 0, "cell": "A1", "gave": None, "target": 1, "target_cell": "B2", "got": "star"},
    {"type": "meteor_shower", "seat": 0, "targets": [1, 2]},
    {"type": "meteor_shower", "seat": 0, "targets": []},
    {"type": "meteor_hit", "seat": 1, "cell": "C3", "discarded": 7},
    {"type": "remove_set", "seat": 1, "set": "column B", "value": "star"},
    {"type": "star_set", "seat": 1, "set": "row 2", "bonus": -10},
    {"type": "keep_star_set", "seat": 1, "set": "row 2", "bonus": -10},
    {"type": "remove_star_set", "seat": 1, "set": "column A", "bonus": -10},
]


@pytest.mark.parametrize("event", ACTION_EVENTS, ids=[f"{e['type']}-{i}" for i, e in enumerate(ACTION_EVENTS)])
def test_a6_a9_star_sets_swaps_and_meteors_are_said_in_every_language(app, event: dict) -> None:
    """A6 (star sets), A9.7 (Swap with a player), A9.9 (Meteor shower): said in every language, the
    cards, lines and "face-down" in it too."""
    e = {**event, "text": engine.describe(event, NAMES)}
    _assert_said_in_every_language(app, e, NAMES)
    with app.app_context(), force_locale("sv"):
        said = event_text(e, NAMES)
    assert "star" not in said and "column" not in said and "face-down" not in said, said


def test_a9_7_a_swap_with_a_player_in_swedish(app) -> None:
    e = ACTION_EVENTS[0]
    assert engine.describe(e, NAMES) == "Ann swapped their A1 (face-down) with Bo's B2 (a star)."
    with app.app_context(), force_locale("sv"):
        assert event_text(e, NAMES) == "Ann bytte sitt kort på A1 (nedvänt) mot kortet på B2 hos Bo (en stjärna)."


def test_a_skyjo_action_mails_help_names_actions_moves_in_each_language_and_they_play(app) -> None:
    """Issue 17, point 4: an Action game's help adds Action's own moves (A4 b, A7, A9) in the
    reader's words; each reads back as the engine's move. A classic game's help does not."""
    from engine.action.moves import parse_action_move
    from service.words.sentences import ACTION_EXAMPLES

    for lang in i18n.LANGUAGES:
        with app.app_context(), force_locale(lang):
            assert len(command_help()) == 2
            line = command_help(action=True)[2]
        examples = [e.strip().rstrip(".") for e in line.split(": ", 1)[1].split("|")]
        assert len(examples) == len(ACTION_EXAMPLES), (lang, line)
        for shown, written in zip(examples, ACTION_EXAMPLES, strict=True):
            if lang != "en":
                assert shown.split()[0] != written.split()[0], (lang, shown)  # in the reader's words
            assert parse_action_move(to_english(shown, lang), ["Ann", "Bo"]) == \
                parse_action_move(written, ["Ann", "Bo"]), (lang, shown)
