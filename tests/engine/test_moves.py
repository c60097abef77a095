"""Move text forms (C7 vocabulary, RULES.md cell names) and legal move lists."""

from __future__ import annotations

import pytest

import engine
from engine.moves import MOVE_BY_CODE

from .helpers import grid, new, position


@pytest.mark.parametrize(
    "text,canonical",
    [
        ("reveal B2", "reveal B2"),
        ("REVEAL b2", "reveal B2"),
        ("  swap   c1 ", "swap C1"),
        ("flip D3", "flip D3"),
        ("Draw", "draw"),
        ("TAKE", "take"),
        ("swap 2b", "swap B2"),
        ("turn D3", "flip D3"),
        ("discard a1", "flip A1"),
    ],
)
def test_parse_is_case_insensitive_and_canonical(text: str, canonical: str) -> None:
    move = engine.parse_move(text)
    assert move.text() == canonical == str(move)
    assert engine.parse_move(move.text()) == move


@pytest.mark.parametrize(
    "text,message",
    [
        ("", "empty move"),
        ("jump", "unknown move"),
        ("swap", "needs one cell"),
        ("swap E1", "not a cell"),
        ("swap A4", "not a cell"),
        ("draw B2", "takes no cell"),
        ("reveal A1 B1", "needs one cell"),
    ],
)
def test_parse_errors_are_readable(text: str, message: str) -> None:
    with pytest.raises(engine.MoveParseError, match=message):
        engine.parse_move(text)


@pytest.mark.parametrize("variant", ["classic", "action"])
def test_bad_cells_are_echoed_as_cells_are_written(variant: str) -> None:
    """Cells are named A1-D3 (RULES.md board); an error quotes a bad one in capitals (issue 16)."""
    g = engine.new_game(["Ann", "Bo"], variant, seed=1)
    for text in ("swap e5", "reveal E5"):
        with pytest.raises(engine.MoveParseError, match="'E5' is not a cell"):
            g.parse_move(text)


def test_every_move_round_trips_through_its_text() -> None:
    for code, move in MOVE_BY_CODE.items():
        assert engine.parse_move(move.text()).code == code


def test_legal_moves_per_stage() -> None:
    g = new([grid("5 6 7 8 / 9 10 11 12 / 0 1 2 3"), grid("4 4 4 4 / 3 3 3 3 / 2 2 2 2")])
    assert [m.text() for m in g.legal_moves(0)][:2] == ["reveal A1", "reveal B1"]
    assert len(g.legal_moves(0)) == 12
    g = position(g, up={0: "A1 B1", 1: "A1 B1"}, turn=0)
    assert [m.text() for m in g.legal_moves(0)] == ["draw", "take"]
    assert g.legal_moves(1) == []
    g.play(0, "draw")
    texts = [m.text() for m in g.legal_moves(0)]
    assert texts.count("swap A1") == 1 and len([t for t in texts if t.startswith("swap")]) == 12
    assert "flip A1" not in texts and len([t for t in texts if t.startswith("flip")]) == 10
    g.play(0, "flip C3")
    g.play(1, "take")
    assert all(m.kind == "swap" for m in g.legal_moves(1))


def test_no_flip_when_no_face_down_card_is_left() -> None:
    g = new(
        [grid("5 6 7 8 / 9 10 11 12 / 0 1 2 3"), grid("4 4 4 4 / 3 3 3 3 / 2 2 2 2")],
        options={"target_score": 1000},
    )
    every = " ".join(engine.CELL_NAMES)
    g = position(g, up={0: every, 1: "A1 B1"}, turn=0)
    g.play(0, "draw")
    assert all(m.kind == "swap" for m in g.legal_moves(0))
    with pytest.raises(engine.IllegalMove, match="already face-up"):
        g.play(0, "flip A1")


def test_illegal_moves_leave_the_state_unchanged() -> None:
    g = position(
        new([grid("5 6 7 8 / 9 10 11 12 / 0 1 2 3"), grid("4 4 4 4 / 3 3 3 3 / 2 2 2 2")]),
        up={0: "A1 B1", 1: "A1 B1"},
        turn=0,
    )
    before = g.to_json()
    for seat, text in [(1, "draw"), (0, "swap A1"), (0, "flip C3"), (0, "reveal C3"), (5, "draw")]:
        with pytest.raises(engine.IllegalMove):
            g.play(seat, text)
    assert g.to_json() == before


def test_apply_move_is_pure_and_bumps_the_version() -> None:
    g = engine.new_game(["Ann", "Bo"], seed=1)
    before = g.to_json()
    g2, events = engine.apply_move(g, 0, "reveal A1")
    assert g.to_json() == before and g.version == 0
    assert (
        g2.version == 1 and events[0]["type"] == "reveal" and events[0]["text"].startswith("Ann revealed A1")
    )
    with pytest.raises(engine.IllegalMove, match="already face-up"):
        engine.apply_move(g2, 0, "reveal A1")
