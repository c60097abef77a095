"""deploy/ says what the topology test runs (issue 31.1): the systemd units run the Procfile's
commands, and the environment file, the service and README's table name the same settings."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.service.deploy_files import DEPLOY, ROOT, VENV_BIN, env_file_names, procfile, unit, unit_command

UNITS = {"web": "skyjo-web.service", "worker": "skyjo-worker@.service", "inbound": "skyjo-inbound.service"}


def test_the_units_run_the_procfile_commands():
    processes = procfile()
    assert set(processes) == {"release", *UNITS}
    for name, unit_file in UNITS.items():
        service = unit(unit_file)["Service"]
        assert shlex.split(unit_command(service["ExecStart"])) == shlex.split(processes[name]), unit_file
        assert service["EnvironmentFile"] == "/etc/skyjo-pbem/skyjo-pbem.env"
    web = unit(UNITS["web"])["Service"]
    assert shlex.split(unit_command(web["ExecStartPre"])) == shlex.split(processes["release"])
    assert sorted(p.name for p in DEPLOY.glob("*.service")) == sorted(UNITS.values()), "a unit not in the Procfile"


def test_the_env_file_names_every_setting_the_service_reads_once():
    source = (ROOT / "service" / "__init__.py").read_text()
    read = set(re.findall(r'os\.environ\.get\("([A-Z_]+)"', source))
    used_by_units = {v for cmd in procfile().values() for v in re.findall(r"\$\{([A-Z_]+)\}", cmd)}
    names = env_file_names()
    assert len(names) == len(set(names)), "a setting twice in the env file"
    assert set(names) == read | used_by_units
    readme = (ROOT / "README.md").read_text().split("## Configuration (environment variables)")[1].split("\n## ")[0]
    in_table = {v for row in readme.splitlines() if row.startswith("| `") for v in
                re.findall(r"`([A-Z][A-Z0-9_]+)`", row.split("|")[1])}
    assert in_table == set(names), (in_table ^ set(names))


@pytest.mark.skipif(not shutil.which("systemd-analyze"), reason="systemd-analyze (Debian's systemd) is not installed")
def test_the_units_pass_systemd_analyze_verify(tmp_path):
    """The units as systemd reads them, with this checkout in place of /opt/skyjo-pbem: no unknown
    key, no command that is not there (a warning fails the test too)."""
    bin_dir = Path(sys.executable).parent
    for unit_file in UNITS.values():
        body = (DEPLOY / unit_file).read_text().replace(VENV_BIN, f"{bin_dir}/")
        body = body.replace("/etc/skyjo-pbem/skyjo-pbem.env", str(DEPLOY / "skyjo-pbem.env"))
        (tmp_path / unit_file).write_text(body.replace("/opt/skyjo-pbem", str(ROOT)))
    done = subprocess.run(["systemd-analyze", "verify", "--man=no", *(f"./{u}" for u in UNITS.values())],
                          cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and not done.stdout.strip() and not done.stderr.strip(), done.stdout + done.stderr
