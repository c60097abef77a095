"""Issue 32.1/32.3: verifiable deals in the service. A round's first mail to every seat carries the
seal (the commitment's fingerprint) and no seed; the mail after the round's end reveals the round's
seed and says how to check it, in each seat's language; the page "check this round" and the deal
record (`/s/<token>/deals.json`, what `skyjo-pbem verify` reads) show a round only once it is over,
and a GET changes nothing."""

from __future__ import annotations

import json
import random

import pytest
from flask_babel import gettext

import engine
from engine import deals
from service.i18n import speaking
from service.play import games, lookups, moves
from service.render.links import slug_for, texts_of_slug
from service.store import db
from service.store.models import GameRow
from tests.service import helpers as h

LANGS = ["en", "sv", "nl", "af", "de"]
PEOPLE = [("Ann", "ann@x.org"), ("Bo", "bo@x.org"), ("Cy", "cy@x.org"), ("Di", "di@x.org"), ("Ed", "ed@x.org")]


def _engine_game(app, gid: str) -> engine.Game:
    with app.app_context(), db.transaction() as s:
        return lookups.load_engine_game(s.get(GameRow, gid))


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """Five seats, one per language, played by the greedy bot through the service until round 2 is
    dealt; the mails of round 1 (up to its end) and those of round 2's deal kept apart."""
    from tests.conftest import make_app

    app = make_app(f"sqlite:///{tmp_path_factory.mktemp('seal') / 'seal.sqlite3'}")
    with app.app_context(), db.transaction(write=True) as s:
        created = games.create_game(s, host_name="Ann", host_email="ann@x.org", players=PEOPLE[1:],
                                    options={"target_score": 10_000}, setup={"seed": "seal-test"},
                                    host_lang="en", langs=LANGS[1:])
    gid, toks = created.game.id, created.tokens
    for pos in range(1, 5):
        with app.app_context(), db.transaction(write=True) as s:
            games.accept(s, toks[pos], lang=LANGS[pos])
    first = h.mails(app)
    g = _engine_game(app, gid)
    seal_one = deals.proof(g)["current"]
    seed_one = g._round_seed(1)
    rng = random.Random(32)
    last = first[-1].id
    before_end: list = []
    for _step in range(3000):
        g = _engine_game(app, gid)
        if g.round == 2:
            break
        version = g.version
        p = g.pending()[0]
        move = str(engine.bot_move(g, p.seat, "greedy", rng))
        texts = [move]
        if move == "take":  # the service applies take + swap together
            g.play(p.seat, "take")
            texts.append(str(engine.bot_move(g, p.seat, "greedy", rng)))
        with app.app_context(), db.transaction(write=True) as s:
            moves.play(s, toks[p.seat], texts_of_slug(slug_for(texts)), version)
        new = h.mails(app, last)
        if new:
            last = new[-1].id
            if _engine_game(app, gid).round == 1:
                before_end += new
            else:
                after_end = new
    assert g.round == 2
    return {"app": app, "gid": gid, "tokens": toks, "first": first, "before_end": before_end,
            "after_end": after_end, "seal_one": seal_one, "seed_one": seed_one, "game": g}


def _mail_to(mails: list, email: str, kind: str | None = None):
    mine = [m for m in mails if m.to_addr == email and (kind is None or m.template == kind)]
    assert mine, f"no mail to {email}"
    return mine[-1]


def _said(lang: str, app, text: str, **params) -> str:
    with app.test_request_context(), speaking(lang):
        return gettext(text, **params)


@pytest.mark.parametrize("pos", range(5), ids=LANGS)
def test_the_first_mail_carries_the_seal_and_no_seed(played, pos: int) -> None:
    app, lang = played["app"], LANGS[pos]
    mail = _mail_to(played["first"], PEOPLE[pos][1], "turn")
    sentence = _said(lang, app, "The deal of round %(n)s is sealed: %(fingerprint)s. Its seed is shown when the "
                     "round is over.", n=1, fingerprint=played["seal_one"]["fingerprint"])
    assert sentence in mail.text_body and sentence in mail.html_body
    for m in played["first"] + played["before_end"]:
        assert played["seed_one"] not in m.text_body + (m.html_body or ""), "round 1's seed before its end"


@pytest.mark.parametrize("pos", range(5), ids=LANGS)
def test_the_round_over_mail_reveals_the_seed_and_how_to_check_it(played, pos: int) -> None:
    app, lang, token = played["app"], LANGS[pos], played["tokens"][pos]
    mail = _mail_to(played["after_end"], PEOPLE[pos][1])
    fp = played["seal_one"]["fingerprint"]
    revealed = _said(lang, app, "The deal of round %(n)s came from the seed %(seed)s, sealed before the round began "
                     "as %(fingerprint)s.", n=1, seed=played["seed_one"], fingerprint=fp)
    how = _said(lang, app, "Or download the deal record there and run: skyjo-pbem verify RECORD.json")
    check = _said(lang, app, "Check this round:")
    if lang != "en":
        assert "came from the seed" not in revealed and "Check this round" not in check  # translated
    assert revealed in mail.text_body and how in mail.text_body
    assert f"{check} http://localhost/s/{token}/verify/1" in mail.text_body
    assert revealed in mail.html_body and f'href="http://localhost/s/{token}/verify/1"' in mail.html_body
    seal_two = deals.proof(played["game"])["current"]["fingerprint"]
    assert seal_two in mail.text_body  # round 2's first mail carries its seal
    assert played["game"]._round_seed(2) not in mail.text_body + mail.html_body


def test_the_check_page_and_the_deal_record(played) -> None:
    app, gid, token = played["app"], played["gid"], played["tokens"][2]
    client = app.test_client()
    state_before = h.full_state(app, gid)
    page = client.get(f"/s/{token}/verify/1")
    assert page.status_code == 200
    assert played["seed_one"] in page.text and played["seal_one"]["commitment"] in page.text
    assert 'data-check="ok"' in page.text and f"/s/{token}/deals.json" in page.text
    for missing in (2, 0, 99):  # round 2 is being played: its seed is still secret
        page = client.get(f"/s/{token}/verify/{missing}")
        assert page.status_code == 404
    assert played["game"]._round_seed(2) not in page.text
    got = client.get(f"/s/{token}/deals.json")
    assert got.status_code == 200 and got.mimetype == "application/json"
    record = json.loads(got.text)
    assert [r["round"] for r in record["rounds"]] == [1]
    assert deals.verify(record) == []
    assert played["game"]._round_seed(2) not in got.text and played["game"].seed not in got.text
    assert client.get("/s/not-a-token/verify/1").status_code == 404
    board = client.get(f"/s/{token}").text  # round 2's opening: round 1's end, its seed and check link
    assert 'data-deal-seed="1"' in board and played["seed_one"] in board and f"/s/{token}/verify/1" in board
    assert 'data-deal-sealed="2"' in board and played["game"]._round_seed(2) not in board
    assert h.full_state(app, gid) == state_before  # a GET changes nothing
