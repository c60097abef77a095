"""JSON None is SQL NULL: the JSON text 'null' in nullable JSON columns becomes SQL NULL

The models' nullable JSON columns store Python None as SQL NULL now (`NULLABLE_JSON`, issue 34.4b);
rows written before kept the JSON text 'null', which `IS NOT NULL` filters did not skip. No schema
change: only those values. The downgrade leaves them NULL (what the old code reads as None too).

Revision ID: f1a9c3e5b7d2
Revises: a29b0c5e7d13
Create Date: 2026-12-06 03:40:00.000000

"""
from typing import Sequence, Union

from alembic import op


# revision identifiers, used by Alembic.
revision: str = 'f1a9c3e5b7d2'
down_revision: Union[str, Sequence[str], None] = 'a29b0c5e7d13'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None

NULLABLE_JSON_COLUMNS = (("game", "state"), ("game", "record"), ("move", "events"), ("outbox", "context"))


def upgrade() -> None:
    """JSON 'null' -> SQL NULL (CAST ... AS TEXT reads a json value's text on PostgreSQL and SQLite)."""
    for table, column in NULLABLE_JSON_COLUMNS:
        op.execute(f"UPDATE {table} SET {column} = NULL WHERE CAST({column} AS TEXT) = 'null'")


def downgrade() -> None:
    """Nothing to undo: NULL reads as None before and after."""
