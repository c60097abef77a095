"""clock_heartbeat: one row per clock process, written by each sweep (issue 31.2, /readyz)

Revision ID: c3f8a1d6e2b4
Revises: f1a9c3e5b7d2
Create Date: 2026-12-06 06:40:00.000000

"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op


# revision identifiers, used by Alembic.
revision: str = 'c3f8a1d6e2b4'
down_revision: Union[str, Sequence[str], None] = 'f1a9c3e5b7d2'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_table(
        "clock_heartbeat",
        sa.Column("worker", sa.String(length=120), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("interval_s", sa.Float(), nullable=False),
        sa.Column("started_at", sa.DateTime(), nullable=False),
        sa.Column("beat_at", sa.DateTime(), nullable=False),
        sa.Column("sweep_s", sa.Float(), nullable=False),
        sa.Column("sweeps", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("worker", name=op.f("pk_clock_heartbeat")),
    )


def downgrade() -> None:
    op.drop_table("clock_heartbeat")
