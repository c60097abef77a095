#!/usr/bin/env python3
"""Bootstrap and run skyjo-pbem from a fresh clone with nothing but Python 3.11+.

    python3 run.py serve        start the service on embedded defaults (SQLite, dev mailbox)
    python3 run.py test [ARGS]  run the whole test suite (ARGS go to pytest)
    python3 run.py <any skyjo-pbem command>   e.g. `python3 run.py replay game.json`

The first call creates `.venv/` and installs the project with its dev extras; later calls reuse it
and reinstall only when pyproject.toml changed.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
STAMP = VENV / ".installed"


def _fingerprint() -> str:
    return hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()


def _step(n: int, total: int, text: str) -> None:
    print(f"run.py [{n}/{total}] {text}", file=sys.stderr, flush=True)


def ensure_venv() -> None:
    """Create `.venv` and install the project into it when needed, saying what it does: the first
    run downloads and installs the dependencies (about a minute), and pip shows its progress."""
    if sys.version_info < (3, 11):  # noqa: UP036 - run.py is what an older Python meets first
        sys.exit("skyjo-pbem needs Python 3.11 or newer")
    fresh = not (BIN / "python").exists()
    if not fresh and STAMP.exists() and STAMP.read_text() == _fingerprint():
        return
    total = 3 if fresh else 2
    n = 0
    if fresh:
        n += 1
        _step(n, total, f"creating a virtual environment in {VENV} ...")
        venv.EnvBuilder(with_pip=True).create(VENV)
    n += 1
    _step(n, total, "updating pip in .venv ...")
    subprocess.check_call([str(BIN / "python"), "-m", "pip", "install", "--upgrade", "pip",
                           "--disable-pip-version-check", "--progress-bar", "on"])
    n += 1
    _step(n, total, "installing skyjo-pbem and its dependencies into .venv"
          + (" (the first time takes about a minute) ..." if fresh else " (pyproject.toml changed) ..."))
    subprocess.check_call([str(BIN / "python"), "-m", "pip", "install", "--disable-pip-version-check",
                           "--progress-bar", "on", "-e", f"{ROOT}[dev]"])
    STAMP.write_text(_fingerprint())
    print("run.py: installed.", file=sys.stderr, flush=True)


def main(argv: list[str]) -> int:
    if not argv or argv[0] in {"-h", "--help"}:
        print(__doc__)
        return 0
    ensure_venv()
    os.chdir(ROOT)
    if argv[0] == "test":
        cmd = [str(BIN / "python"), "-m", "pytest", *argv[1:]]
    else:
        cmd = [str(BIN / "skyjo-pbem"), *argv]
    if argv[0] == "serve":
        print("run.py: starting the service (the database is brought up to date first); "
              "open the address it prints next in your browser.", file=sys.stderr, flush=True)
    return subprocess.call(cmd)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
