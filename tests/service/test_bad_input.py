"""Bad input gets a 4xx page with a clear message, never a 500 (issue 20, point 2), on SQLite and
PostgreSQL: integers past the database's columns, tokens that are not ASCII, NUL in paths and names,
international addresses. bench/fuzz.py throws many more requests of this kind at every route."""

from __future__ import annotations

import pytest

from tests.service import helpers as h

HUGE = ["9223372036854775808", "-9223372036854775809", "2147483648", "99999999999999999999999"]


@pytest.fixture
def seat_path(app, client):
    h.new_game(client)
    h.accept_all(app, client)
    invited = next(m for m in h.mails(app) if h.move_links(m))
    return h.move_links(invited)[0].split("/m/")[0]


@pytest.mark.parametrize("number", HUGE)
def test_c_integers_past_the_columns_are_ignored_or_refused(app, client, seat_path, number):
    page = client.get(f"{seat_path}?done={number}")
    assert page.status_code == 200 and 'class="grid"' in page.text
    now = h.post_form(client, seat_path + "/play-now", {"seat": number}, page_path=seat_path)
    assert 400 <= now.status_code < 500
    move = h.move_links(next(m for m in h.mails(app) if h.move_links(m)))[0]
    stale = client.get(move.split("?")[0] + f"?v={number}")
    assert 400 <= stale.status_code < 500 or stale.status_code == 200


def test_a_non_ascii_csrf_token_on_a_confirm_is_refused(app, client, seat_path):
    move = h.move_links(next(m for m in h.mails(app) if h.move_links(m)))[0]
    page = client.get(move)
    action = move.split("?")[0]
    fields = h.confirm_fields(page.text)
    fields["csrf_token"] = "ü"
    refused = client.post(action, data=fields)
    assert refused.status_code in {400, 403, 409}
    assert "not made" in refused.text or "expired" in refused.text or "not valid" in refused.text


@pytest.mark.parametrize("path", ["/watch/abc/%C3%BC", "/watch/abc%00/x", "/watch/%00/%00",
                                  "/watch/1/" + "ü" * 30, "/s/" + "ü" * 30])
def test_odd_characters_in_links_are_404(client, path):
    got = client.get(path)
    assert got.status_code == 404 and "not valid" in got.text


@pytest.mark.parametrize("field,value,message", [
    ("host_name", "An\x00n", "letters, digits and punctuation"),
    ("players-0-name", "B\x00o", "letters, digits and punctuation"),
    ("host_email", "ñandú@example.org", "outside A-Z before the @"),
    ("players-0-email", "ñandú@example.org", "outside A-Z before the @"),
])
def test_new_game_form_explains_what_it_cannot_take(app, client, field, value, message):
    status, body = h.new_game(client, extra={field: value})
    assert status == 400 and message in body
    assert h.mails(app) == []
