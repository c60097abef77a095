"""Issue 28.6 and 28.7 in chromium (Debian's, driven by Playwright): a board that waits for a
computer seat updates itself when the computer has decided (no reload by the player); the
spectator page says its deadlines in the browser's zone; the chart's legend fits a 390 px screen
and no two of its labels overlap at 390 or 1280 px (bounding boxes measured). Screenshots go to
test-artifacts/ (newcomers-*.png). Without /usr/bin/chromium the test is skipped locally and fails
under CI=true."""

from __future__ import annotations

import random
import threading

import pytest
from werkzeug.serving import make_server

from service.render.links import seat_path, watch_path
from tests.conftest import make_app
from tests.service import helpers as h
from tests.service.test_browser import ARGS, ARTIFACTS, CHROMIUM, require_chromium
from tests.service.test_computer_seats import create, play_out, sweep

pytestmark = pytest.mark.browser
LONG = "Rekenaar met 'n lang naam"  # a long name for the legend (the "Rekenaar (norm" was cut)


@pytest.fixture
def live(tmp_path):
    """The service over HTTP without its clock: the test sweeps it, so it knows when the computer
    decides."""
    require_chromium()
    app = make_app(f"sqlite:///{tmp_path / 'newcomers.sqlite3'}", TESTING=False)
    srv = make_server("127.0.0.1", 0, app, threaded=True)
    app.config["BASE_URL"] = f"http://127.0.0.1:{srv.server_port}"
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield app, app.config["BASE_URL"]
    srv.shutdown()


def _overlap(a: dict, b: dict) -> bool:
    return (a["x"] < b["x"] + b["width"] and b["x"] < a["x"] + a["width"]
            and a["y"] < b["y"] + b["height"] and b["y"] < a["y"] + a["height"])


def test_waiting_board_follows_the_computer_and_the_chart_fits(live):
    from playwright.sync_api import sync_playwright

    app, base = live
    ARTIFACTS.mkdir(exist_ok=True)
    game_id, tokens = create(app, [(LONG, "", "normal"), ("", "", "strong")], options={"target_score": 1},
                             seed="newcomers-1")
    client = app.test_client()
    ann = seat_path(tokens[0])
    with app.app_context():
        watch = watch_path(game_id, h.only_game(app).spectator_salt)
    # Ann reveals her two cards from the board; the computers have not decided yet (no sweep)
    for _ in range(2):
        buttons = h.board_moves(client.get(ann).text)
        assert buttons, "Ann owes her opening reveal"
        assert client.post(buttons[0][0], data=buttons[0][1]).status_code == 303
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        page = browser.new_page(viewport={"width": 390, "height": 844})
        page.set_default_timeout(15_000)
        page.goto(base + ann)
        assert page.locator("[data-follow]").count() == 1, "the board waits for the computers"
        assert page.locator("#moves").count() == 0
        page.evaluate("window.__same_page = true")
        sweep(app)  # the computers reveal their cards: the game moves on
        # the page reloads itself (a new document) and shows the computers' revealed cards
        page.wait_for_function("() => window.__same_page === undefined", timeout=15_000)
        faces = page.locator("#others [data-face=up]").count()
        assert faces >= 4, f"the computers' opening reveals on the updated page: {faces} cards face up"
        page.screenshot(path=str(ARTIFACTS / "newcomers-waiting-updated-390.png"), full_page=True)
        # the spectator page in Tokyo: Ann's deadline as the browser's local time, the zone named
        tokyo = browser.new_context(timezone_id="Asia/Tokyo", locale="en-GB", viewport={"width": 390, "height": 844})
        spectator = tokyo.new_page()
        spectator.goto(base + watch)
        times = spectator.locator("time[data-local]")
        if times.count():  # Ann owes her first turn (the deadline of the game's clock)
            assert times.first.get_attribute("data-localized") is not None
            assert "UTC" not in times.first.inner_text() and "GMT+9" in times.first.inner_text()
        else:  # a computer owes the first turn: sweep, then Ann owes and the spectator sees her deadline
            sweep(app)
            spectator.reload()
            assert "GMT+9" in spectator.locator("time[data-local]").first.inner_text()
        spectator.screenshot(path=str(ARTIFACTS / "newcomers-spectator-tokyo-390.png"), full_page=True)
        tokyo.close()
        # play to the game's end (target 1: one round), then measure the chart at both widths
        play_out(app, client, game_id, ann, random.Random(28), 400)
        for width in (390, 1280):
            page.set_viewport_size({"width": width, "height": 900})
            page.goto(base + ann)
            legend = page.locator("[data-chart-legend] li")
            assert legend.count() == 3
            for i in range(3):
                box = legend.nth(i).bounding_box()
                assert box["x"] >= 0 and box["x"] + box["width"] <= width, (width, i, box)
            boxes = [legend.nth(i).bounding_box() for i in range(3)]
            labels = page.locator("svg.chart text")
            boxes += [labels.nth(i).bounding_box() for i in range(labels.count())]
            clashes = [(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1:] if _overlap(a, b)]
            assert not clashes, (width, clashes)
            assert page.evaluate("document.documentElement.scrollWidth") <= width
            page.locator("svg.chart").scroll_into_view_if_needed()
            page.screenshot(path=str(ARTIFACTS / f"newcomers-chart-{width}.png"), full_page=True)
        browser.close()
