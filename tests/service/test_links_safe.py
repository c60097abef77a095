"""Mail link scanners open every link: GET and HEAD of every link in every mail of a whole game
change nothing (state, version, seats, move log, outbox)."""

from __future__ import annotations

import random

from sqlmodel import func, select

from service.store import db
from service.store.models import MoveRow, SeatRow
from service.store.outbox_models import OutboxMail
from tests.conftest import sqlite_suffices
from tests.service import helpers as h


def snapshot(app, game_id):
    version, state, status = h.game_state(app, game_id)
    with app.app_context(), db.transaction() as s:
        seats = [(r.token_hash, r.mail_pref, r.status) for r in
                 s.exec(select(SeatRow).where(SeatRow.game_id == game_id).order_by(SeatRow.position))]
        moves = s.exec(select(func.count()).select_from(MoveRow)).one()
        mails = s.exec(select(func.count()).select_from(OutboxMail)).one()
    return version, state, status, seats, moves, mails


@sqlite_suffices  # a whole game: PostgreSQL adds nothing its race tests miss (tests/conftest.py)
def test_get_and_head_of_every_mail_link_change_nothing(app, client):
    h.new_game(client)
    h.accept_all(app, client)
    game = h.only_game(app)
    checked = {"links": 0, "moves": 0}

    def scan(new_mails):
        if not new_mails:
            return
        before = snapshot(app, game.id)
        for m in new_mails:
            urls = h.links_of(m) + [h.path_of(m.headers["List-Unsubscribe"].strip("<>"))]
            for path in urls:
                for method in (client.get, client.head):
                    r = method(path)
                    assert r.status_code < 500, (path, r.status_code)
                    checked["links"] += 1
                checked["moves"] += "/m/" in path
        assert snapshot(app, game.id) == before

    # the invitation mails too
    h.play_by_mail(app, client, rng=random.Random(11), on_step=scan)
    scan(h.mails(app)[::4])  # and at the end, a quarter of the mails again (their links now stale)
    assert checked["moves"] > 20 and checked["links"] > 100
