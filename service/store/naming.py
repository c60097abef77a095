"""The constraint naming convention of our shared SQLModel metadata, and the nullable JSON type, in one
place.

Every table module imports this before defining tables, so constraints get stable names on SQLite and
PostgreSQL alike (Alembic batch mode needs them), whichever module is imported first.
"""

from sqlalchemy import JSON
from sqlmodel import SQLModel

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

SQLModel.metadata.naming_convention = NAMING_CONVENTION

# A nullable JSON column stores Python None as SQL NULL, not as the JSON text 'null' (issue 34.4b:
# `events IS NOT NULL` then filtered nothing, and a LIMIT counted rows, not decisions).
NULLABLE_JSON = JSON(none_as_null=True)
