"""WCAG 2.2 AA on every page and mail (issue 30.1): axe-core (shipped by axe-playwright-python, no
npm and no browser download) run by Playwright on Debian's chromium over every kind of page and
mail (tests/service/a11y_pages.py collects them from one played game per variant, in English and
German), at 390 and 1280 px. A violation of a WCAG 2.x A/AA rule fails the test, and so does a
colour contrast axe could not decide (it leaves one-character cells "incomplete"): the test
computes that ratio itself from the computed colours and wants 4.5:1 (3:1 for large text).

One browser, one page object: each document is loaded with `set_content` (pages and mails carry
their style sheet inline), so the test needs no server."""

from __future__ import annotations

import time

import pytest

from tests.conftest import make_app
from tests.service import a11y_pages
from tests.service.test_browser import ARGS, CHROMIUM, require_chromium

pytestmark = pytest.mark.browser

WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]
WIDTHS = (390, 1280)

# The contrast of an element's text against the first opaque background behind it (WCAG 2.x
# relative luminance); `large`: 24 px, or 18.66 px bold (WCAG's "large text").
CONTRAST_JS = """selectors => selectors.map(sel => {
  const el = document.querySelector(sel);
  if (!el) return null;
  const rgb = s => (s.match(/[\\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => { const f = c => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
                               return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
  const style = getComputedStyle(el);
  let bg = null;
  for (let e = el; e; e = e.parentElement) {
    const c = rgb(getComputedStyle(e).backgroundColor);
    if (c.length === 3 || (c.length === 4 && c[3] === 1)) { bg = c.slice(0, 3); break; }
  }
  bg = bg || [255, 255, 255];
  const fg = rgb(style.color).slice(0, 3);
  const [a, b] = [lum(fg), lum(bg)].sort((x, y) => y - x);
  const size = parseFloat(style.fontSize), bold = parseInt(style.fontWeight, 10) >= 700;
  return {ratio: (a + 0.05) / (b + 0.05), large: size >= 24 || (bold && size >= 18.66), sel,
          fg: style.color, bg: 'rgb(' + bg.join(',') + ')', text: el.textContent.trim().slice(0, 20)};
})"""


@pytest.fixture(scope="module")
def documents(tmp_path_factory):
    """Every page and mail of a classic and a SKYJO Action game: name -> HTML."""
    require_chromium()
    docs: dict[str, str] = {}
    for variant, langs in (("classic", ("de", "en")), ("action", ("en", "de"))):
        path = tmp_path_factory.mktemp(variant) / "a11y.sqlite3"
        app = make_app(f"sqlite:///{path}", DEV_MAILBOX=True, GAME_SETUP={"seed": f"a11y-{variant}"})
        pages, mails = a11y_pages.collect(app, variant, langs, target=1 if variant == "action" else 80,
                                          shared=variant == "classic")
        docs.update({f"{variant}:{k}": v for k, v in {**pages, **mails}.items()})
    return docs


def _problems(page, name: str, width: int) -> list[str]:
    from axe_playwright_python.sync_playwright import Axe

    options = {"runOnly": {"type": "tag", "values": WCAG_TAGS}, "resultTypes": ["violations", "incomplete"]}
    results = Axe().run(page, options=options).response
    found = [f"{name} @{width}: {v['id']} ({v['impact']}): {n['target']} {n['html'][:120]}"
             for v in results["violations"] for n in v["nodes"]]
    targets = [n["target"][0] for item in results["incomplete"] if item["id"] == "color-contrast"
               for n in item["nodes"] if isinstance(n["target"][0], str)]
    for c in page.evaluate(CONTRAST_JS, targets) if targets else []:  # one call for all of them
        need = 3.0 if c and c["large"] else 4.5
        if c and c["text"] and c["ratio"] < need:
            found.append(f"{name} @{width}: contrast {c['ratio']:.2f} < {need} for {c['text']!r} "
                         f"({c['fg']} on {c['bg']}) at {c['sel']}")
    return found


def test_issue30_every_page_and_mail_passes_axe_wcag22_aa_at_390_and_1280_px(documents):
    """Issue 30.1: 0 violations of the WCAG 2.2 A/AA rules, 0 undecided contrasts below the mark."""
    from playwright.sync_api import sync_playwright

    expected = {"board-opening", "board-draw", "board-place", "board-waiting", "board-round-end",
                "board-game-end", "confirm", "settings", "spectator", "start", "new", "links", "accept",
                "error-404", "error-bad-move", "mail-invitation", "mail-turn", "mail-game_over", "mail-round_over",
                "mail-links", "mail-answer", "my-games", "mail-turn-since"}
    for lang in ("en", "de"):
        for kind in expected:
            assert any(k.endswith(f":{kind}-{lang}") for k in documents), (
                f"no {kind} page or mail in {lang}: {sorted(documents)}")
    assert any(":action-pick-1-" in k for k in documents), "no SKYJO Action pick step"
    assert any('id="clock"' in v for v in documents.values()), "no board with the vacation box"
    # issue 28.1: boards and mails with the others' changes marked (a frame and a name, not a colour)
    assert any("data-changed" in v and "data-since" in v for k, v in documents.items() if ":board-" in k), \
        "no board with changes since the seat's own last move"
    started = time.time()
    problems: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        page = browser.new_page()
        for width in WIDTHS:
            page.set_viewport_size({"width": width, "height": 900})
            for name, html in sorted(documents.items()):
                page.set_content(html)
                problems += _problems(page, name, width)
        browser.close()
    print(f"axe: {len(documents)} documents at {len(WIDTHS)} widths in {time.time() - started:.1f} s")
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems[:80])
