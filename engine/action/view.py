"""What a seat sees of a SKYJO Action game, added to the classic view (engine.view.view).

Public: the action row, the action discard pile (all of it: Reactivation picks from it), the action
deck's size, every seat's held action cards, star bonuses, kept star sets, the decisions owed now.
Private, in `action.private` of the viewer's own view only: the card they drew, the cards of their
Draw three, their insight results (also as `known` on the face-down grid cells concerned).
"""

from __future__ import annotations

from typing import Any

from ..game import OPENING, PLAY, STAGE_DRAWN
from ..moves import CELL_NAMES
from .rules import STAR_COLUMN_BONUS, STAR_ROW_BONUS


def _decision(game: Any, e: dict[str, Any]) -> dict[str, Any]:
    from .game import line_label

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


def extend_view(game: Any, data: dict[str, Any], seat: int | None) -> None:
    from .game import STAGE_THREE, line_label

    playing = game.phase == PLAY
    queue = game._visible_queue() if game.phase in (PLAY, OPENING) else []
    for p in data["players"]:
        s = p["seat"]
        p["action_cards"] = list(game.hands[s])
        p["star_bonus"] = game.banked[s]
        p["kept_star_sets"] = [line_label(line, i) for line, i in game.kept[s]]
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
        "private": private,
    }
