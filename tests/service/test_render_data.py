"""render/ prepares data, the templates make the HTML (issue 14): no markup in render/'s Python, and
the board's data carries a card's value only where the view shows it face up (C13)."""

from __future__ import annotations

import random
import re
from pathlib import Path

import engine
from service.render.board import board

ROOT = Path(__file__).resolve().parents[2]
MARKUP = re.compile(r"<(?:table|tr|td|th|div|span|svg|form|input|button|a|p|br|h\d)\b", re.I)


def test_no_html_is_built_in_python() -> None:
    """Anywhere in service/ (the digest mail was HTML in f-strings until it got its template)."""
    sources = sorted((ROOT / "service").rglob("*.py"))
    found = {str(p.relative_to(ROOT)): MARKUP.findall(p.read_text()) for p in sources}
    assert not {k: v for k, v in found.items() if v}, f"HTML in Python: {found}"


def test_board_data_has_values_of_face_up_cells_only(tmp_path) -> None:
    from tests.conftest import make_app

    app = make_app(f"sqlite:///{tmp_path / 'render.sqlite3'}")
    rng = random.Random(7)
    g = engine.new_game(["Ann", "Bo", "Cy"], seed="render-data")
    checked = 0
    with app.app_context():
        while not g.is_over and checked < 60:
            for viewer in (*range(g.n), None):
                view = engine.view(g, viewer)
                for p in board(view)["players"]:
                    for row in p["rows"]:
                        for cell in row["cells"]:
                            assert ("value" in cell) == (cell["face"] == "up"), cell
            checked += 1
            p = rng.choice(g.pending())
            g.play(p.seat, str(engine.bot_move(g, p.seat, "greedy", rng)))
    assert checked == 60


def test_every_function_the_templates_call_on_r_is_there(tmp_path) -> None:
    """The templates' `r` (set up in `create_app`, issue 27: no facade module) has every name a
    template uses: a missing one would render as nothing, not fail."""
    from tests.conftest import make_app

    app = make_app(f"sqlite:///{tmp_path / 'r.sqlite3'}")
    used = {name for path in (ROOT / "templates").rglob("*.*") if path.suffix in (".html", ".txt")
            for name in re.findall(r"\br\.([A-Za-z_]+)", path.read_text())}
    r = app.jinja_env.globals["r"]
    assert used and not {name for name in used if not hasattr(r, name)}
