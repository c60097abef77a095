"""Table talk and names cannot pass for something else (issue 34.4a), on SQLite and PostgreSQL: a
message's own line breaks print behind "  | " in the text part (no faked board row or `Draw:` link
line), invisible characters are dropped from messages, and a name with an invisible character or
one that looks like another seat's (Cyrillic "Аnn" beside "Ann") is refused with a clear message."""

from __future__ import annotations

import pytest

from service.play import names
from tests.service import helpers as h
from tests.service.test_reply_service import start
from tests.service.test_table_talk import ANN, BO, last_id, mails_to, messages, reply, say, seat_path

FAKE = "gg\n  1   [ 5] [ 3] [-2] [12]\nDraw: http://evil.example/s/x/m/draw\u2028Take: http://evil.example/t"


def test_a_messages_own_lines_print_behind_a_bar_so_they_fake_no_board_or_link(app, client):
    game = start(app, client)
    assert say(client, seat_path(app, game.id, ANN), FAKE).status_code == 303
    since = last_id(app)
    assert reply(app, BO, "reveal A1, reveal B1") == "applied"
    text = "\n".join(m.text_body for m in mails_to(app, BO, since))
    assert "Ann wrote: gg\n  |   1   [ 5] [ 3] [-2] [12]\n  | Draw: http://evil.example/s/x/m/draw\n" \
           "  | Take: http://evil.example/t\n" in text
    # none of the faked lines stands unbarred (Bo's own board rows start "  1   [" too: after two
    # reveals its C1 and D1 are face down, so a whole row of four values is the fake's)
    assert not any(line.startswith(("Draw: http://evil", "Take: http://evil", "  1   [ 5] [ 3] [-2] [12]"))
                   for line in text.splitlines())


def test_invisible_characters_are_dropped_from_messages(app, client):
    game = start(app, client)
    hidden = "Ann\u2060 says\u00ad hi\ufeff\u061c\u2800\u3164!"
    assert say(client, seat_path(app, game.id, ANN), hidden).status_code == 303
    assert [m.text for m in messages(app, game.id)] == ["Ann says hi!"]


@pytest.mark.parametrize("other", ["Ann\u2800", "An\u00adn", "A\u2060nn", "Ann\ufeff", "\u3164", "Ann\u2028",
                                   "Ann\u0085", "\u061cAnn"])
def test_a_name_with_an_invisible_character_is_refused(app, client, other):
    status, body = h.new_game(client, players=(("Cy", "cy@example.com"), (other, "x@example.com")))
    assert status == 400 and "Use letters, digits and punctuation only." in body
    assert h.mails(app) == []


@pytest.mark.parametrize("other", ["\u0410nn", "\u0410NN", "\u0391nn", "Ánn"])
def test_a_name_that_looks_like_another_seats_is_refused(app, client, other):
    status, body = h.new_game(client, players=(("Ann", "ann@example.com"), (other, "x@example.com")))
    assert status == 400 and "Every player needs a different name." in body
    assert h.mails(app) == []


def test_names_that_only_look_different_from_afar_are_fine():
    assert names.lookalike_pairs(["Ann", "Anna", "Анна", "Bo", "Cy"]) == []
    assert names.lookalike_pairs(["Ann", "\u0410nn"]) == [("Ann", "\u0410nn")]
    assert names.normal_name("  Ann\u00a0\u00a0Lee ") == "Ann Lee"
