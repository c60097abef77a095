"""Issue 28.5–28.7: what a newcomer is told (rules pages, the invitation's terms), the waiting
pages' version poll, Decline and Cancel in two steps, a declined invitee who changes their mind
(SQLite and PostgreSQL through the `app` fixture)."""

from __future__ import annotations

import re

import engine
from service.render import links
from service.store import tokens
from tests.service import helpers as h

TWO = (("Ann", "ann@example.com"), ("Bo", "bo@example.com"))
THREE = TWO + (("Cy", "cy@example.com"),)


def seat_path(app, game_id, pos):
    with app.app_context():
        return links.seat_path(tokens.seat_token(h.seats(app, game_id)[pos].token_salt))


def test_decline_asks_first_and_a_declined_invitee_may_still_accept(app, client):
    """28.7: the accept page's Decline is a link to a confirmation step (a GET: nothing changes);
    only its POST declines. The host's page then says who declined, and the invitee can still
    accept while the game waits: the cards are dealt with them."""
    h.new_game(client, players=TWO)
    game = h.only_game(app)
    host, bo = seat_path(app, game.id, 0), seat_path(app, game.id, 1)
    page = client.get(bo).text
    assert f'href="{bo}/decline#ask"' in page and f'action="{bo}/decline"' not in page  # one click declines nothing
    ask = client.get(bo + "/decline")
    assert ask.status_code == 200 and 'data-ask="decline"' in ask.text and 'data-action="back"' in ask.text
    assert f'action="{bo}/decline"' in ask.text
    assert h.seats(app, game.id)[1].status == "invited"  # the GET changed nothing
    assert h.post_form(client, bo + "/decline", page_path=bo + "/decline").status_code == 303
    assert h.seats(app, game.id)[1].status == "declined"
    assert "data-ask" not in client.get(bo + "/decline").text  # nothing left to decline
    assert "data-ask" not in client.get(bo + "/cancel").text  # only the host cancels
    assert "Bo declined the invitation." in client.get(host).text  # the host's page says who
    again = client.get(bo).text
    assert "data-you-declined" in again and f'action="{bo}/accept"' in again
    assert h.post_form(client, bo + "/accept", page_path=bo).status_code == 303
    version, state, status = h.game_state(app, game.id)
    assert status == "active" and engine.Game.from_json(state).n == 2
    assert "Ann and Bo" in h.only_game(app).title or "Bo" in h.only_game(app).title


def test_cancel_asks_first(app, client):
    h.new_game(client, players=THREE)
    game = h.only_game(app)
    host = seat_path(app, game.id, 0)
    page = client.get(host).text
    assert f'href="{host}/cancel#ask"' in page and f'action="{host}/cancel"' not in page
    ask = client.get(host + "/cancel")
    assert 'data-ask="cancel"' in ask.text and f'action="{host}/cancel"' in ask.text
    assert h.game_state(app, game.id)[2] == "inviting"
    assert h.post_form(client, host + "/cancel", page_path=host + "/cancel").status_code == 303
    assert h.game_state(app, game.id)[2] == "cancelled"


def test_the_host_page_names_whom_it_waits_for(app, client):
    h.new_game(client, players=THREE)
    game = h.only_game(app)
    host, cy = seat_path(app, game.id, 0), seat_path(app, game.id, 2)
    page = client.get(host).text
    assert "Waiting for Bo and Cy to answer" in page
    # 28.6: an accepted seat's page follows the game until the deal; an invitee's (to answer) does not
    assert "data-follow" in page and client.get(host + "/version").get_json()["status"] == "inviting"
    assert "data-follow" not in client.get(cy).text
    assert h.post_form(client, cy + "/decline", page_path=cy + "/decline").status_code == 303
    page = client.get(host).text
    assert "Waiting for Bo to answer" in page and "Cy declined the invitation." in page


def test_rules_pages_per_variant_and_a_games_house_rules(app, client):
    """28.5: a general page per variant (defaults) and a game's page with its options that differ
    from the default marked, beside the rule they change, in the seat's language."""
    classic, action = client.get("/rules/classic"), client.get("/rules/action")
    assert classic.status_code == action.status_code == 200
    assert 'data-rule="C8"' in classic.text and "data-changed" not in classic.text
    assert 'data-rule="A6 A7"' in action.text and action.text.count("<dt>") == 9  # the nine action cards
    assert client.get("/rules/poker").status_code == 404
    # h.new_game: target 1 and a shared victory (defaults 100 and one more round); doubling off
    h.new_game(client, players=TWO, extra={"players-0-lang": "de"})
    game = h.only_game(app)
    page = client.get(seat_path(app, game.id, 0) + "/rules").text
    changed = re.findall(r'data-house-rule="(\w+)"', page)
    assert sorted(set(changed)) == ["final_tiebreak", "target_score"]
    assert page.count("data-changed") == 2 and "48" in page  # the options table, the clock line
    c12 = re.search(r'<li data-rule="C12">(.*?)</li>', page, re.S).group(1)
    assert "reaches 1;" in c12 and 'data-house-rule="target_score"' in c12
    german = client.get(seat_path(app, game.id, 1) + "/rules").text
    assert "Nachziehstapel" in german and '<html lang="de">' in german


def test_invitation_and_accept_page_say_the_terms_and_link_the_rules(app, client):
    h.new_game(client, players=TWO, extra={"decision_hours": "72", "timeout_policy": "bot"})
    game = h.only_game(app)
    bo = seat_path(app, game.id, 1)
    invitation = next(m for m in h.mails(app) if m.template == "invitation")
    for body in (invitation.text_body, invitation.html_body, client.get(bo).text):
        assert "Variant: Classic SKYJO" in body
        assert "Game ends when a total reaches: 1" in body  # a house rule
        assert "3 days per decision" in body and "the computer makes the decision" in body
        assert f"{bo}/rules" in body


def test_version_poll_is_public_and_changes_nothing(app, client):
    """28.6: the waiting page's poll answers the game's status and version only, uncached."""
    h.new_game(client, players=TWO)
    h.accept_all(app, client)
    game = h.only_game(app)
    ann = seat_path(app, game.id, 0)
    before = h.game_state(app, game.id)
    r = client.get(ann + "/version")
    assert r.status_code == 200 and r.headers["Cache-Control"] == "no-store"
    assert r.get_json() == {"status": "active", "version": before[0]}
    assert h.game_state(app, game.id) == before
    with app.app_context():
        watch = links.watch_path(game.id, h.only_game(app).spectator_salt)
    assert client.get(watch + "/version").get_json() == r.get_json()
    assert client.get(f"/watch/{game.id}/nope/version").status_code == 404
    assert client.get("/s/not-a-token/version").status_code == 404


def test_rules_invitation_and_confirmation_steps_speak_each_language(app, client):
    """28.5/28.7 in sv, nl, af, de: the rules pages (general and a game's), the invitation mail and
    page with the game's terms, the Decline and Cancel steps: no English left over (the check of
    tests/service/test_i18n_complete.py, on these new page kinds)."""
    from tests.service.test_i18n_complete import _english_words, _leftovers

    english = _english_words()
    found = {}
    langs = ("af", "sv", "nl", "de")
    for lang in langs:
        for variant in ("classic", "action"):
            page = client.get(f"/rules/{variant}", headers={"Accept-Language": lang}).text
            found[f"{lang} /rules/{variant}"] = _leftovers(page, english[lang])
    players = TWO + (("Cy", "cy@example.com"), ("Dirk", "dirk@example.com"))
    h.new_game(client, players=players, extra={"host_lang": "af", "players-0-lang": "sv", "players-1-lang": "nl",
                                               "players-2-lang": "de", "opt_doubling_tie": "lenient"})
    game = h.only_game(app)
    for pos, lang in enumerate(langs):
        path = seat_path(app, game.id, pos)
        found[f"{lang} rules"] = _leftovers(client.get(path + "/rules").text, english[lang])
        step = "/cancel" if pos == 0 else "/decline"
        found[f"{lang} {step}"] = _leftovers(client.get(path + step).text, english[lang])
        found[f"{lang} invite page"] = _leftovers(client.get(path).text, english[lang])
    for m in h.mails(app):
        if m.template == "invitation":
            lang = langs[[e for _n, e in players].index(m.to_addr)]
            found[f"{lang} invitation"] = _leftovers(m.text_body + m.html_body, english[lang])
            assert "&#" not in m.text_body and "&amp;" not in m.text_body  # plain text is not HTML-escaped
    found = {k: v for k, v in found.items() if v}
    assert not found, found


def test_draw_pile_shows_its_count_as_a_count(app, client):
    """28.5: the draw pile is a face-down card with "draw pile: 125 cards" under it, not a card
    that shows the number like a value."""
    h.new_game(client, players=TWO)
    h.accept_all(app, client)
    game = h.only_game(app)
    page = client.get(seat_path(app, game.id, 0)).text
    pile = re.search(r'<div class="pile"[^>]*data-draw-count="(\d+)"[^>]*>(.*?)</div>', page, re.S)
    assert pile, "the draw pile"
    count, inner = pile.groups()
    assert '<span class="c down back"></span>' in inner and f"draw pile: {count} cards" in inner


def test_the_legend_explains_doubled_only_when_somebody_was_doubled(app):
    from flask import render_template_string

    from service.render.sheet import sheet_text

    players = [{"seat": 0, "name": "Ann", "total": 10}, {"seat": 1, "name": "Bo", "total": 40}]
    plain = {"players": players, "options": {"target_score": 100},
             "rounds": [{"round": 1, "scores": [10, 20], "closer": 0, "doubled": []}]}
    doubled = {**plain, "rounds": [{"round": 1, "scores": [10, 40], "closer": 1, "doubled": [1]}]}
    macro = '{% import "_sheet.html" as sh %}{{ sh.sheet(v, r.score_rows(v), None) }}'
    with app.test_request_context():
        assert "doubled" not in render_template_string(macro, v=plain) and "doubled" not in sheet_text(plain)
        assert "×2 doubled" in render_template_string(macro, v=doubled) and "×2 doubled" in sheet_text(doubled)


def test_a_rematch_against_computers_says_the_cards_are_dealt(app, client):
    """28.5: no "Invitations are on their way" when none went out (only computers to invite)."""
    import random

    from tests.service.test_computer_seats import create, play_out

    game_id, created = create(app, [("", "", "easy")], options={"target_score": 1}, seed="newcomers-rematch")
    ann = links.seat_path(created[0])
    play_out(app, client, game_id, ann, random.Random(5), 300)
    r = h.post_form(client, ann + "/rematch", page_path=ann)
    assert r.status_code == 303
    page = client.get(r.headers["Location"]).text
    assert "Rematch! The cards are dealt." in page and "Invitations are on their way" not in page


def test_a_waiting_board_follows_without_javascript_and_the_spectator_marks_its_times(app, client):
    """28.6: the board of a seat that owes nothing carries the poll (the version URL) and, for a
    browser without JavaScript, a meta refresh whose pause doubles with `?wait=`, and a Reload
    link; a board that owes a decision has none. 28.7: the spectator's deadlines are <time> elements
    (UTC, named, until a script says them in the browser's zone)."""
    h.new_game(client, players=TWO)
    h.accept_all(app, client)
    game = h.only_game(app)
    ann = seat_path(app, game.id, 0)
    assert "data-follow" not in client.get(ann).text  # Ann owes her opening reveal
    for _ in range(2):
        action, fields = h.board_moves(client.get(ann).text)[0]
        assert client.post(action, data=fields).status_code == 303
    page = client.get(ann).text  # now Ann waits for Bo
    assert "data-follow" in page and f'"{ann}/version"' in page and f'href="{ann}" data-reload' in page
    assert f'<meta http-equiv="refresh" content="15; url={ann}?wait=1">' in page
    assert f'content="60; url={ann}?wait=3"' in client.get(ann + "?wait=2").text
    assert 'content="600;' in client.get(ann + "?wait=99").text
    with app.app_context():
        watch = links.watch_path(game.id, h.only_game(app).spectator_salt)
    spectator = client.get(watch).text
    when = re.search(r'<time datetime="(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)" data-local>([^<]*)</time>', spectator)
    assert when and when.group(2).strip(), "Bo's deadline, in UTC until the browser says it in its zone"
    assert "Bo has until" in spectator
