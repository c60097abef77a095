"""Operator commands (issue 31.3): `skyjo-pbem status|block|unblock|resend|cancel|forget|backup|restore`
through `service.cli.main`, on SQLite and PostgreSQL (the `app` fixture); bad input is exit code 2.
`forget` is checked by a dump of the whole database (SQLite `iterdump`, PostgreSQL every table's
rows as text) that must not hold the address or the name anywhere."""

from __future__ import annotations

import sqlite3

import pytest
from sqlalchemy import inspect, text
from sqlmodel import select

import engine
from service.cli import main
from service.mail.delivery import deliver_due
from service.mail.transport import DevTransport
from service.play import games, moves, talk
from service.play.errors import Invalid
from service.play.lookups import load_engine_game
from service.store import db, tokens
from service.store.bounce_models import MailBlockRow
from service.store.clock_models import Deadline
from service.store.models import GameRow, SeatRow
from service.store.outbox_models import OutboxMail
from service.store.reply_models import InboundReplyRow
from tests.service.helpers import mails


@pytest.fixture
def run(app, monkeypatch, capsys):
    """`skyjo-pbem ARGS --database-url <the app's>` with the app's secret: (exit code, stdout, stderr)."""
    monkeypatch.setenv("SECRET_KEY", app.config["SECRET_KEY"])
    monkeypatch.setenv("SKYJO_ENV", "development")
    monkeypatch.setenv("BASE_URL", "http://localhost")
    monkeypatch.delenv("MAIL_URL", raising=False)

    def run(*args: str) -> tuple[int, str, str]:
        capsys.readouterr()
        try:
            code = main([*args, "--database-url", app.config["DATABASE_URL"]])
        except SystemExit as exc:  # argparse's own refusals
            code = exc.code
        out = capsys.readouterr()
        return code, out.out, out.err

    return run


def dealt_game(app, players=(("Ann", "ann@example.com"), ("Bo", "bo@example.com")), seed="op") -> tuple[str, list[str]]:
    with app.app_context(), db.transaction(write=True) as s:
        created = games.create_game(s, host_name=players[0][0], host_email=players[0][1],
                                    players=list(players[1:]), setup={"seed": seed})
        for pos in range(1, len(players)):
            games.accept(s, created.tokens[pos])
        return created.game.id, [created.tokens[p] for p in range(len(players))]


def deliver(app) -> None:
    with app.app_context():
        deliver_due(db.get_engine(app), DevTransport(), limit=1000)


def play_decisions(app, game_id: str, toks: list[str], n: int) -> None:
    """`n` decisions of the seats that owe one, each the first legal move, through the move path."""
    for _ in range(n):
        with app.app_context(), db.transaction(write=True) as s:
            game = s.get(GameRow, game_id)
            g = load_engine_game(game)
            seat = g.pending()[0].seat
            moves.play(s, toks[seat], [str(g.legal_moves(seat)[0])], decision=g.decision_id(seat))


def test_status_counts_games_mail_and_overdue_deadlines(app, run):
    code, out, _ = run("status")
    assert code == 0 and "games: none" in out and "outbox: 0 due" in out and "clock workers: 0 (0 alive)" in out
    dealt_game(app)
    with app.app_context(), db.transaction(write=True) as s:
        games.create_game(s, host_name="Cy", host_email="cy@example.com", players=[("Di", "di@example.com")])
        row = s.exec(select(Deadline)).first()
        row.next_at = row.next_at.replace(year=2020)  # long overdue
    code, out, _ = run("status")
    assert code == 0
    assert "games: active 1, inviting 1" in out
    unsent = len(mails(app))  # nothing was sent yet; every mail is due now
    assert unsent > 4 and f"outbox: {unsent} due" in out and f"mails: pending {unsent}" in out
    assert "overdue deadlines: 1; oldest" in out
    assert "migrations: NOT at head" in out  # the test's tables are made without Alembic


def test_block_and_unblock_one_address(app, run):
    assert run("block", "Zed@Example.com")[0] == 0
    with app.app_context(), db.transaction() as s:
        assert [r.reason for r in s.exec(select(MailBlockRow))] == ["never"]
        with pytest.raises(Invalid, match="cannot be invited to games here"):  # /new refuses it (one path)
            games.create_game(s, host_name="Ann", host_email="ann@example.com", players=[("Zed", "zed@example.com")])
    code, out, _ = run("block", "zed@example.com")
    assert code == 0 and "already" in out
    code, out, _ = run("unblock", "zed@example.com")
    assert code == 0 and "unblocked (it was blocked: never)" in out
    with app.app_context(), db.transaction() as s:
        assert not s.exec(select(MailBlockRow)).all()
    assert run("unblock", "zed@example.com")[1].endswith("was not blocked\n")
    code, _, err = run("block", "not an address")
    assert code == 2 and "is not an email address" in err


def test_resend_is_a_new_delivery_in_the_same_thread(app, run):
    game_id, _toks = dealt_game(app)
    deliver(app)
    sent = mails(app)[-1]
    code, out, _ = run("resend", str(sent.id))
    assert code == 0 and f"mail {sent.id} queued again" in out
    again = mails(app, sent.id)
    assert len(again) == 1 and again[0].sent_at is None
    assert (again[0].to_addr, again[0].subject, again[0].text_body, again[0].html_body) == (
        sent.to_addr, sent.subject, sent.text_body, sent.html_body)
    assert again[0].message_id != sent.message_id
    assert again[0].headers["In-Reply-To"] == sent.headers["In-Reply-To"]
    # refused: not sent yet, unknown, not a number, pruned, blocked
    code, _, err = run("resend", str(again[0].id))
    assert code == 2 and "not sent yet" in err
    assert run("resend", "999999")[0] == 2
    assert run("resend", "abc")[0] == 2
    with app.app_context(), db.transaction(write=True) as s:
        s.get(OutboxMail, sent.id - 1).text_body = None
    code, _, err = run("resend", str(sent.id - 1))
    assert code == 2 and "keeps no body" in err
    run("block", sent.to_addr)
    code, _, err = run("resend", str(sent.id))
    assert code == 2 and "block list" in err


def test_cancel_a_running_game_tells_its_players(app, run):
    game_id, _toks = dealt_game(app)
    before = mails(app)[-1].id
    unsent = [m.id for m in mails(app) if m.sent_at is None and m.game_ref == game_id]
    assert unsent  # the deal's turn mails, not sent yet
    code, out, _ = run("cancel", game_id)
    assert code == 0 and "cancelled" in out
    with app.app_context(), db.transaction() as s:
        assert s.get(GameRow, game_id).status == "cancelled"
        assert not s.exec(select(Deadline).where(Deadline.game_id == game_id, Deadline.fired_at.is_(None))).all()
    told = mails(app, before)
    assert sorted(m.to_addr for m in told) == ["ann@example.com", "bo@example.com"]
    assert all("operator cancelled the game" in m.text_body for m in told)
    with app.app_context(), db.transaction() as s:  # the turn mails of a cancelled game never go out
        assert {s.get(OutboxMail, i).transport for i in unsent} == {"dropped"}
    code, out, _ = run("cancel", game_id)
    assert code == 0 and "already" in out and not mails(app, told[-1].id)
    code, _, err = run("cancel", "0123abcd")
    assert code == 2 and "no game" in err


def _dump(app) -> str:
    """Every row of every table as text."""
    url = app.config["DATABASE_URL"]
    if url.startswith("sqlite"):
        with sqlite3.connect(url.removeprefix("sqlite:///")) as conn:
            return "\n".join(conn.iterdump())
    with db.get_engine(app).connect() as conn:
        tables = inspect(conn).get_table_names()
        return "\n".join(str(row[0]) for t in tables for row in conn.execute(text(f'SELECT t::text FROM "{t}" t')))


def test_forget_leaves_no_trace_of_the_address_or_the_name(app, run):
    players = (("Ann", "ann@example.com"), ("Zelda", "Zelda.Q@Example.com"), ("Bo", "bo@example.com"))
    game_id, toks = dealt_game(app, players)
    play_decisions(app, game_id, toks, 4)
    with app.app_context(), db.transaction(write=True) as s:
        # a calendar invitation (issue 32.2) as a mail row keeps it: its summary names the players
        row = s.exec(select(OutboxMail).where(OutboxMail.game_ref == game_id)).first()
        row.calendar = {"request": {"summary": "Your move · SKYJO with Ann, Zelda and Bo"}}
        talk.write(s, toks[1], "Hello from me")
        talk.write(s, toks[0], "Good luck, Zelda!")
        s.add(InboundReplyRow(key="<r1@example.com>", game_id=game_id, seat=1, outcome="applied"))
        games.create_game(s, host_name="Zelda", host_email="zelda.q@example.com", players=[("Cy", "cy@example.com")])
    deliver(app)
    mails(app)  # every queued mail rendered: names in bodies, subjects and contexts
    with app.app_context(), db.transaction(write=True) as s:  # one turn mail still queued, as an intent
        g = s.get(GameRow, game_id)
        from service.mail import compose

        compose.notice(s, g, next(r for r in s.exec(select(SeatRow).where(SeatRow.game_id == game_id,
                                                                              SeatRow.name == "Ann"))),
                       "Zelda is thinking")
    assert "zelda" in _dump(app).lower()

    code, out, _ = run("forget", "zelda.q@example.com")
    assert code == 0 and "forgotten in 2 games" in out
    dump = _dump(app).lower()
    assert "zelda" not in dump
    # the game plays on: its state loads, the others' pages show "Player 2"
    with app.app_context(), db.transaction() as s:
        g = engine.Game.from_json(s.get(GameRow, game_id).state)
        assert g.names == ["Ann", "Player 2", "Bo"]
        zelda = s.exec(select(SeatRow).where(SeatRow.game_id == game_id, SeatRow.position == 1)).one()
        assert zelda.email == "forgotten@forgotten.invalid" and zelda.mail_pref == "off"
        assert zelda.token_hash != tokens.hash_token(toks[1])  # her links are dead
    client = app.test_client()
    assert client.get(f"/s/{toks[1]}").status_code == 404
    page = client.get(f"/s/{toks[0]}")
    assert page.status_code == 200 and "Player 2" in page.text
    code, _, err = run("forget", "nobody")
    assert code == 2 and "not an email address" in err


@pytest.mark.parametrize("db_url", [pytest.param("postgres", marks=pytest.mark.postgres)], indirect=True)
def test_backup_without_pg_dump_says_what_to_install(app, run, tmp_path, monkeypatch):
    monkeypatch.setattr("service.store.backup.shutil.which", lambda name: None)
    code, _, err = run("backup", str(tmp_path / "skyjo.backup"))
    assert code == 2 and "pg_dump is not installed" in err and not (tmp_path / "skyjo.backup").exists()


def test_backup_and_restore_round_trip(app, run, tmp_path):
    first, _ = dealt_game(app, seed="b1")
    backup = tmp_path / "skyjo.backup"
    code, out, _ = run("backup", str(backup))
    assert code == 0 and "backed up" in out, out
    assert run("backup", str(backup))[0] == 2  # never over an existing file
    second, _ = dealt_game(app, players=(("Cy", "cy@example.com"), ("Di", "di@example.com")), seed="b2")
    code, _, err = run("restore", str(backup))
    assert code == 2 and "--force" in err
    not_a_backup = tmp_path / "notes.txt"
    not_a_backup.write_text("hello")
    code, _, err = run("restore", str(not_a_backup), "--force")
    assert code == 2 and "is not a backup" in err
    assert run("restore", str(tmp_path / "missing"), "--force")[0] == 2
    db.get_engine(app).dispose()
    code, out, err = run("restore", str(backup), "--force")
    assert code == 0 and "restored" in out, err
    with app.app_context(), db.transaction() as s:
        assert [g.id for g in s.exec(select(GameRow))] == [first]
        assert s.get(GameRow, second) is None


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_backup_into_a_missing_folder_is_exit_2(app, run, tmp_path):
    code, _, err = run("backup", str(tmp_path / "no-such-folder" / "skyjo.backup"))
    assert code == 2 and "unable to open" in err
