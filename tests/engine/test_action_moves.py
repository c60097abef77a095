"""SKYJO Action move texts (a superset of classic's), readable errors, records and bots."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

import engine
from engine.action.game import ActionGame
from engine.action.moves import ActionMove
from engine.action.rules import ACTION_COUNTS, GAME_COUNTS, STAR
from engine.moves import MOVE_BY_CODE

from .test_action_rules import PLAIN, deal, grid, new, setup, texts


def canon(g: ActionGame, seat: int, text: str) -> str:
    return g.bind(seat, g.parse_move(text)).text()


@pytest.fixture
def g3() -> ActionGame:
    return engine.new_game(["Ann", "Bo", "Cy"], "action", seed=5)  # type: ignore[return-value]


@pytest.mark.parametrize(
    "text,canonical",
    [
        ("action row 2", "action row 2"),
        ("ACTION  Row 4", "action row 4"),
        ("action 1", "action row 1"),
        ("action deck", "action deck"),
        ("play swap-own A1 C3", "play swap-own A1 C3"),
        ("play swap own a1 and 3c", "play swap-own A1 C3"),
        ("swap own A1 C3", "play swap-own A1 C3"),
        ("play double move", "play double-move"),
        ("play draw three", "play draw-three"),
        ("play insight column B of Bo", "play insight column B of Bo"),
        ("play insight col b of bo", "play insight column B of Bo"),
        ("play insight row 2 of seat 2", "play insight row 2 of Cy"),
        ("play insight 2", "play insight row 2 of Ann"),
        ("play insight row 3 of me", "play insight row 3 of Ann"),
        ("play reactivation swap-own A1 B1", "play reactivation swap-own A1 B1"),
        ("play reactivation meteor shower", "play reactivation meteor-shower"),
        ("play defence", "play defense"),
        ("play swap-with-player A1 with Bo C3", "play swap-with-player A1 with Bo C3"),
        ("play swap with player a1 bo c3", "play swap-with-player A1 with Bo C3"),
        ("play swap-with-player A1 with #2 B2", "play swap-with-player A1 with Cy B2"),
        ("play thief from Bo swap own", "play thief from Bo swap-own"),
        ("play thief 1 defense", "play thief from Bo defense"),
        ("play meteor shower", "play meteor-shower"),
        ("play meteor", "play meteor-shower"),
        ("discard action defense", "discard action defense"),
        ("discard thief", "discard action thief"),
        ("block", "block"),
        ("Allow", "allow"),
        ("meteor b2", "meteor B2"),
        ("keep", "keep"),
        ("remove", "remove"),
        ("decline", "decline"),
        ("pick 2 C3", "pick 2 C3"),
        ("pick 2 swap c3", "pick 2 C3"),
        ("keep 1 on A1", "pick 1 A1"),
        ("pick none", "pick none"),
        ("draw", "draw"),
        ("take", "take"),
        ("swap C1", "swap C1"),
        ("discard D3", "flip D3"),
    ],
)
def test_action_grammar_is_case_insensitive_and_canonical(g3: ActionGame, text: str, canonical: str) -> None:
    assert canon(g3, 0, text) == canonical
    assert canon(g3, 0, canonical) == canonical


def test_classic_move_texts_parse_the_same_in_action_games(g3: ActionGame) -> None:
    for move in MOVE_BY_CODE.values():
        assert g3.parse_move(move.text()) == engine.parse_move(move.text()) == move


@pytest.mark.parametrize(
    "text,message",
    [
        ("", "empty move"),
        ("dance", "unknown move"),
        ("action row 5", "places 1-4"),
        ("action", "action row"),
        ("play laser", "not an action card"),
        ("play swap-own A1", "two cells"),
        ("play swap-own A1 E4", "not a cell"),
        ("play insight row 4 of Bo", "rows are 1-3"),
        ("play insight column E of Bo", "columns are A-D"),
        ("play insight row 1 of Zed", "not a player here"),
        ("play thief from Bo", "the card to steal"),
        ("play swap-with-player A1 with seat 9 B1", "no seat 9"),
        ("pick 4 A1", "pick 1-3"),
        ("play double-move now", "unexpected"),
        ("play reactivation", "name the card to reactivate"),
        ("meteor", "unknown move"),
        ("swap", "needs one cell"),
    ],
)
def test_action_parse_errors_are_readable(g3: ActionGame, text: str, message: str) -> None:
    with pytest.raises(engine.MoveParseError, match=message):
        g3.parse_move(text)


def test_names_needing_care_are_written_as_seat_numbers() -> None:
    # new games refuse equal names (C2, issue 16); a game saved before that may still hold "ann" and "Ann"
    data = engine.new_game(["Ann Lee", "ann", "C3", "Bo"], "action", seed=1).to_json()
    data["names"][3] = "Ann"
    g = engine.Game.from_json(data)
    assert [g.who(s) for s in range(4)] == ["Ann Lee", "seat 1", "seat 2", "seat 3"]
    assert canon(g, 1, "play insight row 1 of ann lee") == "play insight row 1 of Ann Lee"
    with pytest.raises(engine.MoveParseError, match="more than one player"):
        g.parse_move("play thief from ann defense")
    assert canon(g, 0, "play thief from seat 1 defense") == "play thief from seat 1 defense"


def test_every_legal_action_move_text_parses_back_to_it() -> None:
    g = setup(
        new([grid(PLAIN), grid(PLAIN), grid(PLAIN)], action_discard="thief"),
        up={0: "A1", 1: "A1", 2: "A1"},
        hands={
            0: [
                "swap-own",
                "insight",
                "reactivation",
                "swap-with-player",
                "thief",
                "meteor-shower",
                "defense",
                "draw-three",
                "double-move",
            ],
            1: ["defense"],
        },
    )
    moves = g.legal_moves(0)
    kinds = Counter((m.kind, getattr(m, "card", None), getattr(m, "via", False)) for m in moves)
    assert kinds[("play", "swap-with-player", False)] == 12 * 12 * 2  # listed per target
    assert kinds[("play", "thief", True)] == 1 and kinds[("play", "thief", False)] == 1
    assert "play reactivation" not in [m.text() for m in moves]
    help_ = {h["pattern"]: h for h in engine.view(g, 0)["action"]["move_help"]}
    assert help_["play swap-with-player <your cell> with <player> <their cell>"]["count"] == 288
    assert (
        help_["play reactivation thief from <player> <card>"]["example"]
        == "play reactivation thief from Bo defense"
    )
    assert (
        engine.view(g, 1)["action"]["move_help"] == [] and engine.view(g, None)["action"]["move_help"] == []
    )
    for m in moves:
        assert canon(g, 0, m.text()) == m.text()
        assert g.bind(0, g.parse_move(m.text())) == m
    assert all(str(m) == m.text() for m in moves)


def test_moves_out_of_turn_get_readable_errors() -> None:
    g = setup(
        new([grid(PLAIN), grid(PLAIN)]),
        up={0: "A1", 1: "A1"},
        hands={0: ["swap-with-player"], 1: ["defense"]},
    )
    with pytest.raises(engine.IllegalMove, match="nobody asked you to block"):
        g.play(0, "block")
    with pytest.raises(engine.IllegalMove, match="no drawn three"):
        g.play(0, "pick 1 A1")
    g.play(0, "play swap-with-player A1 with Bo B1")
    with pytest.raises(engine.IllegalMove, match="block .* or allow"):
        g.play(1, "draw")
    with pytest.raises(engine.IllegalMove, match="waiting for Bo to block or allow"):
        g.play(0, "action deck")
    assert g.owes(1) == "defend" and engine.view(g, 1)["legal_moves"] == ["block", "allow"]


def test_illegal_moves_leave_the_state_unchanged() -> None:
    g = setup(new([grid(PLAIN), grid(PLAIN)]), up={0: "A1", 1: "A1"}, hands={0: ["thief", "swap-own"]})
    before = g.to_json()
    for bad in (
        "play thief from Bo defense",
        "play swap-own A1 A1",
        "play reactivation insight row 1 of Bo",
        "play thief from me defense",
        "meteor A1",
        "keep",
    ):
        with pytest.raises(engine.IllegalMove):
            g.play(0, bad)
        assert g.to_json() == before


# ---------------------------------------------------------------- records
def test_explicit_action_deal_names_stars_and_the_action_deck_and_replays() -> None:
    d = deal(
        [grid("* 1 2 3 / 4 5 6 7 / 8 9 10 11"), grid(PLAIN)],
        discard=STAR,
        draw_top=[STAR, 0],
        row=("thief", "thief", "meteor-shower", "meteor-shower"),
        action_discard="insight",
        action_top=["defense"],
    )
    g = engine.new_game(["Ann", "Bo"], "action", {"target_score": 30}, seed="r", deals=[{"deal": d}])
    assert g.discard == [STAR] and g.arow == ["thief", "thief", "meteor-shower", "meteor-shower"]
    rng = random.Random(1)
    engine.play_out(g, "random", rng)
    rec = json.loads(json.dumps(g.record()))
    assert rec["variant"] == "action" and rec["rounds"][0]["deal"]["grids"][0][0] == "star"
    assert rec["rounds"][0]["deal"]["action_deck"][0] == "defense"
    assert engine.replay(rec).to_json() == g.to_json()
    bad = json.loads(json.dumps(rec))
    bad["rounds"][0]["deal"]["action_deck"].pop()
    with pytest.raises(engine.RecordError, match="action deck"):
        engine.replay(bad)
    bad = json.loads(json.dumps(rec))
    del bad["rounds"][0]["deal"]["action_row"]
    with pytest.raises(engine.RecordError, match="action_row"):
        engine.replay(bad)


def test_record_moves_name_targets_and_replay_with_errors_numbered() -> None:
    g = setup(new([grid(PLAIN), grid(PLAIN)]), up={0: "A1", 1: "A1"}, hands={0: ["insight"]})
    g.play(0, "play insight row 2 of me")
    assert g.moves[-1] == "0: play insight row 2 of Ann"
    rec = engine.new_game(["Ann", "Bo"], "action", seed=3).record()
    rec["moves"] = ["0: reveal A1", "0: play thief from Bo defense"]
    with pytest.raises(engine.RecordError) as err:
        engine.replay(rec)
    assert err.value.move_number == 2


# ---------------------------------------------------------------- bots
@pytest.mark.parametrize("bot", ["random", "greedy"])
def test_bots_play_action_games_legally_to_the_end(bot: str) -> None:
    for players in (2, 5):
        g = engine.new_game(
            [f"P{i}" for i in range(players)], "action", {"target_score": 60}, seed=f"bot-{bot}"
        )
        rng = random.Random(players)
        n = 0
        while not g.is_over:
            seat = g.pending()[0].seat
            move = engine.bot_move(g, seat, bot, rng)
            assert move in g.legal_moves(seat)
            g.play(seat, move)
            n += 1
            assert n < 20_000
        in_grids = Counter(v for s in g.active for v, f in zip(g.vals[s], g.face[s], strict=True) if f != 2)
        assert Counter(g.draw) + Counter(g.discard) + in_grids == Counter(GAME_COUNTS)


def test_greedy_bot_uses_action_cards_and_never_pays_for_held_ones() -> None:
    played: Counter[str] = Counter()
    held_at_end = 0
    for seed in range(6):
        g = engine.new_game(["A", "B", "C"], "action", {"target_score": 80}, seed=f"greedy-{seed}")
        rng = random.Random(seed)
        while not g.is_over:
            seat = g.pending()[0].seat
            m = engine.bot_move(g, seat, "greedy", rng)
            if isinstance(m, ActionMove) and m.kind == "play":
                played[m.card or ""] += 1
            g.play(seat, m)
        held_at_end += sum(sum(r["action_cards"][s] or 0 for s in range(3)) for r in g.rounds)
    assert held_at_end == 0
    assert played["double-move"] and played["draw-three"]


def test_greedy_bot_blocks_attacks_and_discards_before_the_round_ends() -> None:
    g = setup(
        new([grid(PLAIN), grid(PLAIN)]),
        up={0: "A1", 1: "A1"},
        hands={0: ["swap-with-player"], 1: ["defense"]},
    )
    g.play(0, "play swap-with-player A1 with Bo B1")
    assert engine.bot_move(g, 1, "greedy").text() == "block"
    every = " ".join(engine.CELL_NAMES)
    g = setup(new([grid(PLAIN), grid(PLAIN)]), up={0: every, 1: "A1"}, turn=1, hands={1: ["insight"]})
    data = g.to_json()
    data["closer"], data["final_left"] = 0, 1
    g = engine.Game.from_json(data)
    assert engine.bot_move(g, 1, "greedy").text().startswith(("discard action", "play"))
    assert ACTION_COUNTS["insight"] == 4 and texts(g, 1)


def test_apply_move_is_pure_and_every_event_has_a_sentence() -> None:
    g = setup(
        new([grid(PLAIN), grid(PLAIN), grid(PLAIN)]),
        up={0: "A1", 1: "A1", 2: "A1"},
        hands={0: ["meteor-shower"], 1: ["defense"]},
    )
    before = g.to_json()
    new_game, events = engine.apply_move(g, 0, "play meteor-shower")
    assert g.to_json() == before and new_game.version == g.version + 1
    assert [e["type"] for e in events] == ["play_action", "meteor_shower"]
    assert events[1]["text"] == "Meteor shower! Bo, Cy must each replace a grid card."
    v = engine.view(new_game, 1)
    assert (
        v["players"][1]["owes"] == "meteor"
        and v["players"][2]["owes"] == "meteor"
        and v["players"][0]["owes"] is None
    )
    new_game, events = engine.apply_move(new_game, 1, "block")
    assert events[0]["text"] == "Bo blocked Ann's Meteor shower with Defense."


def test_a9_a_named_player_is_written_by_name_however_the_mover_typed_them(g3: ActionGame) -> None:
    """A plan's answer shows the move as read (`Understood: play thief from Bo defense`), so a target
    typed as `seat 1` or `bo` reads back by name; `me` stays `me` until the mover binds it."""
    assert g3.parse_move("play thief from seat 1 double-move").text() == "play thief from Bo double-move"
    assert g3.parse_move("play insight column b of BO").text() == "play insight column B of Bo"
    assert g3.parse_move("play swap-with-player C1 with #2 A1").text() == "play swap-with-player C1 with Cy A1"
    assert g3.parse_move("play insight row 2 of me").text() == "play insight row 2 of me"


# ------------------------------------------------------------------------------ refusals with a code
ACTION_SOURCES = ("turn.py", "effects.py", "moves.py", "legal.py")


def test_every_refusal_the_action_engine_raises_carries_a_code_of_texts() -> None:
    """A4-A9: each IllegalMove / MoveParseError of engine/action is `X.of(code, ...)` with a code of
    engine.errors.TEXTS (so the service can say it in the player's language, issue 17), never a
    plain English text; the codes a helper passes on (`done`, `cell`, `_card`) are TEXTS' too. A
    refusal naming a card goes through `card_refusal` (its English has the card's title, A9)."""
    import ast
    from pathlib import Path

    from engine.errors import TEXTS

    folder = Path(engine.__file__).parent / "action"
    codes: set[str] = set()
    for name in ACTION_SOURCES:
        tree = ast.parse((folder / name).read_text(), name)
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name in ("done", "cell", "_card"):
                codes |= {d.value for d in node.args.defaults if isinstance(d, ast.Constant) and d.value}
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            assert not (isinstance(func, ast.Name) and func.id in ("IllegalMove", "MoveParseError")), (
                f"{name}:{node.lineno}: a refusal without a code"
            )
            if isinstance(func, ast.Attribute) and func.attr == "of":
                code = node.args[0]
                if isinstance(code, ast.IfExp):
                    codes |= {code.body.value, code.orelse.value}  # type: ignore[attr-defined]
                elif not isinstance(code, ast.Name):  # a helper's code: checked where it is called
                    assert isinstance(code, ast.Constant), f"{name}:{node.lineno}"
                    codes.add(code.value)
                    assert "%(card)s" not in TEXTS.get(code.value, ""), (
                        f"{name}:{node.lineno}: {code.value} names a card: raise it with card_refusal (A9)"
                    )
            elif isinstance(func, ast.Name) and func.id == "card_refusal":
                code = node.args[1]
                assert isinstance(code, ast.Constant) and "%(card)s" in TEXTS.get(code.value, ""), (
                    f"{name}:{node.lineno}"
                )
                codes.add(code.value)
            elif isinstance(func, ast.Attribute) and func.attr in ("done", "cell", "_card") or (
                isinstance(func, ast.Name) and func.id == "_card"
            ):
                codes |= {a.value for a in node.args if isinstance(a, ast.Constant) and a.value in TEXTS}
    assert codes - set(TEXTS) == set(), sorted(codes - set(TEXTS))
    assert len(codes) > 60


def test_an_action_refusal_keeps_its_english_and_carries_code_and_params() -> None:
    """A4 c, A9.6: a card is its id in the params and its title in the English; the refusal of a move
    while others decide lists what each owes (a list of refusals)."""
    g = setup(new([grid(PLAIN), grid(PLAIN)]), up={0: "A1", 1: "A1"}, hands={0: ["swap-with-player"], 1: ["defense"]})
    with pytest.raises(engine.IllegalMove) as refused:
        g.play(0, "play thief from Bo defense")
    assert str(refused.value) == "you hold no Thief card"
    assert (refused.value.code, refused.value.params) == ("card_not_held", {"card": "thief"})
    g.play(0, "play swap-with-player A1 with Bo B1")
    with pytest.raises(engine.IllegalMove) as refused:
        g.play(0, "action deck")
    assert str(refused.value) == "waiting for Bo to block or allow the Swap with a player"
    assert refused.value.code == "waiting_for"
    [owed] = refused.value.params["owed"]
    assert (owed.code, owed.params) == ("owes_defense", {"who": "Bo", "card": "swap-with-player"})
    with pytest.raises(engine.MoveParseError) as refused:
        g.parse_move("play swap-own A1 B1 C1")
    assert str(refused.value) == "unexpected 'c1' after the two cells"
    assert (refused.value.code, refused.value.params) == ("unexpected_after_cells", {"text": "c1"})
