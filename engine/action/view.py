"""What a seat sees of a SKYJO Action game, added to the classic view (engine.view.view).

Public: the action row, the action discard pile (all of it: Reactivation picks from it), the action
deck's size, every seat's held action cards, star bonuses, kept star sets, the decisions owed now.
Private, in `action.private` of the viewer's own view only: the card they drew, the cards of their
Draw three, their insight results (also as `known` on the face-down grid cells concerned).

This module sits above the game: `engine.action` registers `extend_view` as the variant's `view`
(`engine.variants`), and `engine.view.view` calls it for SKYJO Action games.
"""

from __future__ import annotations

from typing import Any

from ..moves import CELL_NAMES
from ..phases import OPENING, PLAY, STAGE_DRAWN
from . import legal, scoring
from .phases import STAGE_THREE, line_label
from .rules import STAR_COLUMN_BONUS, STAR_ROW_BONUS


def _decision(game: Any, e: dict[str, Any]) -> dict[str, Any]:
    d: dict[str, Any] = {"seat": e["seat"], "kind": e["kind"]}
    if e["kind"] == "star_set":
        line, i = e["set"]
        d["set"] = line_label(line, i)
        d["bonus"] = STAR_COLUMN_BONUS if line == "column" else STAR_ROW_BONUS
    elif e["kind"] == "defend":
        d["attacker"] = e["attacker"]
        d["card"] = e["card"]
        if e["card"] == "thief":
            d["steal"] = e["steal"]
        else:
            d["attacker_cell"], d["cell"] = (CELL_NAMES[c] for c in e["cells"])
    elif e["kind"] == "meteor":
        d["attacker"] = e["attacker"]
    return d


PATTERNS: dict[tuple[Any, ...], str] = {
    ("reveal",): "reveal <cell>",
    ("draw",): "draw",
    ("take",): "take",
    ("swap",): "swap <cell>",
    ("flip",): "flip <cell>",
    ("action_row",): "action row 1-4",
    ("action_deck",): "action deck",
    ("play", "swap-own"): "play swap-own <cell> <cell>",
    ("play", "double-move"): "play double-move",
    ("play", "draw-three"): "play draw-three",
    ("play", "insight"): "play insight row 1-3 of <player> | play insight column A-D of <player>",
    ("play", "defense"): "play defense",
    ("play", "swap-with-player"): "play swap-with-player <your cell> with <player> <their cell>",
    ("play", "thief"): "play thief from <player> <card>",
    ("play", "meteor-shower"): "play meteor-shower",
    ("discard_action",): "discard action <card>",
    ("pick",): "pick 1-3 <cell>",
    ("pick_none",): "pick none",
    ("meteor",): "meteor <cell>",
    ("block",): "block",
    ("allow",): "allow",
    ("keep",): "keep",
    ("remove",): "remove",
    ("decline",): "decline",
    ("pass",): "pass",
}


def move_help(moves: list[Any]) -> list[dict[str, Any]]:
    """The viewer's legal moves grouped for people: a pattern, an example and how many there are."""
    groups: dict[str, dict[str, Any]] = {}
    for m in moves:
        card = getattr(m, "card", None)
        key = (m.kind, card) if m.kind == "play" else (m.kind,)
        pattern = PATTERNS.get(key, m.kind)
        if getattr(m, "via", False):
            pattern = "play reactivation " + pattern.replace("play ", "").replace(" | play ", " | ")
        g = groups.setdefault(pattern, {"pattern": pattern, "example": m.text(), "count": 0})
        g["count"] += 1
    return list(groups.values())


def extend_view(game: Any, data: dict[str, Any], seat: int | None) -> None:
    playing = game.phase == PLAY
    queue = legal.visible_queue(game) if game.phase in (PLAY, OPENING) else []
    for p in data["players"]:
        s = p["seat"]
        p["action_cards"] = list(game.hands[s])
        p["star_bonus"] = game.banked[s]
        p["kept_star_sets"] = [
            line_label(line, i) for line, i in game.kept[s] if scoring.whole_star_set(game, s, [line, i])
        ]
    private = None
    if seat is not None:
        known = {(t, c): v for t, c, v in game.known[seat]}
        for p in data["players"]:
            for i, cell in enumerate(p["grid"]):
                v = known.get((p["seat"], i), None)
                if cell["face"] == "down" and (p["seat"], i) in known:
                    cell["known"] = v
        mine = playing and seat == game.turn
        private = {
            "drawn": game.held if mine and game.stage == STAGE_DRAWN else None,
            "three": list(game.three) if mine and game.stage == STAGE_THREE else [],
            "insight": [{"seat": t, "cell": CELL_NAMES[c], "value": v} for t, c, v in game.known[seat]],
        }
    data["action"] = {
        "row": list(game.arow),
        "deck_count": len(game.adeck),
        "discard_top": game.adiscard[-1] if game.adiscard else None,
        "discard_count": len(game.adiscard),
        "discard": list(game.adiscard),
        "in_play": list(game.in_play),
        "extra_turns": game.extra_turns if playing else 0,
        "new_this_turn": list(game.fresh) if playing else [],
        "three_count": len(game.three),
        "decisions": [_decision(game, e) for e in queue],
        "move_help": move_help(game.legal_moves(seat)) if seat is not None else [],
        "private": private,
    }
