"""No hidden value (face-down cards, the draw pile, another seat's drawn card, the seed) in any page
or mail of any seat, over many random games.

The check can fail: at every step it computes, from the full engine state, the card values that are
hidden from a viewer and appear nowhere in that viewer's view (not face-up, not on the discard pile,
not in the log), then searches every card the viewer's page and mails draw for such a value.
`test_the_check_catches_a_leak` shows it flags a board that draws one face-down value."""

from __future__ import annotations

import json
import random
import re

import engine
from engine import deals
from engine.game import DOWN
from service.play import games, moves
from service.render.links import move_path, slug_for, texts_of_slug, watch_path
from service.render.text import text_board
from service.store import db
from tests.service import helpers as h

CARD_HTML = re.compile(r'data-card="(-?\d+)"')
CARD_TEXT = re.compile(r"\[\s*(-?\d+)\]")
DOWN_CELL = re.compile(r'data-face="down"[^>]*>(.*?)</td>', re.S)


def ints_in(obj) -> set[int]:
    if isinstance(obj, bool):
        return set()
    if isinstance(obj, int):
        return {obj}
    if isinstance(obj, dict):
        return set().union(*(ints_in(v) for v in obj.values())) if obj else set()
    if isinstance(obj, list):
        return set().union(*(ints_in(v) for v in obj)) if obj else set()
    if isinstance(obj, str):
        return {int(x) for x in re.findall(r"-?\d+", obj)}
    return set()


def hidden_only(g: engine.Game, viewer: int | None) -> set[int]:
    """Values hidden from `viewer` that its view does not show anywhere (so must never be drawn)."""
    hidden = set(g.draw)
    for s in range(g.n):
        hidden |= {v for v, f in zip(g.vals[s], g.face[s], strict=True) if f == DOWN}
    if g.held is not None and g.turn != viewer:  # a drawn card is seen by its drawer only
        hidden.add(g.held)
    return hidden - ints_in(engine.view(g, viewer))


def secrets_of(g: engine.Game) -> list[str]:
    """The game's seed and the seeds of the rounds not over yet: a round's seed is shown once the
    round is over, never before (issue 32.1)."""
    rec = g.record()
    over = len(g.rounds)
    return [str(g.seed)] + [r["seed"] for r in rec.get("rounds", [])[over:] if r.get("seed")]


def check(output: str, g: engine.Game, viewer: int | None, where: str) -> int:
    bad = hidden_only(g, viewer)
    drawn = {int(x) for x in CARD_HTML.findall(output)} | {int(x) for x in CARD_TEXT.findall(output)}
    assert not (drawn & bad), f"{where}: hidden value(s) {sorted(drawn & bad)} drawn for viewer {viewer}"
    for inner in DOWN_CELL.findall(output):
        assert inner.strip() == "", f"{where}: a face-down cell shows {inner!r}"
    for secret in secrets_of(g):
        assert secret not in output, f"{where}: the seed is in the output"
    assert '"draw": [' not in output and "round_specs" not in output
    return len(bad)


def test_no_hidden_value_in_pages_or_mails(tmp_path):
    from tests.conftest import make_app

    app = make_app(f"sqlite:///{tmp_path / 'hidden.sqlite3'}")
    client = app.test_client()
    rng = random.Random(2024)
    teeth = 0
    checked = 0
    intents = 0
    last_mail = 0
    for game_no in range(5):
        n = rng.choice([2, 3])
        names = [("Ann", "ann@x.org"), ("Bo", "bo@x.org"), ("Cy", "cy@x.org"), ("Di", "di@x.org")][:n]
        with app.app_context():
            with db.transaction(write=True) as s:
                created = games.create_game(s, host_name=names[0][0], host_email=names[0][1],
                                               players=names[1:], options={"target_score": 1},
                                               setup={"seed": f"hidden-{game_no}-{rng.random()}"})
                gid = created.game.id
            for pos in range(1, n):
                with db.transaction(write=True) as s:
                    games.accept(s, created.tokens[pos])
        for _step in range(400):
            version, _state, status = h.game_state(app, gid)
            g = engine.Game.from_json(h.full_state(app, gid))  # what pages show: the whole log too
            intents += check_intents(app, last_mail, g, names)
            for m in h.mails(app, last_mail):  # mails queued by the last change, rendered from g
                if f"<game-{gid}-" not in m.headers.get("References", ""):
                    continue  # a mail of this game's thread (subjects differ per kind, issue 15.3)
                last_mail = m.id
                viewer = next((i for i, (_n, e) in enumerate(names) if e == m.to_addr), None)
                for part in (m.text_body, m.html_body or ""):
                    teeth += check(part, g, viewer, f"mail to {m.to_addr}") > 0
                    checked += 1
            for pos in range(n) if _step % 2 == 0 or status == "finished" else ():
                page = client.get(f"/s/{created.tokens[pos]}").text
                teeth += check(page, g, pos, f"page of seat {pos}") > 0
                checked += 1
            if status == "finished":
                break
            if _step % 5 == 0:
                with app.app_context():
                    path = watch_path(gid, h.only_game(app).spectator_salt)
                page = client.get(path).text
                check(page, g, None, "spectator page")
                for path in (f"/s/{created.tokens[0]}/verify/{g.round}", f"/s/{created.tokens[0]}/deals.json"):
                    check(client.get(path).text, g, 0, path)  # issue 32.1: 404 until a round is over
            p = rng.choice(g.pending())
            move = str(engine.bot_move(g, p.seat, "random", rng))
            slug = slug_for([move])
            if move == "take":  # the service applies take + swap together
                mine = [c for c in engine.view(g, p.seat)["players"][p.seat]["grid"] if c["face"] != "removed"]
                slug = slug_for(["take", f"swap {rng.choice(mine)['cell']}"])
            # the confirm page of the move link, too
            page = client.get(move_path(created.tokens[p.seat], slug, version)).text
            check(page, g, p.seat, "confirm page")
            with app.app_context(), db.transaction(write=True) as s:
                moves.play(s, created.tokens[p.seat], texts_of_slug(slug), version)
        assert status == "finished"
    assert checked > 300
    assert teeth > checked / 4, "the check had no teeth: too few hidden-only values"
    assert intents > 100


def check_intents(app, since_id: int, g: engine.Game, names: list[tuple[str, str]]) -> int:
    """Mails queued by the last change, before rendering: a mail's stored context holds the seat's
    own view (as the engine gives it for that seat now, minus the log no mail shows) and nothing
    hidden in its other parts either."""
    from sqlmodel import select

    from service.store.outbox_models import OutboxMail

    seen = 0
    with app.app_context(), db.transaction() as s:
        rows = s.exec(select(OutboxMail).where(OutboxMail.id > since_id, OutboxMail.text_body.is_(None)))
        for m in rows:
            viewer = next((i for i, (_n, e) in enumerate(names) if e == m.to_addr), None)
            ctx = m.context
            if ctx.get("view") is None:
                continue
            # the seat's view and the public deal facts (issue 32.1: the round's seal, past seeds)
            want = {**{k: v for k, v in engine.view(g, viewer).items() if k != "log"}, "deals": deals.proof(g)}
            assert ctx["view"] == want, f"intent to {m.to_addr}: not exactly the seat's view"
            for secret in secrets_of(g):
                assert secret not in json.dumps(ctx), f"intent to {m.to_addr}: a seed not yet revealed"
            rest = {k: v for k, v in ctx.items() if k not in {"view", "round_over", "token", "base", "game"}}
            check(json.dumps(rest), g, viewer, f"intent to {m.to_addr}")
            assert "draw" not in json.dumps(ctx.get("game")), "the game's state in an intent"
            seen += 1
    return seen


def test_the_check_catches_a_leak(tmp_path):
    from tests.conftest import make_app

    app = make_app(f"sqlite:///{tmp_path / 'leak.sqlite3'}")
    g = engine.new_game(["Ann", "Bo"], seed="leak-test")
    view = engine.view(g, 0)
    bad = hidden_only(g, 0)
    cell_index = next(i for i, v in enumerate(g.vals[0]) if v in bad)
    leaked = json.loads(json.dumps(view))  # what a buggy renderer fed with the state would draw
    leaked["players"][0]["grid"][cell_index].update(face="up", value=g.vals[0][cell_index])
    with app.app_context():
        t = app.jinja_env.from_string('{% import "_board.html" as b %}{{ b.boards(view) }}')
        good_html, bad_html = t.render(view=view), t.render(view=leaked)
        good_text, bad_text = text_board(view), text_board(leaked)
    check(good_html, g, 0, "good board")
    check(good_text, g, 0, "good text board")
    for output in (bad_html, bad_text):
        try:
            check(output, g, 0, "leaky board")
        except AssertionError:
            continue
        raise AssertionError("the leak was not detected")
