"""Issue 32.1: verifiable deals. A round's commitment is fixed at its deal and its seed revealed only
when it ends; the deal record of an honest game always checks, and changing one card of a deal, one
card of a reshuffle or the seed makes the check fail, naming the round."""

from __future__ import annotations

import copy
import hashlib
import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine import deals
from engine.errors import RecordError


def _played(seed: str, players: int = 3, target: int = 60, bot: str = "greedy") -> engine.Game:
    g = engine.new_game([f"P{i}" for i in range(players)], options={"target_score": target}, seed=seed)
    return engine.play_out(g, bot, rng=random.Random(seed))


def with_reshuffles(seed: str, reshuffles: int = 2) -> engine.Game:
    """A finished game whose first round runs through the draw pile `reshuffles` times (C11; bots
    rarely do): both seats reveal A1 and B1, then draw and put the card on A1, again and again."""
    g = engine.new_game(["Ann", "Bo"], options={"target_score": 100}, seed=seed)
    for seat in (0, 1):
        for cell in ("A1", "B1"):
            g.play(seat, f"reveal {cell}")
    while sum(e["type"] == "reshuffle" for e in g.log) < reshuffles:
        seat = g.pending()[0].seat
        g.play(seat, "draw")
        g.play(seat, "swap A1")
    return engine.play_out(g, "greedy", rng=random.Random(seed))


@pytest.fixture(scope="module")
def honest() -> dict:
    """A finished game's deal record with two reshuffles in round 1 (C11) and at least two rounds."""
    record = deals.deal_record(with_reshuffles("honest"))
    assert len(record["rounds"]) >= 2 and len(record["rounds"][0]["reshuffles"]) == 2
    return record


def test_commitment_is_sha256_of_the_canonical_header_and_seed() -> None:
    text = '{"options":{"a":1},"players":["Ann","Bö"],"round":2,"seed":"s","variant":"classic"}'
    assert deals.canonical("classic", ["Ann", "Bö"], {"a": 1}, 2, "s") == text.encode()
    digest = deals.commitment("classic", ["Ann", "Bö"], {"a": 1}, 2, "s")
    assert digest == hashlib.sha256(text.encode()).hexdigest()
    assert deals.fingerprint(digest) == " ".join(digest[i:i + 4] for i in (0, 4, 8, 12))


def test_the_honest_record_checks(honest: dict) -> None:
    assert deals.verify(honest) == []
    assert deals.verify(json.loads(json.dumps(honest))) == []  # as a file holds it


def test_one_card_of_a_deal_changed_fails(honest: dict) -> None:
    bad = copy.deepcopy(honest)
    grid = bad["rounds"][1]["deal"]["grids"][0]
    other = next(i for i in range(12) if grid[i] != grid[0])
    grid[0], grid[other] = grid[other], grid[0]  # still one deck: only the order is wrong
    assert deals.verify(bad) == [(2, "the deal is not the seed's deal (seat 0's grid)")]
    bad = copy.deepcopy(honest)
    draw = bad["rounds"][0]["deal"]["draw"]
    draw[-1] = 99 if draw[-1] != 99 else 98
    assert (1, "the deal is not the seed's deal (the draw pile)") in deals.verify(bad)


def test_one_card_of_a_reshuffle_changed_fails(honest: dict) -> None:
    bad = copy.deepcopy(honest)
    n, r = next((r["round"], r) for r in bad["rounds"] if r["reshuffles"])
    pile = r["reshuffles"][0]
    pile[-1], pile[-2] = pile[-2], pile[-1]
    if pile[-1] == pile[-2]:
        pile[-1] = 99
    assert deals.verify(bad) == [(n, "reshuffle 1 is not the seed's")]


def test_another_seed_fails(honest: dict) -> None:
    bad = copy.deepcopy(honest)
    seed = bad["rounds"][0]["seed"]
    bad["rounds"][0]["seed"] = ("1" if seed[0] != "1" else "2") + seed[1:]
    problems = deals.verify(bad)
    assert problems[0] == (1, "the seed does not match the commitment")
    # a seed that fits a forged commitment still has to give the deal that was played
    bad["rounds"][0]["commitment"] = deals.commitment(bad["variant"], bad["players"], bad["options"], 1,
                                                      bad["rounds"][0]["seed"])
    problems = deals.verify(bad)
    assert problems and all(n == 1 for n, _ in problems) and "seed does not match" not in str(problems)
    assert "the seed's deal" in problems[0][1]


def test_an_unreadable_record_is_refused() -> None:
    for bad in (None, [], {"format": "skyjo-pbem-record"}, {"format": deals.FORMAT, "schema": 1},
                {"format": deals.FORMAT, "schema": 1, "variant": "classic", "players": ["A", "B"], "options": {},
                 "rounds": [{"round": 2}], "moves": []}):
        with pytest.raises(RecordError):
            deals.verify(bad)


def test_the_commitment_is_fixed_at_the_deal_and_the_seed_shown_only_after_the_round() -> None:
    """Hidden information (C13): before a round ends its seed is nowhere in the public deal facts,
    the deal record or a view; its commitment is the same from the deal to the reveal."""
    g = engine.new_game(["A", "B", "C"], options={"target_score": 40}, seed="fixed")
    rng = random.Random(3)
    sealed: dict[int, str] = {}
    while not g.is_over:
        seed = g._round_seed()
        current = deals.proof(g)["current"]
        sealed.setdefault(g.round, current["commitment"])
        assert current["commitment"] == sealed[g.round]
        public = json.dumps([deals.proof(g), deals.deal_record(g), engine.view(g, None)]
                            + [engine.view(g, s) for s in range(g.n)])
        assert seed not in public and g.seed not in public
        p = g.pending()[0]
        g.play(p.seat, engine.bot_move(g, p.seat, "greedy", rng))
    revealed = deals.proof(g)["revealed"]
    assert [r["commitment"] for r in revealed] == [sealed[n] for n in range(1, len(revealed) + 1)]
    assert all(r["seed"] == g._round_seed(r["round"]) for r in revealed)
    assert deals.proof(g)["current"] is None


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.text(min_size=1, max_size=12), players=st.integers(2, 5), target=st.sampled_from([20, 50, 100]),
       bot=st.sampled_from(["random", "greedy"]), variant=st.sampled_from(["classic", "action"]))
def test_honest_rounds_always_check(seed: str, players: int, target: int, bot: str, variant: str) -> None:
    g = engine.new_game([f"P{i}" for i in range(players)], variant, {"target_score": target}, seed=seed)
    engine.play_out(g, bot, rng=random.Random(seed), max_moves=3000)
    record = deals.deal_record(g)
    assert len(record["rounds"]) == len(g.rounds)
    assert deals.verify(record) == []


def test_cli_verify_exit_codes(honest: dict, tmp_path, capsys) -> None:
    """`skyjo-pbem verify RECORD.json`: 0 all rounds check, 1 naming the round that fails, 2 unreadable."""
    from service.cli import main

    good = tmp_path / "good.json"
    good.write_text(json.dumps(honest), encoding="utf-8")
    assert main(["verify", str(good)]) == 0
    out = capsys.readouterr().out
    assert f"all rounds check ({len(honest['rounds'])})" in out
    assert honest["rounds"][0]["seed"] in out and deals.fingerprint(honest["rounds"][0]["commitment"]) in out
    bad = copy.deepcopy(honest)
    pile = bad["rounds"][0]["reshuffles"][1]
    pile[0], pile[-1] = pile[-1], pile[0] if pile[0] != pile[-1] else 99
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad), encoding="utf-8")
    assert main(["verify", str(path)]) == 1
    assert capsys.readouterr().out.strip() == "round 1: reshuffle 2 is not the seed's"
    for name, text in (("broken.json", "{not json"), ("other.json", json.dumps({"format": "skyjo-pbem-record"}))):
        (tmp_path / name).write_text(text, encoding="utf-8")
        assert main(["verify", str(tmp_path / name)]) == 2
        assert name in capsys.readouterr().err
    assert main(["verify", str(tmp_path / "missing.json")]) == 2
