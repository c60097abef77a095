"""PostgreSQL for the benchmarks: a fresh schema on BENCH_POSTGRES_URL or TEST_POSTGRES_URL (default
postgresql+psycopg://postgres@127.0.0.1:5432/test), dropped when the benchmark is done."""

from __future__ import annotations

import os
import secrets
import sys
from collections.abc import Callable
from urllib.parse import quote

PG_URL = os.environ.get("BENCH_POSTGRES_URL") or os.environ.get(
    "TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")


def pg_schema_url() -> tuple[str, Callable[[], None]] | None:
    """(a URL whose connections use a new schema, a function that drops it), or None when
    PostgreSQL is not reachable (said on stderr)."""
    from sqlalchemy import create_engine, text

    schema = f"bench_{os.getpid()}_{secrets.token_hex(3)}"
    try:
        admin = create_engine(PG_URL, connect_args={"connect_timeout": 3})
        with admin.begin() as conn:
            conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    except Exception as exc:  # noqa: BLE001
        print(f"PostgreSQL not reachable ({type(exc).__name__}); skipping it", file=sys.stderr)
        return None

    def drop() -> None:
        with admin.begin() as conn:
            conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()

    sep = "&" if "?" in PG_URL else "?"
    return f"{PG_URL}{sep}options={quote(f'-csearch_path={schema}')}", drop
