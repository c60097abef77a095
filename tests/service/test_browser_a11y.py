"""A board a screen reader and a keyboard can play (issue 30.3 and 30.5), in Debian's chromium.

- One whole turn (draw, then put the drawn card into the grid) played with Tab, Enter and Space
  alone: the skip link reaches the owed decision, and after each POST the focus is on the "Done"
  message (a live region) with the next decision's first button one Tab away.
- The accessibility tree of a board (Playwright's ARIA snapshot): every grid is a table whose
  caption says whose it is and how many cards are face down, every cell is named as a sighted
  player sees it ("B2, 7", "C3, face down"), the piles say "discard pile: 3" and "draw pile: 100
  cards", and each move button says the whole move, never a face-down value (C13).
"""

from __future__ import annotations

import random
import re
import threading
import time

import pytest
from werkzeug.serving import make_server

import engine
from tests.conftest import make_app
from tests.service import helpers as h
from tests.service.test_browser import ARGS, CHROMIUM, require_chromium

pytestmark = pytest.mark.browser


class _Stop(Exception):
    pass


@pytest.fixture
def ann_to_play(tmp_path):
    """A 2-player classic game past its opening, Ann (seat 0) to play a turn. Yields (app, the
    served base URL, Ann's board path)."""
    require_chromium()
    app = make_app(f"sqlite:///{tmp_path / 'a11y.sqlite3'}", TESTING=False, GAME_SETUP={"seed": "a11y-keys"})
    client = app.test_client()
    assert h.new_game(client, target=100)[0] == 303
    h.accept_all(app, client)
    game = h.only_game(app)

    def ann_owes_a_turn(_new) -> None:
        g = engine.Game.from_json(h.game_state(app, game.id)[1])
        if g.owes(0) == "turn":
            raise _Stop

    with pytest.raises(_Stop):
        h.play_by_mail(app, client, rng=random.Random(3), on_step=ann_owes_a_turn)
    board = next(p for m in h.mails(app) if m.to_addr == "ann@example.com"
                 for p in h.links_of(m) if re.fullmatch(r"/s/[A-Za-z0-9_-]+", p))
    srv = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield app, f"http://127.0.0.1:{srv.server_port}", board, game.id
    srv.shutdown()


FOCUS_RING_JS = """() => {
  const e = document.activeElement, st = getComputedStyle(e);
  const rgb = s => (s.match(/[\\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => { const f = c => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
                               return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
  let bg = [255, 255, 255];
  for (let p = e.parentElement; p; p = p.parentElement) {
    const c = rgb(getComputedStyle(p).backgroundColor);
    if (c.length === 3 || (c.length === 4 && c[3] === 1)) { bg = c.slice(0, 3); break; }
  }
  const [a, b] = [lum(rgb(st.outlineColor)), lum(bg)].sort((x, y) => y - x);
  return {tag: e.tagName, style: st.outlineStyle, width: parseFloat(st.outlineWidth), ratio: (a + 0.05) / (b + 0.05)};
}"""


def _focused(page) -> dict:
    return page.evaluate("""() => { const e = document.activeElement;
        return {tag: e.tagName, id: e.id, move: e.dataset.move || null, role: e.getAttribute('role'),
                live: e.getAttribute('aria-live'), name: e.getAttribute('aria-label') || e.textContent.trim(),
                first: e === document.querySelector('#moves button[data-move]')}; }""")


def _view(app, gid: str, seat: int) -> dict:
    return engine.view(engine.Game.from_json(h.game_state(app, gid)[1]), seat, log=False)


def test_issue30_a_whole_turn_with_the_keyboard_alone_focus_on_done_after_each_post(ann_to_play):
    from playwright.sync_api import sync_playwright

    app, base, board, gid = ann_to_play
    version = h.game_state(app, gid)[0]
    started = time.time()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        page = browser.new_page(viewport={"width": 390, "height": 844})
        page.goto(base + board)
        page.keyboard.press("Tab")  # the first stop: the skip link to the owed decision
        assert _focused(page)["name"] == "Skip to your move"
        page.keyboard.press("Enter")
        page.keyboard.press("Tab")
        first = _focused(page)
        assert first["first"] and first["move"] == "draw", first
        with page.expect_navigation(url=re.compile(r"\?done=")):
            page.keyboard.press("Enter")  # draw (C7)
        done = _focused(page)
        assert done["id"] == "done" and done["role"] == "status", done
        # the Done box names the move, then says what it did (issue 28.2)
        assert done["name"].startswith("Done: draw") and "Ann drew a card from the draw pile." in done["name"], done
        page.keyboard.press("Tab")  # one Tab away: the first place for the drawn card
        place = _focused(page)
        assert place["first"] and place["move"].startswith("swap-"), place
        held = _view(app, gid, 0)["held"]["value"]
        assert place["name"].startswith(f"Put the drawn {held} at A1, now "), place
        with page.expect_navigation(url=re.compile(r"\?done=")):
            page.keyboard.press("Space")  # swap it into A1: the turn is over
        done = _focused(page)
        assert done["id"] == "done" and done["name"].startswith("Done: swap A1"), done
        assert page.locator("#moves button").count() == 0  # Bo's turn now
        # the log box is reached by Tab and left by Tab (no trap), and the focus is visible: an
        # outline of 2 px or more at 3:1 or more against the box behind it
        page.locator("#talk-text").focus()
        for _ in range(2):
            page.keyboard.press("Tab")
            if _focused(page)["tag"] == "OL":
                break
        assert _focused(page)["tag"] == "OL", _focused(page)
        page.keyboard.press("Tab")
        assert _focused(page)["tag"] != "OL"
        ring = page.evaluate(FOCUS_RING_JS)
        assert ring["style"] != "none" and ring["width"] >= 2 and ring["ratio"] >= 3, ring
        browser.close()
    assert h.game_state(app, gid)[0] == version + 2  # two moves, each once
    assert _view(app, gid, 0)["turn"] != 0
    print(f"keyboard turn in {time.time() - started:.1f} s")


CELL = re.compile(r'- cell "([^"]*)"')
CAPTION = re.compile(r'- table "([^"]*)"')


def test_issue30_the_accessibility_tree_names_every_cell_pile_and_move_as_seen(ann_to_play):
    from playwright.sync_api import sync_playwright

    app, base, board, gid = ann_to_play
    view = _view(app, gid, 0)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(base + board)
        for player in sorted(view["players"], key=lambda x: x["seat"] != 0):
            grid = page.locator(f"table.grid[data-seat='{player['seat']}']")
            tree = grid.aria_snapshot()
            down = sum(c["face"] == "down" for c in player["grid"])
            whose = "Your grid" if player["seat"] == 0 else f"{player['name']}'s grid"
            assert CAPTION.findall(tree) == [f"{whose}, {down} face down"], tree
            expected = [f"{c['cell']}, {c['value']}" if c["face"] == "up" else
                        f"{c['cell']}, {'removed' if c['face'] == 'removed' else 'face down'}"
                        for c in player["grid"]]
            # a cell the others changed since this seat's last move says so after its value (issue 28.1)
            named = [n.removesuffix(", changed") for n in CELL.findall(tree) if n]
            # the grid is row by row (A1 B1 C1 D1, A2 ...), the view's cells too
            assert sorted(named) == sorted(expected), tree
        piles = page.locator(".piles").aria_snapshot()
        assert f'img "discard pile: {view["discard_top"]}"' in piles, piles
        assert f'img "draw pile: {view["draw_count"]} cards"' in piles, piles
        # after drawing: each place of the drawn card says the whole move, with what Ann sees there
        with page.expect_navigation():
            page.click("#moves button[data-move=draw]")
        view = _view(app, gid, 0)
        mine = {c["cell"]: c for c in next(x for x in view["players"] if x["seat"] == 0)["grid"]}
        moves = page.locator("#moves").aria_snapshot()
        held = view["held"]["value"]
        for cell, c in mine.items():
            if c["face"] == "removed":
                continue
            there = c["value"] if c["face"] == "up" else "face down"
            assert f'button "Put the drawn {held} at {cell}, now {there}"' in moves, moves
            if c["face"] == "down":
                assert f'button "Discard the drawn {held} and turn over {cell}"' in moves, moves
        assert page.get_by_role("region", name="Your move").count() == 1  # the owed decision's landmark
        assert page.locator("#moves h3").count() >= 2  # its groups under real headings
        browser.close()
