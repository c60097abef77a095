"""SKYJO Action's event sentences name the cards (A9: "Swap own", not `swap-own`) and say what a
played card aimed at in words (issue 15.5); the titles are one table (`rules.ACTION_TITLES`)."""

from __future__ import annotations

import re

import engine
from engine.action.rules import ACTION_KINDS, ACTION_TITLES

from .test_action_rules import PLAIN, grid, new, setup

IDS = re.compile(r"\b(?:" + "|".join(re.escape(k) for k in ACTION_KINDS if "-" in k) + r")\b")


def _texts(g: engine.Game, since: int) -> list[str]:
    return [e["text"] for e in engine.view(g, None)["log"][since:]]


def test_a9_every_action_card_has_a_title() -> None:
    assert set(ACTION_TITLES) == set(ACTION_KINDS)
    assert all(t and "-" not in t and t[0].isupper() for t in ACTION_TITLES.values())


def test_a9_1_a9_4_a9_8_played_cards_are_told_by_name_and_target() -> None:
    g = setup(
        new([grid(PLAIN), grid(PLAIN)]),
        up={0: "A1 B2", 1: "A1"},
        hands={0: ["swap-own", "insight", "thief", "swap-with-player"], 1: ["draw-three"]},
    )
    said = []
    for move in ("play swap-own A1 C3", "play insight column B of Bo", "play thief from Bo draw-three",
                 "play swap-with-player A1 with Bo C3"):
        h = engine.Game.from_json(g.to_json())
        start = len(engine.view(h, None)["log"])
        h.play(0, move)
        said.extend(_texts(h, start))
    for sentence in ("Ann played Swap own on A1 and C3.", "Ann played Insight on Bo's column B.",
                     "Ann played Thief against Bo.", "Ann played Swap with a player against Bo."):
        assert sentence in said, said
    for text in said:
        assert not IDS.search(text), text


def test_a4_a_taken_card_is_named_with_its_place_in_the_row() -> None:
    g = setup(new([grid(PLAIN), grid(PLAIN)]), up={0: "A1 B2", 1: "A1"})
    card = ACTION_TITLES[g.arow[1]]
    start = len(engine.view(g, None)["log"])
    g.play(0, "action row 2")
    assert _texts(g, start)[0] == f"Ann took {card} from the action row (place 2)."
    assert not any(re.search(r"action row \d", t) for t in _texts(g, start))
