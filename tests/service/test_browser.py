"""A browser plays a whole 2-player game by clicking the links in the mails of the dev mailbox.

Playwright drives Debian's chromium (never a downloaded browser). Without /usr/bin/chromium the test
is skipped locally and fails under CI=true. Screenshots go to test-artifacts/.

The players always make progress (every decision reveals a card: the opening reveals, then `draw` +
`flip`, with one `take` early on), so the round, and with target score 1 the game, ends in a bounded
number of turns however the mails and the clicks interleave. After the first move a player writes a
message to the table on the board (issue 19; screenshot test-artifacts/table-talk.png).
"""

from __future__ import annotations

import os
import re
import threading
import time
from pathlib import Path

import pytest
from werkzeug.serving import make_server

from tests.conftest import IN_CI, make_app

CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--no-first-run"]

pytestmark = pytest.mark.browser


@pytest.fixture
def server(tmp_path):
    if not os.path.exists(CHROMIUM):
        if IN_CI:
            pytest.fail("chromium is required under CI=true (apt-get install chromium)")
        pytest.skip("Debian's chromium is not installed")
    app = make_app(f"sqlite:///{tmp_path / 'browser.sqlite3'}", TESTING=False, DEV_MAILBOX=True,
                   GAME_SETUP={"seed": "browser-test-1"})  # a fixed deal keeps the run time steady
    srv = make_server("127.0.0.1", 0, app, threaded=True)
    base = f"http://127.0.0.1:{srv.server_port}"
    app.config["BASE_URL"] = base
    from service.mail.sender import start_background_sender, stop_background_sender

    start_background_sender(app, interval=0.2, use_reloader=False)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield base
    srv.shutdown()
    stop_background_sender(app)


def test_two_players_play_a_whole_game_from_the_dev_mailbox(server):
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(exist_ok=True)
    base = server
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        page = browser.new_page(viewport={"width": 1100, "height": 900})
        page.set_default_timeout(30_000)
        console: list[str] = []
        retries: list[tuple] = []
        page.on("console", lambda msg: console.append(msg.text))

        def click_to_navigate(link, url):
            """Click a link in the mail's sandboxed iframe and wait for the top page to follow. A
            click that did not navigate (chromium dropped the top navigation) is clicked again, as a
            person would; the retries are counted and reported."""
            for _attempt in range(3):
                link.click()
                try:
                    page.wait_for_url(url, timeout=10_000)
                    return
                except PlaywrightTimeout:
                    retries.append((link.get_attribute("href"), list(console)))
            raise AssertionError(f"clicking {link.get_attribute('href')} never navigated: {retries}")

        # create the game
        page.goto(base + "/new")
        page.fill("#host_name", "Ann")
        page.fill("#host_email", "ann@example.com")
        page.fill("#players-0-name", "Bo")
        page.fill("#players-0-email", "bo@example.com")
        page.fill("#opt_target_score", "1")
        page.click("button[type=submit]")
        page.wait_for_url(re.compile(r"/s/"))
        assert "Waiting for everyone" in page.content()

        def open_latest_mail(addr: str) -> bool:
            page.goto(f"{base}/dev/mail/?to={addr}")
            latest = page.locator("table.devmail-list tbody tr a").first
            if latest.count() == 0:
                return False
            latest.click()
            return True

        # Bo accepts from the invitation mail (wait for the sender to deliver it)
        deadline = time.time() + 20
        while not open_latest_mail("bo@example.com"):
            assert time.time() < deadline, "the invitation never arrived"
            time.sleep(0.3)
        click_to_navigate(page.frame_locator("iframe.devmail-html").get_by_role("link", name="Accept or decline"),
                          re.compile(r"/s/"))
        page.click("button[data-action=accept]")
        page.wait_for_load_state()
        assert "You are in" in page.content()

        took = []  # one `take` early on, then moves that always reveal a card

        def pick_link(frame):
            if not took:
                take = frame.locator("a.btn[href*='/m/take-']")
                if take.count():
                    took.append(True)
                    return take.first
            for prefix in ("reveal-", "draw", "flip-", "swap-", "take-"):
                candidates = frame.locator(f"a.btn[href*='/m/{prefix}']")
                if candidates.count():
                    return candidates.first
            return frame.locator("a.btn[href*='/m/']").first

        # play the whole game by clicking links in the newest mail of whoever can move
        hrefs_clicked: list[str] = []
        screenshot_done = False
        finished = False
        for _step in range(300):
            moved = False
            for addr in ("ann@example.com", "bo@example.com"):
                if not open_latest_mail(addr):
                    continue
                frame = page.frame_locator("iframe.devmail-html")
                if "Game over" in frame.locator("body").inner_text():
                    click_to_navigate(frame.get_by_role("link", name=re.compile("final page")), re.compile(r"/s/"))
                    finished = True
                    break
                links = frame.locator("a.btn[href*='/m/']")
                if links.count() == 0:
                    continue
                if not screenshot_done:
                    page.goto(base + page.locator("iframe.devmail-html").get_attribute("src"))
                    page.screenshot(path=str(ARTIFACTS / "turn-mail.png"), full_page=True)
                    page.go_back()
                    frame = page.frame_locator("iframe.devmail-html")
                link = pick_link(frame)
                hrefs_clicked.append(link.get_attribute("href"))
                click_to_navigate(link, re.compile(r"/m/"))
                confirm = page.locator("button[data-action=confirm]")
                if confirm.count() == 0:  # a link of an older mail: the page explains, nothing changed
                    continue
                confirm.click()
                page.wait_for_url(re.compile(r"/s/[^/]+$"))
                # one visit per turn (issue 15.2): what is owed right after (the drawn card's place, the
                # second opening reveal) is played with the board's buttons; its mail is held back
                for _more in range(4):
                    buttons = page.locator("#moves button[data-move]")
                    if buttons.count() == 0:
                        break
                    pick = buttons.first
                    for prefix in ("reveal-", "flip-", "swap-", "draw"):
                        if page.locator(f"#moves button[data-move^='{prefix}']").count():
                            pick = page.locator(f"#moves button[data-move^='{prefix}']").first
                            break
                    with page.expect_navigation():
                        pick.click()
                if not screenshot_done:
                    page.screenshot(path=str(ARTIFACTS / "board-page.png"), full_page=True)
                    screenshot_done = True
                    # table talk (issue 19): a message written on the board shows on it, as text
                    page.fill("#talk-text", "Good luck! <b>not bold</b> https://example.com")
                    page.click("button[data-action=talk]")
                    page.wait_for_url(re.compile(r"/s/[^/]+#talk$"))
                    said = page.locator("li.talk").first
                    assert "wrote: Good luck! <b>not bold</b> https://example.com" in said.inner_text()
                    assert said.locator("a").count() == 0  # the link stays text
                    said.scroll_into_view_if_needed()
                    page.screenshot(path=str(ARTIFACTS / "table-talk.png"), full_page=True)
                moved = True
                break
            if finished:
                break
            if not moved:
                time.sleep(0.3)  # wait for the sender to deliver the next mails
        assert finished, f"the game did not reach its end; clicked {hrefs_clicked}"
        print(f"{len(hrefs_clicked)} move links clicked; clicks that did not navigate: {retries}")
        assert page.locator("#standings").count() == 1
        assert "Final standings" in page.content()
        page.screenshot(path=str(ARTIFACTS / "final-standings.png"), full_page=True)
        browser.close()
    assert (ARTIFACTS / "turn-mail.png").stat().st_size > 1000
    assert (ARTIFACTS / "board-page.png").stat().st_size > 1000
    assert (ARTIFACTS / "table-talk.png").stat().st_size > 1000
