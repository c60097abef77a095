"""A round's record keeps the final revealed boards that produced its scores (C9, C13: every card is
public once the round ends), so mails can show them after the next deal; the view gives the last
round's as grids, and never anything of the next deal."""

from __future__ import annotations

import engine
from engine.game import DOWN

from .helpers import grid, new, play, position

LOW = grid("0 1 0 1 / 1 0 1 0 / 0 1 2 3")
FIVES = grid("5 9 10 11 / 5 9 10 11 / 5 6 7 12")  # column A of 5s


def _all_but(cell: str) -> str:
    return " ".join(c for c in engine.CELL_NAMES if c != cell)


def _ended_round() -> engine.Game:
    g = new([FIVES, LOW], discard=0, draw_top=[12, 12], options={"target_score": 1000})
    g = position(g, up={0: _all_but("A3"), 1: _all_but("C3")}, turn=0)
    play(g, "0: draw", "0: flip A3", "1: draw", "1: flip C3")
    return g


def test_c8_c9_record_keeps_the_final_boards_with_removed_cells_as_none() -> None:
    g = _ended_round()
    r = g.rounds[0]
    assert g.round == 2 and r["removed_columns"] == [[0, "A"]]
    want_ann = [None if c in (0, 4, 8) else v for c, v in enumerate(FIVES)]
    assert r["boards"] == [want_ann, LOW]
    assert sum(v for v in r["boards"][0] if v is not None) == r["raw"][0] == 85
    assert sum(LOW) == r["raw"][1]
    # the event in the log stays small: the boards are in the record only
    assert all("boards" not in e for e in g.log if e["type"] == "round_end")


def test_c13_the_view_gives_the_last_rounds_boards_and_nothing_of_the_next_deal() -> None:
    g = _ended_round()
    for seat in (0, 1, None):
        v = engine.view(g, seat)
        boards = v["rounds"][-1]["boards"]
        assert [c["face"] for c in boards[0][:1]] == ["removed"] and boards[0][0]["value"] is None
        assert [c["value"] for c in boards[1]] == LOW and {c["face"] for c in boards[1]} == {"up"}
        assert [c["cell"] for c in boards[1]] == list(engine.CELL_NAMES)
        # round 2 is dealt face down: its grids show no value, whatever the record holds
        assert all(c["value"] is None for p in v["players"] for c in p["grid"])
        assert all(f == DOWN for f in g.face[0])


def test_the_boards_leave_the_view_once_the_next_rounds_play_begins() -> None:
    g = _ended_round()
    play(g, "0: reveal A1", "0: reveal B1")
    assert "boards" in engine.view(g, 1)["rounds"][-1]  # still the opening (C4)
    play(g, "1: reveal A1", "1: reveal B1")
    assert g.phase == "play" and "boards" not in engine.view(g, 1)["rounds"][-1]
    assert g.rounds[-1]["boards"]  # the record keeps them


def test_only_the_last_round_keeps_boards_in_the_view_and_old_records_still_load() -> None:
    g = _ended_round()
    data = g.to_json()
    data["rounds"].insert(0, {**data["rounds"][0], "round": 0})
    older = engine.Game.from_json(data)
    v = engine.view(older, 0)
    assert "boards" not in v["rounds"][0] and "boards" in v["rounds"][-1]
    del data["rounds"][-1]["boards"]  # a game saved before records kept boards
    assert "boards" not in engine.view(engine.Game.from_json(data), 0)["rounds"][-1]


def test_a6_a8_action_record_keeps_stars_on_the_final_boards() -> None:
    from .test_action_rules import all_but, setup
    from .test_action_rules import grid as agrid
    from .test_action_rules import new as anew

    ann = agrid("* 1 2 3 / * 4 5 6 / * 7 8 9")
    bo = agrid("1 2 3 4 / 5 6 7 8 / 9 10 11 12")
    g = setup(anew([ann, bo], draw_top=[10, 0]), up={0: all_but("A3"), 1: all_but("D3")})
    for seat, move in ((0, "draw"), (0, "flip A3"), (0, "decline"), (0, "keep"), (1, "draw"), (1, "swap D3")):
        g.play(seat, move)
    r = g.rounds[0]
    assert r["boards"][0] == ann and r["boards"][1] == bo[:11] + [0]
    assert r["star_bonus"][0] == -10
    assert [c["value"] for c in engine.view(g, 1)["rounds"][-1]["boards"][0][:1]] == ["star"]
