"""Issue 28.1 and 28.2's "done when": every mail to a seat lists what the others did since that
seat's previous mail, and the move that ends a round shows the round's result on the page after it.

A 3-player classic game with seats in Swedish, Dutch and German is played to the end of round 2.
The moves go over HTTP (the Flask test client POSTs each decision's move form, as a Confirm does),
so the game is quick; chromium (Debian's, through Playwright) opens what is checked: every mail
each seat got (its HTML part in the dev mailbox) and the page after each round-ending move. A
mail's "since your last mail" list is counted against the move log: the public events of the
move rows between the seat's previous mail and this one, less the seat's own. The second test
writes screenshots of a turn mail with that list at 390 px in each language to test-artifacts/.

Without /usr/bin/chromium these tests skip locally and fail under CI=true.
"""

from __future__ import annotations

import random
import re
import threading
import time
from pathlib import Path

import pytest
from sqlmodel import select
from werkzeug.serving import make_server

import engine
from service.mail.delivery import deliver_due
from service.mail.talk import MAX_EVENTS
from service.mail.transport import DevTransport
from service.render.links import slug_for
from service.store import db
from service.store.models import MoveRow
from service.store.outbox_models import OutboxMail
from tests.conftest import make_app
from tests.service import helpers as h
from tests.service.test_browser import ARGS, CHROMIUM, require_chromium

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
PHONE = 390
PLAYERS = (("Ann", "ann@example.com"), ("Bo", "bo@example.com"), ("Carla", "carla@example.com"))
# the word for "changed" a screen reader says on a changed cell (templates' `%(cell)s, changed`)
CHANGED = {"en": "changed", "sv": "ändrad", "nl": "gewijzigd", "af": "verander", "de": "geändert"}

pytestmark = pytest.mark.browser


@pytest.fixture
def live(tmp_path):
    """The app on a SQLite file, served to chromium by a thread; mails are held back never (every
    decision's mail goes, so each seat's mails can be counted) and delivered by the test."""
    require_chromium()
    app = make_app(f"sqlite:///{tmp_path / 'since.sqlite3'}", DEV_MAILBOX=True, MAIL_HOLD_MINUTES=0,
                   GAME_SETUP={"seed": "since-1"})
    srv = make_server("127.0.0.1", 0, app, threaded=True)
    base = f"http://127.0.0.1:{srv.server_port}"
    app.config["BASE_URL"] = base
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield app, base
    srv.shutdown()


def _start(app, client, players, langs) -> tuple[str, dict[int, str], dict[int, str]]:
    """A game created on /new with each player's language (the host's first), every invitation
    accepted: (game id, engine seat -> token, engine seat -> language)."""
    extra = {"host_lang": langs[0], **{f"players-{i}-lang": lang for i, lang in enumerate(langs[1:])}}
    status, location = h.new_game(client, players, target=999, extra=extra)
    assert status == 303, location
    tokens = {players[0][1]: h.path_of(location).split("/")[2].split("?")[0]}
    for m in h.mails(app):
        if m.template == "invitation":
            path = re.search(r"/s/[A-Za-z0-9_-]+(?=\s|$)", m.text_body, re.M).group(0)
            r = h.post_form(client, path + "/accept", page_path=path)
            assert r.status_code == 303, r.text
            tokens[m.to_addr] = path.split("/")[2]
    game = h.only_game(app)
    rows = h.seats(app, game.id)
    return (game.id, {r.seat: tokens[r.email] for r in rows},
            {r.seat: (r.lang or "en") for r in rows})


def _choose(g: engine.Game, seat: int, rng: random.Random) -> list[str]:
    """A quick decision for `seat`: mostly draw and turn a face-down card up (rounds end soon),
    sometimes take the discard and swap it in."""
    legal = [m.text() for m in g.legal_moves(seat)]
    kind = g.owes(seat)
    if kind == "turn":
        swaps = [t for t in legal if t.startswith("take")]
        if "take" in legal and rng.random() < 0.3:
            cell = rng.choice([f"{c}{r}" for c in "ABCD" for r in (1, 2, 3)])
            return ["take", f"swap {cell}"]
        return ["draw"] if "draw" in legal else [rng.choice(swaps or legal)]
    flips = [t for t in legal if t.startswith("flip")]
    return [rng.choice(flips if flips and rng.random() < 0.8 else legal)]


def _queued(app, after: int) -> list[tuple[int, str, str, int | None]]:
    """The mails queued after id `after`: (id, address, template, the game version its view shows
    or None), read before the sender renders them (rendering drops the context)."""
    with app.app_context(), db.transaction() as s:
        rows = s.exec(select(OutboxMail.id, OutboxMail.to_addr, OutboxMail.template, OutboxMail.context)
                      .where(OutboxMail.id > after).order_by(OutboxMail.id)).all()
    return [(i, a, t, ((c or {}).get("view") or {}).get("version")) for i, a, t, c in rows]


def _move_rows(app, game_id: str) -> list[tuple[int, int, list[dict]]]:
    with app.app_context(), db.transaction() as s:
        return [(n, seat, evs or []) for n, seat, evs in s.exec(
            select(MoveRow.number, MoveRow.seat, MoveRow.events).where(MoveRow.game_id == game_id)
            .order_by(MoveRow.number))]


def _expected(rows, seat: int, since: int, upto: int) -> list[dict]:
    """The public events of the move rows after version `since` up to `upto`, less `seat`'s own."""
    return [e for n, mover, evs in rows if since < n <= upto for e in evs
            if not (mover == seat and e.get("seat") == seat)]


def _runs(events: list[dict]) -> list[tuple[int | None, list[dict]]]:
    runs: list[tuple[int | None, list[dict]]] = []
    for e in events:
        who = e.get("seat") if isinstance(e.get("seat"), int) else None
        if runs and runs[-1][0] == who:
            runs[-1][1].append(e)
        else:
            runs.append((who, [e]))
    return runs


def _play(app, client, game_id, tokens, rng, *, until, on_move=None) -> list[tuple[int, str, str, int | None]]:
    """Decisions made over HTTP (each decision's move form, as its Confirm page posts it) until
    `until(g)`; `on_move(seat, g_before, g_after, location)` after each. Returns the mails queued."""
    queued: list = _queued(app, 0)
    for _step in range(600):
        _version, state, status = h.game_state(app, game_id)
        g = engine.Game.from_json(state)
        if status == "finished" or until(g):
            return queued
        seat = rng.choice(g.pending()).seat
        slug = slug_for(_choose(g, seat, rng))
        r = h.post_move(app, client, f"/s/{tokens[seat]}/m/{slug}",
                        {"decision": g.decision_id(seat), "move": slug, "game": game_id, "seat": str(seat)})
        assert r.status_code == 303, r.text[-1500:]
        queued += _queued(app, queued[-1][0] if queued else 0)
        if on_move is not None:
            on_move(seat, g, engine.Game.from_json(h.game_state(app, game_id)[1]), r.headers["Location"])
    raise AssertionError("the game did not get there in 600 decisions")


def _browser(p):
    return p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)


def test_each_seats_mails_list_every_other_seats_moves_since_its_previous_mail_and_the_round_ender_sees_the_result(
        live):
    from playwright.sync_api import sync_playwright

    app, base = live
    client = app.test_client()
    started = time.time()
    game_id, tokens, langs = _start(app, client, PLAYERS, ("sv", "nl", "de"))
    assert sorted(langs.values()) == ["de", "nl", "sv"]
    rng = random.Random(28)
    round_ends: list[tuple[int, int, str]] = []  # (round, the seat whose move ended it, its page)
    with sync_playwright() as p:
        browser = _browser(p)
        page = browser.new_page(viewport={"width": PHONE, "height": 844})
        page.set_default_timeout(10_000)

        marked: list[int] = []

        def on_move(seat: int, before: engine.Game, after: engine.Game, location: str) -> None:
            if after.round == before.round:
                nxt = after.turn
                if not marked and after.phase == before.phase == "play" and nxt != seat \
                        and before.owes(seat) == "place_drawn":
                    # the next player's board marks the card the mover just placed or turned up,
                    # and names it "changed" for a screen reader (not by colour alone)
                    page.goto(f"{base}/s/{tokens[nxt]}")
                    changed = page.locator(f"table[data-seat='{seat}'] td[data-changed]")
                    assert changed.count() >= 1, page.locator("#others").inner_html()
                    assert CHANGED[langs[nxt]] in changed.first.get_attribute("aria-label")
                    assert page.locator("[data-since] li").count() >= 1
                    marked.append(nxt)
                return
            # 28.2: the page after the move that ended the round: its result first, then the deal
            page.goto(base + location)
            ended = page.locator(f"[data-round-end='{before.round}']")
            assert ended.count() == 1, f"round {before.round}'s end is not on the page after its last move"
            table = page.locator("#table")
            assert ended.bounding_box()["y"] < table.bounding_box()["y"], "the round's result is not first"
            assert ended.locator("[data-result-seat]").count() == 3 and ended.locator("[data-part]").count() >= 3
            done = page.locator("[data-done] [data-done-event]")
            texts = done.all_inner_texts()
            # what the move did (its card) and the round's scores, as sentences, not only "Done: flip B3"
            assert len(texts) >= 2, page.locator("[data-done]").inner_text()
            scores = engine.view(after, seat)["rounds"][-1]["scores"]
            assert any(all(str(v) in t for v in scores) for t in texts), texts
            round_ends.append((before.round, seat, location))

        queued = _play(app, client, game_id, tokens, rng, until=lambda g: g.round > 2, on_move=on_move)
        assert [r for r, _s, _l in round_ends] == [1, 2]

        assert marked, "no board showed what changed since its seat's own last move"

        with app.app_context():
            deliver_due(db.get_engine(app), DevTransport(), limit=1000)
        rows = _move_rows(app, game_id)
        bodies = {m.id: (m.text_body, m.html_body) for m in h.mails(app)}
        names = engine.Game.from_json(h.game_state(app, game_id)[1]).names
        checked = listed = 0
        for seat in tokens:
            addr = next(a for n, a in PLAYERS if n == names[seat])
            previous = 0
            for mail_id, to, template, version in queued:
                if to != addr or version is None:
                    continue  # (an invitation: no board, no events)
                expected = _expected(rows, seat, previous, version)
                previous = version
                text_body, html_body = bodies[mail_id]
                if not expected:
                    assert "data-since" not in html_body, (template, mail_id)
                    continue
                page.set_content(html_body)  # the mail's HTML part, as a mail client shows it
                box = page.locator("[data-since]")
                shown = expected[-MAX_EVENTS:]
                items = box.locator("li[data-since-seat]")
                counts = [int(c) for c in items.evaluate_all("els => els.map(e => e.dataset.events)")]
                assert sum(counts) == len(shown), (langs[seat], template, len(expected), counts)
                earlier = box.locator("[data-since-earlier]")
                if len(expected) > MAX_EVENTS:
                    assert str(len(expected) - MAX_EVENTS) in earlier.inner_text()
                else:
                    assert earlier.count() == 0
                # grouped by player, in order; each group names its player and the cells it changed
                runs = _runs(shown)
                assert [int(s) if s else None for s in items.evaluate_all(
                    "els => els.map(e => e.dataset.sinceSeat)")] == [who for who, _evs in runs]
                for (who, evs), text in zip(runs, items.all_inner_texts(), strict=True):
                    if who is not None:
                        assert names[who] in text
                    for e in evs:
                        if e.get("cell"):
                            assert e["cell"] in text, (text, e)
                    assert f"- {text}" in text_body, "the plain-text part lists the same"
                if page.locator("td[data-changed]").count():  # the plain-text grids mark them too
                    assert re.search(r"\*\[ ?-?\d+\]", text_body), text_body
                checked += 1
                listed += len(shown)
        browser.close()
    elapsed = time.time() - started
    print(f"{len(rows)} move rows, {checked} mails with a 'since your last mail' list ({listed} events) "
          f"checked in {elapsed:.1f} s")
    assert checked >= 30


def test_a_turn_mail_with_since_your_last_mail_at_390_px_in_each_language(live):
    """Screenshots (test-artifacts/mail-since-<lang>-390.png) of a turn mail listing the others'
    moves since the seat's previous mail, in en, sv, nl, af and de; each fits a 390 px screen."""
    from playwright.sync_api import sync_playwright

    app, base = live
    client = app.test_client()
    players = tuple((n, f"{n.lower()}@example.com") for n in ("Ann", "Bo", "Carla", "Daan", "Eva"))
    all_langs = ("en", "sv", "nl", "af", "de")
    game_id, tokens, langs = _start(app, client, players, all_langs)
    rng = random.Random(5)
    names = engine.Game.from_json(h.game_state(app, game_id)[1]).names
    addr_of = {seat: next(a for n, a in players if n == names[seat]) for seat in tokens}
    turns_after_play: dict[int, int] = {}

    def on_move(seat: int, before: engine.Game, after: engine.Game, location: str) -> None:
        for p in after.pending():  # a turn mail after the opening, with the others' moves in it
            if p.kind == "turn" and before.phase == after.phase:
                turns_after_play.setdefault(p.seat, after.version)

    queued = _play(app, client, game_id, tokens, rng, on_move=on_move,
                   until=lambda g: len(turns_after_play) == len(players) and g.owes(g.turn) == "turn")
    with app.app_context():
        deliver_due(db.get_engine(app), DevTransport(), limit=1000)
    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as p:
        browser = _browser(p)
        page = browser.new_page(viewport={"width": PHONE, "height": 844})
        for seat, version in turns_after_play.items():
            mail_id = next(i for i, a, t, v in queued if a == addr_of[seat] and t == "turn" and v == version)
            page.goto(f"{base}/dev/mail/{mail_id}/html")
            assert page.locator("[data-since] li").count() >= 1, langs[seat]
            assert page.locator("td[data-changed]").count() >= 1, langs[seat]
            assert page.evaluate("document.documentElement.scrollWidth") <= PHONE, langs[seat]
            path = ARTIFACTS / f"mail-since-{langs[seat]}-{PHONE}.png"
            page.screenshot(path=str(path), full_page=True)
            assert path.stat().st_size > 1000
        browser.close()
    assert sorted(langs[s] for s in turns_after_play) == sorted(all_langs)
