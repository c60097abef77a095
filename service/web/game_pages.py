"""A game's side pages (issue 28): the rules for newcomers (28.5) and the version a waiting page
polls (28.6). GET only: nothing here changes anything.

* `/rules/<variant>`: a variant's rules with its default options (no game; the browser's language).
* `/s/<token>/rules`, `/watch/<game_id>/<token>/rules`: the rules of that game, its options that
  differ from the default marked, its clock (the seat's language; a spectator's browser's).
* `follow_data`: what a board that waits for another seat polls (the board pages of `routes`).
* `/s/<token>/verify/<round>`: "check this round" (issue 32.1): the round's commitment, its revealed
  seed and the result of the check; `/s/<token>/deals.json`: the deal record `skyjo-pbem verify` reads.
* `/s/<token>/version`, `/watch/<game_id>/<token>/version`: `{"status", "version"}` of the game,
  public (`play.board.public_version`), never cached: a waiting board reloads when they change.
"""

from __future__ import annotations

import json
import re

from flask import Blueprint, Response, render_template, request
from flask_babel import gettext as _

from service.play import board
from service.play.errors import NotFound
from service.render.clock_text import rules_line
from service.render.links import seat_path, watch_path
from service.render.rules import VARIANT_LABELS, game_options, variant_label
from service.store.db import transaction
from service.store.models import GameRow

bp = Blueprint("game_pages", __name__)
GAME_ID = re.compile(r"[0-9a-f]{1,24}")
NO_STORE = {"Cache-Control": "no-store"}


def _rules_page(variant: str, options: dict | None, game: GameRow | None = None, back_url: str | None = None):
    clock = rules_line(game.decision_hours, list(game.reminder_hours or []), game.timeout_policy) if game else None
    return render_template("rules.html", variant=variant, variant_label=variant_label(variant),
                           options=game_options(variant, options), clock_line=clock, back_url=back_url,
                           variants=[(v, str(label)) for v, label in VARIANT_LABELS.items()])


@bp.get("/rules")
@bp.get("/rules/<variant>")
def rules(variant: str = "classic"):
    if variant not in VARIANT_LABELS:
        raise NotFound(_("There are no rules of that name."))
    return _rules_page(variant, None)


@bp.get("/s/<token>/rules")
def seat_rules(token: str):
    with transaction() as s:
        _seat, game = board.seat_game(s, token)
    return _rules_page(game.variant, game.options, game, back_url=seat_path(token))


@bp.get("/s/<token>/verify/<int:number>")
def verify_round(token: str, number: int):
    with transaction() as s:
        check = board.round_check(s, token, number)
    return render_template("verify.html", check=check, game=check["game"], token=token,
                           record_url=f"{seat_path(token)}/deals.json", back_url=seat_path(token))


@bp.get("/s/<token>/deals.json")
def deal_record(token: str):
    with transaction() as s:
        record = board.round_check(s, token, 1)["record"]
    body = json.dumps(record, indent=1, ensure_ascii=False) + "\n"
    return Response(body, mimetype="application/json",
                    headers={"Content-Disposition": 'attachment; filename="RECORD.json"', **NO_STORE})


def _watched(game_id: str, token: str) -> GameRow:
    if not GAME_ID.fullmatch(game_id):
        raise NotFound(_("This spectator link is not valid."))
    with transaction() as s:
        game = board.watched_game(s, game_id, token)
    if game is None:
        raise NotFound(_("This spectator link is not valid."))
    return game


@bp.get("/watch/<game_id>/<token>/rules")
def watch_rules(game_id: str, token: str):
    game = _watched(game_id, token)
    return _rules_page(game.variant, game.options, game, back_url=watch_path(game.id, game.spectator_salt))


def follow_data(page: board.Board, here: str, *, version_url: str, owes: bool, whole_log: bool) -> dict | None:
    """What a page that waits for another seat polls (issue 28.6, `templates/_follow.html`): None when
    the viewer owes a decision or the game is over. Before the deal, the page of a seat that has
    accepted waits for the others' answers: it follows until the cards are dealt (or the game is
    cancelled). Without JavaScript it refreshes itself after 15 s, doubling with each refresh
    (`?wait=`) up to 10 minutes."""
    view, game = page.view, page.game
    if game.status == "inviting":
        if page.seat is None or page.seat.status != "accepted":
            return None
    elif owes or game.status != "active" or view.get("phase") == "game_over":
        return None
    wait = min(max(request.args.get("wait", 0, type=int) or 0, 0), 6)
    reload_url = f"{here}?log=all" if whole_log else here
    joiner = "&" if "?" in reload_url else "?"
    return {"url": version_url, "version": game.version if view is None else view["version"], "status": game.status,
            "reload_url": reload_url, "next_url": f"{reload_url}{joiner}wait={wait + 1}",
            "refresh": min(15 * 2 ** wait, 600)}


@bp.get("/s/<token>/version")
def seat_version(token: str):
    with transaction() as s:
        _seat, game = board.seat_game(s, token)
        return board.public_version(game), 200, NO_STORE


@bp.get("/watch/<game_id>/<token>/version")
def watch_version(game_id: str, token: str):
    return board.public_version(_watched(game_id, token)), 200, NO_STORE
