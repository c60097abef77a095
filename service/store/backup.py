"""`skyjo-pbem backup PATH` and `restore PATH` (issue 31.3).

SQLite: the online backup API (`sqlite3.Connection.backup`), a consistent copy while the service
runs (a writer waits, WAL readers do not), written to a file that is itself an SQLite database;
`restore` copies it back the same way. PostgreSQL: `pg_dump --format=custom` and `pg_restore
--clean` (the PostgreSQL client programs; without them a clear error). A URL whose connection
options set a `search_path` (one schema of a shared database, as the tests use) dumps and restores
that schema only.

`restore` refuses a database that holds games unless `force` is given (stop the web service and the
workers first: a restore under them is a new past for requests in flight).
"""

from __future__ import annotations

import re
import shutil
import sqlite3
import subprocess
from pathlib import Path

from sqlalchemy import create_engine, inspect, text
from sqlalchemy.engine import URL, make_url

SQLITE_MAGIC = b"SQLite format 3\x00"


class BackupError(Exception):
    """A backup or restore that cannot be done: the message says why (exit code 2)."""


def backup(url: str, path: Path) -> str:
    """Write a backup of the database at `url` to `path` (refused if `path` exists). Returns what
    was done, for the operator."""
    path = Path(path)
    if path.exists():
        raise BackupError(f"{path} exists; choose a new file")
    u = make_url(url)
    if u.get_backend_name() == "sqlite":
        _sqlite_copy(f"file:{_sqlite_file(u)}?mode=ro", str(path))
        return f"backed up {u.database} to {path} (SQLite online backup)"
    if u.get_backend_name() == "postgresql":
        _run([_tool("pg_dump"), "--format=custom", "--no-owner", f"--file={path}", *_schema_args(u), _libpq(u)])
        return f"backed up {u.database} to {path} (pg_dump, custom format)"
    raise BackupError(f"no backup for {u.get_backend_name()} databases")


def restore(url: str, path: Path, *, force: bool = False) -> str:
    """Replace the database at `url` with the backup at `path`."""
    path = Path(path)
    if not path.is_file():
        raise BackupError(f"{path} is not a file")
    u = make_url(url)
    backend = u.get_backend_name()
    if backend not in {"sqlite", "postgresql"}:
        raise BackupError(f"no restore for {backend} databases")
    with path.open("rb") as f:
        head = f.read(16)
    if (backend == "sqlite") != (head == SQLITE_MAGIC) or (backend == "postgresql" and not head.startswith(b"PGDMP")):
        raise BackupError(f"{path} is not a backup of a {backend} database (made by `skyjo-pbem backup`)")
    games = _games(url)
    if games and not force:
        raise BackupError(f"the database holds {games} games; restoring replaces them all: add --force "
                          "(and stop the service first)")
    if backend == "sqlite":
        target = _sqlite_file(u, must_exist=False)
        _sqlite_copy(f"file:{path}?mode=ro", str(target))
        return f"restored {target} from {path}"
    _run([_tool("pg_restore"), "--clean", "--if-exists", "--no-owner", "--single-transaction",
          *_schema_args(u), f"--dbname={_libpq(u)}", str(path)])
    return f"restored {u.database} from {path}"


def _sqlite_copy(source_uri: str, target: str) -> None:
    """SQLite's online backup API: every page of `source_uri` into `target`, consistently."""
    try:
        src = sqlite3.connect(source_uri, uri=True)
        try:
            dst = sqlite3.connect(target)
            try:
                src.backup(dst)
            finally:
                dst.close()
        finally:
            src.close()
    except (sqlite3.Error, OSError) as exc:
        raise BackupError(f"{target}: {exc}") from None


def _games(url: str) -> int:
    """How many games the database holds (0 when it has no tables yet)."""
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            if not inspect(conn).has_table("game"):
                return 0
            return int(conn.execute(text("SELECT count(*) FROM game")).scalar_one())
    finally:
        engine.dispose()


def _sqlite_file(u: URL, *, must_exist: bool = True) -> Path:
    if not u.database or u.database == ":memory:" or "mode=memory" in str(u):
        raise BackupError("an in-memory SQLite database has nothing to back up")
    source = Path(u.database)
    if must_exist and not source.is_file():
        raise BackupError(f"no database at {source}")
    return source


def _tool(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        raise BackupError(f"{name} is not installed: install the PostgreSQL client programs "
                          "(Debian: apt install postgresql-client) of the server's version or newer")
    return found


def _libpq(u: URL) -> str:
    """The URL as libpq reads it (no driver name; the password stays in it: pass PGPASSFILE instead
    for a real server)."""
    return u.set(drivername="postgresql").render_as_string(hide_password=False)


def _schema_args(u: URL) -> list[str]:
    """`--schema=NAME` when the URL's connection options set a search_path (one schema only)."""
    options = u.query.get("options", "")
    options = " ".join(options) if isinstance(options, tuple) else options
    found = re.search(r"search_path=([A-Za-z0-9_]+)", options)
    return [f"--schema={found.group(1)}"] if found else []


def _run(argv: list[str]) -> None:
    done = subprocess.run(argv, capture_output=True, text=True, timeout=3600)
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        raise BackupError(f"{Path(argv[0]).name} failed: " + " / ".join(tail))
