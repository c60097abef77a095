"""Every kind of page and mail, collected for the accessibility tests (issue 30) from one game per
variant played by mail through the app's test client: in one game Ann (the host) reads
English and Bo German, in the other the other way round, so each kind is seen in two languages. What is collected is the HTML a browser (or a mail
client) gets at that moment; tests/service/test_accessibility.py loads it into chromium.

Kinds of page: start, /new, /links, the invitation (accept) page, the board in the opening, on a
turn (draw), with a drawn card to place, while waiting, at a round's end and at the game's end,
SKYJO Action's two-step picks, the Confirm page, the rules pages (a variant's, a game's), the page
"check this round" (issue 32.1) and the
Decline and Cancel steps (issue 28), the mail settings, the page of an address's games, the vacation box (on every
board of a game with deadlines), the spectator page, the dev mailbox and the error pages. Kinds of
mail: every template a game sends, the answer to a reply and "mail me my links"."""

from __future__ import annotations

import random
import re

import engine
from service.store.outbox_models import OutboxMail
from tests.service import helpers as h

PLAYERS = (("Ann", "ann@example.com"), ("Bo", "bo@example.com"))
SEAT_PATH = re.compile(r"/s/[A-Za-z0-9_-]+")

BOARD_KINDS = {"reveal": "opening", "turn": "draw", "place_drawn": "place", None: "waiting"}


def collect(app, variant: str, langs: tuple[str, str], *, seed: int = 30, target: int = 1,
            shared: bool = True) -> tuple[dict[str, str], dict[str, str]]:
    """(pages, mails) of one 2-player game of `variant` played to its end, the host (Ann) reading
    `langs[0]`, Bo `langs[1]`: name -> HTML. Names say the kind and the language (`board-draw-de`,
    `mail-turn-en`). The invitation and its accept page are Bo's; the "created" mail is Ann's.
    `shared`: also the pages that are the same for every game (start, /new, /links, errors, the
    dev mailbox)."""
    LANGS = {PLAYERS[0][1]: langs[0], PLAYERS[1][1]: langs[1]}
    client = app.test_client()
    pages: dict[str, str] = {}
    mails: dict[str, str] = {}
    extra = {"variant": variant, "host_lang": langs[0], "players-0-lang": langs[1]}
    if variant == "action":
        extra["action_opt_target_score"] = str(target)
    status, where = h.new_game(client, PLAYERS, target=target, extra=extra)
    assert status == 303, where
    boards: dict[str, str] = {}  # address -> board path
    for m in h.mails(app):  # the host's Cancel step while the game waits for answers (issue 28.7)
        seat = next((p for p in h.links_of(m) if SEAT_PATH.fullmatch(p)), None)
        if m.template == "created" and seat:
            pages[f"cancel-step-{LANGS[m.to_addr]}"] = client.get(seat + "/cancel").text
    for m in h.mails(app):
        seat = next((p for p in h.links_of(m) if SEAT_PATH.fullmatch(p)), None)
        if seat:
            boards.setdefault(m.to_addr, seat)
        if m.template == "invitation":
            pages[f"accept-{LANGS[m.to_addr]}"] = client.get(seat).text
            pages[f"decline-step-{LANGS[m.to_addr]}"] = client.get(seat + "/decline").text  # issue 28.7
            assert h.post_form(client, seat + "/accept", page_path=seat).status_code == 303
    game = h.only_game(app)
    seats = {r.email: r.seat for r in h.seats(app, game.id)}

    def keep_mail(m: OutboxMail) -> None:
        kind = "round_over" if m.template == "turn" and "data-round-end" in (m.html_body or "") else m.template
        if kind == "turn" and "data-changed" in (m.html_body or ""):
            kind = "turn-since"  # issue 28.1: the others' moves listed, the cells they changed framed
        key = f"mail-{kind}-{LANGS[m.to_addr]}"
        if m.html_body and key not in mails:
            mails[key] = m.html_body
        links = h.move_links(m)
        if links and f"confirm-{LANGS[m.to_addr]}" not in pages:
            pages[f"confirm-{LANGS[m.to_addr]}"] = client.get(links[0]).text

    def on_step(new: list[OutboxMail]) -> None:
        for m in new:
            keep_mail(m)
        g = engine.Game.from_json(h.game_state(app, game.id)[1])
        for addr, path in boards.items():
            lang, seat = LANGS[addr], seats[addr]
            kind = BOARD_KINDS.get(g.owes(seat), g.owes(seat))
            if g.phase == "opening" and g.round > 1:
                kind = "round-end"
            name = f"board-{kind}-{lang}"
            wants_pick = variant == "action" and kind == "draw" and f"action-pick-1-{lang}" not in pages
            if name in pages and not wants_pick:
                continue
            html = client.get(path).text
            pages.setdefault(name, html)
            if wants_pick:
                _picks(client, html, lang, pages)

    h.play_by_mail(app, client, rng=random.Random(seed), on_step=on_step)
    for m in h.mails(app):
        keep_mail(m)
    for addr, path in boards.items():
        lang = LANGS[addr]
        pages[f"board-game-end-{lang}"] = client.get(path).text
        pages[f"settings-{lang}"] = client.get(path + "/prefs").text
        pages[f"rules-game-{lang}"] = client.get(path + "/rules").text  # its house rules marked (28.5)
        pages[f"check-round-{lang}"] = client.get(path + "/verify/1").text  # "check this round" (32.1)
    _extra_mails(app, client, mails, LANGS, pages)
    from service.render.links import watch_path

    with app.app_context():
        watch = watch_path(game.id, game.spectator_salt)
    for lang in ("en", "de"):
        headers = {"Accept-Language": lang}
        pages[f"spectator-{lang}"] = client.get(watch, headers=headers).text
        pages[f"rules-{variant}-{lang}"] = client.get(f"/rules/{variant}", headers=headers).text  # 28.5
        if not shared:
            continue
        pages[f"start-{lang}"] = client.get("/", headers=headers).text
        pages[f"new-{lang}"] = client.get("/new", headers=headers).text
        pages[f"links-{lang}"] = client.get("/links", headers=headers).text
        pages[f"error-404-{lang}"] = client.get("/s/no-such-token", headers=headers).text
        pages[f"error-bad-move-{lang}"] = client.get(boards["ann@example.com"] + "/m/nonsense?d=x",
                                                     headers=headers).text
    if shared and app.config.get("DEV_MAILBOX"):
        pages["devmail-index"] = client.get("/dev/mail/").text
    return pages, mails


def _picks(client, html: str, lang: str, pages: dict[str, str]) -> None:
    """SKYJO Action's two-step choices (15.5): the first step's page, then the second's."""
    for step in ("pick-1", "pick-2"):
        found = re.search(r'href="([^"]*\?pick=[^"#]*)"', html)
        if not found:
            return
        html = client.get(h.path_of(found.group(1).replace("&amp;", "&"))).text
        pages[f"action-{step}-{lang}"] = html


def _extra_mails(app, client, mails: dict[str, str], LANGS: dict[str, str], pages: dict[str, str]) -> None:
    """The answer to a reply (the game is over: not applied) and "mail me my links", and the page of
    the address's games its one link opens (issue 31.4: the game over, with its results)."""
    from service.play import reply_service
    from tests.service.test_reply_service import latest_reply_mail, reply_to

    since = h.mails(app)[-1].id
    for email in LANGS:
        mail = latest_reply_mail(app, email)
        if mail is not None:
            reply_service.handle_inbound(app, reply_to(mail, "draw swap B2"))
        h.post_form(client, "/links", {"email": email})
    for m in h.mails(app, since):
        key = f"mail-{m.template}-{LANGS[m.to_addr]}"
        if m.html_body:
            mails.setdefault(key, m.html_body)
        if m.template == "links":
            me = next(p for p in h.links_of(m) if p.startswith("/me/"))
            pages.setdefault(f"my-games-{LANGS[m.to_addr]}", client.get(me).text)
