"""Shared fixtures: the service on SQLite and on PostgreSQL (the same tests, parametrized).

PostgreSQL comes from TEST_POSTGRES_URL (default postgresql+psycopg://postgres@127.0.0.1:5432/test).
Each test session works in its own fresh schema, dropped at the end, so parallel runs never collide.
Unreachable server: the PostgreSQL cases are skipped locally and FAIL under CI=true.
"""

from __future__ import annotations

import os
import secrets
import tempfile
from urllib.parse import quote

import pytest

# Every app of the test session (each test makes its own, and compiling the templates anew was about
# a quarter of a service test's CPU, issue 33.5) and the service processes the tests start keep Jinja's
# compiled templates in one directory (TEMPLATE_CACHE_DIR, README "Configuration").
os.environ.setdefault("TEMPLATE_CACHE_DIR", os.path.join(tempfile.gettempdir(), f"skyjo-pbem-templates-{os.getuid()}"))

PG_URL = os.environ.get("TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}


def _pg_unavailable(reason: str):
    if IN_CI:
        pytest.fail(f"PostgreSQL is required under CI=true: {reason}")
    pytest.skip(f"PostgreSQL not reachable ({reason}); set TEST_POSTGRES_URL")


@pytest.fixture(scope="session")
def pg_schema_url():
    """A URL whose connections use a fresh schema of this test session."""
    from sqlalchemy import create_engine, text

    schema = f"t_{os.getpid()}_{secrets.token_hex(4)}"
    try:
        admin = create_engine(PG_URL, connect_args={"connect_timeout": 3})
        with admin.begin() as conn:
            conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    except Exception as exc:  # noqa: BLE001 - any connection failure means "unreachable"
        _pg_unavailable(f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}")
    sep = "&" if "?" in PG_URL else "?"
    yield f"{PG_URL}{sep}options={quote(f'-csearch_path={schema}')}"
    with admin.begin() as conn:
        conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
    admin.dispose()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db_url(request, tmp_path):
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'test.sqlite3'}"
    return request.getfixturevalue("pg_schema_url")


# Where SQLite suffices: a whole game played through the service proves its rules, pages and mails on
# SQLite, and so does a test of what pages and mails say (words, names, examples, parsing of replies);
# on PostgreSQL they would add only time (CI budget, issue 33.5). What PostgreSQL can break (row locks,
# races, concurrent requests, exactly-once, migrations, JSON/NULL types, the operator's commands) has
# its own tests on both databases.
sqlite_suffices = pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)


def make_app(db_url: str, **extra):
    from service import create_app
    from service.store import db

    config = {"TESTING": True, "DATABASE_URL": db_url, "SECRET_KEY": "test-" + secrets.token_hex(8),
              "BASE_URL": "http://localhost", "ENV_NAME": "development"}
    config.update(extra)
    app = create_app(config)
    with app.app_context():
        db.drop_all()
        db.create_all()
    return app


@pytest.fixture
def app(db_url):
    app = make_app(db_url)
    yield app
    from service.store import db

    db.get_engine(app).dispose()


@pytest.fixture
def client(app):
    return app.test_client()
