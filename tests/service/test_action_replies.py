"""SKYJO Action by reply (issue 15.5): the reply forms the README and the turn mail offer work in an
Action game as in classic - both opening reveals at once (A3), draw and place or flip (C7 in A4 a),
take and swap, a condition on the drawn card with a star (A6) - and Action's own moves by name."""

from __future__ import annotations

import re

import engine
from service.play import reply_service
from tests.conftest import sqlite_suffices
from tests.service import helpers as h
from tests.service.test_action_pages import PLAYERS, _load, _turn_seat
from tests.service.test_reply_service import answers, last_id, latest_reply_mail, reply_to, version_of


def _start(app, client):
    status, _location = h.new_game(client, PLAYERS[:2], extra={"variant": "action", "opt_target_score": "100"})
    assert status == 303
    h.accept_all(app, client)
    return h.only_game(app)


def _reply(app, addr: str, body: str):
    mail = latest_reply_mail(app, addr)
    since = last_id(app)
    reply_service.handle_inbound(app, reply_to(mail, body))
    got = answers(app, since, addr)
    assert len(got) == 1, [m.text_body[:300] for m in h.mails(app, since)]
    return got[0]


def test_a3_both_opening_reveals_in_one_reply(app, client):
    """Issue 15: `reveal A1, reveal C3` was refused in Action ("your reply must end with 'reveal A1'")."""
    game = _start(app, client)
    v0 = version_of(app, game.id)
    got = _reply(app, "ann@example.com", "reveal A1, reveal C3")
    assert "Understood: reveal A1, reveal C3" in got.text_body, got.text_body[:600]
    assert version_of(app, game.id) == v0 + 2
    seat = next(s.seat for s in h.seats(app, game.id) if s.email == "ann@example.com")
    faces = _load(app, game.id).face[seat]
    assert faces[0] == faces[10] == 1  # A1 and C3 face-up


def _settle(app, gid: str) -> None:
    """Answer the out-of-turn decisions a star leaves (A7: decline; A6: keep) by reply."""
    for _ in range(8):
        g = _load(app, gid)
        owed = [p for p in g.pending() if p.kind in ("star_trigger", "star_set", "reveal")]
        if not owed:
            return
        p = owed[0]
        email = next(s.email for s in h.seats(app, gid) if s.seat == p.seat)
        body = {"star_trigger": "decline", "star_set": "keep"}.get(p.kind, "reveal A1, reveal C3")
        assert "Understood:" in _reply(app, email, body).text_body


def test_a4_the_documented_reply_forms_work_in_action(app, client):
    """README's forms (`draw swap B2`, `take swap C1`, `draw flip C3`, a condition with a star)
    and an Action move by name, each a reply to the newest turn mail."""
    game = _start(app, client)
    _settle(app, game.id)
    emails = {s.seat: s.email for s in h.seats(app, game.id)}
    for body in ["draw: if star swap A1, if 4 or less swap B2, else flip D3", "take swap C1",
                 "draw flip B3", "draw swap B2", "action row 2"]:
        g = _load(app, game.id)
        seat = _turn_seat(g)
        if body.startswith("draw flip") or body.endswith("flip D3"):
            down = [engine.moves.CELL_NAMES[c] for c in range(12) if g.face[seat][c] == 0]
            body = body.replace("B3", down[0]).replace("D3", down[-1])
        v = version_of(app, game.id)
        got = _reply(app, emails[seat], body)
        assert "Understood:" in got.text_body, (body, got.text_body[:800])
        assert version_of(app, game.id) > v
        _settle(app, game.id)


@sqlite_suffices  # what pages and mails say: PostgreSQL adds nothing (tests/conftest.py)
def test_issue17_skyjo_actions_own_moves_by_reply_in_each_players_language(app, client):
    """Issue 17, point 4, in SKYJO Action: Bo (Swedish) and Cy (German) reply with Action's moves in
    their own words (`actionrad 2`, `spela dubbeldrag`, `avstå`, `wähle 2 C3` ...); each is played
    once and answered in their language, the move shown back in their words."""
    import random

    from service.words.reply_words import in_words_of

    extra = {"variant": "action", "opt_target_score": "100", "host_lang": "en", "players-0-lang": "sv",
             "players-1-lang": "de"}
    assert h.new_game(client, PLAYERS[:3], extra=extra)[0] == 303
    for m in h.mails(app):
        if m.template == "invitation":
            seat = next(p for p in h.links_of(m) if re.fullmatch(r"/s/[A-Za-z0-9_-]+", p))
            assert h.post_form(client, seat + "/accept", page_path=seat).status_code == 303
    game = h.only_game(app)
    rows = {r.seat: r for r in h.seats(app, game.id)}
    assert sorted(r.lang for r in rows.values()) == ["de", "en", "sv"]
    understood = {"sv": "Uppfattat: ", "de": "Verstanden: ", "en": "Understood: "}
    action_words = ("action", "play", "decline", "keep", "remove", "pick", "block", "allow", "meteor", "discard")
    rng, played = random.Random(7), {"sv": set(), "de": set()}
    for _ in range(120):
        g = _load(app, game.id)
        if g.is_over or all(len(kinds) >= 3 for kinds in played.values()):
            break
        p = g.pending()[0]
        moves = [m.text() for m in g.legal_moves(p.seat)]
        english = rng.choice([m for m in moves if m.split()[0] in action_words] or moves)
        row = rows[p.seat]
        text = in_words_of(english, row.lang)
        since, v = last_id(app), version_of(app, game.id)
        assert reply_service.handle_inbound(app, reply_to(latest_reply_mail(app, row.email), text)) == "applied", \
            (row.lang, text)
        assert version_of(app, game.id) == v + 1, (row.lang, text)
        answer = next(m for m in h.mails(app, since) if m.to_addr == row.email and m.template == "answer")
        assert understood[row.lang] + text in answer.text_body, (text, answer.text_body[:500])
        if row.lang != "en" and english.split()[0] in action_words:
            played[row.lang].add(english.split()[0])
    assert all(len(kinds) >= 3 for kinds in played.values()), played
