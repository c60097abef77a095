"""SKYJO Action rules (RULES.md A1-A11), one test or more per rule id, on exact positions.

Positions come from explicit deals (as in game records: grids, game discard and draw pile, action
row, action discard and action deck) plus a JSON edit of face states and held action cards, loaded
back through the engine's own invariant checks (both decks conserved)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

import engine
from engine.action.game import ActionGame
from engine.action.rules import ACTION_COUNTS, ACTION_KINDS, GAME_COUNTS, STAR
from engine.game import DOWN, UP

NAMES = ["Ann", "Bo", "Cy", "Di"]
S = STAR
PLAIN = "1 2 3 4 / 5 6 7 8 / 9 10 11 12"
ROW = ("swap-own", "double-move", "draw-three", "insight")


def grid(rows: str) -> list[Any]:
    """grid("1 2 3 4 / * 6 7 8 / ...") -> 12 cards in cell order; * is a star."""
    vals: list[Any] = [S if x == "*" else int(x) for x in rows.replace("/", " ").split()]
    assert len(vals) == 12
    return vals


def _order(c: Any) -> tuple[bool, Any]:
    return (isinstance(c, str), c)


def deal(
    grids: list[list[Any]],
    discard: Any = 0,
    draw_top: list[Any] | None = None,
    row: tuple[str, ...] = ROW,
    action_discard: str = "defense",
    action_top: list[str] | None = None,
) -> dict[str, Any]:
    draw_top = list(draw_top or [])
    used = Counter(c for g in grids for c in g) + Counter([discard]) + Counter(draw_top)
    assert not used - Counter(GAME_COUNTS), "the deal uses cards the deck does not have"
    rest = sorted((Counter(GAME_COUNTS) - used).elements(), key=_order)
    action_top = list(action_top or [])
    aused = Counter(row) + Counter([action_discard]) + Counter(action_top)
    assert not aused - Counter(ACTION_COUNTS)
    arest = sorted((Counter(ACTION_COUNTS) - aused).elements(), key=ACTION_KINDS.index)
    return {
        "grids": grids,
        "discard": discard,
        "draw": draw_top + rest,
        "action_row": list(row),
        "action_discard": action_discard,
        "action_deck": action_top + arest,
    }


def new(grids: list[list[Any]], options: dict[str, Any] | None = None, **kw: Any) -> ActionGame:
    g = engine.new_game(
        NAMES[: len(grids)], "action", options, seed="action-test", deals=[{"deal": deal(grids, **kw)}]
    )
    assert isinstance(g, ActionGame)
    return g


def setup(
    game: ActionGame,
    up: dict[int, str] | None = None,
    turn: int = 0,
    hands: dict[int, list[str]] | None = None,
) -> ActionGame:
    """Skip the opening: the named cells face-up, `turn` to move, held action cards taken from the
    action deck (so both decks stay whole)."""
    data = game.to_json()
    for seat, cells in (up or {}).items():
        for name in cells.split():
            data["face"][seat][engine.CELL_NAMES.index(name.upper())] = UP
    for seat in range(len(data["face"])):
        data["down"][seat] = data["face"][seat].count(DOWN)
    for seat, cards in (hands or {}).items():
        for c in cards:
            data["adeck"].remove(c)
            data["hands"][seat].append(c)
    data.update(phase="play", turn=turn, stage=0, revealed=[2] * len(data["face"]), step="main", queue=[])
    g = engine.Game.from_json(data)
    assert isinstance(g, ActionGame)
    return g


ALL = " ".join(engine.CELL_NAMES)


def all_but(*cells: str) -> str:
    return " ".join(c for c in engine.CELL_NAMES if c not in cells)


def texts(g: ActionGame, seat: int) -> list[str]:
    return [m.text() for m in g.legal_moves(seat)]


def pend(g: ActionGame) -> list[tuple[int, str]]:
    return [(p.seat, p.kind) for p in g.pending()]


def types(events: list[dict[str, Any]]) -> list[str]:
    return [e["type"] for e in events]


# ---------------------------------------------------------------- A1, A2, A3
def test_a1_decks_are_data_and_overridable() -> None:
    assert sum(GAME_COUNTS.values()) == 120 and GAME_COUNTS[STAR] == 8 and GAME_COUNTS[0] == 15
    assert sum(ACTION_COUNTS.values()) == 30 and len(ACTION_COUNTS) == 9
    g = engine.new_game(["Ann", "Bo"], "action", seed=1)
    everything = Counter(g.draw) + Counter(g.discard) + sum((Counter(v) for v in g.vals), Counter())
    assert everything == Counter(GAME_COUNTS)
    small = {"defense": 3, "thief": 3}
    odd = {"1": 8, "3": 8, "5": 8, "7": 8, "9": 8, "star": 4}
    g = engine.new_game(["Ann", "Bo"], "action", {"action_deck": small, "game_deck": odd}, seed=1)
    assert set(g.arow) | set(g.adiscard) | set(g.adeck) <= {"defense", "thief"}
    assert set(g.draw) | set(g.discard) <= {1, 3, 5, 7, 9, STAR} and len(g.draw) + len(g.discard) == 44 - 24
    assert engine.Game.from_json(g.to_json()).to_json() == g.to_json()
    for bad in (
        {"action_deck": {"laser": 4}},
        {"action_deck": {"defense": 2}},
        {"game_deck": {"13": 50}},
        {"game_deck": {"5": "many"}},
        {"game_deck": [1, 2]},
        {"game_deck": {"-2": 40, "5": 30, "star": 30}},
        {"game_deck": {"1": 100}},
    ):  # never-ending games
        with pytest.raises(engine.OptionError):
            engine.new_game(["Ann", "Bo"], "action", bad, seed=1)
    with pytest.raises(engine.OptionError, match="cannot deal"):
        engine.new_game(NAMES, "action", {"game_deck": odd}, seed=1)


def test_a2_setup_action_row_and_discard() -> None:
    g = engine.new_game(["Ann", "Bo", "Cy"], "action", seed="x")
    assert len(g.arow) == 4 and all(g.arow) and len(g.adiscard) == 1 and len(g.adeck) == 25
    assert len(g.discard) == 1 and len(g.draw) == 120 - 36 - 1
    v = engine.view(g, 0)
    assert v["action"]["row"] == g.arow and v["action"]["deck_count"] == 25
    assert v["action"]["discard_top"] == g.adiscard[-1] and v["players"][1]["action_cards"] == []


def test_a3_start_highest_sum_then_highest_single_card_then_earliest_seat() -> None:
    g = new(
        [
            grid("5 1 0 0 / 0 0 0 0 / 8 8 8 9"),
            grid("3 3 2 2 / 2 2 2 2 / 9 9 9 10"),
            grid("4 2 -1 -1 / -1 -1 -1 -1 / 10 10 10 11"),
        ]
    )
    for seat, cells in {0: "A1 B1", 1: "A1 B1", 2: "A1 B1"}.items():
        for c in cells.split():
            g.play(seat, f"reveal {c}")
    assert g.phase == "play" and g.turn == 0  # 6 = 6 = 6: Ann's 5 is the highest single card
    start = [e for e in g.log if e["type"] == "start"][-1]
    assert start["reason"] == "highest_card"
    g = new([grid("3 3 0 0 / 0 0 0 0 / 1 1 1 1"), grid("3 3 2 2 / 2 2 2 2 / 4 4 4 4")])
    for seat in (1, 0):
        g.play(seat, "reveal A1")
        g.play(seat, "reveal B1")
    assert g.turn == 0 and [e for e in g.log if e["type"] == "start"][-1]["reason"] == "earliest_seat"


# ---------------------------------------------------------------- A4 turns
def test_a4_take_action_from_row_refills_and_is_public_but_not_playable_this_turn() -> None:
    g = setup(new([grid(PLAIN), grid(PLAIN)], action_top=["thief"]), up={0: "A1", 1: "A1"})
    assert "action row 2" in texts(g, 0) and "action deck" in texts(g, 0)
    ev = g.play(0, "action row 2")
    assert g.hands[0] == ["double-move"] and g.arow[1] == "thief" and g.turn == 1
    assert ev[0] == {"type": "take_action", "seat": 0, "card": "double-move", "source": "row 2"}
    assert engine.view(g, 1)["players"][0]["action_cards"] == ["double-move"]
    g = setup(
        new([grid(PLAIN), grid(PLAIN)], action_top=["thief"]), up={0: "A1", 1: "A1"}, hands={0: ["swap-own"]}
    )
    g.play(0, "action deck")  # takes the thief
    assert g.hands[0] == ["swap-own", "thief"]
    g.play(1, "draw")
    g.play(1, "flip B2")
    assert not [t for t in texts(g, 0) if "thief" in t] or g.hands[1] == []
    assert "discard action thief" in texts(g, 0)  # held since before this turn now


def test_a4_a_card_taken_in_an_extra_turn_is_playable_in_the_next() -> None:
    g = setup(
        new([grid(PLAIN), grid(PLAIN)], row=("double-move", "thief", "defense", "insight")),
        up={0: "A1", 1: "A1"},
        hands={0: ["double-move"]},
    )
    g.play(0, "play double-move")
    g.play(0, "action row 1")  # extra turn 1: takes a double move
    assert g.turn == 0 and "play double-move" in texts(g, 0)  # extra turn 2: held before it
    g.play(0, "play double-move")
    g.play(0, "draw")
    g.play(0, "flip C3")
    g.play(0, "draw")
    g.play(0, "flip B3")
    assert g.turn == 1


def test_a4_a_card_taken_this_turn_is_not_playable_in_it() -> None:
    g = setup(new([grid(PLAIN), grid(PLAIN)]), up={0: "A1", 1: "A1"})
    data = g.to_json()  # Ann got a thief during this very turn (as by a star trigger)
    data["adeck"].remove("thief")
    data["hands"][0].append("thief")
    data["fresh"] = ["thief"]
    g = engine.Game.from_json(data)
    with pytest.raises(engine.IllegalMove, match="took that Thief this turn"):
        g.play(0, "discard action thief")
    assert not [t for t in texts(g, 0) if "thief" in t]


def test_a4_moves_need_a_held_card() -> None:
    g = setup(new([grid(PLAIN), grid(PLAIN)]), up={0: "A1", 1: "A1"})
    with pytest.raises(engine.IllegalMove, match="hold no Thief"):
        g.play(0, "play thief from Bo defense")
    with pytest.raises(engine.IllegalMove, match="Bo's turn|not yours"):
        g.play(1, "draw")


# ---------------------------------------------------------------- A5 sets
def test_a5_row_and_column_removed_in_the_same_turn() -> None:
    g = setup(
        new([grid("5 5 5 1 / 5 2 3 4 / 5 6 7 8"), grid(PLAIN)], discard=5, draw_top=[9]),
        up={0: "A1 B1 C1 A2 A3 B2", 1: "A1"},
    )
    events = g.play(0, "take")
    events += g.play(0, "swap D1")  # row 1 = 5 5 5 5 and column A = 5 5 5
    removed = [e for e in events if e["type"] == "remove_set"]
    assert {e["set"] for e in removed} == {"row 1", "column A"}
    gone = {engine.CELL_NAMES[c] for c in range(12) if g.face[0][c] == 2}
    assert gone == {"A1", "B1", "C1", "D1", "A2", "A3"}
    assert g.discard[-6:] == [5] * 6 and g.discard[-7] == 1  # the swapped-out 1, then the sets


def test_a5_lost_cards_never_complete_and_stars_never_match_numbers() -> None:
    g = setup(
        new([grid("5 5 * 4 / 5 2 3 4 / 7 6 7 8"), grid(PLAIN)], discard=5, draw_top=[9]),
        up={0: "A1 B1 C1 A2", 1: "A1"},
    )
    g.play(0, "take")
    ev = g.play(0, "swap D1")  # 5 5 star 5: no row set
    assert "remove_set" not in types(ev)
    data = g.to_json()
    g2 = setup(
        new([grid("5 5 5 4 / 2 2 2 2 / 7 6 7 8"), grid(PLAIN)], discard=2, draw_top=[9]),
        up={0: "A1 B1 C1 A2 B2 C2", 1: "A1"},
    )
    data = g2.to_json()
    data["face"][0][3] = 2  # D1 already removed: row 1 can never complete
    data["discard"].insert(0, data["vals"][0][3])
    data["face"][0][7] = 2
    data["discard"].insert(0, data["vals"][0][7])
    data["down"][0] = data["face"][0].count(DOWN)
    g2 = engine.Game.from_json(data)
    g2.play(0, "draw")
    ev = g2.play(0, "flip A3")
    assert "remove_set" not in types(ev)


# ---------------------------------------------------------------- A6, A7 stars
def _star_column_game() -> ActionGame:
    return setup(
        new([grid("* 1 2 3 / * 4 5 6 / * 7 8 9"), grid(PLAIN)], draw_top=[10, 11]),
        up={0: "A1 A2 B1", 1: "A1 B1"},
    )


def test_a7_star_trigger_is_optional_and_a6_star_set_can_be_removed() -> None:
    g = _star_column_game()
    g.play(0, "draw")
    ev = g.play(0, "flip A3")
    assert "star_trigger" in types(ev) and pend(g) == [(0, "star_trigger")]
    assert texts(g, 0) == [
        "action row 1",
        "action row 2",
        "action row 3",
        "action row 4",
        "action deck",
        "decline",
    ]
    assert texts(g, 1) == []
    ev = g.play(0, "decline")
    assert pend(g) == [(0, "star_set")] and texts(g, 0) == ["keep", "remove"]
    v = engine.view(g, 1)
    assert v["action"]["decisions"] == [{"seat": 0, "kind": "star_set", "set": "column A", "bonus": -10}]
    ev = g.play(0, "remove")
    assert g.banked[0] == -10 and all(g.face[0][c] == 2 for c in (0, 4, 8)) and g.discard[-3:] == [S, S, S]
    assert g.turn == 1 and engine.view(g, 1)["players"][0]["star_bonus"] == -10


def test_a7_star_trigger_takes_a_card_and_in_the_opening() -> None:
    g = new([grid("* 1 2 3 / 4 4 5 6 / 1 7 8 9"), grid(PLAIN)])
    g.play(0, "reveal A1")
    assert pend(g) == [(0, "star_trigger"), (1, "reveal")]
    g.play(1, "reveal A1")  # the others go on meanwhile
    g.play(0, "action row 3")
    assert g.hands[0] == ["draw-three"] and g.phase == "opening"
    g.play(0, "reveal B1")
    g.play(1, "reveal B1")
    assert g.phase == "play"


def test_a6_kept_star_set_counts_only_while_whole() -> None:
    # Ann keeps a star column; Bo's swap with a player breaks it: no bonus at round end.
    g = setup(
        new(
            [grid("* 1 2 3 / * 4 5 6 / * 7 8 9"), grid("1 2 3 4 / 5 6 7 8 / 9 10 11 12")],
            draw_top=[10, 11, 12, 0],
        ),
        up={0: all_but("A3"), 1: all_but("D3")},
        hands={1: ["swap-with-player"]},
    )
    g.play(0, "draw")
    g.play(0, "flip A3")
    g.play(0, "decline")
    g.play(0, "keep")  # Ann has no face-down card left: she closes
    assert g.kept[0] == [["column", 0]] and g.closer == 0
    g.play(1, "play swap-with-player D3 with Ann A1")  # Bo's face-down 12 for Ann's star
    assert g.vals[0][0] == 12 and g.face[0][0] == DOWN and pend(g) == [(1, "star_trigger")]
    g.play(1, "decline")
    assert len(g.rounds) == 1  # Bo's final turn ended the round
    r = g.rounds[0]
    assert r["star_bonus"][0] == 0 and r["raw"][0] == 12 + 0 + 0 + sum(range(1, 10))
    assert r["raw"][1] == sum(range(1, 12)) + 0  # Bo now has Ann's star on D3


def test_a6_kept_whole_star_set_scores_its_bonus() -> None:
    g = setup(
        new([grid("* 1 2 3 / * 4 5 6 / * 7 8 9"), grid("1 2 3 4 / 5 6 7 8 / 9 10 11 12")], draw_top=[10, 0]),
        up={0: all_but("A3"), 1: all_but("D3")},
    )
    g.play(0, "draw")
    g.play(0, "flip A3")
    g.play(0, "decline")
    g.play(0, "keep")
    g.play(1, "draw")
    g.play(1, "swap D3")  # Bo puts the 0 on D3
    r = g.rounds[0]
    assert r["star_bonus"][0] == -10 and r["raw"][0] == 45 - 10
    assert r["raw"][1] == sum(range(1, 12)) and r["doubled"] == []


# ---------------------------------------------------------------- A8 scoring
def test_a8_each_held_action_card_costs_10_and_closer_doubled_unless_strictly_lowest() -> None:
    g = setup(
        new([grid(PLAIN), grid("1 2 3 4 / 5 6 7 8 / 9 10 11 12")], draw_top=[0, 0]),
        up={0: all_but("D3"), 1: all_but("D3")},
        hands={1: ["thief", "defense"]},
    )
    g.play(0, "draw")
    g.play(0, "flip D3")  # Ann closes with 78
    g.play(1, "draw")
    g.play(1, "swap D3")  # Bo: 66 + 0 + 20
    r = g.rounds[0]
    assert r["action_cards"] == [0, 2] and r["raw"] == [78, 86]
    assert r["scores"] == [78, 86] and r["doubled"] == []
    g = setup(
        new([grid(PLAIN), grid("1 2 3 4 / 5 6 7 8 / 9 10 11 12")], draw_top=[0, 0]),
        up={0: all_but("D3"), 1: all_but("D3")},
        hands={0: ["thief"]},
    )
    g.play(0, "draw")
    g.play(0, "flip D3")
    g.play(1, "draw")
    g.play(1, "swap D3")
    assert g.rounds[0]["raw"] == [88, 66] and g.rounds[0]["scores"] == [176, 66]


def test_a8_doubling_exception_at_zero_or_less() -> None:
    ann = grid("-2 -1 0 1 / -1 0 1 -2 / 0 1 -2 -1")  # -6
    bo = grid("* * * * / -2 -1 0 1 / -1 0 1 -2")  # -4 - 15 = -19
    g = setup(new([ann, bo], draw_top=[3, 4]), up={0: all_but("D3"), 1: all_but("D3")})
    g.play(0, "draw")
    g.play(0, "flip D3")
    assert pend(g) == [(1, "star_set")]  # Bo's complete star row (A6), at the end of Ann's turn
    g.play(1, "keep")
    g.play(1, "draw")
    g.play(1, "flip D3")
    r = g.rounds[0]
    assert r["raw"] == [-6, -19] and r["scores"] == [-6, -19] and r["doubled"] == []


# ---------------------------------------------------------------- A9 action cards
def test_a9_1_swap_own_keeps_face_states() -> None:
    g = setup(new([grid(PLAIN), grid(PLAIN)]), up={0: "A1", 1: "A1"}, hands={0: ["swap-own"]})
    ev = g.play(0, "play swap-own A1 D3")
    assert g.vals[0][0] == 12 and g.vals[0][11] == 1 and g.face[0][0] == DOWN and g.face[0][11] == UP
    assert g.adiscard[-1] == "swap-own" and g.turn == 1
    assert ev[0]["move"] == "play swap-own A1 D3"
    with pytest.raises(engine.IllegalMove):
        g.play(1, "play swap-own A1 A1")


def test_a9_2_double_move_gives_two_more_full_turns() -> None:
    g = setup(new([grid(PLAIN), grid(PLAIN)]), up={0: "A1", 1: "A1"}, hands={0: ["double-move"]})
    g.play(0, "play double-move")
    assert g.turn == 0 and engine.view(g, 1)["action"]["extra_turns"] == 1  # still to come after this one
    g.play(0, "draw")
    g.play(0, "flip B1")
    assert g.turn == 0
    g.play(0, "action deck")
    assert g.turn == 1


def test_a9_3_draw_three_keep_one_rest_discarded_privately_seen() -> None:
    g = setup(
        new([grid(PLAIN), grid(PLAIN)], draw_top=[-2, 7, S]), up={0: "A1", 1: "A1"}, hands={0: ["draw-three"]}
    )
    ev = g.play(0, "play draw-three")
    assert pend(g) == [(0, "pick_three")] and g.three == [-2, 7, S]
    assert [e for e in ev if e["type"] == "draw_three"] == [{"type": "draw_three", "seat": 0, "count": 3}]
    mine, theirs = engine.view(g, 0), engine.view(g, 1)
    assert mine["action"]["private"]["three"] == g.three and theirs["action"]["private"]["three"] == []
    assert engine.view(g, None)["action"]["private"] is None and theirs["action"]["three_count"] == 3
    assert texts(g, 0)[0] == "pick 1 A1" and texts(g, 0)[-1] == "pick none"
    g.play(0, "pick 1 D3")
    assert g.vals[0][11] == -2 and g.face[0][11] == UP and g.discard[-3:] == [7, S, 12] and g.three == []
    g2 = setup(
        new([grid(PLAIN), grid(PLAIN)], draw_top=[-2, 7, S]), up={0: "A1", 1: "A1"}, hands={0: ["draw-three"]}
    )
    g2.play(0, "play draw-three")
    g2.play(0, "pick none")
    assert Counter(g2.discard[-3:]) == Counter([-2, 7, S]) and g2.turn == 1


def test_a9_4_insight_is_private_and_kept_while_the_cards_stay() -> None:
    g = setup(
        new([grid(PLAIN), grid("1 2 3 4 / 5 6 7 8 / 9 10 11 12")], draw_top=[0, 0]),
        up={0: "A1", 1: "A1"},
        hands={0: ["insight"]},
    )
    ev = g.play(0, "play insight column B of Bo")
    assert all("value" not in e for e in ev)
    v0 = engine.view(g, 0)
    assert v0["action"]["private"]["insight"] == [
        {"seat": 1, "cell": c, "value": x} for c, x in (("B1", 2), ("B2", 6), ("B3", 10))
    ]
    assert v0["players"][1]["grid"][1] == {"cell": "B1", "face": "down", "value": None, "known": 2}
    for viewer in (1, None):
        v = engine.view(g, viewer)
        assert all("known" not in c for p in v["players"] for c in p["grid"])
        assert v["action"]["private"] is None or v["action"]["private"]["insight"] == []
    g.play(1, "draw")
    g.play(1, "swap B2")  # B2 changes: that knowledge ends; B1, B3 stay
    assert [k["cell"] for k in engine.view(g, 0)["action"]["private"]["insight"]] == ["B1", "B3"]


@pytest.mark.parametrize("blocked", [False, True])
def test_a9_7_swap_with_a_player_blocked_and_not(blocked: bool) -> None:
    g = setup(
        new([grid(PLAIN), grid("-2 2 3 4 / 5 6 7 8 / 9 10 11 12")]),
        up={0: "D3", 1: "A1"},
        hands={0: ["swap-with-player"], 1: ["defense"]},
    )
    ev = g.play(0, "play swap-with-player D3 with Bo A1")
    assert pend(g) == [(1, "defend")] and texts(g, 1) == ["block", "allow"] and texts(g, 0) == []
    assert engine.view(g, 1)["action"]["decisions"] == [
        {
            "seat": 1,
            "kind": "defend",
            "attacker": 0,
            "card": "swap-with-player",
            "attacker_cell": "D3",
            "cell": "A1",
        }
    ]
    assert g.in_play == ["swap-with-player"]
    with pytest.raises(engine.IllegalMove, match="waiting for Bo"):
        g.play(0, "draw")
    ev = g.play(1, "block" if blocked else "allow")
    assert g.in_play == [] and g.adiscard[-1] == "swap-with-player"
    if blocked:
        assert g.adiscard[-2] == "defense"
        assert g.vals[0][11] == 12 and g.hands[1] == [] and "block" in types(ev)
    else:
        assert g.vals[0][11] == -2 and g.vals[1][0] == 12 and g.face[1][0] == UP and g.hands[1] == ["defense"]
        e = [e for e in ev if e["type"] == "swap_player"][0]
        assert e["gave"] == 12 and e["got"] == -2
    assert g.turn == 1


def test_a9_7_swap_with_a_player_hides_face_down_values() -> None:
    g = setup(new([grid(PLAIN), grid(PLAIN)]), up={0: "A1", 1: "A1"}, hands={0: ["swap-with-player"]})
    ev = g.play(0, "play swap-with-player B1 with seat 1 C1")  # both face-down: no peeking
    e = [e for e in ev if e["type"] == "swap_player"][0]
    assert e["gave"] is None and e["got"] is None
    assert g.face[0][1] == DOWN and g.vals[0][1] == 3


@pytest.mark.parametrize("blocked", [False, True])
def test_a9_8_thief_steals_then_another_turn(blocked: bool) -> None:
    g = setup(
        new([grid(PLAIN), grid(PLAIN)]),
        up={0: "A1", 1: "A1"},
        hands={0: ["thief"], 1: ["double-move", "defense"] if blocked else ["double-move"]},
    )
    g.play(0, "play thief from Bo double-move")
    if blocked:
        assert pend(g) == [(1, "defend")]
        g.play(1, "block")
        assert g.hands == [[], ["double-move"]]
    else:
        assert g.hands == [["double-move"], []]
        g.play(0, "play double-move")  # the stolen card is playable in the extra turn
        assert g.extra_turns == 1 and g.turn == 0
    assert g.turn == 0  # the extra turn (also after a block: Defense cancels only the theft)


def test_a9_9_meteor_mixed_block_and_allow() -> None:
    g = setup(
        new([grid(PLAIN), grid(PLAIN), grid("0 1 2 3 / 4 5 6 7 / 8 9 10 11")], draw_top=[-2, -1]),
        up={0: "A1", 1: "A1", 2: "A1 D3"},
        hands={0: ["meteor-shower"], 1: ["defense"]},
    )
    ev = g.play(0, "play meteor-shower")
    assert pend(g) == [(1, "meteor"), (2, "meteor")]  # every other seat at once
    assert "block" in texts(g, 1) and "block" not in texts(g, 2) and "meteor D3" in texts(g, 2)
    ev = g.play(2, "meteor D3")
    assert g.vals[2][11] == -2 and g.face[2][11] == DOWN and g.discard[-1] == 11
    assert ev[0] == {"type": "meteor_hit", "seat": 2, "cell": "D3", "discarded": 11}
    for viewer in (0, 1, 2, None):
        assert engine.view(g, viewer)["players"][2]["grid"][11]["value"] is None
    assert pend(g) == [(1, "meteor")] and g.in_play == ["meteor-shower"]
    g.play(1, "block")
    assert g.hands[1] == [] and g.in_play == [] and g.adiscard[-1] == "meteor-shower" and g.turn == 1


def test_a9_6_defense_on_your_turn_is_an_extra_turn() -> None:
    g = setup(new([grid(PLAIN), grid(PLAIN)]), up={0: "A1", 1: "A1"}, hands={0: ["defense"]})
    g.play(0, "play defense")
    assert g.turn == 0 and g.adiscard[-1] == "defense"
    g.play(0, "draw")
    g.play(0, "flip B1")
    assert g.turn == 1


REACTIVATED = {
    "swap-own": "play reactivation swap-own A1 B1",
    "double-move": "play reactivation double-move",
    "draw-three": "play reactivation draw-three",
    "insight": "play reactivation insight row 1 of Bo",
    "defense": "play reactivation defense",
    "swap-with-player": "play reactivation swap-with-player A1 with Bo A1",
    "thief": "play reactivation thief from Bo insight",
    "meteor-shower": "play reactivation meteor-shower",
}


@pytest.mark.parametrize("kind", sorted(REACTIVATED))
def test_a9_5_reactivation_of_each_kind(kind: str) -> None:
    g = setup(
        new([grid(PLAIN), grid("-2 2 3 4 / 5 6 7 8 / 9 10 11 12")], action_discard=kind),
        up={0: "A1", 1: "A1"},
        hands={0: ["reactivation"], 1: ["insight"]},
    )
    assert REACTIVATED[kind] in texts(g, 0)
    g.play(0, REACTIVATED[kind])
    if kind == "draw-three":
        assert pend(g) == [(0, "pick_three")]
        g.play(0, "pick none")
    if kind == "meteor-shower":
        g.play(1, "meteor B1")
    assert g.adiscard[-2:] == ["reactivation", kind] and g.hands[0] == (
        ["insight"] if kind == "thief" else []
    )
    if kind == "swap-own":
        assert g.vals[0][:2] == [2, 1]
    if kind == "swap-with-player":
        assert g.vals[0][0] == -2 and g.vals[1][0] == 1
    if kind == "insight":
        assert len(g.known[0]) == 3
    expected_turn = 0 if kind in ("double-move", "defense", "thief") else 1
    assert g.turn == expected_turn


def test_a9_5_reactivation_needs_the_card_on_the_pile() -> None:
    g = setup(
        new([grid(PLAIN), grid(PLAIN)], action_discard="defense"),
        up={0: "A1", 1: "A1"},
        hands={0: ["reactivation"]},
    )
    with pytest.raises(engine.IllegalMove, match="no Thief on the action discard"):
        g.play(0, "play reactivation thief from Bo defense")
    with pytest.raises(engine.MoveParseError, match="another Reactivation"):
        g.play(0, "play reactivation reactivation")


# ---------------------------------------------------------------- A10, A11
def test_a10_empty_action_deck_reshuffles_the_whole_discard_pile() -> None:
    g = setup(new([grid(PLAIN), grid(PLAIN)]), up={0: "A1", 1: "A1"})
    data = g.to_json()
    data["adiscard"] = data["adiscard"] + data["adeck"]
    data["adeck"] = []
    g = engine.Game.from_json(data)
    n = len(g.adiscard)
    ev = g.play(0, "action row 1")
    assert ev[0] == {"type": "action_reshuffle", "count": n} and g.adiscard == [] and len(g.adeck) == n - 1


def test_a11_tie_broken_by_most_rounds_won_then_shared() -> None:
    g = setup(new([grid(PLAIN), grid(PLAIN), grid(PLAIN)]), up={0: "A1", 1: "A1", 2: "A1"})
    g.totals = [100, 100, 120]
    g.rounds = [{"scores": [5, 3, 9]}, {"scores": [2, 9, 2]}, {"scores": [1, 4, 1]}]
    g._after_round([])
    assert g.is_over and g.winners == [0]
    g = setup(new([grid(PLAIN), grid(PLAIN)]), up={0: "A1", 1: "A1"})
    g.totals = [100, 100]
    g.rounds = [{"scores": [5, 3]}, {"scores": [2, 9]}, {"scores": [4, 4]}]
    g._after_round([])
    assert g.is_over and g.winners == [0, 1]


def test_a8_close_by_another_grid_gives_every_other_seat_one_more_turn() -> None:
    g = setup(
        new([grid(PLAIN), grid(PLAIN), grid(PLAIN)]),
        up={0: "A1", 1: all_but("D3"), 2: "A1"},
        hands={0: ["swap-with-player"]},
    )
    g.play(0, "play swap-with-player A1 with Bo D3")  # Bo's last face-down card comes to Ann
    assert g.closer == 1 and g.turn == 2
    g.play(2, "draw")
    g.play(2, "flip B1")
    assert g.turn == 0  # Bo is skipped; Ann has her one more turn
    g.play(0, "draw")
    g.play(0, "flip B1")
    assert len(g.rounds) == 1


def test_views_list_new_pending_kinds_and_never_show_drawn_cards_to_others() -> None:
    g = setup(new([grid(PLAIN), grid(PLAIN)], draw_top=[7]), up={0: "A1", 1: "A1"})
    g.play(0, "draw")
    assert engine.view(g, 0)["action"]["private"]["drawn"] == 7
    assert engine.view(g, 1)["action"]["private"]["drawn"] is None
    assert engine.view(g, 1)["held"]["value"] is None


@pytest.mark.parametrize("first", ["keep", "remove"])
def test_a6_overlapping_star_sets_are_decided_one_by_one(first: str) -> None:
    g = setup(
        new([grid("* * * * / * 1 2 3 / * 4 5 6"), grid(PLAIN)], draw_top=[7]),
        up={0: all_but("A3", "D3"), 1: "A1"},
    )
    g.play(0, "draw")
    g.play(0, "flip A3")
    g.play(0, "decline")
    assert pend(g) == [(0, "star_set")]
    assert engine.view(g, 0)["action"]["decisions"][0]["set"] == "column A"
    g.play(0, first)
    if first == "remove":  # the star row lost A1: no second decision
        assert g.banked[0] == -10 and g.turn == 1 and pend(g) == [(1, "turn")]
    else:
        assert engine.view(g, 0)["action"]["decisions"][0]["set"] == "row 1"
        g.play(0, "remove")
        assert g.banked[0] == -15 and g.kept[0] == [] and g.turn == 1  # the kept column broke
