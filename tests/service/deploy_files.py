"""deploy/ as data for the tests (issue 31.1): the Procfile's process list, the systemd units'
commands, the environment file's names. What the host is told to run is what the tests run."""

from __future__ import annotations

import configparser
import re
import shlex
import time
from pathlib import Path
from string import Template

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
VENV_BIN = "/opt/skyjo-pbem/.venv/bin/"  # where the units expect the installed commands


def procfile() -> dict[str, str]:
    """name -> command line, in the file's order."""
    found = {}
    for line in (DEPLOY / "Procfile").read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            name, command = line.split(":", 1)
            found[name.strip()] = command.strip()
    return found


def argv(command: str, env: dict[str, str], bin_dir: Path) -> list[str]:
    """A Procfile command as the argv a process manager runs: ${VAR}s from `env`, the program from
    `bin_dir` (the virtualenv's bin/)."""
    words = shlex.split(Template(command).substitute(env))
    return [str(bin_dir / words[0]), *words[1:]]


def unit(name: str) -> configparser.ConfigParser:
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    parser.optionxform = str
    parser.read(DEPLOY / name)
    return parser


def unit_command(line: str) -> str:
    """An ExecStart line as a Procfile command: the virtualenv's path taken off the program."""
    assert line.startswith(VENV_BIN), line
    return line[len(VENV_BIN):]


def env_file_names() -> list[str]:
    return [m.group(1) for m in re.finditer(r"^([A-Z][A-Z0-9_]*)=", (DEPLOY / "skyjo-pbem.env").read_text(), re.M)]


def wait_for(what: str, check, timeout: float = 20.0, every: float = 0.05):
    """Poll `check()` until it returns something true (and return that); fail with `what` after
    `timeout` seconds. The topology tests wait with this, never with a fixed sleep."""
    until = time.monotonic() + timeout
    while True:
        found = check()
        if found:
            return found
        assert time.monotonic() < until, f"timed out waiting for {what}"
        time.sleep(every)
