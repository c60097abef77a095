"""The board page costs what the current round costs (issue 33.2): by default it shows the current
round's events (and the table talk written in it), with a link to the same page with every round's
(`?log=all`); a board GET looks its seat up once, in one read transaction."""

from __future__ import annotations

import random
import re
import sys

from sqlalchemy import event

import engine
from service.play import games, lookups, moves, talk
from service.render.links import move_path, watch_path
from service.store import db
from service.store.models import GameRow


def _game_in_round_two(app) -> tuple[str, dict[int, str]]:
    """A 2-player game played through the one move path (the greedy bot picks each decision) into
    round 2's play, with a message written in round 1 and one in round 2."""
    with app.app_context():
        with db.transaction(write=True) as s:
            created = games.create_game(s, host_name="Ann", host_email="ann@example.com",
                                        players=[("Bo", "bo@example.com")], options={"target_score": 10_000},
                                        setup={"seed": "board-cost"})
        game_id, toks = created.game.id, created.tokens
        for token in toks.values():
            with db.transaction(write=True) as s:
                games.accept(s, token)
        rng = random.Random(33)
        said_in_round_one = False
        for _step in range(2000):
            with db.transaction() as s:
                g = lookups.load_engine_game(s.get(GameRow, game_id))
            if g.round == 2 and g.phase == "play":
                break
            if not said_in_round_one and g.phase == "play":
                with db.transaction(write=True) as s:
                    talk.write(s, toks[0], "a word in round one")
                said_in_round_one = True
            seat = g.pending()[0].seat
            texts = [str(engine.bot_move(g, seat, "greedy", rng))]
            if texts[0] in ("draw", "take"):  # the card is placed in the same decision
                g.play(seat, texts[0])
                texts.append(str(engine.bot_move(g, seat, "greedy", rng)))
            with db.transaction(write=True) as s:
                moves.play(s, toks[seat], texts, decision=lookups.load_engine_game(
                    s.get(GameRow, game_id)).decision_id(seat), via="board")
        else:
            raise AssertionError("round 2 never began")
        with db.transaction(write=True) as s:
            talk.write(s, toks[1], "a word in round two")
    return game_id, toks


def _log_items(page: str) -> list[str]:
    """The texts of the page's "What happened" list, newest first, tags stripped."""
    log = re.search(r'<ol class="log"[^>]*>(.*?)</ol>', page, re.S)
    assert log is not None
    return [re.sub(r"<[^>]+>", "", item).strip() for item in re.findall(r"<li[^>]*>(.*?)</li>", log.group(1), re.S)]


def _link(page: str, marker: str) -> str | None:
    found = re.search(rf'<a href="([^"]+)" {marker}>', page)
    return found.group(1).replace("&amp;", "&") if found else None


def test_the_board_shows_the_current_rounds_events_and_links_to_every_round(app, client):
    game_id, toks = _game_in_round_two(app)
    with app.app_context(), db.transaction() as s:
        watch = watch_path(game_id, s.get(GameRow, game_id).spectator_salt)
    for path in (f"/s/{toks[0]}", watch):  # a seat's page and the spectator page alike
        page = client.get(path).text
        now = _log_items(page)
        assert now[-1] == "Round 2 is dealt; everyone reveals two cards."  # the oldest shown
        assert not any("Round 1" in item for item in now)
        assert any(item.startswith("Bo wrote: a word in round two") for item in now)
        assert not any("a word in round one" in item for item in now)
        more = _link(page, "data-log-all")
        assert more == f"{path}?log=all#talk"
        assert _link(page, "data-log-round") is None

        whole_page = client.get(more.split("#")[0]).text
        whole = _log_items(whole_page)
        assert whole[-1] == "Round 1 is dealt; everyone reveals two cards."
        assert any(item.startswith("Round 1 scores:") for item in whole)
        assert any(item.startswith("Ann wrote: a word in round one") for item in whole)
        # the current round's part of the whole log is exactly the default page's log
        assert whole[:len(now)] == now
        assert _link(whole_page, "data-log-all") is None
        assert _link(whole_page, "data-log-round") == f"{path}#talk"


def test_round_one_has_no_link_to_older_rounds(app, client):
    with app.app_context():
        with db.transaction(write=True) as s:
            created = games.create_game(s, host_name="Ann", host_email="ann@example.com",
                                        players=[("Bo", "bo@example.com")], setup={"seed": "board-cost"})
        for token in created.tokens.values():
            with db.transaction(write=True) as s:
                games.accept(s, token)
    page = client.get(f"/s/{created.tokens[0]}").text
    assert _log_items(page)[-1] == "Round 1 is dealt; everyone reveals two cards."
    assert _link(page, "data-log-all") is None


def _count_seat_lookups(monkeypatch) -> list[str]:
    """Wrap `lookups.seat_by_token` wherever it was imported by name; each call appends its token."""
    calls: list[str] = []
    real = lookups.seat_by_token

    def counted(s, token, **kwargs):
        calls.append(token)
        return real(s, token, **kwargs)

    for module in list(sys.modules.values()):
        if (getattr(module, "__name__", "") or "").startswith("service") and \
                getattr(module, "seat_by_token", None) is real:
            monkeypatch.setattr(module, "seat_by_token", counted)
    return calls


def test_a_board_get_looks_its_seat_up_once_in_one_transaction(app, client, monkeypatch):
    game_id, toks = _game_in_round_two(app)
    # a move by the board's button, then the page it redirects to (?done=: the "Done:" line)
    with app.app_context(), db.transaction() as s:
        g = lookups.load_engine_game(s.get(GameRow, game_id))
    seat = g.pending()[0].seat
    page = client.get(f"/s/{toks[seat]}").text
    button = re.search(r'<form[^>]*action="(/s/[^"]+/m/[^"]+)"[^>]*>(.*?)</form>', page, re.S)
    fields = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', button.group(2)))
    r = client.post(button.group(1), data=fields)
    assert r.status_code == 303
    done_path = r.headers["Location"]
    assert "?done=" in done_path
    # the Confirm page of a move link (D: its check and its page in one read): the link just used
    # (a "used up" page) and a link of the decision owed now
    used_link = move_path(toks[seat], button.group(1).rsplit("/", 1)[1], fields["decision"])
    with app.app_context(), db.transaction() as s:
        g = lookups.load_engine_game(s.get(GameRow, game_id))
    now = g.pending()[0].seat
    slug = str(g.legal_moves(now)[0]).replace(" ", "-")
    fresh_link = move_path(toks[now], slug, g.decision_id(now))

    calls = _count_seat_lookups(monkeypatch)
    begun: list[int] = []
    engine_ = db.get_engine(app)

    def on_begin(_conn) -> None:
        begun.append(1)

    event.listen(engine_, "begin", on_begin)
    try:
        for path in (done_path, f"/s/{toks[seat]}", f"/s/{toks[seat]}?log=all", used_link, fresh_link):
            calls.clear()
            begun.clear()
            page = client.get(path)
            assert page.status_code == 200
            assert calls == [path.split("/")[2].split("?")[0]], path
            assert len(begun) == 1, (path, len(begun))
            if path == done_path:
                assert 'data-done>Done: ' in page.text
            if path == used_link:
                assert "this link is used up" in page.text
            if path == fresh_link:
                assert 'name="decision"' in page.text and "Confirm" in page.text, page.text
    finally:
        event.remove(engine_, "begin", on_begin)
