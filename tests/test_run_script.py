"""run.py on a fresh clone says what it does while it installs (issue 15.7), then how to open the
service; a second call with nothing changed installs nothing."""

from __future__ import annotations

import importlib.util
import subprocess
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _load_run(tmp_path: Path, monkeypatch):
    spec = importlib.util.spec_from_file_location("run_script", ROOT / "run.py")
    run = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(run)
    monkeypatch.setattr(run, "VENV", tmp_path / ".venv")
    monkeypatch.setattr(run, "BIN", tmp_path / ".venv" / "bin")
    monkeypatch.setattr(run, "STAMP", tmp_path / ".venv" / ".installed")
    return run


def test_a_fresh_install_says_each_step_and_shows_pips_progress(tmp_path, monkeypatch, capsys):
    run = _load_run(tmp_path, monkeypatch)
    calls: list[list[str]] = []

    def fake_create(self, env_dir):  # a venv's python appears, as EnvBuilder would make it
        (Path(env_dir) / "bin").mkdir(parents=True)
        (Path(env_dir) / "bin" / "python").write_text("")

    monkeypatch.setattr(venv.EnvBuilder, "create", fake_create)
    monkeypatch.setattr(subprocess, "check_call", lambda cmd: calls.append(cmd) or 0)
    run.ensure_venv()
    err = capsys.readouterr().err
    steps = [line for line in err.splitlines() if line.startswith("run.py [")]
    assert [s[:12] for s in steps] == ["run.py [1/3]", "run.py [2/3]", "run.py [3/3]"], err
    assert "creating a virtual environment" in steps[0] and "about a minute" in steps[2]
    assert len(calls) == 2 and all("-q" not in c and "--progress-bar" in c for c in calls)  # pip speaks
    assert "installed" in err.splitlines()[-1]

    calls.clear()
    run.ensure_venv()  # nothing changed: nothing to do, nothing said
    assert calls == [] and capsys.readouterr().err == ""


def test_serve_says_where_to_open_it(tmp_path, monkeypatch, capsys):
    run = _load_run(tmp_path, monkeypatch)
    monkeypatch.setattr(run, "ensure_venv", lambda: None)
    started: list[list[str]] = []
    monkeypatch.setattr(subprocess, "call", lambda cmd: started.append(cmd) or 0)
    assert run.main(["serve"]) == 0
    assert started and started[0][-1] == "serve"
    assert "open the address it prints next in your browser" in capsys.readouterr().err
