"""One source per sentence (issue 27.1), the small version of bench/words_english.py: random refusals
and events of seeded random games (classic and SKYJO Action), said by service/words in English are
the engine's own text byte for byte, and in sv, nl, af and de are said in full (no placeholder left,
no English message id left untranslated)."""

from __future__ import annotations

import itertools
import random
import re

import pytest
from flask_babel import force_locale

from bench.words_english import events, every_code, refusals
from engine.errors import TEXTS
from engine.words import N_, Listed, Names, Said, fill
from service import i18n
from service.words.sentences import command_help, event_text, say
from tests.conftest import make_app

PLACEHOLDER = re.compile(r"%\(\w+\)[sr]")


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    return make_app(f"sqlite:///{tmp_path_factory.mktemp('words') / 'app.sqlite3'}")


@pytest.fixture(scope="module")
def sample() -> tuple[list, list]:
    rng = random.Random(27)
    said = list(every_code()) + [exc for exc, _names in refusals(rng, 1500)]
    evs = list(itertools.islice(events(rng), 1500))
    return said, evs


def test_the_engines_english_is_the_message_id_filled_in() -> None:
    """`N_` marks without changing; `%(x)r` quotes; a list of refusals is joined with "; "; a nested
    sentence, names and listed values write their English."""
    assert N_("the game is over") == "the game is over"
    assert fill(TEXTS["not_a_cell"], {"text": "Z9"}) == "'Z9' is not a cell: use a column A-D and a row 1-3, like B2"
    assert fill("waiting for %(owed)s", {"owed": ["a", "b"]}) == "waiting for a; b"
    assert str(Said("%(n)s won (%(c)s)", n=Names(["Ann", "Bo", "Cy"]), c=Listed([Said("a star"), 3]))) == \
        "Ann and Bo and Cy won (a star, 3)"


def test_random_refusals_and_events_say_the_engines_english_in_english(app, sample) -> None:
    refused, evs = sample
    assert {e.code for e in refused} >= set(TEXTS)  # every code, and random ones on top
    with app.app_context(), force_locale("en"):
        for exc in refused:
            assert say(exc) == str(exc), exc.code
        for e, names in evs:
            assert event_text(e, names) == e["text"], e
        assert "\n".join(command_help()) == __import__("engine").plans.COMMAND_HELP


@pytest.mark.parametrize("lang", i18n.TRANSLATED)
def test_random_refusals_and_events_are_said_in_full_in_every_language(app, sample, lang: str) -> None:
    """Every sentence is said (no exception, no placeholder left), and none is the English (each
    message id is translated; a sentence that is all names, cells and numbers would be the same)."""
    refused, evs = sample
    with app.app_context():
        with force_locale("en"):
            english = [say(exc) for exc in refused] + [event_text(e, n) for e, n in evs]
        with force_locale(lang):
            said = [say(exc) for exc in refused] + [event_text(e, n) for e, n in evs]
    assert not [s for s in said if PLACEHOLDER.search(s)]
    same = [s for s, en in zip(said, english, strict=True) if s == en]
    assert not same, same[:5]
