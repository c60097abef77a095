"""Plans in the player's language (issue 17, point 4): each language's words read as the engine's
English grammar (service.words.reply_words), English always understood, cells A1-D3 as they are."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine.action.rules import ACTION_KINDS
from engine.plans import parse_plan, read_plan
from service.words.reply_words import LEXICON, in_words_of, to_english
from tests.engine.helpers import grid, new, position

LANGS = sorted(LEXICON)
ANN = grid("1 2 3 4 / 5 6 7 8 / 9 10 11 12")
BO = grid("0 0 0 0 / 1 1 1 1 / 2 2 2 2")


def game_at_turn(draw_top: int = 3) -> engine.Game:
    g = new([list(ANN), list(BO)], discard=5, draw_top=[draw_top, 9, 7])
    return position(g, up={0: "A1 B1", 1: "A1 B1"}, turn=0)


@pytest.mark.parametrize("lang, text", [
    ("sv", "dra: om 4 eller mindre byt B2, annars vänd C3"),
    ("sv", "Dra\nom 4 eller mindre byt B2\nannars vänd upp C3"),
    ("nl", "trek: als 4 of minder ruil B2, anders draai C3 om"),
    ("nl", "trek, als 4 of lager dan ruil B2, anders draai C3"),
    ("af", "trek: as 4 of minder ruil B2, anders draai C3 om"),
    ("de", "ziehe: wenn 4 oder weniger tausche B2, sonst decke C3 auf"),
    ("de", "Zieh, falls höchstens 4 dann tausche B2, ansonsten dreh C3 um"),
    ("en", "draw: if 4 or less swap B2, else flip C3"),
    ("sv", "draw: if 4 or less swap B2, else flip C3"),  # English in every language
    ("de", "draw: wenn 4 oder weniger swap B2, else decke C3 auf"),  # and mixed
])
def test_the_issues_example_plan_in_each_language_reads_as_the_english_one(lang: str, text: str) -> None:
    g = game_at_turn()
    assert read_plan(g, to_english(text, lang)).text() == "draw: if 4 or less swap B2, else flip C3"


@pytest.mark.parametrize("lang, text, english", [
    ("sv", "ta byt C1", "take, swap C1"),
    ("nl", "neem ruil C1", "take, swap C1"),
    ("af", "vat, ruil C1", "take, swap C1"),
    ("de", "nimm, tausche C1", "take, swap C1"),
    ("sv", "dra: om mellan 3 och 6 byt A2, om 9 eller mer vänd D3, annars byt C1",
     "draw: if between 3 and 6 swap A2, if 9 or more flip D3, else swap C1"),
    ("nl", "trek: als tussen 3 en 6 ruil A2, als 9 of meer draai D3, anders ruil C1",
     "draw: if between 3 and 6 swap A2, if 9 or more flip D3, else swap C1"),
    ("af", "trek: as tussen 3 en 6 ruil A2, as 9 of meer draai D3, anders ruil C1",
     "draw: if between 3 and 6 swap A2, if 9 or more flip D3, else swap C1"),
    ("de", "ziehe: wenn zwischen 3 und 6 tausche A2, wenn 9 oder mehr decke D3 auf, sonst tausche C1",
     "draw: if between 3 and 6 swap A2, if 9 or more flip D3, else swap C1"),
])
def test_take_and_ranges_in_each_language(lang: str, text: str, english: str) -> None:
    assert read_plan(game_at_turn(), to_english(text, lang)).text() == english


@pytest.mark.parametrize("lang, text", [("sv", "vänd upp A1, vänd upp B2"), ("nl", "draai A1 open, draai B2 open"),
                                        ("af", "draai A1 om en draai B2 om"), ("de", "decke A1 auf und decke B2 auf")])
def test_in_the_opening_the_verb_for_turning_up_a_card_reveals_C4(lang: str, text: str) -> None:
    g = new([list(ANN), list(BO)])
    plan = parse_plan(g, 0, to_english(text, lang, opening=True))
    assert plan.text() == "reveal A1, reveal B2"


def test_cells_numbers_and_names_are_left_alone() -> None:
    for lang in LANGS:
        assert to_english("A1 b2 C3 D3 12 -2 Bo Ann", lang) == "A1 b2 C3 D3 12 -2 Bo Ann"
    assert to_english("dra byt B2", "en") == "dra byt B2"  # English seats read English only


def test_within_a_language_every_word_means_one_thing() -> None:
    for lang, table in LEXICON.items():
        seen: dict[str, str] = {}
        for en, phrases in table.items():
            for p in phrases:
                assert seen.setdefault(p, en) == en, (lang, p, seen[p], en)


# ------------------------------------------------------------------------------ property tests
# A random plan as English tokens (moves, connectives, conditions); each language writes it with a
# random choice of its words for every token; both must read as the same plan, or both be refused.
CELLS = [f"{c}{r}" for c in "ABCD" for r in "123"]
_cell = st.sampled_from(CELLS)
_n = st.integers(-2, 12).map(str)
_condition = st.one_of(
    st.tuples(_n, st.sampled_from(["or less", "or more"])).map(list),
    st.tuples(st.sampled_from(["at most", "at least", "less than", "more than", "not"]), _n).map(list),
    st.tuples(st.just("between"), _n, st.just("and"), _n).map(list),
    _n.map(lambda n: [n]),
    st.just(["negative"]), st.just(["positive"]),
)
_place = st.tuples(st.sampled_from(["swap", "flip"]), _cell).map(list)
_branch = st.tuples(st.just("if"), _condition, _place).map(lambda t: ["if", *t[1], *t[2]])


@st.composite
def english_plans(draw) -> list[str]:
    """Tokens of a plan: a head, then optional branches (words or separators)."""
    kind = draw(st.sampled_from(["take", "draw", "draw-branches"]))
    if kind == "take":
        return ["take", draw(st.sampled_from([",", "then", ""])), "swap", draw(_cell)]
    if kind == "draw":
        return ["draw", *draw(_place)]
    tokens = ["draw", ":"]
    for b in draw(st.lists(_branch, min_size=1, max_size=3)):
        tokens += [*b, ","]
    if draw(st.booleans()):
        tokens += ["else", *draw(_place)]
    return [t for t in tokens if t]


def write_in(lang: str, tokens: list[str], choose) -> str:
    table = LEXICON[lang]
    words = [choose(table[t]) if t in table else t for t in tokens]
    return " ".join(words).replace(" ,", ",").replace(" :", ":")


def _outcome(g: engine.Game, text: str):
    try:
        return read_plan(g, text).text()
    except engine.EngineError as exc:
        return ("refused", exc.code)


@pytest.mark.parametrize("lang", LANGS)
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(tokens=english_plans(), data=st.data())
def test_a_plan_written_in_any_language_reads_as_the_same_english_plan(lang: str, tokens: list[str], data) -> None:
    g = game_at_turn()
    english = " ".join(tokens).replace(" ,", ",").replace(" :", ":")
    written = write_in(lang, tokens, lambda choices: data.draw(st.sampled_from(choices)))
    assert _outcome(g, to_english(written, lang)) == _outcome(g, english), written
    # English stays understood in that language too
    assert _outcome(g, to_english(english, lang)) == _outcome(g, english)


@pytest.mark.parametrize("lang", LANGS)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tokens=english_plans())
def test_a_plan_shown_in_the_players_words_reads_back_as_the_same_plan(lang: str, tokens: list[str]) -> None:
    """What the answer to a reply shows ("Understood: dra: om 4 eller mindre byt B2, ...") is a plan
    the player can send back as it is."""
    g = game_at_turn()
    try:
        canonical = read_plan(g, " ".join(tokens).replace(" ,", ",").replace(" :", ":")).text()
    except engine.EngineError:
        return
    assert read_plan(g, to_english(in_words_of(canonical, lang), lang)).text() == canonical


# ------------------------------------------------------------------------------ SKYJO Action's moves
# Every move text the Action engine lists (A4-A9: action row/deck, play <card> with its targets,
# pick, meteor, keep/remove, block/allow, decline, discard action, pass), shown in each language's
# words (`in_words_of`) or written with any of its words, reads back as the same move.
def _hands_position():
    """Ann (seat 0) holds one of every action card, Bo a Defense, Thief on the action discard pile:
    every kind of play is legal for Ann (tests/engine/test_action_moves.py)."""
    from tests.engine.test_action_rules import PLAIN, setup
    from tests.engine.test_action_rules import grid as action_grid
    from tests.engine.test_action_rules import new as action_new

    cards = ["swap-own", "insight", "reactivation", "swap-with-player", "thief", "meteor-shower", "defense",
             "draw-three", "double-move"]
    return setup(action_new([action_grid(PLAIN)] * 3, action_discard="thief"), up={0: "A1", 1: "A1", 2: "A1"},
                 hands={0: cards, 1: ["defense"]})


def _action_moves() -> list[tuple[engine.Game, int, str]]:
    """(game, seat, move text) over Ann's plays in `_hands_position` and the decisions owed along
    random SKYJO Action games (the opening, the star's decline, picks, meteor cells, star sets,
    blocks ...): up to 6 positions of each kind of decision."""
    import random

    from tests.engine.test_action_rules import _star_column_game

    g = _hands_position()
    out = [(g, 0, m.text()) for m in g.legal_moves(0)]
    star_set = _star_column_game()  # Ann completes a star column (A6): keep or remove
    for move in ("draw", "flip A3", "decline"):
        star_set.play(0, move)
    out += [(star_set, 0, m.text()) for m in star_set.legal_moves(0)]
    per_kind: dict[str, int] = {}
    for seed in range(30):
        game, rng = engine.new_game(["Ann", "Bo", "Cy", "Di"][: 2 + seed % 3], "action", seed=seed), random.Random(seed)
        while not game.is_over:
            for p in game.pending():
                if per_kind.get(p.kind, 0) < 6:
                    per_kind[p.kind] = per_kind.get(p.kind, 0) + 1
                    frozen = engine.Game.from_json(game.to_json())
                    out += [(frozen, p.seat, m.text()) for m in frozen.legal_moves(p.seat)]
            seat = rng.choice(game.pending()).seat
            game.play(seat, engine.bot_move(game, seat, "random", rng))
    return out


ACTION_MOVES = _action_moves()


def _same_move(g: engine.Game, seat: int, text: str, english: str) -> bool:
    return g.bind(seat, g.parse_move(text)) == g.bind(seat, g.parse_move(english))


def test_the_action_moves_tested_cover_every_kind_of_decision() -> None:
    kinds = {english.split()[0] if not english.startswith(("play", "discard action")) else
             " ".join(english.split()[:2]) for _g, _s, english in ACTION_MOVES}
    assert {"action", "decline", "pick", "meteor", "keep", "remove", "block", "allow", "draw", "take", "swap",
            "flip", "reveal", "discard action"} <= kinds, kinds
    assert {f"play {card}" for card in ("swap-own", "insight", "reactivation", "swap-with-player", "thief",
                                        "meteor-shower", "defense", "draw-three", "double-move")} <= kinds


# the English words of moves (any language's LEXICON keys, the action cards' ids), except where a
# language writes the same word ("meteor" in sv/de)
_ENGLISH_WORDS = {
    lang: re.compile(r"(?<![\w-])(?:" + "|".join(
        re.escape(k) for k in sorted({k for t in LEXICON.values() for k in t if k and k != "is"} | set(ACTION_KINDS),
                                     key=len, reverse=True)
        if k not in LEXICON[lang].get(k, ())) + r")(?![\w-])")
    for lang in LANGS
}


@pytest.mark.parametrize("lang", LANGS)
def test_every_action_move_shown_in_the_players_words_reads_back_as_the_same_move(lang: str) -> None:
    for g, seat, english in ACTION_MOVES:
        shown = in_words_of(english, lang)
        assert _same_move(g, seat, to_english(shown, lang, opening=english.startswith("reveal")), english), \
            (lang, english, shown)
        # the player's words, not the engine's English, for every card and command word (A9)
        left = [w for w in _ENGLISH_WORDS[lang].findall(shown)]
        assert not left, (lang, english, shown, left)


_ACTION_KEYS = {lang: sorted((en for en in LEXICON[lang] if en and en != "is"), key=lambda p: (-len(p), p))
                for lang in LANGS}


@pytest.mark.parametrize("lang", LANGS)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(index=st.integers(0, len(ACTION_MOVES) - 1), data=st.data(), upper=st.booleans())
def test_an_action_move_written_with_any_of_a_languages_words_reads_as_the_move(lang: str, index: int, data,
                                                                              upper: bool) -> None:
    g, seat, english = ACTION_MOVES[index]
    keys = _ACTION_KEYS[lang]
    pattern = re.compile(r"(?<![\w-])(?:" + "|".join(re.escape(k) for k in keys) + r")(?![\w-])")
    written = pattern.sub(lambda m: data.draw(st.sampled_from(LEXICON[lang][m.group(0)])), english)
    written = written.upper() if upper else written
    back = to_english(written, lang, opening=english.startswith("reveal"))
    assert _same_move(g, seat, back, english), (written, back)


@pytest.mark.parametrize("lang, text, english", [
    ("sv", "Ta från actionraden plats 2", "action row 2"),
    ("sv", "spela insikt kolumn B hos Bo", "play insight column B of Bo"),
    ("sv", "spela byt med en spelare A1 med Bo C3", "play swap-with-player A1 with Bo C3"),
    ("sv", "välj inget", "pick none"),
    ("sv", "behåll 2 C3", "pick 2 C3"),
    ("sv", "ta inget actionkort", "decline"),
    ("sv", "blockera inte", "allow"),
    ("nl", "neem uit de actierij 3", "action row 3"),
    ("nl", "speel dief van Bo dubbele beurt", "play thief from Bo double-move"),
    ("nl", "kies 1 D3", "pick 1 D3"),
    ("nl", "haal hem weg", "remove"),
    ("af", "speel insig ry 2 van my", "play insight row 2 of me"),
    ("af", "speel ruil met 'n speler B2 met Bo A1", "play swap-with-player B2 with Bo A1"),
    ("af", "gooi die aksiekaart weg verdediging", "discard action defense"),
    ("de", "nimm vom Aktionsstapel", "action deck"),
    ("de", "spiele Reaktivierung eigener Tausch A1 C3", "play reactivation swap-own A1 C3"),
    ("de", "wähle keine", "pick none"),
    ("de", "wehre nicht ab", "allow"),
])
def test_action_moves_as_a_player_would_write_them(lang: str, text: str, english: str) -> None:
    from engine.action.moves import parse_action_move

    names = ["Ann", "Bo", "Cy"]
    assert parse_action_move(to_english(text, lang), names) == parse_action_move(english, names)


def test_a9_the_readmes_action_moves_in_each_language_read_as_the_engines() -> None:
    """The README's block of SKYJO Action's moves per language (A4 b, A9, A9.3, A7): every entry
    reads back (`to_english`) as the move the engine writes, so what the README shows works."""
    from pathlib import Path

    from engine.action.moves import parse_action_move

    readme = Path(__file__).resolve().parents[2] / "README.md"
    block = readme.read_text().split("SKYJO Action's moves too", 1)[1].split("```")[1]
    rows = [line for line in block.splitlines() if line.strip()]
    english = ["action row 2", "play swap-own A1 C3", "play insight column B of Bo", "pick 2 C3", "decline"]
    assert sorted(line[:2] for line in rows) == ["af", "de", "nl", "sv"]
    for line in rows:
        lang, shown = line[:2], re.split(r" {2,}", line[2:].strip())
        assert len(shown) == len(english), line
        for text, move in zip(shown, english, strict=True):
            assert text != move, (lang, text)  # in that language's words
            assert parse_action_move(to_english(text, lang), ["Ann", "Bo"]) == \
                parse_action_move(move, ["Ann", "Bo"]), (lang, text)


@pytest.mark.parametrize(("lang", "flip", "plan"), [
    ("sv", "vänd upp C3", "dra: om 4 eller mindre byt C1, annars vänd upp D1"),
    ("nl", "draai C3 open", "trek: als 4 of minder ruil C1, anders draai D1 open"),
    ("af", "draai C3 om", "trek: as 4 of minder ruil C1, anders draai D1 om"),
    ("de", "decke C3 auf", "ziehe: wenn 4 oder weniger tausche C1, sonst decke D1 auf"),
])
def test_a_move_on_a_cell_is_shown_in_the_languages_word_order(lang: str, flip: str, plan: str) -> None:
    """Issue 28.4: a separable verb takes the cell inside (de "decke C3 auf", not "decke auf C3");
    what the service writes reads back as the same move (`reply_words.CELL_MOVES`)."""
    assert in_words_of("flip C3", lang) == flip
    assert in_words_of("reveal C3", lang) == flip
    assert in_words_of("draw: if 4 or less swap C1, else flip D1", lang) == plan
    assert in_words_of("reveal A1 + reveal D3", lang) == f"{in_words_of('reveal A1', lang)} + {in_words_of('reveal D3', lang)}"
    assert to_english(in_words_of("flip C3", lang), lang).split() == ["flip", "C3"]
    assert to_english(in_words_of("reveal C3", lang), lang, opening=True).split() == ["reveal", "C3"]
