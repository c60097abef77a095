"""SKYJO Action readable (issue 15.5): cards by name in every page and mail, the action row with each
card's effect, Confirm pages in words, pairs (Swap own ...) chosen in two steps, few links in mail.

Positions are seeded 4-player Action games whose saved state is set up so that each kind of
decision is owed (a turn holding every action card, a Draw three pick, a star trigger, a star set,
Defense against an attack, a Meteor shower choice), then rendered through the test client and the
outbox as a player sees them (A1-A9)."""

from __future__ import annotations

import re

import pytest
from sqlmodel import select

import engine
from engine.action.rules import ACTION_KINDS
from service.store import db
from service.store.models import GameRow
from service.store.outbox_models import OutboxMail
from service.words.sentences import ACTION_EXAMPLES
from tests.conftest import sqlite_suffices
from tests.service import helpers as h

PLAYERS = (("Ann", "ann@example.com"), ("Bo", "bo@example.com"), ("Cy", "cy@example.com"),
           ("Di", "di@example.com"))
SLUG = re.compile(r"\b(?:" + "|".join(re.escape(k) for k in ACTION_KINDS if "-" in k) + r")\b")
BARE_ROW = re.compile(r"action row \d")
BUTTON = re.compile(r'<button type="submit" data-move=')
PICK_LINK = re.compile(r'data-pick="([^"]+)"')
CELL = re.compile(r"^[A-D][1-3]$")
# the reply help's line of Action commands (`play double-move`: what a player types, as the engine
# writes it; service.mail.render.ACTION_EXAMPLES), the one place a card's id is the right word
ACTION_HELP = re.compile(r"SKYJO Action's moves: " + re.escape(" | ".join(ACTION_EXAMPLES)) + r"\.")


def _visible(html: str) -> str:
    """A page's text as a person reads it: no tags, no attribute values (links carry encoded moves),
    no reply example's command (what a player types, e.g. `action row 1`: the sentence beside it
    names the card, and `_reply_examples_say_the_card` checks that)."""
    text = re.sub(r"<code data-reply-example[^>]*>[^<]*</code>", " ", html)
    text = re.sub(ACTION_HELP, " ", text)
    text = re.sub(r"<(script|style)\b.*?</\1>", " ", text, flags=re.S)
    return re.sub(r"<[^>]+>", " ", text)


def assert_readable(text: str, where: str) -> None:
    """No engine id of a card (`draw-three`) and no `action row N` without the card's name, in what
    a person reads (addresses aside: links carry keys, not words)."""
    text = re.sub(r"https?://\S+", " ", text)
    text = re.sub(ACTION_HELP, " ", text)
    text = _reply_examples_say_the_card(text)
    for pattern, what in ((SLUG, "a card id where a name belongs"), (BARE_ROW, "'action row N' without a name")):
        found = pattern.search(text)
        assert not found, f"{where}: {what}: ...{text[max(0, found.start() - 200):found.end() + 80]}..."


def _reply_examples_say_the_card(text: str) -> str:
    """The plain-text reply box writes each example command on its own line (4 spaces in), the
    sentence saying what it does on the next: a command `action row N` (or `play <card id> ...`)
    must be followed by a sentence naming the card in words; the command itself is then left out
    of the check (it is what a player types)."""
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if re.fullmatch(r"    action row \d", line):
            says = next((s for s in lines[i + 1:] if s.strip()), "")
            assert not BARE_ROW.search(says) and "from the action row" in says, (line, says)
            lines[i] = ""
        elif re.fullmatch(r"    play [a-z-]+( .*)?", line):  # e.g. `play swap-own A1 C3`: the card's id
            says = next((s for s in lines[i + 1:] if s.strip()), "")
            assert not SLUG.search(says) and not BARE_ROW.search(says) and says.strip(), (line, says)
            lines[i] = ""
    return "\n".join(lines)


def _game(app) -> GameRow:
    return h.only_game(app)


def _seat_paths(app, gid: str) -> dict[int, str]:
    """Every seat's board path, from the invitation mails' links (the tokens are stored hashed)."""
    out: dict[int, str] = {}
    by_email = {r.email: r.seat for r in h.seats(app, gid)}
    for m in h.mails(app):
        seat = by_email.get(m.to_addr)
        if seat is None or seat in out:
            continue
        for p in h.links_of(m):
            if re.fullmatch(r"/s/[A-Za-z0-9_-]+", p):
                out[seat] = p
                break
    return out


@pytest.fixture
def action_game(app, client):
    status, _location = h.new_game(client, PLAYERS, extra={"variant": "action", "opt_target_score": "100"})
    assert status == 303
    h.accept_all(app, client)
    game = _game(app)
    return game.id, _seat_paths(app, game.id)


def _save(app, gid: str, g: engine.Game) -> None:
    with app.app_context(), db.transaction(write=True) as s:
        row = s.get(GameRow, gid)
        row.state = g.to_json()
        row.version = g.version


def _load(app, gid: str) -> engine.Game:
    return engine.Game.from_json(h.game_state(app, gid)[1])


def _open(g: engine.Game) -> None:
    """Every seat reveals A1 and B1; star triggers are declined (A3, A7)."""
    for seat in range(g.n):
        for cell in ("A1", "B1"):
            if "reveal " + cell in [m.text() for m in g.legal_moves(seat)]:
                g.play(seat, "reveal " + cell)
    while g.pending() and g.pending()[0].kind not in ("turn",):
        p = g.pending()[0]
        texts = [m.text() for m in g.legal_moves(p.seat)]
        g.play(p.seat, "decline" if "decline" in texts else texts[0])


def _hold(g: engine.Game, seat: int, cards: list[str], discard: tuple[str, ...] = ()) -> engine.Game:
    """`seat` holds `cards` since an earlier turn (so it may play them, A4 c), taken from the action
    deck (the action cards stay exactly one deck, A1); `discard` go on the action discard pile."""
    data = g.to_json()
    for card, pile in [*((c, data["hands"][seat]) for c in cards), *((c, data["adiscard"]) for c in discard)]:
        deck = data["adeck"]
        if card not in deck:  # from the row, refilled from the deck
            i = data["arow"].index(card)
            data["arow"][i] = deck.pop()
        else:
            deck.remove(card)
        pile.append(card)
    data["fresh"] = []
    return engine.Game.from_json(data)


def _turn_seat(g: engine.Game) -> int:
    return next(p.seat for p in g.pending() if p.kind == "turn")


def _holding_all(app, gid: str) -> tuple[engine.Game, int]:
    g = _load(app, gid)
    _open(g)
    seat = _turn_seat(g)
    g = _hold(g, seat, list(ACTION_KINDS), discard=("swap-own",))
    _save(app, gid, g)
    return g, seat


def press(client, page: str, text: str):
    """Press the board's button of the move `text` (its POST form, with the form's own token)."""
    from service.render.links import slug_for

    slug = slug_for([text])
    forms = re.findall(r"<form[^>]*>.*?</form>", page, re.S)
    form = next((f for f in forms if f'data-move="{slug}"' in f), None)
    assert form is not None, f"no button for {text!r}"
    action = re.search(r'action="([^"]+)"', form).group(1)
    return client.post(action, data=dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)">', form)))


def _before(g: engine.Game, seat: int) -> int:
    """The seat whose turn comes just before `seat`'s."""
    return next(s for s in range(g.n) if g.next_seat[s] == seat)


def turn_mail_holding_all(app, client, gid: str, paths: dict[int, str]) -> tuple[OutboxMail, int]:
    """The turn mail of a seat holding every action card: the seat before it takes the action
    deck's top card from its board (one move, its turn ends, A4 b)."""
    g = _load(app, gid)
    _open(g)
    seat = _turn_seat(g)
    after = g.next_seat[seat]
    g = _hold(g, after, list(ACTION_KINDS), discard=("swap-own",))
    _save(app, gid, g)
    last = max((m.id for m in h.mails(app)), default=0)
    r = press(client, client.get(paths[seat]).text, "action deck")
    assert r.status_code == 303, r.text[-500:]
    email = next(s.email for s in h.seats(app, gid) if s.seat == after)
    mail = [m for m in h.mails(app, last) if m.to_addr == email][-1]
    return mail, after


def _snapshot(app, gid: str) -> tuple[int, dict, int]:
    """The game's version, state and the number of queued mails: what a GET must leave alone."""
    version, state, _status = h.game_state(app, gid)
    with app.app_context(), db.transaction() as s:
        queued = len(list(s.exec(select(OutboxMail))))
    return version, state, queued


def _links_and_buttons(page: str) -> tuple[int, int]:
    return len(BUTTON.findall(page)), len(PICK_LINK.findall(page))


# ------------------------------------------------------------------------------ names everywhere
@sqlite_suffices  # what pages and mails say: PostgreSQL adds nothing (tests/conftest.py)
def test_a9_every_action_card_is_named_on_the_board_in_the_mail_and_on_confirm_pages(app, client, action_game):
    gid, paths = action_game
    mail, seat = turn_mail_holding_all(app, client, gid, paths)
    assert_readable(mail.text_body, "turn mail (text)")
    assert_readable(_visible(mail.html_body), "turn mail (HTML)")
    board = client.get(paths[seat]).text
    assert_readable(_visible(board), "board")
    # the action row: each card with its name and its one-line effect (A2, A9)
    row = re.search(r"data-action-row>(.*?)</div>", board, re.S).group(1)
    names = re.findall(r"<b>([^<]+)</b> <span class=\"muted\">([^<]+)</span>", row)
    assert len(names) == 4 and all(name and effect for name, effect in names), row
    assert "Action row:" in mail.text_body
    # held cards by name (A4), in the plain text too
    assert "Swap with a player" in board and "action cards: Swap own, Double move" in mail.text_body
    # every move link of the mail opens a Confirm page that says what happens, in words
    for path in h.move_links(mail):
        page = client.get(path)
        assert page.status_code == 200 and 'data-action="confirm"' in page.text, path
        said = re.search(r'<p class="status">([^<]*)</p>', page.text[page.text.index('id="confirm"'):]).group(1)
        assert_readable(said, f"confirm page of {path}")
        assert "“" not in said, said  # no quoted move text: a sentence
    take = [p for p in h.move_links(mail) if "m~YWN0aW9uIHJvdyAx" in p][0]  # `action row 1`
    said = _visible(client.get(take).text)
    card = engine.Game.from_json(h.game_state(app, gid)[1]).arow[0]
    from service.words.names import action_name

    with app.test_request_context():
        assert f"Take {action_name(card)} from the action row. You can play it on a later turn:" in said


def test_a9_played_cards_are_told_by_name_in_the_log(app, client, action_game):
    gid, paths = action_game
    g = _load(app, gid)
    _open(g)
    seat = _turn_seat(g)
    g = _hold(g, seat, ["swap-own"])
    _save(app, gid, g)
    r = press(client, client.get(paths[seat] + "?pick=swap-own.A1").text, "play swap-own A1 C3")
    assert r.status_code == 303
    page = client.get(h.path_of(r.headers["Location"])).text
    assert_readable(_visible(page), "board after Swap own")
    assert "played Swap own on A1 and C3." in page
    assert "Done: Play Swap own: swap your A1 and C3" in page


# ------------------------------------------------------------------------------ two steps
def test_a9_1_swap_own_is_two_small_steps_and_the_first_changes_nothing(app, client, action_game):
    gid, paths = action_game
    g = _load(app, gid)
    _open(g)
    seat = _turn_seat(g)
    g = _hold(g, seat, ["swap-own"])
    _save(app, gid, g)
    board = client.get(paths[seat]).text
    picks = [p for p in PICK_LINK.findall(board) if p.startswith("swap-own.")]
    assert len(picks) == 12 and all(CELL.match(p.split(".")[1]) for p in picks)
    assert "play swap-own" not in _visible(board)
    buttons, _links = _links_and_buttons(board)
    assert buttons <= 12 + 8, buttons  # draw, take (12), the row (5), discard: not 66 pairs
    before = _snapshot(app, gid)
    for path in (f"{paths[seat]}?pick=swap-own", f"{paths[seat]}?pick=swap-own.A1"):
        for method in (client.get, client.head):
            assert method(path).status_code == 200
    assert _snapshot(app, gid) == before, "a first choice changed something"
    second = client.get(f"{paths[seat]}?pick=swap-own.A1").text
    buttons, links = _links_and_buttons(second)
    assert buttons == 11 and links == 0, (buttons, links)
    assert "Swap own: swap your A1 with:" in second and 'data-action="choose-again"' in second
    assert re.search(r'class="down hl" data-cell="A1"|data-cell="A1"[^>]*', second)
    r = press(client, second, "play swap-own A1 D3")
    assert r.status_code == 303
    after = h.game_state(app, gid)[0]
    assert after == before[0] + 1
    again = press(client, second, "play swap-own A1 D3")  # the same button again: nothing more
    assert again.status_code == 409 and h.game_state(app, gid)[0] == after


def test_a9_1_a_swap_own_mail_has_few_links(app, client, action_game):
    gid, paths = action_game
    g = _load(app, gid)
    _open(g)
    seat = _turn_seat(g)
    after = g.next_seat[seat]
    g = _hold(g, after, ["swap-own"])
    _save(app, gid, g)
    last = max(m.id for m in h.mails(app))
    assert press(client, client.get(paths[seat]).text, "action deck").status_code == 303
    email = next(s.email for s in h.seats(app, gid) if s.seat == after)
    mail = [m for m in h.mails(app, last) if m.to_addr == email][-1]
    links = h.links_of(mail)
    assert len(links) <= 24, links  # was 87
    choose = [p for p in links if p.endswith("?pick=swap-own")]
    assert len(choose) == 1 and len(h.move_links(mail)) <= 20
    assert "Play Swap own: choose the two cards on your board" in mail.text_body
    page = client.get(choose[0]).text
    assert len([p for p in PICK_LINK.findall(page) if p.startswith("swap-own.")]) == 12
    assert _links_and_buttons(page)[0] == 0  # the first step only: nothing to press yet


def test_a9_7_swap_with_a_player_picks_your_card_then_theirs(app, client, action_game):
    gid, paths = action_game
    g = _load(app, gid)
    _open(g)
    seat = _turn_seat(g)
    _save(app, gid, _hold(g, seat, ["swap-with-player"]))
    board = client.get(paths[seat]).text
    assert len([p for p in PICK_LINK.findall(board) if p.startswith("swap-with-player.")]) == 12
    second = client.get(f"{paths[seat]}?pick=swap-with-player.B2").text
    buttons, _links = _links_and_buttons(second)
    assert buttons == 12 * 3  # each other player's grid (was 12 x 36 = 432 buttons)
    other = next(s for s in range(4) if s != seat)
    name = PLAYERS[0][0] if other == 0 else g.names[other]
    assert f"Swap your B2 with a card of {name}:" in second
    v = h.game_state(app, gid)[0]
    assert press(client, second, f"play swap-with-player B2 with {g.who(other)} C1").status_code == 303
    assert h.game_state(app, gid)[0] > v


def test_a9_bad_or_stale_first_choices_show_the_board(app, client, action_game):
    gid, paths = action_game
    g = _load(app, gid)
    _open(g)
    seat = _turn_seat(g)
    _save(app, gid, _hold(g, seat, ["swap-own"]))
    full = _links_and_buttons(client.get(paths[seat]).text)
    for pick in ("x", "swap-own.Z9", "swap-own.A1.B1", "insight.99", "pick.7", "%00", "a" * 500, "re-.", "."):
        page = client.get(paths[seat], query_string={"pick": pick})
        assert page.status_code == 200, pick
        assert _links_and_buttons(page.text) == full, pick
    other = next(s for s in range(4) if s != seat)
    page = client.get(paths[other] + "?pick=swap-own.A1")  # not theirs to choose
    assert page.status_code == 200 and not BUTTON.findall(page.text)


# ------------------------------------------------------------------------------ every decision kind
def _star_at(g: engine.Game, seat: int, cells: list[int]) -> engine.Game:
    """Stars at `cells` of `seat`'s grid, swapped in from the draw pile, or from another grid when
    the deal left the pile too few (the deck stays whole, A1)."""
    data = g.to_json()
    for cell in cells:
        if data["vals"][seat][cell] == "star":
            continue
        if "star" in data["draw"]:
            i = data["draw"].index("star")
            data["draw"][i], data["vals"][seat][cell] = data["vals"][seat][cell], "star"
            continue
        s, c = next((s, c) for s, grid in enumerate(data["vals"]) for c, v in enumerate(grid)
                    if v == "star" and (s != seat or c not in cells) and data["face"][s][c] == 0)
        data["vals"][s][c], data["vals"][seat][cell] = data["vals"][seat][cell], "star"
    return engine.Game.from_json(data)


def _check_board(client, path: str) -> str:
    page = client.get(path)
    assert page.status_code == 200
    assert_readable(_visible(page.text), path)
    return page.text


def _positions(app, gid: str) -> list[tuple[str, engine.Game, int]]:
    """(kind, game, seat owing it) for each kind of decision SKYJO Action adds."""
    base = _load(app, gid)
    out = []
    g = _star_at(base, 0, [0])
    g.play(0, "reveal A1")  # A3/A7: a star in the opening
    out.append(("star_trigger", g, 0))
    g = _load(app, gid)
    _open(g)
    seat = _turn_seat(g)
    three = _hold(g, seat, ["draw-three"])
    three.play(seat, "play draw-three")
    out.append(("pick_three", three, seat))
    meteor = _hold(g, seat, ["meteor-shower"])
    meteor.play(seat, "play meteor-shower")
    target = next(p.seat for p in meteor.pending())
    out.append(("meteor", meteor, target))
    other = g.next_seat[seat]
    thief = _hold(_hold(g, seat, ["thief"]), other, ["defense", "double-move"])
    thief.play(seat, f"play thief from {thief.who(other)} double-move")
    out.append(("defend", thief, other))
    data = g.to_json()
    star = _star_at(engine.Game.from_json(data), seat, [0, 4, 8])  # column A
    data = star.to_json()
    for cell in (0, 4):
        if data["face"][seat][cell] != 1:
            data["face"][seat][cell] = 1
            data["down"][seat] -= 1
    star = engine.Game.from_json(data)
    star.play(seat, "draw")
    star.play(seat, "flip A3" if data["face"][seat][8] == 0 else "swap D3")
    if star.owes(seat) == "star_trigger":
        out.append(("star_trigger", engine.Game.from_json(star.to_json()), seat))
        star.play(seat, "decline")
    out.append(("star_set", star, seat))
    return out


@sqlite_suffices  # what pages and mails say: PostgreSQL adds nothing (tests/conftest.py)
def test_a_every_action_decision_reads_in_words(app, client, action_game):
    gid, paths = action_game
    seen = set()
    for kind, g, seat in _positions(app, gid):
        assert g.owes(seat) == kind, (kind, g.pending())
        seen.add(kind)
        _save(app, gid, g)
        page = _check_board(client, paths[seat])
        status = re.search(r'<p class="status">([^<]*)</p>', page).group(1)
        assert "Your move." not in status, (kind, status)  # a sentence of its own
        for pick in dict.fromkeys(PICK_LINK.findall(page)):
            second = _check_board(client, f"{paths[seat]}?pick={pick}")
            assert len(BUTTON.findall(second)) <= 12 * 3, (kind, pick)
        for text in [m.text() for m in g.legal_moves(seat)][:40]:
            from service.render.links import slug_for

            confirm = client.get(f"{paths[seat]}/m/{slug_for([text])}?v={g.version}")
            assert confirm.status_code == 200 and 'data-action="confirm"' in confirm.text, (kind, text)
            assert_readable(_visible(confirm.text), f"confirm {text!r}")
        if kind == "pick_three":
            assert "Draw three: which card do you keep?" in page and "Keep none of them" in page
            assert len(BUTTON.findall(client.get(f"{paths[seat]}?pick=pick.0").text)) == 12
        if kind == "meteor":
            assert "choose the card you give up" in page and len(BUTTON.findall(page)) == 12
        if kind == "defend":
            assert "Block it with Defense" in page and "Let it happen" in page and "Thief" in page
        if kind == "star_set":
            assert "Keep the star set" in page and "Remove it and bank -10" in page
    assert seen == {"star_trigger", "pick_three", "meteor", "defend", "star_set"}


@sqlite_suffices  # a whole game: PostgreSQL adds nothing its race tests miss (tests/conftest.py)
@pytest.mark.parametrize("seed", [4, 11])
def test_a_an_action_game_by_mail_names_every_card_in_every_mail_and_board(app, client, seed):
    """Seeded 4-player Action games played to the end by following mail links: no mail and no board
    shows a card id or a bare `action row N`; a turn mail has a link per card held, not per pair."""
    import random

    status, _location = h.new_game(client, PLAYERS, extra={"variant": "action"})
    assert status == 303
    h.accept_all(app, client)
    gid = _game(app).id
    paths = _seat_paths(app, gid)
    checked = {"mails": 0, "boards": 0}

    def check(new: list[OutboxMail]) -> None:
        for m in new:
            assert_readable(m.text_body, f"mail {m.subject!r} (text)")
            assert_readable(_visible(m.html_body or ""), f"mail {m.subject!r} (HTML)")
            choices = [p for p in h.links_of(m) if "?pick=" in p]
            # draw, take (12), the row (5), one link per card held (9 kinds), the players of an
            # Insight and of a Reactivation played as Insight (4 each), and the "choose on your board"
            # links of the discard, Thief and Reactivation-as-Thief groups (3): a hand of six cards
            # gave 36 links once; a link per pair would give 66 for Swap own alone
            assert len(h.move_links(m)) + len(choices) <= 1 + 12 + 5 + 9 + 4 + 4 + 3, m.text_body
            checked["mails"] += 1
        if checked["mails"] % 7 == 0:
            for p in _load(app, gid).pending():
                _check_board(client, paths[p.seat])
                checked["boards"] += 1

    h.play_by_mail(app, client, rng=random.Random(seed), on_step=check)
    assert checked["mails"] > 20 and checked["boards"] > 0
