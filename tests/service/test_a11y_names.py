"""The names a screen reader says for the board (issue 30.3, `service/render/a11y.py`): what the
seat sees and nothing more (C13), in the reader's language."""

from __future__ import annotations

from flask_babel import force_locale

import engine
from service.render import a11y
from service.render import board as render
from tests.conftest import make_app


def _drawn(seed: str) -> tuple[engine.Game, int]:
    """A game right after the opening (C4) and a draw (C7): (game, the seat holding the card)."""
    g = engine.new_game(["Ann", "Bo"], seed=seed)
    for seat in (0, 1):
        g.play(seat, "reveal A1")
        g.play(seat, "reveal D3")
    seat = g.pending()[0].seat
    g.play(seat, "draw")
    return g, seat


def test_issue30_c13_move_buttons_name_the_move_and_only_what_the_seat_sees(tmp_path):
    app = make_app(f"sqlite:///{tmp_path / 'names.sqlite3'}")
    g, seat = _drawn("a11y-names")
    view = engine.view(g, seat, log=False)
    held = view["held"]["value"]
    grid = {c["cell"]: c for c in next(p for p in view["players"] if p["seat"] == seat)["grid"]}
    with app.test_request_context(), force_locale("en"):
        groups = {x["key"]: x for x in render.move_groups(view)}
        board = render.board(view)
    swaps = {o["cell"]: o["name"] for o in groups["swap"]["options"]}
    flips = {o["cell"]: o["name"] for o in groups["flip"]["options"]}
    assert set(swaps) == set(grid)
    for cell, c in grid.items():
        there = "face down" if c["face"] == "down" else str(c["value"])
        assert swaps[cell] == f"Put the drawn {held} at {cell}, now {there}"
        if c["face"] == "down":
            assert flips[cell] == f"Discard the drawn {held} and turn over {cell}"
    assert {c["cell"] for c in grid.values() if c["face"] == "up"} == {"A1", "D3"}
    me = board["players"][0]
    assert me["caption"] == "Your grid, 10 face down"
    names = [c["name"] for row in me["rows"] for c in row["cells"]]
    assert names[0] == f"A1, {grid['A1']['value']}" and names[-1] == f"D3, {grid['D3']['value']}"
    assert names[1:-1] == [f"{c}{r}, face down" for r in (1, 2, 3) for c in "ABCD"][1:-1]
    other = "Bo" if seat == 0 else "Ann"
    assert board["players"][1]["caption"] == f"{other}'s grid, 10 face down"
    assert board["discard_name"] == f"discard pile: {view['discard_top']}"
    assert board["draw_name"] == f"draw pile: {view['draw_count']} cards"


def test_issue30_c11_a_removed_cell_and_the_piles_in_english_and_german(tmp_path):
    app = make_app(f"sqlite:///{tmp_path / 'names.sqlite3'}")
    with app.test_request_context():
        with force_locale("en"):
            assert a11y.cell_name({"cell": "D1", "face": "removed"}) == "D1, removed"
            assert a11y.cell_name({"cell": "B2", "face": "up", "value": -2}) == "B2, -2"
            assert a11y.draw_name(1) == "draw pile: 1 card"
            assert a11y.held_name(False, "Bo", None) == "Bo holds a card"
        with force_locale("de"):
            assert a11y.cell_name({"cell": "D1", "face": "removed"}) == "D1, abgelegt"
            assert a11y.cell_name({"cell": "C3", "face": "down"}) == "C3, verdeckt"
            cells = [{"face": "down"}] * 9 + [{"face": "up"}] * 3
            assert a11y.grid_caption("Bo", False, cells) == "Auslage von Bo, 9 verdeckt"
            assert a11y.discard_name(3) == "Ablagestapel: 3"
            assert a11y.draw_name(100) == "Nachziehstapel: 100 Karten"
