"""Classic SKYJO rules, one test (or more) per rule id of ../shared/RULES.md C1-C13 and per option."""

from __future__ import annotations

from collections import Counter

import pytest

import engine
from engine.cards import CLASSIC_COUNTS
from engine.game import DOWN, GONE, UP

from .helpers import NAMES, grid, make_deal, new, open_all, play, position

LOW = grid("0 -1 0 -1 / -1 0 -1 0 / 0 -2 0 -2")
G_A = grid("5 6 7 8 / 9 10 11 12 / 0 1 2 3")
G_B = grid("4 4 4 4 / 3 3 3 3 / 2 2 2 2")


def test_c1_deck_has_150_cards_with_exact_counts() -> None:
    assert sum(CLASSIC_COUNTS.values()) == 150
    assert CLASSIC_COUNTS[-2] == 5 and CLASSIC_COUNTS[-1] == 10 and CLASSIC_COUNTS[0] == 15
    assert all(CLASSIC_COUNTS[v] == 10 for v in range(1, 13))
    g = engine.new_game(["Ann", "Bo"], seed=1)
    everything = g.draw + g.discard + g.vals[0] + g.vals[1]
    assert Counter(everything) == Counter(CLASSIC_COUNTS)


@pytest.mark.parametrize("n", [1, 9, 0])
def test_c2_one_or_nine_players_rejected(n: int) -> None:
    with pytest.raises(engine.OptionError, match="2 to 8 players"):
        engine.new_game([f"P{i}" for i in range(n)])


@pytest.mark.parametrize("n", [2, 8])
def test_c2_two_to_eight_players_accepted(n: int) -> None:
    g = engine.new_game([f"P{i}" for i in range(n)])
    assert len(g.pending()) == n


@pytest.mark.parametrize("players", [["Ann", "Bo", "Ann"], ["Ann", " ann "], ["ÅSA", "åsa", "Bo"]])
def test_c2_duplicate_player_names_are_refused(players: list[str]) -> None:
    """Players must be told apart (issue 16): equal names, ignoring case and spaces around them."""
    with pytest.raises(engine.OptionError, match="different name"):
        engine.new_game(players)
    with pytest.raises(engine.OptionError, match="different name"):
        engine.new_game(players, "action")


def test_c2_a_saved_game_with_equal_names_still_loads() -> None:
    """Games created before the check (issue 16) stay playable: loading does not refuse them."""
    data = engine.new_game(["Ann", "Bo"], seed=3).to_json()
    data["names"] = ["Ann", "ann"]
    assert engine.Game.from_json(data).names == ["Ann", "ann"]


def test_c3_deal_twelve_face_down_and_one_discard() -> None:
    g = engine.new_game(NAMES[:4], seed=7)
    for s in range(4):
        assert g.face[s] == [DOWN] * 12
    assert len(g.discard) == 1
    assert len(g.draw) == 150 - 48 - 1
    v = engine.view(g, 0)
    assert v["discard_top"] == g.discard[-1]
    assert all(c["value"] is None for p in v["players"] for c in p["grid"])


def test_c3_explicit_deal_order_is_a1_b1_c1_d1_a2() -> None:
    g = new([G_A, G_B], discard=5, draw_top=[12, -2])
    assert g.vals[0] == G_A
    assert g.discard == [5]
    assert g.draw[-1] == 12 and g.draw[-2] == -2  # draw pile top first in the deal


def test_c4_opening_all_seats_owe_reveal_in_any_order() -> None:
    g = new([G_A, G_B, LOW])
    assert {(p.seat, p.kind) for p in g.pending()} == {(0, "reveal"), (1, "reveal"), (2, "reveal")}
    play(g, "2: reveal A1", "0: reveal B2", "2: reveal B1")
    assert {p.seat for p in g.pending()} == {0, 1}
    with pytest.raises(engine.IllegalMove, match="revealed your two cards"):
        g.play(2, "reveal C1")
    with pytest.raises(engine.IllegalMove, match="already face-up"):
        g.play(0, "reveal B2")
    with pytest.raises(engine.IllegalMove, match="reveal"):
        g.play(0, "draw")


def test_c5_highest_sum_starts() -> None:
    g = new([G_A, G_B])
    open_all(g, {0: "A1 B1", 1: "A1 B1"})  # 5+6=11 vs 4+4=8
    assert g.pending() == [(0, "turn")]


def test_c5_tie_extra_reveal_repeats_while_tied() -> None:
    a = grid("5 6 7 1 / 9 10 11 12 / 0 1 2 3")
    b = grid("6 5 7 1 / 3 3 3 3 / 2 2 2 2")
    g = new([a, b, LOW])
    open_all(g, {0: "A1 B1", 1: "A1 B1", 2: "A1 B1"})
    assert sorted(g.pending()) == [(0, "tie_reveal"), (1, "tie_reveal")]
    play(g, "0: reveal C1", "1: reveal C1")  # 7 and 7: still tied
    assert sorted(g.pending()) == [(0, "tie_reveal"), (1, "tie_reveal")]
    with pytest.raises(engine.IllegalMove, match="tied"):
        g.play(2, "reveal C1")
    play(g, "0: reveal D1", "1: reveal A2")  # 1 vs 3
    assert g.pending() == [(1, "turn")]


def test_c5_tie_highest_card_option() -> None:
    a = grid("5 5 7 1 / 9 10 11 12 / 0 1 2 3")
    b = grid("9 1 7 1 / 3 3 3 3 / 2 2 2 2")
    g = new([a, b], options={"start_tiebreak": "highest_card"})
    open_all(g, {0: "A1 B1", 1: "A1 B1"})  # 10 vs 10, highest single card 9 -> seat 1
    assert g.pending() == [(1, "turn")]
    g2 = new([a, grid("5 5 7 1 / 3 3 3 3 / 2 2 2 2")], options={"start_tiebreak": "highest_card"})
    open_all(g2, {0: "A1 B1", 1: "A1 B1"})  # fully tied: earliest seat
    assert g2.pending() == [(0, "turn")]


def _finish_round_with_closer(g: engine.Game, closer: int) -> None:
    """From a position where `closer` has one face-down cell left and it is their turn."""
    cell = next(engine.CELL_NAMES[c] for c in range(12) if g.face[closer][c] == DOWN)
    play(g, f"{closer}: draw", f"{closer}: flip {cell}")


def _all_up_but(cell: str) -> str:
    return " ".join(c for c in engine.CELL_NAMES if c != cell)


def test_c7_draw_then_swap_or_flip_and_take_must_swap() -> None:
    g = position(new([G_A, G_B], discard=5, draw_top=[12]), up={0: "A1 B1", 1: "A1 B1"}, turn=0)
    with pytest.raises(engine.IllegalMove, match="draw"):
        g.play(0, "swap A1")
    play(g, "0: take")
    assert g.pending() == [(0, "place_taken")]
    with pytest.raises(engine.IllegalMove, match="you must place the card you took from the discard pile"):
        g.play(0, "flip C3")
    with pytest.raises(engine.IllegalMove, match="already have a card"):
        g.play(0, "draw")
    ev = play(g, "0: swap C3")  # face-down C3 (value 2) replaced by the 5
    assert g.vals[0][10] == 5 and g.face[0][10] == UP
    assert g.discard[-1] == 2  # swapped-out card face-up on the discard pile
    assert ev[0]["type"] == "swap" and ev[0]["discarded"] == 2
    assert g.pending() == [(1, "turn")]  # seat order
    play(g, "1: draw")
    assert g.held == 12 and g.pending() == [(1, "place_drawn")]
    ev = play(g, "1: flip D3")
    assert g.discard[-1] == 12 and g.face[1][11] == UP
    assert g.pending() == [(0, "turn")]


def test_c7_drawn_card_seen_by_drawer_alone_and_take_is_public() -> None:
    g = position(new([G_A, G_B], discard=5, draw_top=[12]), up={0: "A1 B1", 1: "A1 B1"}, turn=0)
    play(g, "0: draw")
    assert engine.view(g, 0)["held"] == {"seat": 0, "source": "draw", "value": 12}
    assert engine.view(g, 1)["held"] == {"seat": 0, "source": "draw", "value": None}
    assert engine.view(g, None)["held"]["value"] is None
    assert all(e.get("value") != 12 for e in engine.view(g, 1)["log"] if e["type"] == "draw")


def test_c7_not_your_turn() -> None:
    g = position(new([G_A, G_B]), up={0: "A1 B1", 1: "A1 B1"}, turn=0)
    with pytest.raises(engine.IllegalMove, match="it is Ann's turn"):
        g.play(1, "draw")


def test_c8_column_removed_cards_go_on_discard_after_swapped_out_card() -> None:
    a = grid("7 1 2 3 / 7 4 5 6 / 9 8 8 8")
    g = position(new([a, G_B], discard=7), up={0: "A1 A2 A3", 1: "A1 B1"}, turn=0)
    ev = play(g, "0: take", "0: swap A3")  # 7 7 7 in column A, 9 swapped out
    assert [g.face[0][c] for c in (0, 4, 8)] == [GONE, GONE, GONE]
    assert g.discard[-4:] == [9, 7, 7, 7]
    assert engine.view(g, 1)["discard_top"] == 7
    assert any(e["type"] == "remove_column" and e["column"] == "A" for e in ev)
    assert engine.view(g, 0)["players"][0]["grid"][0]["face"] == "removed"


def test_c8_column_with_face_down_card_never_counts() -> None:
    a = grid("7 1 2 3 / 7 4 5 6 / 7 8 8 8")
    g = position(new([a, G_B], discard=7), up={0: "A1 A2", 1: "A1 B1"}, turn=0)
    play(g, "0: take", "0: swap B1")
    assert g.face[0][0] == UP and g.face[0][8] == DOWN


def test_c8_column_removal_off() -> None:
    a = grid("7 1 2 3 / 7 4 5 6 / 9 8 8 8")
    g = position(
        new([a, G_B], discard=7, options={"column_removal": False}), up={0: "A1 A2 A3", 1: "A1 B1"}, turn=0
    )
    play(g, "0: take", "0: swap A3")
    assert [g.face[0][c] for c in (0, 4, 8)] == [UP, UP, UP]


@pytest.mark.parametrize("final_removal", [True, False])
def test_c8_final_reveal_removal_on_and_off(final_removal: bool) -> None:
    # seat 1 has column D of 9s with D3 still face-down when seat 0 closes
    a = grid("1 1 1 2 / 1 1 1 2 / 2 2 2 3")
    b = grid("4 4 5 9 / 3 3 5 9 / 2 6 6 9")
    g = new(
        [a, b],
        discard=0,
        draw_top=[12, 11],
        options={"final_reveal_removal": final_removal, "target_score": 1000},
    )
    g = position(g, up={0: _all_up_but("D3"), 1: "D1 D2 A1"}, turn=0)
    _finish_round_with_closer(g, 0)  # seat 0 closes
    play(g, "1: draw", "1: flip A2")  # seat 1's last turn, D3 stays face-down
    r = g.rounds[-1]
    if final_removal:
        assert [1, "D"] in r["removed_columns"]
        assert r["raw"][1] == 4 + 4 + 5 + 3 + 3 + 5 + 2 + 6 + 6
    else:
        assert [1, "D"] not in r["removed_columns"]
        assert r["raw"][1] == 4 + 4 + 5 + 3 + 3 + 5 + 2 + 6 + 6 + 27


def test_c9_closer_gets_no_final_turn_every_other_seat_exactly_one() -> None:
    g = new([LOW, G_A, G_B], discard=0, draw_top=[12, 11, 10, 9], options={"target_score": 1000})
    g = position(g, up={0: _all_up_but("D3"), 1: "A1 B1", 2: "A1 B1"}, turn=0)
    ev = play(g, "0: draw", "0: flip D3")
    assert any(e["type"] == "close" and e["seat"] == 0 for e in ev)
    assert engine.view(g, 2)["closer"] == 0 and engine.view(g, 2)["phase"] == "final_turns"
    assert g.pending() == [(1, "turn")]
    play(g, "1: draw", "1: flip C1")
    assert g.pending() == [(2, "turn")]
    ev = play(g, "2: draw", "2: flip C1")
    assert ev[-1]["type"] == "round_start"  # the closer got no turn: round 2 is dealt
    assert g.rounds[0]["closer"] == 0
    assert g.round == 2


def test_c9_the_closer_is_told_why_it_has_no_final_turn() -> None:
    g = new([LOW, G_A, G_B], discard=0, draw_top=[12, 11, 10, 9], options={"target_score": 1000})
    g = position(g, up={0: _all_up_but("D3"), 1: "A1 B1", 2: "A1 B1"}, turn=0)
    play(g, "0: draw", "0: flip D3")
    with pytest.raises(
        engine.IllegalMove,
        match="you closed the round: everyone else plays once more, you do not; it is Bo's turn",
    ):
        g.play(0, "draw")
    with pytest.raises(engine.IllegalMove, match="it is Bo's turn, not yours"):
        g.play(2, "draw")


def _close_with_scores(closer_grid: list[int], other_grid: list[int], options: dict) -> dict:
    """Seat 0 closes by flipping its last card; seat 1 plays its final turn by flipping C3."""
    g = new(
        [closer_grid, other_grid], discard=0, draw_top=[12, 12], options={"target_score": 1000, **options}
    )
    g = position(g, up={0: _all_up_but("D3"), 1: _all_up_but("C3")}, turn=0)
    _finish_round_with_closer(g, 0)
    play(g, "1: draw", "1: flip C3")
    return g.rounds[0]


def test_c10_tied_closer_is_doubled_strict() -> None:
    closer = grid("1 2 1 2 / 2 1 2 1 / 0 1 -2 -2")  # 9
    other = grid("3 -1 3 -1 / 2 0 2 0 / 0 0 1 0")  # 9
    r = _close_with_scores(closer, other, {"column_removal": False})
    assert r["raw"] == [9, 9]
    assert r["scores"] == [18, 9] and r["doubled"] == [0]


def test_c10_tied_closer_not_doubled_lenient() -> None:
    closer = grid("1 2 1 2 / 2 1 2 1 / 0 1 -2 -2")
    other = grid("3 -1 3 -1 / 2 0 2 0 / 0 0 1 0")
    r = _close_with_scores(closer, other, {"column_removal": False, "doubling_tie": "lenient"})
    assert r["scores"] == [9, 9] and r["doubled"] == []


def test_c10_strictly_lowest_closer_not_doubled_and_beaten_closer_doubled() -> None:
    closer = grid("1 2 1 2 / 2 1 2 1 / 0 1 -2 -2")  # 9
    higher = grid("3 3 3 3 / 2 2 2 2 / 1 1 1 1")  # 24
    lower = grid("0 0 0 0 / 0 0 1 0 / 0 0 0 0")  # 1
    assert _close_with_scores(closer, higher, {"column_removal": False})["scores"] == [9, 24]
    assert _close_with_scores(closer, lower, {"column_removal": False})["scores"] == [18, 1]


def test_c10_closer_at_zero_or_below_never_doubled_with_positive_only() -> None:
    closer = grid("-2 -1 0 0 / -1 0 0 0 / 1 1 1 1")  # 0
    lower = grid("-2 -2 -1 -1 / -1 0 0 0 / 0 0 0 0")  # -7
    r = _close_with_scores(closer, lower, {"column_removal": False})
    assert r["raw"] == [0, -7] and r["scores"] == [0, -7]
    r = _close_with_scores(closer, lower, {"column_removal": False, "doubling_positive_only": False})
    assert r["scores"] == [0, -7]  # 0 doubled is still 0
    closer_neg = grid("-2 -1 0 0 / -1 0 0 0 / 1 0 1 1")  # -1
    r = _close_with_scores(closer_neg, lower, {"column_removal": False, "doubling_positive_only": False})
    assert r["scores"] == [-2, -7] and r["doubled"] == [0]


def test_c10_doubling_off() -> None:
    closer = grid("1 2 1 2 / 2 1 2 1 / 0 1 -2 -2")
    lower = grid("0 0 0 0 / 0 0 1 0 / 0 0 0 0")
    r = _close_with_scores(closer, lower, {"column_removal": False, "doubling": False})
    assert r["scores"] == [9, 1] and r["doubled"] == []


def test_c11_reshuffle_keeps_discard_top_and_is_seeded() -> None:
    def run() -> engine.Game:
        g = position(new([G_A, G_B], discard=5), up={0: "A1 B1", 1: "A1 B1"}, turn=0)
        data = g.to_json()
        # move the whole draw pile but its top card under the discard pile (conserves the deck)
        data["discard"] = data["draw"][:-1] + data["discard"]
        data["draw"] = data["draw"][-1:]
        return engine.Game.from_json(data)

    g = run()
    play(g, "0: draw", "0: flip C3")  # draw pile now empty; discard top is the drawn card
    assert g.draw == []
    top = g.discard[-1]
    ev = play(g, "1: draw")
    assert ev[0]["type"] == "reshuffle"
    assert g.discard == [top]  # the discard top stays; everything under it was shuffled
    assert len(g.draw) + len(g.discard) + 1 + 24 == 150
    g2 = run()
    play(g2, "0: draw", "0: flip C3", "1: draw")
    assert g2.draw == g.draw and g2.held == g.held  # the reshuffle is reproducible from the seed


def test_c12_game_ends_at_target_lowest_total_wins() -> None:
    closer = grid("1 2 1 2 / 2 1 2 1 / 0 1 -2 -2")  # 9
    other = grid("3 3 3 3 / 2 2 2 2 / 1 1 1 1")  # 24
    g = new(
        [closer, other], discard=0, draw_top=[12, 12], options={"target_score": 20, "column_removal": False}
    )
    g = position(g, up={0: _all_up_but("D3"), 1: _all_up_but("C3")}, turn=0)
    _finish_round_with_closer(g, 0)
    ev = play(g, "1: draw", "1: flip C3")
    assert g.is_over and g.winners == [0] and g.pending() == []
    assert ev[-1]["type"] == "game_over"
    assert engine.view(g, None)["phase"] == "game_over"
    with pytest.raises(engine.IllegalMove, match="over"):
        g.play(0, "draw")


def test_c12_not_over_below_target() -> None:
    closer = grid("1 2 1 2 / 2 1 2 1 / 0 1 -2 -2")
    other = grid("3 3 3 3 / 2 2 2 2 / 1 1 1 1")
    g = new(
        [closer, other], discard=0, draw_top=[12, 12], options={"target_score": 25, "column_removal": False}
    )
    g = position(g, up={0: _all_up_but("D3"), 1: _all_up_but("C3")}, turn=0)
    _finish_round_with_closer(g, 0)
    play(g, "1: draw", "1: flip C3")
    assert not g.is_over and g.round == 2 and g.totals == [9, 24]


def _tied_end(final_tiebreak: str, seats: int = 3) -> engine.Game:
    """A game that ends after round 1 with seats 0 and 1 tied for the lowest total (10 each)."""
    s0 = grid("1 1 1 1 / 2 2 2 2 / -1 -1 0 0")  # 10, the closer (doubling off)
    s1 = grid("3 3 3 3 / 0 0 0 0 / -2 0 0 0")  # 10
    s2 = grid("12 12 12 12 / 11 11 11 11 / 10 10 10 10")  # 132
    grids = [s0, s1, s2][:seats]
    g = new(
        grids,
        discard=0,
        draw_top=[12] * 3,
        options={
            "target_score": 100,
            "column_removal": False,
            "doubling": False,
            "final_tiebreak": final_tiebreak,
        },
    )
    ups = {0: _all_up_but("D3"), 1: _all_up_but("C3"), 2: _all_up_but("C3")}
    g = position(g, up={s: ups[s] for s in range(seats)}, turn=0)
    _finish_round_with_closer(g, 0)
    play(g, "1: draw", "1: flip C3")
    if seats == 3:
        play(g, "2: draw", "2: flip C3")
    return g


def test_c12_extra_round_tiebreak_among_tied_players() -> None:
    g = _tied_end("extra_round")
    assert g.totals[:2] == [10, 10] and not g.is_over
    assert g.active == [0, 1] and g.round == 2
    assert {p.seat for p in g.pending()} == {0, 1}
    assert engine.view(g, 2)["players"][2]["active"] is False
    with pytest.raises(engine.IllegalMove, match="not playing"):
        g.play(2, "reveal A1")
    engine.play_out(g, "greedy")
    assert g.is_over and g.winners and set(g.winners) <= {0, 1}
    assert all(r["scores"][2] is None for r in g.rounds[1:])


def test_c12_most_rounds_won_and_shared() -> None:
    g = _tied_end("most_rounds_won")
    # one round only, both scored 10 (lowest): one win each -> still tied -> shared
    assert g.is_over and g.winners == [0, 1]
    g = _tied_end("shared")
    assert g.is_over and g.winners == [0, 1]


def test_c12_most_rounds_won_decides() -> None:
    g = _tied_end("most_rounds_won")
    data = g.to_json()
    data["rounds"].insert(0, {**data["rounds"][0], "round": 0, "scores": [3, 5, 9], "raw": [3, 5, 9]})
    assert engine.Game.from_json(data)._most_rounds_won([0, 1]) == [0]


@pytest.mark.parametrize(
    "starter,expected", [("previous_closer", 1), ("highest_reveal", 0), ("previous_winner", 0)]
)
def test_c6_round_starter_option(starter: str, expected: int) -> None:
    # round 1: seat 1 closes and is beaten (doubled); round 2's reveals give seat 0 the highest sum
    s0 = grid("0 0 0 0 / 0 0 1 0 / 0 0 0 0")
    s1 = grid("1 2 1 2 / 2 1 2 1 / 0 1 -2 -2")
    r2 = [grid("12 12 2 2 / 2 2 3 3 / 3 3 4 4"), grid("0 0 5 5 / 5 5 6 6 / 6 6 7 7")]
    deals = [{"deal": make_deal([s0, s1], 0, [12, 12])}, {"deal": make_deal(r2, 0)}]
    g = engine.new_game(
        NAMES[:2],
        options={"round_starter": starter, "column_removal": False, "target_score": 1000},
        seed="x",
        deals=deals,
    )
    g = position(g, up={1: _all_up_but("D3"), 0: _all_up_but("C3")}, turn=1)
    _finish_round_with_closer(g, 1)
    play(g, "0: draw", "0: flip C3")
    assert g.round == 2 and g.rounds[0]["closer"] == 1
    open_all(g, {0: "A1 B1", 1: "A1 B1"})
    assert g.pending() == [(expected, "turn")]


@pytest.mark.parametrize(
    "starter,expected,reason",
    [
        ("previous_winner", 1, "previous_winner"),
        ("previous_closer", 0, "highest_reveal"),
        ("highest_reveal", 0, "highest_reveal"),
    ],
)
def test_c6_round_starter_in_a_c12_extra_round(starter: str, expected: int, reason: str) -> None:
    """C6 holds in a C12 extra round too (issue 16): `previous_winner` is the tied seat that scored
    lowest in the round before, even when the previous closer (seat 2) is not in the extra round;
    `previous_closer` falls back to C5 because the closer does not play it."""
    s0 = grid("1 1 1 1 / 2 2 2 2 / 3 3 0 0")  # 18
    s1 = grid("4 4 4 4 / 0 0 0 0 / 0 0 0 0")  # 16
    s2 = grid("-2 -2 -2 -2 / -1 -1 -1 -1 / 0 0 0 0")  # -12, the closer
    r2 = [grid("12 12 2 2 / 2 2 3 3 / 3 3 4 4"), grid("1 1 5 5 / 5 5 6 6 / 6 6 7 7"), None]
    deals = [{"deal": make_deal([s0, s1, s2], 5, [12, 12, 12])}, {"deal": make_deal(r2, 5)}]
    g = engine.new_game(
        NAMES[:3],
        options={"round_starter": starter, "column_removal": False, "doubling": False, "target_score": 30},
        seed="x",
        deals=deals,
    )
    g = position(g, up={0: _all_up_but("C3"), 1: _all_up_but("C3"), 2: _all_up_but("D3")}, turn=2)
    data = g.to_json()
    data["totals"] = [20, 22, 100]  # the round's 18 and 16 make a tie at 38 for the lowest total
    g = engine.Game.from_json(data)
    _finish_round_with_closer(g, 2)
    play(g, "0: draw", "0: flip C3", "1: draw", "1: flip C3")
    assert g.rounds[0]["scores"] == [18, 16, -12] and g.totals == [38, 38, 88]
    assert g.active == [0, 1] and g.tiebreak_group == [0, 1]
    events = open_all(g, {0: "A1 B1", 1: "A1 B1"})  # seat 0 reveals the higher sum (24 to 2)
    assert g.pending() == [(expected, "turn")]
    assert events[-1] == {"type": "start", "seat": expected, "reason": reason}


def test_c13_views_hide_face_down_values_and_the_draw_pile() -> None:
    g = engine.new_game(NAMES[:3], seed=5)
    open_all(g, {0: "A1 B1", 1: "A1 B1", 2: "C3 D3"})
    for seat in (0, 1, 2, None):
        v = engine.view(g, seat)
        for p in v["players"]:
            for cell in p["grid"]:
                assert (cell["value"] is None) == (cell["face"] == "down")
        assert "draw" not in v and "seed" not in v and "vals" not in v
        assert v["draw_count"] == len(g.draw)
    assert engine.view(g, None)["legal_moves"] == []


def test_options_are_validated_and_saved() -> None:
    with pytest.raises(engine.OptionError, match="unknown option"):
        engine.new_game(["a", "b"], options={"colum_removal": True})
    with pytest.raises(engine.OptionError, match="target_score"):
        engine.new_game(["a", "b"], options={"target_score": 0})
    with pytest.raises(engine.OptionError, match="one of"):
        engine.new_game(["a", "b"], options={"doubling_tie": "sometimes"})
    with pytest.raises(engine.OptionError, match="true or false"):
        engine.new_game(["a", "b"], options={"doubling": "yes"})
    with pytest.raises(engine.OptionError, match="variant"):
        engine.new_game(["a", "b"], variant="poker")
    g = engine.new_game(["a", "b"], options={"target_score": 50})
    assert engine.Game.from_json(g.to_json()).options["target_score"] == 50
    assert g.options == {**engine.defaults("classic"), "target_score": 50}
