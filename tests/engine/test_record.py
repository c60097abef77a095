"""Game records and the replay / simulate commands."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from service.cli import main

from .helpers import NAMES, grid, make_deal, random_mid_game


def _finished(seed: int, players: int = 3, **options) -> engine.Game:
    g = engine.new_game(NAMES[:players], options=options or None, seed=seed)
    engine.play_out(g, "greedy", random.Random(seed))
    return g


def test_record_replays_to_the_identical_state() -> None:
    g = _finished(3)
    rec = json.loads(json.dumps(g.record()))
    assert rec["format"] == "skyjo-pbem-record" and rec["moves"][0].split(":")[0] in {"0", "1", "2"}
    assert len(rec["rounds"]) == g.round
    assert engine.replay(rec).to_json() == g.to_json()


def test_explicit_deal_record_replays() -> None:
    deal = make_deal([grid("5 6 7 8 / 9 10 11 12 / 0 1 2 3"), grid("4 4 4 4 / 3 3 3 3 / 2 2 2 2")], 0)
    g = engine.new_game(["Ann", "Bo"], seed="s1", deals=[{"deal": deal}])
    engine.play_out(g, "random", random.Random(9))
    rec = json.loads(json.dumps(g.record()))
    assert rec["rounds"][0] == {"deal": deal}
    assert engine.replay(rec).to_json() == g.to_json()


def _reshuffled_draw_pile(seed: str) -> list[int]:
    """Explicit deal, then every draw-pile card but one moved under the discard pile, then a
    reshuffle (C11): the new draw pile's order."""
    deal = make_deal([grid("5 6 7 8 / 9 10 11 12 / 0 1 2 3"), grid("4 4 4 4 / 3 3 3 3 / 2 2 2 2")], 0)
    g = engine.new_game(["Ann", "Bo"], seed=seed, deals=[{"deal": deal}])
    for s in (0, 1):
        g.play(s, "reveal A1")
        g.play(s, "reveal B1")
    data = g.to_json()
    data["discard"] = data["draw"][:-1] + data["discard"]
    data["draw"] = data["draw"][-1:]
    g = engine.Game.from_json(data)
    g.play(0, "draw")
    g.play(0, "flip C3")
    g.play(1, "draw")
    return list(g.draw)


def test_reshuffle_inside_an_explicit_deal_uses_the_record_seed() -> None:
    assert _reshuffled_draw_pile("s1") == _reshuffled_draw_pile("s1")
    assert _reshuffled_draw_pile("s1") != _reshuffled_draw_pile("s2")


def test_record_errors_name_the_move() -> None:
    rec = _finished(4).record()
    bad = dict(rec, moves=rec["moves"][:5] + ["1: flip"] + rec["moves"][6:])
    with pytest.raises(engine.RecordError, match=r"move 6 .*flip needs one cell") as info:
        engine.replay(bad)
    assert info.value.move_number == 6
    with pytest.raises(engine.RecordError, match="move 1"):
        engine.replay(dict(rec, moves=["nonsense"]))
    with pytest.raises(engine.RecordError, match="header"):
        engine.replay(dict(rec, players=["solo"]))
    with pytest.raises(engine.RecordError, match="deck"):
        engine.replay(
            dict(rec, rounds=[{"deal": {"grids": [[1] * 12, [1] * 12, [1] * 12], "discard": 1, "draw": []}}])
        )


def test_c2_a_record_with_equal_player_names_is_refused() -> None:
    rec = _finished(4).record()
    with pytest.raises(engine.RecordError, match="header.*different name"):
        engine.replay(dict(rec, players=["Ann", "Bo", "ann"]))


@pytest.mark.parametrize(
    "change,needle",
    [
        ({"options": [1]}, "options must be an object"),
        ({"options": True}, "options must be an object"),
        ({"variant": ["classic"]}, "unknown variant"),
        ({"seed": {"x": 1}}, "'seed' must be text"),
        ({"seed": 12345}, "'seed' must be text"),
        ({"rounds": [{"seed": 7}]}, "round 1: its 'seed' must be text"),
        ({"rounds": [{"seed": "a"}, {"seed": [1]}]}, "round 2: its 'seed' must be text"),
        ({"rounds": [{"deal": [1, 2]}]}, "round 1: its 'deal' must be an object"),
        ({"rounds": [7]}, "'rounds' must be a list of objects"),
    ],
)
def test_c3_malformed_record_headers_and_rounds_are_record_errors(
    change: dict[str, Any], needle: str
) -> None:
    """Issue 16: these used to crash with AttributeError / TypeError or were accepted."""
    rec = _finished(4).record()
    with pytest.raises(engine.RecordError, match=needle):
        engine.replay(dict(rec, **change))


def test_c3_deal_errors_name_the_round_and_the_cards() -> None:
    deal = make_deal([grid("5 6 7 8 / 9 10 11 12 / 0 1 2 3"), grid("4 4 4 4 / 3 3 3 3 / 2 2 2 2")], 0)
    deal["draw"][deal["draw"].index(12)] = 5  # one 12 replaced by an 11th 5
    rec = {"players": ["Ann", "Bo"], "seed": "s", "rounds": [{"seed": "r1"}, {"deal": deal}], "moves": []}
    engine.replay(rec)  # round 2's deal is only checked when round 2 is dealt
    with pytest.raises(
        engine.RecordError,
        match=r"round 1: the deal does not use exactly the classic deck "
        r"\(too many: 5; missing: 12\)",
    ):
        engine.replay(dict(rec, rounds=[{"deal": deal}]))
    deal["grids"][1][0] = "x"
    with pytest.raises(engine.RecordError, match="round 1: 'x' in the deal is not a card"):
        engine.replay(dict(rec, rounds=[{"deal": deal}]))


def test_c3_record_seat_errors_quote_the_move() -> None:
    with pytest.raises(engine.RecordError, match=r"move 1 \(5: draw\): there is no seat 5 \(seats are 0-1\)"):
        engine.replay({"players": ["Ann", "Bo"], "seed": "s", "moves": ["5: draw"]})


def test_c11_a_record_without_seed_replays_the_same_every_time() -> None:
    """Issue 16: a record without a seed used to get a fresh random one, so its deals and reshuffles
    (C11) differed run to run. Its seed is now derived from the record's header."""
    header = {"players": ["Ann", "Bo"]}
    g = engine.replay({**header, "moves": ["0: reveal A1", "0: reveal B1", "1: reveal A1", "1: reveal B1"]})
    while not any(e["type"] == "reshuffle" for e in g.log):  # draw and swap A1 until the pile runs out
        seat = g.pending()[0].seat
        g.play(seat, "draw")
        g.play(seat, "swap A1")
    rec = {**header, "moves": g.record()["moves"]}
    first, again = engine.replay(rec), engine.replay(rec)
    assert first.to_json() == again.to_json() == g.to_json()
    assert engine.replay(first.record()).to_json() == g.to_json()  # written back with that seed
    assert engine.replay({**header, "players": ["Ann", "Cy"], "moves": []}).seed != g.seed


def test_cli_replay_prints_rounds_and_winner(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    g = _finished(5)
    path = tmp_path / "game.json"
    path.write_text(json.dumps(g.record()))
    assert main(["replay", str(path)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["winners"] == [g.names[s] for s in g.winners]
    first = out["rounds"][0]
    assert set(first) >= {"scores_before_doubling", "scores", "closer", "removed_columns", "totals"}
    assert "state" not in out
    assert main(["replay", "--state", str(path)]) == 0
    assert json.loads(capsys.readouterr().out)["state"] == g.to_json()


@pytest.mark.parametrize(
    "content,needle",
    [
        ("{not json", "not JSON"),
        (
            json.dumps({"players": ["a", "b"], "seed": "1", "moves": ["0: reveal A1", "0: reveal A1"]}),
            "move 2",
        ),
        (json.dumps({"players": ["a"], "moves": []}), "2 to 8 players"),
        (json.dumps([1, 2]), "JSON object"),
    ],
)
def test_cli_replay_bad_record_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, needle: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    assert main(["replay", str(path)]) == 2
    assert needle in capsys.readouterr().err


def test_cli_replay_missing_file_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", "/nonexistent/record.json"]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_cli_simulate_prints_statistics(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--players", "3", "--games", "5", "--seed", "1", "--bot", "random"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["games"] == 5 and out["rounds_per_game"]["mean"] >= 1
    assert 0 <= out["closer_doubled_rate"] <= 1 and sum(out["wins_by_seat"]) >= 5
    assert main(["simulate", "--players", "3", "--games", "5", "--seed", "1", "--bot", "random"]) == 0
    assert json.loads(capsys.readouterr().out)["mean_round_score"] == out["mean_round_score"]


def test_cli_simulate_bad_arguments_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--players", "9", "--games", "1"]) == 2
    assert main(["simulate", "--players", "3", "--games", "1", "--options", '{"target_score": 0}']) == 2
    with pytest.raises(SystemExit) as info:
        main(["simulate", "--bot", "clever"])
    assert info.value.code == 2


# ---------------------------------------------------------------------------------- malformed records
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 20) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=12,
)
_VALID = {
    variant: engine.record(random_mid_game(variant, 2, seed=7, rng_seed=1, moves=40))
    for variant in ("classic", "action")
}
_DEAL = make_deal([grid("5 6 7 8 / 9 10 11 12 / 0 1 2 3"), grid("4 4 4 4 / 3 3 3 3 / 2 2 2 2")], 0)


@st.composite
def _malformed_record(draw: st.DrawFn) -> Any:
    """A record with one part replaced by arbitrary JSON: a header field, a round spec, a deal's part,
    or a move."""
    rec = json.loads(json.dumps(_VALID[draw(st.sampled_from(["classic", "action"]))]))
    rec["rounds"] = [{"deal": json.loads(json.dumps(_DEAL))}] if draw(st.booleans()) else rec["rounds"]
    where = draw(st.sampled_from(["header", "round", "deal", "move", "whole"]))
    value = draw(_JSON)
    if where == "whole":
        return value
    if where == "header":
        rec[
            draw(
                st.sampled_from(
                    ["format", "schema", "variant", "players", "options", "seed", "rounds", "moves"]
                )
            )
        ] = value
    elif where == "round":
        rec["rounds"][0] = {draw(st.sampled_from(["seed", "deal", "other"])): value}
    elif where == "deal" and "deal" in rec["rounds"][0]:
        rec["rounds"][0]["deal"][draw(st.sampled_from(["grids", "discard", "draw", "action_row"]))] = value
    elif rec["moves"]:
        rec["moves"][draw(st.integers(0, len(rec["moves"]) - 1))] = value
    return rec


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_malformed_record())
def test_malformed_records_raise_record_error(record: Any) -> None:
    """Records (C1-C13 games written down) that are not well formed replay or raise RecordError (a
    ValueError with a message), never another exception (issue 16)."""
    try:
        engine.replay(record)
    except engine.RecordError as exc:
        assert isinstance(exc, ValueError) and str(exc)


def test_a2_simulate_of_the_greedy_action_game_that_looped_now_ends(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 16.2's example: greedy Action bots used to take and swap back forever on seed lv66."""
    args = ["simulate", "--variant", "action", "--players", "2", "--games", "1", "--seed", "lv66", "--bot", "greedy"]
    assert main(args) == 0
    assert json.loads(capsys.readouterr().out)["games"] == 1


@pytest.mark.timeout(120)  # without the guard the circle never ends: fail, do not hang
def test_simulate_turns_bots_playing_in_a_circle_into_exit_2(monkeypatch, capsys) -> None:
    """A bot that takes the discard and swaps it back into the same cell never ends a round: simulate
    stops with a message (exit 2) instead of hanging (engine.RepetitionGuard)."""
    import service.cli as cli

    def circling(game, seat, bot, rng):
        legal = {m.text(): m for m in game.legal_moves(seat)}
        for text in ("take", "swap A1", "swap B1"):
            if text in legal:
                return legal[text]
        return sorted(legal.items())[0][1]

    monkeypatch.setattr(cli, "bot_move", circling)
    assert main(["simulate", "--players", "2", "--games", "1", "--seed", "1", "--bot", "random"]) == 2
    assert "same position" in capsys.readouterr().err
