"""20 threads POST the same move at once: exactly one is applied, the rest get 409 (both databases)."""

from __future__ import annotations

import re
import threading

from sqlmodel import select

from service.store import db
from service.store.models import MoveRow
from tests.service import helpers as h

THREADS = 20


def test_twenty_concurrent_posts_apply_once(app):
    setup = app.test_client()
    h.new_game(setup)
    h.accept_all(app, setup)
    game = h.only_game(app)
    version0 = h.game_state(app, game.id)[0]
    first = next(m for m in h.mails(app) if h.move_links(m))
    link = h.move_links(first)[0]

    prepared = []
    for _ in range(THREADS):  # every "browser" opened the link and holds a valid form
        c = app.test_client()
        page = c.get(link)
        assert 'data-action="confirm"' in page.text
        action = re.search(r'<form method="post" action="([^"]+)">\s*<input type="hidden" name="csrf_token"',
                           page.text).group(1)
        fields = h.confirm_fields(page.text)
        prepared.append((c, action, fields))

    barrier = threading.Barrier(THREADS)
    results: list[int] = []
    answers: list[str] = []
    lock = threading.Lock()

    def worker(c, action, fields):
        barrier.wait()
        r = c.post(action, data=fields)
        with lock:
            results.append(r.status_code)
            if r.status_code == 409:
                answers.append(r.text)

    threads = [threading.Thread(target=worker, args=p) for p in prepared]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert sorted(results) == [303] + [409] * (THREADS - 1), results
    # every loser of a double click is told it was its own move (issue 20.8), also on PostgreSQL
    # where some lose at the UPDATE rather than at the version check
    assert all("You already played" in text for text in answers), [t[:200] for t in answers if "already" not in t]
    assert h.game_state(app, game.id)[0] == version0 + 1
    with app.app_context(), db.transaction() as s:
        assert len(s.exec(select(MoveRow).where(MoveRow.game_id == game.id)).all()) == 1
    # a repeated POST later is still a 409 with a readable reason and the board
    c, action, fields = prepared[0]
    again = c.post(action, data=fields)
    assert again.status_code == 409
    assert "You already played" in again.text and 'class="grid"' in again.text
