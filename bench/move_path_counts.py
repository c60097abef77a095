#!/usr/bin/env python3
"""How much one move request does twice (issue 27.2): state decodes, status checks, move parses.

    .venv/bin/python bench/move_path_counts.py

Plays a 2-player classic game through the real app (Flask's test client, SQLite in a temporary
folder) to the first turn, then counts, for exactly one request each:

* one Confirm: the POST of a move link's Confirm form (`take-swap-B2`);
* one plan reply: a reply mail `draw: if 4 or less swap B2, if 9 or more flip B3, else swap A2`
  through `reply_service.handle_inbound`.

The counters wrap functions from the outside (here, never in production code):
* decodes: `engine.state.from_json` (what `Game.from_json`, `copy_game` and a plan's copies call);
* status checks: the move path's check function that exists in this checkout (`stale_reason`
  before issue 27.2, `moves.refusal` after; not their inner parts) and, when present, the inline
  status check of `moves.play` (counted as one per call of `play`, since it cannot be wrapped);
* move parses: `Game.parse_move` of each variant (which `Game.play` calls for a text), the classic
  grammar `engine.moves.parse_move`, and a link's slug (`render.links.texts_of_slug`).
Prints one line per request: `decodes=… status_checks=… move_parses=…`. It runs on the code before
issue 27.2 too (copy it into such a checkout), which is how the "before" figures were taken.
"""

from __future__ import annotations

import functools
import inspect
import sys
from collections import Counter
from email.message import EmailMessage
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.two_seats import started_game  # noqa: E402

COUNTS: Counter[str] = Counter()


def _wrap(owner, name: str, kind: str) -> None:
    """Count the calls of `owner.name` under `kind` (a module function or a class's method)."""
    if not hasattr(owner, name) or (inspect.isclass(owner) and name not in vars(owner)):
        return
    real = getattr(owner, name)
    if isinstance(inspect.getattr_static(owner, name), staticmethod):
        return

    @functools.wraps(real)
    def counted(*args, **kwargs):
        COUNTS[kind] += 1
        return real(*args, **kwargs)

    setattr(owner, name, counted)


def install_counters() -> None:
    import engine.game
    import engine.moves
    import engine.state
    from engine.action import legal as action_legal
    from service.play import moves
    from service.render import links

    _wrap(engine.state, "from_json", "decodes")
    for check in ("stale_reason", "refusal"):  # the entry of each check (not its parts)
        _wrap(moves, check, "status_checks")
    _wrap(engine.game.Game, "parse_move", "move_parses")
    for cls in vars(action_legal).values():
        if inspect.isclass(cls) and "parse_move" in vars(cls):
            _wrap(cls, "parse_move", "move_parses")
    _wrap(engine.moves, "parse_move", "move_parses")
    _wrap(links, "texts_of_slug", "move_parses")


def line(what: str) -> str:
    return (f"{what}: decodes={COUNTS['decodes']} status_checks={COUNTS['status_checks']} "
            f"move_parses={COUNTS['move_parses']}")


def main() -> int:
    from sqlmodel import select

    from service.mail.outbox import render_pending
    from service.play import lookups, moves, reply_service
    from service.render.links import slug_for
    from service.store import db, tokens
    from service.store.models import GameRow
    from service.store.outbox_models import OutboxMail

    app, game_id, toks = started_game("counts", 100)
    with app.app_context():
        for seat in (0, 1):  # the opening: both reveals of each seat
            for move in ("reveal A1", "reveal C3"):
                with db.transaction(write=True) as s:
                    moves.play(s, toks[seat], [move], lookups.seat_by_token(s, toks[seat])[1].version)
    client = app.test_client()

    def owed() -> tuple[int, str, int]:
        with app.app_context(), db.transaction() as s:
            game = s.get(GameRow, game_id)
            g = lookups.load_engine_game(game)
            seat = g.pending()[0].seat
            return seat, g.decision_id(seat), game.version

    install_counters()
    # one Confirm: the move link's POST
    seat, decision, _version = owed()
    slug = slug_for(["take", "swap B2"])
    with app.test_request_context():
        form_token = tokens.move_form_token(toks[seat], slug, decision)
    COUNTS.clear()
    r = client.post(f"/s/{toks[seat]}/m/{slug}", data={"csrf_token": form_token, "decision": decision,
                                                       "move": slug, "game": game_id, "seat": str(seat)})
    assert r.status_code == 303, r.text[:500]
    print(line("one Confirm (take-swap-B2)"))
    # one plan reply, to the newest mail of the seat that owes the turn now
    seat, _decision, _version = owed()
    render_pending(db.get_engine(app), app.extensions["outbox_renderer"])
    address = ("ann@example.com", "bo@example.com")[seat]
    with app.app_context(), db.transaction() as s:
        mail = s.exec(select(OutboxMail).where(OutboxMail.to_addr == address)
                      .order_by(OutboxMail.id.desc())).first()
        reply_to_addr = mail.headers["Reply-To"]
    m = EmailMessage()
    m["From"] = address
    m["To"] = reply_to_addr
    m["Subject"] = "Re: your turn"
    m["Message-ID"] = "<counts-1@player.example.com>"
    m.set_content("draw: if 4 or less swap B2, if 9 or more flip B3, else swap A2\n")
    COUNTS.clear()
    outcome = reply_service.handle_inbound(app, m.as_bytes())
    assert outcome == "applied", outcome
    print(line("one plan reply (draw: if 4 or less swap B2, if 9 or more flip B3, else swap A2)"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
