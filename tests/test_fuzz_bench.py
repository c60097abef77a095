"""bench/fuzz.py starts its game through the mails and fuzzes at any hour (issue 34.5): run for real
under faketime at the hour it was seen to stop (2026-12-03 18:20 UTC) and at night (quiet hours),
with the clock running; it must print its closing figures with no HTTP 500. (It stopped with "the
game sent no seat or move links" at every hour: it read only the text part, which names the
opening's cells with one board link; the move links are in the HTML part.)"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("at", ["2026-12-03 18:20:00", "2026-12-03 23:30:00"])
def test_the_fuzz_benchmark_starts_its_game_and_fuzzes_at_any_hour(at):
    if shutil.which("faketime") is None:
        pytest.fail("faketime is needed (Debian package faketime; .ci/run installs it)")
    env = dict(os.environ, TZ="UTC", FAKETIME_DONT_FAKE_MONOTONIC="1")
    run = subprocess.run(["faketime", "-f", f"@{at}", sys.executable, "bench/fuzz.py", "40", "--db", "sqlite"],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.strip().splitlines()[-1] == "requests=40 status_500=0", run.stdout
