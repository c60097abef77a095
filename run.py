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


def ensure_venv() -> None:
    if sys.version_info < (3, 11):  # noqa: UP036 - run.py is what an older Python meets first
        sys.exit("skyjo-pbem needs Python 3.11 or newer")
    if not (BIN / "python").exists():
        print("creating .venv ...", file=sys.stderr)
        venv.EnvBuilder(with_pip=True).create(VENV)
    if STAMP.exists() and STAMP.read_text() == _fingerprint():
        return
    print("installing skyjo-pbem and its dependencies into .venv ...", file=sys.stderr)
    subprocess.check_call([str(BIN / "python"), "-m", "pip", "install", "-q", "--upgrade", "pip"])
    subprocess.check_call([str(BIN / "python"), "-m", "pip", "install", "-q", "-e", f"{ROOT}[dev]"])
    STAMP.write_text(_fingerprint())


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
    return subprocess.call(cmd)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
