"""Game records and the replay / simulate commands."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

import engine
from service.cli import main

from .helpers import NAMES, grid, make_deal


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
        engine.replay(dict(rec, rounds=[{"deal": {"grids": [[1] * 12, [1] * 12, [1] * 12], "discard": 1, "draw": []}}]))


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


@pytest.mark.parametrize("content,needle", [
    ("{not json", "not JSON"),
    (json.dumps({"players": ["a", "b"], "seed": "1", "moves": ["0: reveal A1", "0: reveal A1"]}), "move 2"),
    (json.dumps({"players": ["a"], "moves": []}), "2 to 8 players"),
    (json.dumps([1, 2]), "JSON object"),
])
def test_cli_replay_bad_record_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str,
                                        needle: str) -> None:
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
