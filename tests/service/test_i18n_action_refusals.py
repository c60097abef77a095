"""SKYJO Action's refusals in the player's language (issue 17.2). Each refusal is provoked through
the engine (a seeded or dealt Action game, a move a player could send) and said by
`service.words.sentences.say`: in English exactly the engine's text; in sv, nl, af and de another
text that keeps the names, cells and cards (by their names there, A9) and shows every command to
type in that language's words (`reply_words`), so it reads back as the same move."""

from __future__ import annotations

import random
import re
from collections.abc import Callable

import pytest
from flask_babel import force_locale

import engine
from engine.action.moves import ActionMove, parse_action_move
from engine.action.rules import ACTION_KINDS
from engine.errors import EngineError
from engine.phases import GONE
from service import i18n
from service.words.names import action_name
from service.words.reply_words import LEXICON, in_words_of, to_english
from service.words.sentences import say
from tests.conftest import make_app
from tests.engine.test_action_rules import PLAIN, _star_column_game, grid, new, setup


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    return make_app(f"sqlite:///{tmp_path_factory.mktemp('refusals') / 'app.sqlite3'}")


def refused(act: Callable[[], object]) -> EngineError:
    with pytest.raises(EngineError) as caught:
        act()
    return caught.value


def _edit(game: engine.Game, change: Callable[[dict], None]) -> engine.Game:
    """The game with its saved state changed (the engine's own checks load it back)."""
    data = game.to_json()
    change(data)
    return engine.Game.from_json(data)


def _plain(hands: dict[int, list[str]] | None = None, up: dict[int, str] | None = None, players: int = 2):
    """Ann's turn after the opening, plain grids; `hands`: action cards held since before it."""
    return setup(new([grid(PLAIN)] * players), up=up or {s: "A1" for s in range(players)}, hands=hands)


def _gone(seat: int, *cells: str) -> Callable[[dict], None]:
    """`cells` of `seat` removed (A5): their cards under the game discard pile."""
    def change(data: dict) -> None:
        for cell in cells:
            i = engine.CELL_NAMES.index(cell)
            data["face"][seat][i] = GONE
            data["discard"].insert(0, data["vals"][seat][i])
        data["down"][seat] = data["face"][seat].count(0)
    return change


def _play(game: engine.Game, *moves: tuple[int, str | object]) -> engine.Game:
    for seat, move in moves:
        game.play(seat, move)
    return game


def _opening() -> engine.Game:
    return engine.new_game(["Ann", "Bo"], variant="action", seed=17)


def _star() -> engine.Game:
    """Ann has turned up the third star of column A (A6, A7): she owes the star's action card."""
    return _play(_star_column_game(), (0, "draw"), (0, "flip A3"))


def _attacked() -> engine.Game:
    """Ann attacks Bo with Swap with a player; Bo holds Defense (A9.6, A9.7)."""
    return _play(_plain({0: ["swap-with-player"], 1: ["defense"]}), (0, "play swap-with-player A1 with Bo B1"))


def _meteor() -> engine.Game:
    """Ann's Meteor shower: Bo (holding Defense) and Cy each owe a card (A9.9)."""
    return _play(_plain({0: ["meteor-shower"], 1: ["defense"]}, players=3), (0, "play meteor-shower"))


def _three(keep: int = 3) -> engine.Game:
    """Ann played Draw three (A9.3); `keep` of the three cards are left to pick from."""
    game = _play(_plain({0: ["draw-three"]}), (0, "play draw-three"))

    def fewer(data: dict) -> None:
        while len(data["three"]) > keep:
            data["draw"].append(data["three"].pop())
    return _edit(game, fewer)


def _no_action_cards(data: dict) -> None:
    data["hands"][1] += data["adeck"] + data["adiscard"]
    data["adeck"], data["adiscard"] = [], []


def _row_place_taken(data: dict) -> None:
    data["adeck"].append(data["arow"][1])
    data["arow"][1] = None


def _no_discard(data: dict) -> None:
    data["draw"] += data["discard"]
    data["discard"] = []


def _taken_this_turn(data: dict) -> None:
    data["adeck"].remove("thief")
    data["hands"][0].append("thief")
    data["fresh"] = ["thief"]


def _cy_sits_out(data: dict) -> None:
    """Cy sits this round out (a state the engine accepts; no SKYJO Action rule makes one)."""
    data["active"], data["next_seat"] = [0, 1], [1, 0, 0]
    data["draw"] += data["vals"][2]
    data["face"][2], data["down"][2] = [GONE] * 12, 0


def _over() -> engine.Game:
    return engine.play_out(engine.new_game(["Ann", "Bo"], variant="action", seed=3), "random", random.Random(3))


# (rule, code, how a player meets it); the codes of the classic game come back where SKYJO Action
# refuses in the same words
REFUSED: list[tuple[str, str, Callable[[], object]]] = [
    # A3: the opening
    ("A3", "reveal_first", lambda: _opening().play(0, "draw")),
    ("A3", "face_up", lambda: _play(_opening(), (0, "reveal A1")).play(0, "reveal A1")),
    ("A3", "opening_done", lambda: _play(new([grid(PLAIN)] * 2), (0, "reveal A1"), (0, "reveal B1")).play(0, "reveal C1")),
    ("A3", "no_such_seat", lambda: _opening().play(5, "reveal A1")),
    ("A3", "action_not_a_move", lambda: _opening().play(0, object())),  # type: ignore[arg-type]
    ("A3", "move_not_text", lambda: parse_action_move(5, NAMES)),  # type: ignore[arg-type]
    ("A3", "not_in_round", lambda: _edit(new([grid(PLAIN)] * 3), _cy_sits_out).play(2, "reveal A1")),
    # A4: a turn
    ("A4", "not_your_turn", lambda: _plain().play(1, "draw")),
    ("A4", "action_opening_over", lambda: _plain().play(0, "reveal B2")),
    ("A4", "draw_first", lambda: _plain().play(0, "swap B2")),
    ("A4", "holding_drawn_card", lambda: _play(_plain(), (0, "draw")).play(0, "action deck")),
    ("A4", "holding_card", lambda: _play(_plain(), (0, "take")).play(0, "draw")),
    ("A4", "must_swap_taken", lambda: _play(_plain(), (0, "take")).play(0, "flip B2")),
    ("A4", "removed", lambda: _play(_edit(_plain(), _gone(0, "B2")), (0, "draw")).play(0, "swap B2")),
    ("A4", "no_grid_cards", lambda: _edit(_plain(), _gone(0, *engine.CELL_NAMES)).play(0, "draw")),
    ("A4", "discard_pile_empty", lambda: _edit(_plain(), _no_discard).play(0, "take")),
    ("A4", "action_row_place_empty", lambda: _edit(_plain(), _row_place_taken).play(0, "action row 2")),
    ("A10", "action_decks_empty", lambda: _edit(_plain(), _no_action_cards).play(0, "action deck")),
    ("A4", "card_not_held", lambda: _plain().play(0, "discard action thief")),
    ("A4", "card_taken_this_turn", lambda: _edit(_plain(), _taken_this_turn).play(0, "discard action thief")),
    ("A4", "pass_only_when_stuck", lambda: _plain().play(0, "pass")),
    ("A4", "nothing_to_pick", lambda: _plain().play(0, "pick 1 A1")),
    ("A4", "not_asked", lambda: _plain().play(0, "keep")),
    ("A11", "game_over", lambda: _over().play(0, "draw")),
    # A6, A7: stars
    ("A7", "star_take_or_decline", lambda: _star().play(0, "draw")),
    ("A7", "waiting_for", lambda: _star().play(1, "draw")),  # owes_star_trigger
    ("A6", "star_set_complete", lambda: _play(_star(), (0, "decline")).play(0, "draw")),
    ("A6", "waiting_for", lambda: _play(_star(), (0, "decline")).play(1, "action deck")),  # owes_star_set
    # A9: the action cards
    ("A9.1", "swap_own_same_cell", lambda: _plain({0: ["swap-own"]}).play(0, "play swap-own A1 A1")),
    ("A9.3", "pick_one_of_three", lambda: _three().play(0, "draw")),
    ("A9.3", "pick_range", lambda: _three(keep=2).play(0, "pick 3 A1")),
    ("A9.4", "line_all_face_up",
     lambda: _plain({0: ["insight"]}, up={0: "A1", 1: "A1 B1 C1 D1"}).play(0, "play insight row 1 of Bo")),
    ("A9.4", "target_not_playing",
     lambda: _edit(_plain({0: ["insight"]}, players=3), _cy_sits_out).play(0, "play insight row 1 of Cy")),
    ("A9.5", "not_on_action_discard",
     lambda: _plain({0: ["reactivation"]}).play(0, "play reactivation thief from Bo defense")),
    ("A9.5", "reactivate_which", lambda: _plain({0: ["reactivation"]}).play(0, ActionMove("play", "reactivation"))),
    ("A9.6", "attacked", lambda: _attacked().play(1, "draw")),
    ("A9.6", "waiting_for", lambda: _attacked().play(0, "action deck")),  # owes_defense
    ("A9.7", "swap_player_self", lambda: _plain({0: ["swap-with-player"]}).play(0, "play swap-with-player A1 with me B2")),
    ("A9.7", "own_cell_removed",
     lambda: _edit(_plain({0: ["swap-with-player"]}), _gone(0, "C3")).play(0, "play swap-with-player C3 with Bo B2")),
    ("A9.7", "their_cell_removed",
     lambda: _edit(_plain({0: ["swap-with-player"]}), _gone(1, "B2")).play(0, "play swap-with-player C3 with Bo B2")),
    ("A9.8", "thief_self", lambda: _plain({0: ["thief", "defense"]}).play(0, "play thief from me defense")),
    ("A9.8", "target_holds_no_card", lambda: _plain({0: ["thief"]}).play(0, "play thief from Bo double-move")),
    ("A9.9", "meteor_choose_or_block", lambda: _meteor().play(1, "draw")),
    ("A9.9", "meteor_choose", lambda: _meteor().play(2, "draw")),
    ("A9.9", "waiting_for", lambda: _meteor().play(0, "draw")),  # owes_meteor, twice
    ("A9.6", "no_defense", lambda: _meteor().play(2, "block")),
    # a move's words (A4-A9)
    ("A4", "action_empty_move", lambda: _plain().play(0, "  ")),
    ("A4", "action_unknown_move", lambda: _plain().play(0, "dance")),
    ("A4", "take_action_how", lambda: _plain().play(0, "action")),
    ("A4", "action_row_places", lambda: _plain().play(0, "action row 5")),
    ("A4", "unexpected_after_row_place", lambda: _plain().play(0, "action row 2 now")),
    ("A4", "unexpected_after_move", lambda: _plain().play(0, "action deck now")),
    ("A4", "unexpected_after_discard", lambda: _plain().play(0, "discard action defense now")),
    ("A9", "name_a_card", lambda: _plain().play(0, "play")),
    ("A9", "not_an_action_card", lambda: _plain().play(0, "play laser")),
    ("A9.1", "unexpected_after_cells", lambda: _plain().play(0, "play swap-own A1 B1 C1")),
    ("A9.1", "move_needs_cell", lambda: _plain().play(0, "play swap-own")),
    ("A9.1", "swap_own_second_cell", lambda: _plain().play(0, "play swap-own A1")),
    ("A9.3", "pick_how", lambda: _plain().play(0, "pick 4 A1")),
    ("A9.3", "unexpected_after_pick", lambda: _plain().play(0, "pick 1 A1 now")),
    ("A9.4", "insight_needs_line", lambda: _plain().play(0, "play insight")),
    ("A9.4", "not_a_row", lambda: _plain().play(0, "play insight row 5 of Bo")),
    ("A9.4", "not_a_column", lambda: _plain().play(0, "play insight column Z of Bo")),
    ("A9.4", "not_a_player", lambda: _plain().play(0, "play insight row 1 of Zed")),
    ("A9.4", "no_seat_number", lambda: _plain().play(0, "play insight row 1 of seat 9")),
    ("A9.4", "unexpected_after_insight", lambda: _plain().play(0, "play insight row 1 of Bo now")),
    ("A9.4", "ambiguous_player", lambda: parse_action_move("play insight row 1 of bo", ["Ann", "Bo", "bo"])),
    ("A9.5", "reactivate_name", lambda: _plain().play(0, "play reactivation")),
    ("A9.5", "reactivate_reactivation", lambda: _plain().play(0, "play reactivation reactivation")),
    ("A9.7", "needs_a_player", lambda: _plain().play(0, "play swap-with-player A1")),
    ("A9.7", "swap_player_their_cell", lambda: _plain().play(0, "play swap-with-player A1 with Bo")),
    ("A9.7", "unexpected_after_swap", lambda: _plain().play(0, "play swap-with-player A1 with Bo B2 now")),
    ("A9.8", "name_card_to_steal", lambda: _plain().play(0, "play thief from Bo")),
    ("A9.8", "unexpected_after_steal", lambda: _plain().play(0, "play thief from Bo defense now")),
    ("A9.9", "unexpected_after_meteor_cell", lambda: _plain().play(0, "meteor B2 now")),
]
# SKYJO Action's codes no position reaches: no card left to draw (a draw, or Draw three) needs the
# 120-card game deck (A1) all in grids but the discard top, which 8 grids of 12 cannot hold (A10:
# the discard pile is reshuffled); and the classic parser's `unknown_move` is caught, never raised
UNREACHED = {"no_cards_to_draw", "draw_pile_empty", "unknown_move"}

COMMANDS = ("action row", "action deck", "discard action", "play", "pick", "decline", "keep", "remove", "block",
            "allow", "draw", "take", "swap", "flip", "reveal", "pass", "meteor", "seat", *ACTION_KINDS)
# the engine's English command words, except where a language writes the same word ("meteor" in sv, de)
ENGLISH_COMMAND = {
    lang: re.compile(r"(?<![\w-])(?:" + "|".join(
        re.escape(w) for w in sorted(COMMANDS, key=len, reverse=True) if w not in LEXICON[lang].get(w, ())
    ) + r")(?![\w-])", re.IGNORECASE)
    for lang in i18n.TRANSLATED
}
NAMES_AND_CELLS = re.compile(r"\b(?:Ann|Bo|Cy|[A-D][1-3])\b")
NAMES = ["Ann", "Bo", "Cy"]


def _nested(exc: EngineError) -> list[EngineError]:
    """`exc` and the refusals in its params (what each seat owes, A6-A9.9)."""
    out = [exc]
    for value in exc.params.values():
        for inner in value if isinstance(value, list) else [value]:
            if isinstance(inner, EngineError):
                out += _nested(inner)
    return out


@pytest.mark.parametrize("rule, code, act", REFUSED, ids=[f"{r}-{c}" for r, c, _a in REFUSED])
def test_a3_a11_action_refusal_said_in_each_language(app, rule: str, code: str, act) -> None:
    """In English the engine's text; in sv/nl/af/de another text with the same names, cells and
    cards (by their names in that language, A9) and every command in that language's words, each
    reading back as the move it shows (A4-A9)."""
    exc = refused(act)
    english = str(exc)
    assert exc.code == code, (exc.code, english)
    kept = NAMES_AND_CELLS.findall(english)
    with app.app_context():
        with force_locale("en"):
            assert say(exc) == english
        for lang in i18n.TRANSLATED:
            with force_locale(lang):
                said = say(exc)
                cards = {action_name(e.params["card"]) for e in _nested(exc) if "card" in e.params}
            assert said != english, (lang, said)
            assert not ENGLISH_COMMAND[lang].findall(said), (lang, said, ENGLISH_COMMAND[lang].findall(said))
            assert sorted(NAMES_AND_CELLS.findall(said)) == sorted(kept), (lang, said)
            assert all(card in said for card in cards), (lang, said, cards)
            for e in _nested(exc):
                for example in str(e.params.get("like", "")).split(", "):
                    if example:  # an example move, shown in the player's words, is that move
                        shown = in_words_of(example, lang)
                        assert shown in said, (lang, said, shown)
                        assert parse_action_move(to_english(shown, lang), NAMES) == parse_action_move(example, NAMES)


def test_a4_a9_the_action_refusals_above_are_met_by_a_player() -> None:
    """The refusals above are provoked as listed (each case raises its code), what each seat owes
    nested in them included (A6-A9.9), and none of them is one no position reaches (UNREACHED)."""
    met = {e.code for _rule, _code, act in REFUSED for e in _nested(refused(act))}
    assert met >= {"owes_star_trigger", "owes_star_set", "owes_defense", "owes_meteor"}
    assert {code for _rule, code, _act in REFUSED} <= met
    assert not met & UNREACHED
    assert len(met) >= 70


def test_a9_9_the_refusal_lists_each_seat_that_owes_a_meteor_card_in_the_readers_words(app) -> None:
    """A9.9: every target of a Meteor shower owes at once: the refusal of the attacker's move names
    both, each with the command to type in the reader's language."""
    exc = refused(lambda: _meteor().play(0, "draw"))
    assert str(exc) == ("waiting for Bo to choose a card for the meteor shower (meteor B2); "
                        "Cy to choose a card for the meteor shower (meteor B2)")
    with app.app_context():
        with force_locale("nl"):
            assert say(exc) == ("wachten op Bo, die een kaart kiest voor de meteorenregen (meteoor B2); "
                                "Cy, die een kaart kiest voor de meteorenregen (meteoor B2)")
        with force_locale("sv"):
            said = say(refused(lambda: _attacked().play(1, "draw")))
            assert said == "Ann attackerar dig med Byt kort med en annan spelare: skriv blockera (du kastar ditt Försvar) eller tillåt"
