"""Helpers for the service tests: forms with CSRF, the outbox, links in mails, whole games."""

from __future__ import annotations

import random
import re
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit

from sqlmodel import select

import engine
from service.mail.outbox import render_pending
from service.store import db
from service.store.models import GameRow, SeatRow
from service.store.outbox_models import OutboxMail

CSRF_RE = re.compile(r'name="csrf_token"(?: type="hidden")? value="([^"]+)"|value="([^"]+)" name="csrf_token"')
LINK_RE = re.compile(r"https?://localhost(/[^\s\"'<>]+)")
MOVE_LINK_RE = re.compile(r"/s/([A-Za-z0-9_-]+)/m/([A-Za-z0-9_~-]+)\?(?:v=(\d+)|d=([0-9a-z_.]+))")


def csrf_of(html: str) -> str:
    m = CSRF_RE.search(html)
    assert m, "no CSRF token on the page"
    return m.group(1) or m.group(2)


def mails(app, since_id: int = 0) -> list[OutboxMail]:
    """The outbox rows after `since_id`, their bodies rendered (a sender would render them first)."""
    render_pending(db.get_engine(app), app.extensions["outbox_renderer"])
    with app.app_context(), db.transaction() as s:
        return list(s.exec(select(OutboxMail).where(OutboxMail.id > since_id).order_by(OutboxMail.id)))


def links_of(mail: OutboxMail) -> list[str]:
    """Every link of a mail (text and HTML part), as paths."""
    found = LINK_RE.findall(mail.text_body) + LINK_RE.findall(mail.html_body or "")
    return list(dict.fromkeys(p.replace("&amp;", "&") for p in found))


def move_links(mail: OutboxMail) -> list[str]:
    return [p for p in links_of(mail) if MOVE_LINK_RE.search(p)]


def path_of(url: str) -> str:
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


def new_game(client, players=(("Ann", "ann@example.com"), ("Bo", "bo@example.com")), *, target=1,
             extra=None) -> tuple[int, str]:
    page = client.get("/new")
    data = {"csrf_token": csrf_of(page.text), "host_name": players[0][0], "host_email": players[0][1],
            "variant": "classic", "decision_hours": "48", **option_form_data(target=target),
            "opt_final_tiebreak": "shared"}
    for i, (name, email) in enumerate(players[1:]):
        data[f"players-{i}-name"] = name
        data[f"players-{i}-email"] = email
    data.update(extra or {})
    r = client.post("/new", data=data)
    return r.status_code, r.headers.get("Location", r.text)


def option_form_data(target: int | None = None) -> dict:
    """Every variant's option fields as a browser without JavaScript sends them (both fieldsets,
    each at its variant's defaults; a checkbox that is off is not sent), with `target_score`."""
    from service.web.forms import option_field_name

    data = {}
    for variant in engine.options.VARIANT_OPTIONS:
        for name, (default, allowed) in engine.option_table(variant).items():
            if name == "target_score" and target is not None:
                default = target
            if allowed is bool:
                if default:
                    data[option_field_name(variant, name)] = "y"
            elif allowed is int or isinstance(allowed, tuple):
                data[option_field_name(variant, name)] = str(default)
    return data


def post_form(client, path: str, extra: dict | None = None, page_path: str | None = None):
    """POST to `path` with the CSRF token of its form on `page_path` (as a browser would), or the
    session's token when that page has no such form (move buttons carry their own tokens)."""
    token = form_csrf(client.get(page_path or path).text, path)
    if token is None:  # the session's token, from a page whose only form is a session-protected one
        token = csrf_of(client.get("/links").text)
    data = {"csrf_token": token}
    data.update(extra or {})
    return client.post(path, data=data)


def form_csrf(page: str, action: str) -> str | None:
    """The CSRF token of the page's form that posts to `action` (None: no such form)."""
    form = re.search(rf'<form[^>]*action="{re.escape(action)}"[^>]*>(.*?)</form>', page, re.S)
    return csrf_of(form.group(1)) if form and CSRF_RE.search(form.group(1)) else None


def post_move(app, client, path: str, fields: dict):
    """POST a move form as its Confirm page would have made it for `fields["version"]` (a stale or
    wrong request with a genuine form token, to see what the service says)."""
    from service.store import tokens

    token, slug = path.split("/")[2], path.rsplit("/", 1)[1]
    with app.test_request_context():
        bound = fields["decision"] if "decision" in fields else int(fields["version"])
        form_token = tokens.move_form_token(token, slug, bound)
    return client.post(path, data={"csrf_token": form_token, **fields})


def accept_all(app, client) -> None:
    """Accept every invitation found in the outbox."""
    for m in mails(app):
        if "invites you" in m.text_body:
            seat_path = next(p for p in links_of(m) if re.fullmatch(r"/s/[A-Za-z0-9_-]+", p))
            r = post_form(client, seat_path + "/accept", page_path=seat_path)
            assert r.status_code == 303, r.text


def only_game(app) -> GameRow:
    with app.app_context(), db.transaction() as s:
        games = list(s.exec(select(GameRow)))
        assert len(games) >= 1
        return games[-1]


def game_state(app, game_id: str) -> tuple[int, dict, str]:
    with app.app_context(), db.transaction() as s:
        g = s.get(GameRow, game_id)
        return g.version, g.state, g.status


def full_state(app, game_id: str) -> dict:
    """The engine state with the game's whole event log (the saved state keeps only its start; the
    move log holds the rest)."""
    from service.play import lookups

    with app.app_context(), db.transaction() as s:
        return lookups.full_game(s, s.get(GameRow, game_id)).to_json()


def seats(app, game_id: str) -> list[SeatRow]:
    with app.app_context(), db.transaction() as s:
        return list(s.exec(select(SeatRow).where(SeatRow.game_id == game_id).order_by(SeatRow.position)))


def confirm(client, path: str):
    """GET the move link (confirm page) and press Confirm."""
    page = client.get(path)
    assert page.status_code == 200, page.text
    assert 'data-action="confirm"' in page.text, page.text[-3000:]
    action = re.search(r'<form method="post" action="([^"]+)">\s*<input type="hidden" name="csrf_token"',
                       page.text).group(1)
    return client.post(action, data=confirm_fields(page.text))


def confirm_fields(page: str) -> dict[str, str]:
    """The hidden fields of the Confirm form (its own CSRF token included), as a browser sends them."""
    start = page.index('id="confirm"')
    form = page[start:page.index("</form>", start)]
    return dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)">', form))


BOARD_FORM_RE = re.compile(r'<form class="inline" method="post" action="(/s/[^"]+/m/[^"]+)">(.*?)</form>', re.S)


def board_moves(html: str) -> list[tuple[str, dict[str, str]]]:
    """The move buttons of a board page: (action, hidden fields) of each POST form."""
    return [(action, dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)">', body)))
            for action, body in BOARD_FORM_RE.findall(html)]


def decision_of(link: str) -> str | None:
    """The decision id a move link is bound to (`?d=`), or None."""
    m = re.search(r"[?&]d=([^&]+)", link)
    return m.group(1) if m else None


def playable(g: engine.Game, seat: int, link: str) -> bool:
    """The move of `link` is legal for `seat` now (a link bound to a decision that is still owed
    may name a move already made: the same opening reveal twice)."""
    from service.render.links import texts_of_slug

    texts = texts_of_slug(link.split("?")[0].rsplit("/", 1)[1]) or ["?"]
    try:
        return g.parse_move(texts[0]) in g.legal_moves(seat)
    except ValueError:
        return False


def play_by_mail(app, client, *, rng: random.Random, on_step=None, max_steps: int = 2000,
                 boards: dict[int, str] | None = None) -> str:
    """Play a dealt game to the end as players do (issue 15.2): by following the links in their
    mails (GET, then Confirm), and, for a decision owed right after their own move (placing the
    drawn card, the second opening reveal), with the buttons of the board they land on (its mail
    is held back). `boards`: seat -> its board page, for a game played elsewhere so far. Returns
    the game id."""
    game = only_game(app)
    latest: dict[str, list[str]] = {}  # recipient -> move links of their newest mail
    boards = dict(boards or {})  # seat -> the board page it landed on after its last move
    seen = 0
    for _step in range(max_steps):
        new = mails(app, seen)
        for m in new:
            seen = max(seen, m.id)
            ml = move_links(m)
            if ml:
                latest[m.to_addr] = ml
        if on_step:
            on_step(new)
        version, state, status = game_state(app, game.id)
        if status == "finished":
            return game.id
        g = engine.Game.from_json(state)
        pending = g.pending()
        seat_rows = {r.seat: r for r in seats(app, game.id)}
        p = rng.choice(pending)
        links = latest.get(seat_rows[p.seat].email, [])
        owed = g.decision_id(p.seat)
        links = [link for link in links if decision_of(link) == owed and playable(g, p.seat, link)]
        if links:
            r = confirm(client, rng.choice(links))
        else:  # on the board since its own last move
            buttons = board_moves(client.get(boards[p.seat]).text)
            assert buttons and all(f["decision"] == owed for _a, f in buttons), "no board buttons for the decision"
            action, fields = rng.choice(buttons)
            r = client.post(action, data=fields)
        assert r.status_code == 303, r.text[-2000:]
        boards[p.seat] = r.headers["Location"]
    raise AssertionError("game did not finish")


def random_reply_plan(g: engine.Game, seat: int, rng: random.Random) -> str:
    """A random whole-turn reply for the decision `seat` owes (plain, take/draw + swap, conditional),
    built only from that seat's view."""
    kind = g.owes(seat)
    grid = engine.view(g, seat)["players"][seat]["grid"]
    cells = [c["cell"] for c in grid if c["face"] != "removed"]
    down = [c["cell"] for c in grid if c["face"] == "down"]
    if kind != "turn":
        return rng.choice([m.text() for m in g.legal_moves(seat)])
    a = rng.choice(cells)
    other = f"flip {rng.choice(down)}" if down else f"swap {rng.choice(cells)}"
    return rng.choice([f"take swap {a}", f"draw swap {a}", f"draw: if 4 or less swap {a}, else {other}",
                       f"draw: if 2 or less swap {a}, if 10 or more {other}, else swap {rng.choice(cells)}"])


_HOLD = """
import sqlite3, sys, time
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("PRAGMA journal_mode = WAL")
conn.execute("BEGIN IMMEDIATE")
print("held", flush=True)
time.sleep(float(sys.argv[2]))
conn.execute("COMMIT")
"""


@contextmanager
def sqlite_write_held(path: Path | str, seconds: float = 0.6) -> Iterator[None]:
    """Another process holds the write lock of a SQLite database file (`BEGIN IMMEDIATE`) for
    `seconds` from the moment this yields: whoever begins a write transaction meanwhile waits in
    the busy timeout."""
    other = subprocess.Popen([sys.executable, "-c", _HOLD, str(path), str(seconds)], stdout=subprocess.PIPE,
                             text=True)
    try:
        assert other.stdout.readline().strip() == "held"
        yield
    finally:
        other.wait(30)
