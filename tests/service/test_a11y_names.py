"""The names a screen reader says for the board (issue 30.3, `service/render/a11y.py`): what the
seat sees and nothing more (C13), in the reader's language."""

from __future__ import annotations

from flask_babel import force_locale

import engine
from service.render import a11y
from service.render.board import board
from service.render.moves import move_groups
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
        groups = {x["key"]: x for x in move_groups(view)}
        shown = board(view)
    swaps = {o["cell"]: o["name"] for o in groups["swap"]["options"]}
    flips = {o["cell"]: o["name"] for o in groups["flip"]["options"]}
    assert set(swaps) == set(grid)
    for cell, c in grid.items():
        there = "face down" if c["face"] == "down" else str(c["value"])
        assert swaps[cell] == f"Put the drawn {held} at {cell}, now {there}"
        if c["face"] == "down":
            assert flips[cell] == f"Discard the drawn {held} and turn over {cell}"
    assert {c["cell"] for c in grid.values() if c["face"] == "up"} == {"A1", "D3"}
    me = shown["players"][0]
    assert me["caption"] == "Your grid, 10 face down"
    names = [c["name"] for row in me["rows"] for c in row["cells"]]
    assert names[0] == f"A1, {grid['A1']['value']}" and names[-1] == f"D3, {grid['D3']['value']}"
    assert names[1:-1] == [f"{c}{r}, face down" for r in (1, 2, 3) for c in "ABCD"][1:-1]
    other = "Bo" if seat == 0 else "Ann"
    assert shown["players"][1]["caption"] == f"{other}'s grid, 10 face down"
    assert shown["discard_name"] == f"discard pile: {view['discard_top']}"
    assert shown["draw_name"] == f"draw pile: {view['draw_count']} cards"


def test_issue30_c11_a_removed_cell_and_the_piles_in_english_and_german(tmp_path):
    app = make_app(f"sqlite:///{tmp_path / 'names.sqlite3'}")
    with app.test_request_context():
        with force_locale("en"):
            assert a11y.cell_name({"cell": "D1", "face": "removed"}) == "D1, removed"
            assert a11y.cell_name({"cell": "B2", "face": "up", "value": -2}) == "B2, -2"
            assert a11y.draw_name(1) == "draw pile: 1 card"
            assert a11y.held_name(False, "Bo", None) == "Bo holds a card"
        with force_locale("de"):
            assert a11y.cell_name({"cell": "D1", "face": "removed"}) == "D1, entfernt"
            assert a11y.cell_name({"cell": "C3", "face": "down"}) == "C3, verdeckt"
            cells = [{"face": "down"}] * 9 + [{"face": "up"}] * 3
            assert a11y.grid_caption("Bo", False, cells) == "Auslage von Bo, 9 verdeckt"
            assert a11y.discard_name(3) == "Ablagestapel: 3"
            assert a11y.draw_name(100) == "Nachziehstapel: 100 Karten"


def _luminance(colour: str) -> float:
    """WCAG 2.x relative luminance of #rrggbb (or #fff)."""
    h = colour.lstrip("#")
    h = "".join(c * 2 for c in h) if len(h) == 3 else h
    def lin(c: float) -> float:
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (lin(int(h[i:i + 2], 16) / 255) for i in (0, 2, 4))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _ratio(a: str, b: str) -> float:
    hi, lo = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_issue30_every_card_value_reads_at_4_5_to_1_and_the_bands_differ_in_lightness():
    """The palette of _style.css and mail/_mail.css, for every value band (the colour classes of
    `cards.card_class`), whether axe met a card of that band in the played games or not."""
    import re
    from pathlib import Path

    from service.render.sheet import PALETTE

    root = Path(__file__).resolve().parents[2] / "templates"
    bands = ("neg", "zero", "low", "mid", "high")
    for sheet in ("_style.css", "mail/_mail.css"):
        css = (root / sheet).read_text()
        colours = {}
        for band in (*bands, "star", "none"):
            rule = re.search(rf"\.{band}\b[^{{]*\{{ background: (#[0-9a-f]{{6}}); color: (#[0-9a-f]{{3,6}}); \}}", css)
            assert rule, f"{sheet}: no colours for .{band}"
            colours[band] = rule.groups()
            assert _ratio(*rule.groups()) >= 4.5, (sheet, band, rule.groups())
        backs = sorted(_luminance(colours[b][0]) for b in bands)
        for darker, lighter in zip(backs, backs[1:], strict=False):  # lightness apart, not only hue
            assert (lighter + 0.05) / (darker + 0.05) >= 1.4, (sheet, backs)
    for colour in PALETTE:  # the chart's labels are text in the player's colour
        assert _ratio(colour, "#ffffff") >= 4.5, colour
