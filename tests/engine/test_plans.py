"""Plans: a whole turn in one reply (engine.plans), conditions on the drawn card, all-or-nothing."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine.errors import EngineError, IllegalMove, MoveParseError
from engine.moves import Move
from engine.plans import (
    COMMAND_HELP,
    Branch,
    Condition,
    Plan,
    deck_values,
    parse_condition,
    parse_plan,
    read_plan,
)

from .helpers import grid, new, position

ANN = grid("1 2 3 4 / 5 6 7 8 / 9 10 11 12")
BO = grid("0 0 0 0 / 1 1 1 1 / 2 2 2 2")


def game_at_turn(draw_top: list[int] | None = None, discard: int = 5) -> engine.Game:
    """Ann (seat 0) to play, A1 and B1 face-up on both grids; the draw pile starts with draw_top."""
    g = new([list(ANN), list(BO)], discard=discard, draw_top=draw_top or [3, 9, 7])
    return position(g, up={0: "A1 B1", 1: "A1 B1"}, turn=0)


def texts(steps: list) -> list[str]:
    return [m.text() for m, _ in steps]


# ------------------------------------------------------------------------------ forms
@pytest.mark.parametrize(
    "text, canonical",
    [
        ("take swap B2", "take, swap B2"),
        ("draw swap B2", "draw, swap B2"),
        ("draw flip C3", "draw, flip C3"),
        ("DRAW  FLIP c3.", "draw, flip C3"),
        ("draw\nswap B2", "draw, swap B2"),
        ("draw, then swap b2", "draw, swap B2"),
        ("take and then swap 2B", "take, swap B2"),
        ("draw", "draw"),
        ("take", "take"),
        ("draw: if 4 or less swap B2, else flip C3", "draw: if 4 or less swap B2, else flip C3"),
        ("draw if 4 or less swap B2 else flip C3", "draw: if 4 or less swap B2, else flip C3"),
        ("draw\nif 4 or less swap B2\notherwise flip C3", "draw: if 4 or less swap B2, else flip C3"),
        ("draw; if 4 or less, swap B2; else: flip C3", "draw: if 4 or less swap B2, else flip C3"),
        ("draw: if 4 or less then swap B2, else flip C3", "draw: if 4 or less swap B2, else flip C3"),
        (
            "draw: if 4 or less swap B2, if 9 or more flip C3, else swap A1",
            "draw: if 4 or less swap B2, if 9 or more flip C3, else swap A1",
        ),
        (
            "draw: if 4 or less swap B2, else if 9 or more flip C3, else swap A1",
            "draw: if 4 or less swap B2, if 9 or more flip C3, else swap A1",
        ),
        ("draw: if 12 or less swap B2", "draw: if 12 or less swap B2"),
        (
            "draw: if 4 or less swap B2, if 5 or more flip C3",
            "draw: if 4 or less swap B2, if 5 or more flip C3",
        ),
    ],
)
def test_plan_forms_and_canonical_text(text: str, canonical: str) -> None:
    g = game_at_turn()
    plan = parse_plan(g, 0, text)
    assert plan.text() == canonical
    assert read_plan(g, plan.text()) == plan  # the canonical form reads back to the same plan


@pytest.mark.parametrize(
    "cond, lo, hi",
    [
        ("4 or less", None, 4),
        ("4 or lower", None, 4),
        ("is 4 or less", None, 4),
        ("it is 4 or below", None, 4),
        ("at most 4", None, 4),
        ("<= 4", None, 4),
        ("<=4", None, 4),
        ("=< 4", None, 4),
        ("\u2264 4", None, 4),
        ("< 5", None, 4),
        ("less than 5", None, 4),
        ("below 5", None, 4),
        ("under 5", None, 4),
        ("9 or more", 9, None),
        ("9 or higher", 9, None),
        ("at least 9", 9, None),
        (">= 9", 9, None),
        ("=> 9", 9, None),
        ("\u2265 9", 9, None),
        ("> 8", 9, None),
        ("more than 8", 9, None),
        ("greater than 8", 9, None),
        ("above 8", 9, None),
        ("5", 5, 5),
        ("is 5", 5, 5),
        ("= 5", 5, 5),
        ("==5", 5, 5),
        ("equals 5", 5, 5),
        ("a 5", 5, 5),
        ("card is 5", 5, 5),
        ("five", 5, 5),
        ("-2", -2, -2),
        ("minus 2", -2, -2),
        ("\u22122", -2, -2),
        ("between 3 and 5", 3, 5),
        ("between -2 and 0", -2, 0),
        ("from 3 to 5", 3, 5),
        ("3 to 5", 3, 5),
        ("3..5", 3, 5),
        ("negative", None, -1),
        ("positive", 1, None),
        ("0 or less", None, 0),
    ],
)
def test_every_operator(cond: str, lo: int | None, hi: int | None) -> None:
    c = parse_condition(cond)
    assert (c.lo, c.hi, c.negate, c.star) == (lo, hi, False, False)
    g = game_at_turn()
    plan = parse_plan(g, 0, f"draw: if {cond} swap B2, else flip C3")
    assert plan.branches[0].condition == c
    assert read_plan(g, plan.text()) == plan


@pytest.mark.parametrize("cond", ["not 5", "is not 5", "!= 5", "<> 5", "\u2260 5", "isn't 5"])
def test_negated_equality(cond: str) -> None:
    c = parse_condition(cond)
    assert c == Condition(5, 5, negate=True)
    assert c.matches(4) and not c.matches(5) and c.matches("star")
    assert parse_condition(c.text()) == c


def test_star_condition_and_numbers_never_match_a_star() -> None:
    assert parse_condition("is a star").matches("star")
    assert not parse_condition("4 or less").matches("star")
    assert not parse_condition("star").matches(4)
    assert parse_condition("not star").matches(4)
    # classic has no stars: a star condition can never apply
    with pytest.raises(MoveParseError, match="no card is star"):
        parse_plan(game_at_turn(), 0, "draw: if star swap B2, else flip C3")


@pytest.mark.parametrize("bad", ["foo", "4 or", "or less", "between 3", "5 or fewer than", "x5", ""])
def test_bad_conditions(bad: str) -> None:
    with pytest.raises(MoveParseError):
        parse_condition(bad)


# ------------------------------------------------------------------------------ strict errors
@pytest.mark.parametrize(
    "text, error, message",
    [
        ("", MoveParseError, "no move"),
        ("   \n  ", MoveParseError, "no move"),
        ("hello", MoveParseError, "unknown move 'hello'"),
        ("draw swap B5", MoveParseError, "not a cell"),
        ("draw flip", MoveParseError, "flip needs one cell"),
        ("draw then", MoveParseError, "unknown move 'then'"),
        ("draw: if 4 or less swap B2", MoveParseError, "what if you draw a 5 to 12"),
        ("draw: if 4 or less swap B2, if 9 or more flip C3", MoveParseError, "a 5 to 8"),
        ("draw: if 20 or more swap B2, else flip C3", MoveParseError, "no card is 20 or more"),
        ("draw: if between 5 and 3 swap B2, else flip C3", MoveParseError, "empty"),
        ("draw: if 4 or less swap B2, if 3 or less flip C3, else swap A1", MoveParseError, "can never apply"),
        ("draw: if 12 or less swap B2, else flip C3", MoveParseError, "'else' part can never apply"),
        ("draw: else flip C3", MoveParseError, "'else' without an 'if'"),
        ("draw: if 4 or less swap B2, else", MoveParseError, "'else' needs a move"),
        ("draw: if 4 or less swap B2, else flip C3, swap A1", MoveParseError, "follows the conditions"),
        ("draw: if 4 or less swap B2, else flip C3, else swap A1", MoveParseError, "must come last"),
        ("draw: if 4 or less swap B2, else flip C3, if 9 or more swap A1", MoveParseError, "must come last"),
        ("draw: if 4 or less, else flip C3", MoveParseError, "needs a move"),
        ("draw: if foo swap B2, else flip C3", MoveParseError, "condition"),
        ("draw: if 4 or less swap B9, else flip C3", MoveParseError, "not a cell"),
        ("take: if 4 or less swap B2, else swap C3", MoveParseError, "must follow 'draw'"),
        ("if 4 or less swap B2, else flip C3", MoveParseError, "start with 'draw'"),
        ("take flip C3", IllegalMove, "you must place the card you took"),
        ("reveal A1", IllegalMove, "opening is over"),
        ("swap B2", IllegalMove, "first draw"),
        ("draw swap B2 swap C2", IllegalMove, "move 3 \\(swap C2\\): your reply must end with 'swap B2'"),
        ("take swap A1, draw", IllegalMove, "move 3 \\(draw\\): you have no decision"),
        (
            "draw: if 4 or less swap B2, else flip A1",
            IllegalMove,
            "else: move 2 \\(flip A1\\): A1 is already face-up",
        ),
        ("draw: if 4 or less flip B1, else flip C3", IllegalMove, "if 4 or less: move 2 \\(flip B1\\)"),
        ("x" * 700, MoveParseError, "too long"),
    ],
)
def test_malformed_and_illegal_plans_are_rejected_with_a_reason(text: str, error: type, message: str) -> None:
    g = game_at_turn()
    before = g.to_json()
    with pytest.raises(error, match=message):
        parse_plan(g, 0, text)
    assert g.to_json() == before  # validation never touches the game


def test_not_your_turn() -> None:
    g = game_at_turn()
    with pytest.raises(IllegalMove, match="not your turn"):
        parse_plan(g, 1, "draw swap B2")
    with pytest.raises(IllegalMove, match="no seat"):
        parse_plan(g, 5, "draw swap B2")


# ------------------------------------------------------------------------------ applying
@pytest.mark.parametrize(
    "card, expected",
    [
        (3, ["draw", "swap B2"]),
        (-2, ["draw", "swap B2"]),
        (4, ["draw", "swap B2"]),
        (9, ["draw", "flip C3"]),
        (12, ["draw", "flip C3"]),
        (5, ["draw", "swap A1"]),
        (8, ["draw", "swap A1"]),
    ],
)
def test_conditions_are_evaluated_on_the_drawn_card(card: int, expected: list[str]) -> None:
    g = game_at_turn(draw_top=[card])
    plan = parse_plan(g, 0, "draw: if 4 or less swap B2, if 9 or more flip C3, else swap A1")
    version = g.version
    steps = plan.apply(g, 0)
    assert texts(steps) == expected
    assert g.version == version + 2
    assert g.pending() == [engine.Pending(1, "turn")]
    placed = steps[1][1][0]
    assert placed["seat"] == 0 and placed["text"]
    assert placed.get("discarded" if expected[1].startswith("flip") else "value") == card


def test_take_swap_applies_both_moves() -> None:
    g = game_at_turn(discard=7)
    steps = parse_plan(g, 0, "take swap B2").apply(g, 0)
    assert texts(steps) == ["take", "swap B2"]
    assert engine.view(g, 0)["players"][0]["grid"][5]["value"] == 7
    assert steps[0][1][0]["text"] == "Ann took the 7 from the discard pile."


def test_the_second_stage_alone_after_drawing_on_the_web() -> None:
    g = game_at_turn()
    g.play(0, "draw")
    assert texts(parse_plan(g, 0, "flip C3").apply(g, 0)) == ["flip C3"]


def test_opening_reveals_in_one_reply() -> None:
    g = new([list(ANN), list(BO)])
    plan = parse_plan(g, 1, "reveal A1, reveal D3")
    assert texts(plan.apply(g, 1)) == ["reveal A1", "reveal D3"]
    assert [p.seat for p in g.pending()] == [0]
    with pytest.raises(IllegalMove, match="move 3"):
        parse_plan(new([list(ANN), list(BO)]), 0, "reveal A1, reveal B1, reveal C1")


def test_apply_is_all_or_nothing() -> None:
    g = game_at_turn()
    before = g.to_json()
    bad = Plan((Move("draw"), Move("swap", 5), Move("swap", 6)))  # never validated
    with pytest.raises(IllegalMove, match="move 3"):
        bad.apply(g, 0)
    assert g.to_json() == before
    with pytest.raises(IllegalMove):
        Plan(
            (Move("draw"),), (Branch(Condition(hi=4), (Move("flip", 0),)), Branch(None, (Move("flip", 0),)))
        ).apply(g, 0)
    assert g.to_json() == before


def test_applied_is_pure() -> None:
    g = game_at_turn(draw_top=[11])
    before = g.to_json()
    new_game, steps = parse_plan(g, 0, "draw: if 4 or less swap B2, else flip C3").applied(g, 0)
    assert texts(steps) == ["draw", "flip C3"]
    assert g.to_json() == before
    assert new_game.version == g.version + 2


def test_a_plan_whose_branch_matches_no_card_raises_before_mutating() -> None:
    g = game_at_turn(draw_top=[7])
    before = g.to_json()
    plan = Plan((Move("draw"),), (Branch(Condition(hi=4), (Move("swap", 5),)),))  # not validated: no else
    with pytest.raises(MoveParseError, match="what if you draw a 5 to 12"):
        plan.apply(g, 0)
    assert g.to_json() == before


def test_deck_values_classic() -> None:
    assert deck_values(game_at_turn()) == list(range(-2, 13))


# ------------------------------------------------------------------------------ variant moves
class _Multi(engine.Game):
    """A stand-in variant whose grammar has multi-word moves (as SKYJO Action's will)."""

    def parse_move(self, text: str) -> Move:
        t = " ".join(text.lower().split())
        extra = {"pass": Move("draw"), "pass the card": Move("take"), "the card": Move("draw")}
        if t in extra:
            return extra[t]
        return super().parse_move(text)


def test_moves_are_read_by_the_variants_own_parser() -> None:
    g = _Multi(["Ann", "Bo"], seed="multi")
    assert read_plan(g, "the card swap B2").moves == (Move("draw"), Move("swap", 5))
    with pytest.raises(MoveParseError, match="can be read as"):
        read_plan(g, "pass the card, swap B2")


def test_ambiguous_readings_are_refused_and_commas_resolve_them() -> None:
    g = _Multi(["Ann", "Bo"], seed="multi")
    with pytest.raises(
        MoveParseError,
        match="can be read as 'take' or as 'draw, draw'|can be read as 'draw, draw' or as 'take'",
    ):
        read_plan(g, "pass the card")
    assert read_plan(g, "pass, the card").moves == (Move("draw"), Move("draw"))


# ------------------------------------------------------------------------------ whole games
def test_a_whole_game_played_by_plans_only() -> None:
    """Random but legal reply texts, including conditional ones, drive a classic game to its end."""
    rng = random.Random(7)
    g = engine.new_game(["Ann", "Bo", "Cy"], seed="plans")
    plans = 0
    while not g.is_over:
        seat = g.pending()[0].seat
        kind = g.owes(seat)
        legal = [m.text() for m in g.legal_moves(seat)]
        if kind in ("reveal", "tie_reveal"):
            text = rng.choice(legal)
        elif kind == "turn":
            faces = engine.view(g, seat)["players"][seat]["grid"]
            cells = [c["cell"] for c in faces if c["face"] != "removed"]
            down = [c["cell"] for c in faces if c["face"] == "down"]
            a, b = rng.choice(cells), rng.choice(cells)
            third = f"flip {rng.choice(down)}" if down else f"swap {rng.choice(cells)}"
            text = rng.choice(
                [
                    f"take swap {a}",
                    f"draw swap {a}",
                    f"draw: if 4 or less swap {a}, else {third}",
                    f"draw: if 2 or less swap {a}, if 10 or more {third}, else swap {b}",
                    f"draw: if between 0 and 5 swap {a}, otherwise {third}",
                ]
            )
        else:
            text = rng.choice(legal)
        plan = parse_plan(g, seat, text)
        plan.apply(g, seat)
        plans += 1
        assert plans < 5000
    assert g.winners


# ------------------------------------------------------------------------------ property
_TOKENS = [
    "draw",
    "take",
    "swap",
    "flip",
    "reveal",
    "B2",
    "C3",
    "A1",
    "D3",
    "b9",
    "if",
    "else",
    "otherwise",
    "4",
    "-2",
    "12",
    "or",
    "less",
    "more",
    "between",
    "and",
    "then",
    ",",
    ":",
    ";",
    "\n",
    "<=",
    ">",
    "=",
    "not",
    "star",
    "is",
    ".",
    "  ",
    "é",
    "💥",
]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(_TOKENS), max_size=14), st.integers(-2, 12))
def test_random_texts_never_crash_and_never_half_apply(tokens: list[str], card: int) -> None:
    g = game_at_turn(draw_top=[card])
    before = g.to_json()
    text = " ".join(tokens)
    try:
        plan = parse_plan(g, 0, text)
    except engine.EngineError:
        assert g.to_json() == before
        return
    assert g.to_json() == before
    steps = plan.apply(g, 0)  # a validated plan always applies
    assert steps and g.version == before["version"] + len(steps)
    assert read_plan(g, plan.text()) == plan


def test_the_two_line_help_shows_only_working_commands() -> None:
    assert len(COMMAND_HELP.splitlines()) == 2
    g = game_at_turn()
    for example in [
        "draw swap B2",
        "draw flip C3",
        "take swap C1",
        "draw: if 4 or less swap B2, if 9 or more flip C3, else swap A1",
    ]:
        assert example in COMMAND_HELP
        parse_plan(g, 0, example)
    assert "reveal A1" in COMMAND_HELP
    parse_plan(new([list(ANN), list(BO)]), 0, "reveal A1")


def test_no_peeking_a_plan_ends_with_the_move_that_turns_up_a_card() -> None:
    g = game_at_turn()
    for text in [
        "draw flip C3, take",
        "take swap C3, draw",
        "draw: if 4 or less swap B2, else flip C3, draw",
    ]:
        with pytest.raises(EngineError):
            parse_plan(g, 0, text)
    with pytest.raises(IllegalMove, match="must end with 'flip C3'"):
        parse_plan(g, 0, "draw flip C3, draw")
    # placing a drawn card also ends it: its value was unseen when the reply was written
    with pytest.raises(IllegalMove, match="must end with 'swap A1'"):
        parse_plan(g, 0, "draw swap A1, draw")
    # classic opening reveals never depend on values and may follow each other
    parse_plan(new([list(ANN), list(BO)]), 0, "reveal A1, reveal B1")


def test_a3_action_opening_reveals_both_in_one_reply() -> None:
    """Issue 15: `reveal A1, reveal C3` (README, mail help) works in SKYJO Action as in classic."""
    g = engine.new_game(["Ann", "Bo"], "action", seed="plans")
    steps = parse_plan(g, 0, "reveal A1, reveal C3").apply(g, 0)
    assert [m.text() for m, _ in steps] == ["reveal A1", "reveal C3"] and steps.stopped is None
    assert [m.text() for m, _ in parse_plan(g, 1, "reveal B1").apply(g, 1)] == ["reveal B1"]
    # a move after the two reveals depends on them (A7 star, A3 start): the plan stops there
    h = engine.new_game(["Ann", "Bo"], "action", seed="plans")
    steps = parse_plan(h, 0, "reveal A1, reveal C3, reveal D3").apply(h, 0)
    assert [m.text() for m, _ in steps] == ["reveal A1", "reveal C3"] and steps.stopped is not None
    assert steps.stopped.step == 3
    # anything but a reveal after a reveal is still refused by the plan's shape
    with pytest.raises(IllegalMove, match="must end with 'reveal A1'"):
        parse_plan(engine.new_game(["Ann", "Bo"], "action", seed="plans"), 0, "reveal A1, decline")


def test_a3_a7_a_star_on_the_first_reveal_leaves_the_second_reveal_legal() -> None:
    """A star from the first opening reveal may be taken (A7) before or after the second reveal, so
    the reply `reveal A1, reveal C3` means the same whatever A1 shows (C13)."""
    from .test_action_rules import PLAIN
    from .test_action_rules import grid as action_grid
    from .test_action_rules import new as action_new

    g = action_new([action_grid("* 1 2 3 / 4 4 5 6 / 1 7 8 9"), action_grid(PLAIN)])
    steps = parse_plan(g, 0, "reveal A1, reveal C3").apply(g, 0)
    assert [m.text() for m, _ in steps] == ["reveal A1", "reveal C3"] and steps.stopped is None
    assert [(p.seat, p.kind) for p in g.pending()] == [(0, "star_trigger"), (1, "reveal")]
    assert "reveal B1" not in [m.text() for m in g.legal_moves(0)]  # two reveals made: no third
    g.play(0, "action row 1")
    assert g.hands[0] and g.phase == "opening"


def test_action_conditional_on_a_star() -> None:
    g = engine.new_game(["Ann", "Bo"], "action", seed="plans")
    for seat in (0, 1):
        for cell in ("A1", "B1"):
            if any(p.seat == seat and p.kind == "reveal" for p in g.pending()):
                g.play(seat, f"reveal {cell}")
    while g.pending() and g.pending()[0].kind != "turn":  # star triggers etc.: take the first legal move
        p = g.pending()[0]
        g.play(p.seat, g.legal_moves(p.seat)[0])
    seat = g.pending()[0].seat
    plan = parse_plan(g, seat, "draw: if star swap C3, if 4 or less swap B2, else flip D3")
    assert plan.text() == "draw: if star swap C3, if 4 or less swap B2, else flip D3"
    steps = plan.apply(g, seat)
    assert [m.text() for m, _ in steps][0] == "draw" and len(steps) == 2
    # every number covered is not enough in SKYJO Action: a star may come
    with pytest.raises(MoveParseError, match="what if you draw a star"):
        read_plan(g, "draw: if 4 or less swap B2, if 5 or more flip D3")
