"""Mails people can tell apart and read (issue 15.3, 15.4, 15.8), through the real service.

* one subject per kind, every mail of a game and seat in one thread (In-Reply-To/References);
* a plain-text part that reads in a terminal: the board as a grid, the moves as short labels with
  few URLs (the 12 opening reveals are cell names and one board link);
* the end of a round: the final revealed boards of the round that produced the scores (checked
  against the engine's round record), each score with its parts (cards, removed column C8, closer
  doubling C10; SKYJO Action star sets A6 and +10 per held action card A8), then the next deal;
  the mail's chart is table cells, never SVG;
* the "Play the whole turn by replying" box with an example built from the seat's own board.
"""

from __future__ import annotations

import random
import re
from datetime import timedelta

import engine
from engine.game import DOWN
from engine.plans import parse_plan
from service.clock.tick import tick
from service.mail import subjects
from service.play import games, lookups, notify, timeouts
from service.play import moves as move_path
from service.render.cards import card_text
from service.render.sheet import score_chart
from service.store import db
from service.store.models import GameRow
from tests.conftest import sqlite_suffices
from tests.engine.helpers import grid, make_deal, position
from tests.engine.test_action_rules import deal as action_deal
from tests.engine.test_action_rules import grid as action_grid
from tests.engine.test_action_rules import setup as action_setup
from tests.service import helpers as h
from tests.service.test_hidden import check

URL_RE = re.compile(r"https?://\S+")
PLAYERS = (("Hanna", "hanna@example.com"), ("Bo", "bo@example.com"), ("Carla", "carla@example.com"))
TITLE = "SKYJO with Hanna, Bo and Carla"


def _play_to_first_round_end(app, client, target: int = 1000):
    """A 3-player game played by mail links until round 1 is scored; returns the game."""
    h.new_game(client, players=PLAYERS, target=target)
    h.accept_all(app, client)

    class RoundOver(Exception):
        pass

    def stop(new):
        if any(m.subject.startswith("Round 1 over") for m in new):
            raise RoundOver

    try:
        h.play_by_mail(app, client, rng=random.Random(11), on_step=stop)
    except RoundOver:
        pass
    return h.only_game(app)


@sqlite_suffices  # a whole game: PostgreSQL adds nothing its race tests miss (tests/conftest.py)
def test_every_kind_has_its_subject_and_a_game_seat_keeps_one_thread(app, client):
    game = _play_to_first_round_end(app, client)
    g = engine.Game.from_json(h.game_state(app, game.id)[1])
    record = g.rounds[0]
    # a reminder (the clock's), an answer to a reply, a notice and table talk
    d = h_open_deadline(app, game.id)
    with app.app_context():
        tick(d.deadline_at - timedelta(hours=3, minutes=59), lambda: db.transaction(write=True, app=app),
                   timeouts.ServiceClockHandlers())
    seat_rows = h.seats(app, game.id)
    with app.app_context(), db.transaction(write=True) as s:
        row = s.get(GameRow, game.id)
        me = next(r for r in lookups.seats_of(s, game.id) if r.position == 1)
        notify.reply_answer(s, row, me, headline="Not applied.", error=True)
        notify.reply_answer(s, row, me, headline="Understood: reveal A1", played=True)
        notify.reply_answer(s, row, me, headline="No move in your reply: ...", message_only=True)
    all_mails = h.mails(app)
    kinds = {m.subject for m in all_mails}
    assert f"Invitation from Hanna: {TITLE}" in kinds
    assert f"Your game is set up: {TITLE}" in kinds
    assert f"Bo accepted the invitation · {TITLE}" in kinds
    assert f"Your turn · round 1 · {TITLE}" in kinds
    assert f"Reminder: your turn · round 2 · {TITLE}" in kinds
    assert f"Your reply was not played · {TITLE}" in kinds and f"Your reply was played · {TITLE}" in kinds
    assert f"Your message was passed on to the table · {TITLE}" in kinds
    # "Round 1 over: Bo 4, Hanna 10, Carla 12": the round's scores from the engine, lowest first
    names = ["Hanna", "Bo", "Carla"]
    ranked = sorted((sc, s) for s, sc in enumerate(record["scores"]))
    expected = "Round 1 over: " + ", ".join(f"{names[s]} {sc}" for sc, s in ranked)
    over = [m for m in all_mails if m.subject.startswith("Round 1 over")]
    assert {m.subject for m in over} == {expected} and len(over) == 3
    # one thread per game and seat: unique Message-IDs; the seat's first mail (invitation, or the
    # host's "set up" mail) is the root, and every later one has In-Reply-To = References = the root
    assert len({m.message_id for m in all_mails}) == len(all_mails)
    for pos in range(3):
        email = next(r.email for r in seat_rows if r.position == pos)
        to_seat = [m for m in all_mails if m.to_addr == email]
        root = f"<game-{game.id}-{pos}@localhost>"
        assert to_seat[0].message_id == root and "References" not in to_seat[0].headers
        assert to_seat[0].subject in {f"Invitation from Hanna: {TITLE}", f"Your game is set up: {TITLE}"}
        assert len(to_seat) > 5
        for m in to_seat[1:]:
            assert m.headers["In-Reply-To"] == m.headers["References"] == root, m.subject


def h_open_deadline(app, game_id):
    with app.app_context(), db.transaction() as s:
        from service.play import clock_service

        return clock_service.open_decisions(s, s.get(GameRow, game_id), None)[0]


def test_subjects_name_every_tied_winner_the_talker_and_the_notice(app):
    view = {"players": [{"seat": i, "name": n} for i, n in enumerate(["Hanna", "Bo", "Carla"])], "winners": [2]}
    with app.test_request_context():
        assert subjects.game_over(view) == "Game over: Carla wins"
        assert subjects.game_over({**view, "winners": [1, 2]}) == "Game over: Bo and Carla win"
        assert subjects.game_over({**view, "winners": [0, 1, 2]}) == "Game over: Hanna, Bo and Carla win"
        talk = {"talk": {"messages": [{"name": "Carla", "text": "hi"}, {"name": "Bo", "text": "good luck"}]}}
        assert subjects.subject_for("talk", TITLE, talk) == f"Bo wrote · {TITLE}"
        long = "The computer stopped playing for Bo: the game kept coming back to the same position. More."
        got = subjects.subject_for("notice", TITLE, {"message": long})
        assert got.endswith(f"… · {TITLE}") and len(got) < 75 + len(TITLE)
        assert subjects.subject_for("notice", TITLE, {"message": "Bo declined the invitation."}) == \
            f"Bo declined the invitation · {TITLE}"


@sqlite_suffices  # a whole game: PostgreSQL adds nothing its race tests miss (tests/conftest.py)
def test_a_finished_game_mails_game_over_with_the_winner_in_the_subject(app, client):
    h.new_game(client, players=PLAYERS[:2], target=1)
    h.accept_all(app, client)
    gid = h.play_by_mail(app, client, rng=random.Random(3))
    g = engine.Game.from_json(h.game_state(app, gid)[1])
    winners = " and ".join(["Hanna", "Bo"][s] for s in g.winners)
    over = [m for m in h.mails(app) if m.subject.startswith("Game over")]
    verb = "wins" if len(g.winners) == 1 else "win"
    assert {m.subject for m in over} == {f"Game over: {winners} {verb}"} and len(over) == 2
    for m in over:  # the last round's final boards and the standings, no SVG
        assert "data-round-end" in m.html_body and "<svg" not in m.html_body and 'data-chart="bars"' in m.html_body
        assert "The last round: round 1" in m.text_body and "1. " in m.text_body


def test_opening_text_part_is_a_grid_and_a_few_links(app, client):
    h.new_game(client, players=PLAYERS)
    h.accept_all(app, client)
    turn = [m for m in h.mails(app) if m.subject.startswith("Your turn")]
    assert len(turn) == 3
    for m in turn:
        text = m.text_body
        assert re.search(r"^\s+A\s+B\s+C\s+D\s*$", text, re.M)  # the grid's column letters
        assert re.search(r"^\s+1\s+\[  \] \[  \] \[  \] \[  \]$", text, re.M)  # a row of face-down cells
        urls = URL_RE.findall(text)
        # the board (for the 12 reveals), the board again, the settings, the rules (issue 28.5)
        assert len(urls) <= 4, urls
        assert not h.MOVE_LINK_RE.search(text)
        assert "A1 B1 C1 D1 A2 B2 C2 D2 A3 B3 C3 D3" in text
        assert len(h.move_links(m)) == 12  # the HTML part keeps a button per cell


# ---------------------------------------------------------------------------------------------------
# crafted rounds


def _crafted(app, variant: str, deal: dict, arrange, options: dict) -> tuple[str, dict[int, str]]:
    """A 2-player game (Ann, Bo) dealt from `deal`, then set to the position `arrange(game)`."""
    with app.app_context():
        with db.transaction(write=True) as s:
            created = games.create_game(s, host_name="Ann", host_email="ann@example.com",
                                           players=[("Bo", "bo@example.com")], variant=variant,
                                           options={"target_score": 1000, **options},
                                           setup={"deals": [{"deal": deal}]})
            gid = created.game.id
        with db.transaction(write=True) as s:
            games.accept(s, created.tokens[1])
        with db.transaction(write=True) as s:
            row = s.get(GameRow, gid)
            g = arrange(engine.Game.from_json(row.state))
            assert g.version == row.version
            row.state = g.to_json()
    return gid, created.tokens


def _play(app, gid: str, tokens: dict[int, str], moves: list[tuple[int, str]]) -> None:
    for seat, move in moves:
        version = h.game_state(app, gid)[0]
        with app.app_context(), db.transaction(write=True) as s:
            move_path.play(s, tokens[seat], [move], version)


def _round_end_block(html: str) -> str:
    start = html.index("data-round-end")
    return html[start:html.index("data-next-deal", start)]


def _seat_block(block: str, seat: int) -> str:
    start = block.index(f'data-result-seat="{seat}"')
    end = block.find("data-result-seat=", start + 20)
    return block[start:end if end >= 0 else len(block)]


def _result_cells(block: str, seat: int) -> dict[str, tuple[str, str | None]]:
    part = _seat_block(block, seat)
    table = part[part.index('<table class="grid"'):part.index("</table>")]
    cells = {}
    for td in re.findall(r"<td[^>]*data-cell[^>]*>", table):
        cell = re.search(r'data-cell="(\w+)"', td).group(1)
        face = re.search(r'data-face="(\w+)"', td).group(1)
        card = re.search(r'data-card="([^"]*)"', td)
        cells[cell] = (face, card.group(1) if card else None)
    return cells


def _assert_boards_match_engine(m, record: dict, names: list[str]) -> None:
    block = _round_end_block(m.html_body)
    for seat, board in enumerate(record["boards"]):
        shown = _result_cells(block, seat)
        want = {engine.CELL_NAMES[c]: ("removed", None) if v is None else ("up", str(v)) for c, v in enumerate(board)}
        assert shown == want, (names[seat], shown, want)
        # the text part draws the same grid: its rows as `[ v]` and `  ·  ` (removed)
        rows = ["".join("  ·  " if board[r * 4 + c] is None else f" [{card_text(board[r * 4 + c]):>2}]"
                        for c in range(4)) for r in range(3)]
        text_part = m.text_body[m.text_body.index(f"{names[seat]}: {record['scores'][seat]} this round"):]
        for r, row in enumerate(rows, start=1):
            assert f"  {r}  {row}" in text_part


@sqlite_suffices  # what pages and mails say: PostgreSQL adds nothing (tests/conftest.py)
def test_c8_c10_round_over_shows_final_boards_removed_column_doubled_closer_then_next_deal(app):
    ann = grid("5 9 10 11 / 5 9 10 11 / 5 6 7 12")  # column A of 5s: removed when A3 turns up (C8)
    bo = grid("0 1 0 1 / 1 0 1 0 / 0 1 2 3")
    all_but = lambda cell: " ".join(c for c in engine.CELL_NAMES if c != cell)  # noqa: E731
    gid, tokens = _crafted(app, "classic", make_deal([ann, bo], discard=0, draw_top=[12, 12]),
                           lambda g: position(g, up={0: all_but("A3"), 1: all_but("C3")}, turn=0), {})
    seen = h.mails(app)[-1].id
    _play(app, gid, tokens, [(0, "draw"), (0, "flip A3"), (1, "draw"), (1, "flip C3")])
    g = engine.Game.from_json(h.game_state(app, gid)[1])
    record = g.rounds[0]
    assert record["removed_columns"] == [[0, "A"]] and record["doubled"] == [0]
    assert record["raw"] == [85, 10] and record["scores"] == [170, 10]
    assert record["boards"][0][:1] == [None] and record["boards"][0][8] is None  # A1, A3 removed
    new = [m for m in h.mails(app, seen) if m.subject.startswith("Round 1 over")]
    assert {m.to_addr for m in new} == {"ann@example.com", "bo@example.com"}
    assert {m.subject for m in new} == {"Round 1 over: Bo 10, Ann 170"}
    for viewer, m in ((0, next(m for m in new if m.to_addr == "ann@example.com")),
                      (1, next(m for m in new if m.to_addr == "bo@example.com"))):
        _assert_boards_match_engine(m, record, ["Ann", "Bo"])
        block = _round_end_block(m.html_body)
        ann_block = _seat_block(block, 0)
        assert 'data-part="cards">cards 85<' in ann_block
        assert 'data-part="removed">removed, scoring nothing: column A<' in ann_block
        assert 'data-part="doubled">closed the round without the lowest score: 85 doubled to 170<' in ann_block
        assert "cards 85 · removed, scoring nothing: column A · closed the round without the lowest score: " \
               "85 doubled to 170" in m.text_body
        # then the next deal: round 2, face down, nothing of it leaked
        assert "Round 2 is dealt" in m.html_body and "Round 2 is dealt." in m.text_body
        assert m.html_body.index("data-round-end") < m.html_body.index("data-next-deal")
        for part in (m.text_body, m.html_body):
            check(part, g, viewer, f"round-over mail to {m.to_addr}")
        # the chart is table cells every client shows, not SVG; the totals' bars
        assert "<svg" not in m.html_body and 'data-chart="bars"' in m.html_body
        assert 'width="17%" bgcolor="#2563eb"' in m.html_body  # Ann 170 of 1000
        assert 'width="1%" bgcolor="#dc2626"' in m.html_body  # Bo 10 of 1000
    # the board page shows the round's end too while the next round opens (no chart: it has its sheet)
    page = app.test_client().get(f"/s/{tokens[1]}").text
    assert 'data-round-end="1"' in page and "<svg" in page
    block = page[page.index("data-round-end"):]
    assert _result_cells(block, 0)["A1"] == ("removed", None) and _result_cells(block, 1)["D3"] == ("up", "3")
    check(page, g, 1, "Bo's board page")


def test_a6_a8_action_round_over_shows_star_sets_and_held_action_cards(app):
    ann = action_grid("* 1 2 3 / * 4 5 6 / * 7 8 9")
    bo = action_grid("1 2 3 4 / 5 6 7 8 / 9 10 11 12")
    all_but = lambda cell: " ".join(c for c in engine.CELL_NAMES if c != cell)  # noqa: E731
    gid, tokens = _crafted(app, "action", action_deal([ann, bo], draw_top=[10, 0]),
                           lambda g: action_setup(g, up={0: all_but("A3"), 1: all_but("D3")},
                                                  hands={1: ["thief", "defense"]}), {})
    seen = h.mails(app)[-1].id
    _play(app, gid, tokens, [(0, "draw"), (0, "flip A3"), (0, "decline"), (0, "keep"), (1, "draw"),
                             (1, "swap D3")])
    g = engine.Game.from_json(h.game_state(app, gid)[1])
    record = g.rounds[0]
    assert record["star_bonus"] == [-10, 0] and record["action_cards"] == [0, 2]
    assert record["raw"] == [35, 86] and record["doubled"] == []
    new = [m for m in h.mails(app, seen) if m.subject.startswith("Round 1 over")]
    assert {m.subject for m in new} == {"Round 1 over: Ann 35, Bo 86"} and len(new) == 2
    for m in new:
        _assert_boards_match_engine(m, record, ["Ann", "Bo"])
        block = _round_end_block(m.html_body)
        assert 'data-card="star"' in block  # Ann's star column, as it ended
        assert 'data-part="stars">star sets -10<' in block
        assert 'data-part="held">2 action cards held +20<' in block
        assert "cards 45 · star sets -10" in m.text_body and "cards 66 · 2 action cards held +20" in m.text_body
        assert "<svg" not in m.html_body


# ---------------------------------------------------------------------------------------------------
# the reply box


def _reply_examples(m) -> list[str]:
    return [re.sub(r"<[^>]+>", "", x) for x in re.findall(r"<code data-reply-example[^>]*>(.*?)</code>", m.html_body)]


@sqlite_suffices  # what pages and mails say: PostgreSQL adds nothing (tests/conftest.py)
def test_reply_box_examples_use_the_seats_own_face_down_cells_and_parse(app, client):
    h.new_game(client, players=PLAYERS)
    h.accept_all(app, client)
    game = h.only_game(app)
    rng = random.Random(5)
    checked = {"reveal": 0, "turn": 0}
    seen = 0
    for _step in range(40):
        version, state, _status = h.game_state(app, game.id)
        g = engine.Game.from_json(state)
        by_seat = {r.seat: r for r in h.seats(app, game.id)}
        for m in h.mails(app, seen):
            seen = m.id
            seat = next(s for s, r in by_seat.items() if r.email == m.to_addr)
            kind = g.owes(seat)
            if not m.subject.startswith("Your turn") or kind not in checked:
                continue
            examples = _reply_examples(m)
            assert examples, m.html_body[-2000:]
            assert 'data-reply-box' in m.html_body and "Play the whole turn by replying" in m.html_body
            assert "== Play the whole turn by replying ==" in m.text_body and f"    {examples[0]}\n" in m.text_body
            grid_now = {c["cell"]: c["face"] for c in engine.view(g, seat)["players"][seat]["grid"]}
            named = re.findall(r"\b[A-D][1-3]\b", examples[0])
            if kind == "reveal":
                assert named and all(grid_now[c] == "down" for c in named)
            else:  # draw: if 4 or less swap X, else flip Y (Y face down on this seat's board)
                assert examples[0].startswith("draw: if 4 or less swap ")
                assert grid_now[re.search(r"flip ([A-D][1-3])", examples[0]).group(1)] == "down"
            for text in examples:
                parse_plan(g, seat, text)  # every example is a valid reply now
            checked[kind] += 1
        if checked["turn"] >= 3:
            break
        p = rng.choice(g.pending())
        move = str(engine.bot_move(g, p.seat, "random", rng))
        if move == "take":
            continue
        with app.app_context(), db.transaction(write=True) as s:
            token = h_token(app, game.id, p.seat)
            move_path.play(s, token, [move], version)
    assert checked["reveal"] >= 3 and checked["turn"] >= 3, checked


def h_token(app, game_id: str, seat: int) -> str:
    from service.store import tokens

    row = next(r for r in h.seats(app, game_id) if r.seat == seat)
    return tokens.seat_token(row.token_salt)


@sqlite_suffices  # what pages and mails say: PostgreSQL adds nothing (tests/conftest.py)
def test_action_reply_box_offers_the_conditional_draw_and_an_action_move(app):
    ann = action_grid("1 2 3 4 / 5 6 7 8 / 9 10 11 12")
    bo = action_grid("1 2 3 4 / 5 6 7 8 / 9 10 11 12")
    gid, tokens = _crafted(app, "action", action_deal([ann, bo], draw_top=[10, 0]),
                           lambda g: action_setup(g, up={0: "A1 B3", 1: "A1 B1"}), {})
    seen = h.mails(app)[-1].id
    _play(app, gid, tokens, [(0, "action row 1")])  # Ann takes Swap own; Bo's turn comes
    g = engine.Game.from_json(h.game_state(app, gid)[1])
    (m,) = [m for m in h.mails(app, seen) if m.to_addr == "bo@example.com" and m.subject.startswith("Your turn")]
    examples = _reply_examples(m)
    assert examples[0].startswith("draw: if 4 or less swap ") and any(x.startswith("action ") for x in examples)
    flip = re.search(r"flip ([A-D][1-3])", examples[0]).group(1)
    assert g.face[1][engine.CELL_NAMES.index(flip)] == DOWN
    for text in examples:
        parse_plan(g, 1, text)


def test_plain_text_turn_mail_names_many_moves_with_one_board_link(app):
    """Action with Swap own held: dozens of single moves; the text part has a few URLs, Swap own's
    pairs one link to the board (no wall of URLs)."""
    ann = action_grid("1 2 3 4 / 5 6 7 8 / 9 10 11 12")
    bo = action_grid("1 2 3 4 / 5 6 7 8 / 9 10 11 12")
    gid, tokens = _crafted(app, "action", action_deal([ann, bo], draw_top=[10, 0]),
                           lambda g: action_setup(g, up={0: "A1 B3", 1: "A1 B1"}, hands={0: ["swap-own"]}), {})
    with app.app_context(), db.transaction(write=True) as s:
        row = s.get(GameRow, gid)
        seat = next(r for r in lookups.seats_of(s, gid) if r.seat == 0)
        notify.decision_or_nothing(s, row, seat, engine.Game.from_json(row.state))
    m = h.mails(app)[-1]
    assert m.to_addr == "ann@example.com"
    g = engine.Game.from_json(h.game_state(app, gid)[1])
    assert len(g.legal_moves(0)) > 40
    assert len(URL_RE.findall(m.text_body)) <= 12
    # Swap own's 66 pairs are one line to the board, where the first card is picked (15.5)
    assert re.search(r"Swap own: choose [^\n]*on your board\n  http://localhost/s/\S+\?pick=swap-own", m.text_body), m.text_body


def test_page_chart_end_labels_never_overlap_when_totals_are_close(app):
    """The page's SVG chart (issue 15.4: labels that do not overlap): totals 119, 120 and 159 drew
    "Ann 119" on top of "Bo 120"; the end labels are at least 12 px apart and inside the drawing."""
    view = {"players": [{"seat": i, "name": n} for i, n in enumerate(("Ann", "Bo", "Carla", "Di"))],
            "options": {"target_score": 110},
            "rounds": [{"round": 1, "scores": [63, 52, 106, 62], "totals": [63, 52, 106, 62]},
                       {"round": 2, "scores": [56, 68, 53, 57], "totals": [119, 120, 159, 119]}]}
    with app.test_request_context():
        chart = score_chart(view)
    ys = sorted(float(line["label_y"]) for line in chart["lines"])
    assert all(b - a >= 12 for a, b in zip(ys, ys[1:], strict=False)), ys
    assert 0 <= ys[0] and ys[-1] <= chart["height"], ys
