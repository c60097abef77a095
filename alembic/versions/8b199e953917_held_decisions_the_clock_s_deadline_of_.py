"""held decisions: the clock's deadline of the one owed decision on the game row

In play one decision is owed at a time. Its deadline row is now held on the game row
(`clock_held`, with `clock_next_at` for the sweep, indexed over the games that hold one) and written
by the move's own UPDATE: a routine move no longer reads and writes `clock_deadline`.
`clock_rows` says that table may hold open rows of the game; existing games start with true (their
next move takes the clock's full path once).

Revision ID: 8b199e953917
Revises: 7f3c2a91d4e6
Create Date: 2026-12-01 20:59:51.048241

"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa
import sqlmodel


# revision identifiers, used by Alembic.
revision: str = '8b199e953917'
down_revision: Union[str, Sequence[str], None] = '7f3c2a91d4e6'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    """Upgrade schema."""
    with op.batch_alter_table('game', schema=None) as batch_op:
        batch_op.add_column(sa.Column('clock_held', sa.JSON(), nullable=True))
        batch_op.add_column(sa.Column('clock_next_at', sa.DateTime(), nullable=True))
        batch_op.add_column(sa.Column('clock_rows', sa.Boolean(), server_default=sa.text('true'), nullable=False))
        batch_op.create_index('ix_game_clock_due', ['clock_next_at'], unique=False, sqlite_where=sa.text('clock_next_at IS NOT NULL'), postgresql_where=sa.text('clock_next_at IS NOT NULL'))


def downgrade() -> None:
    """Downgrade schema. Without recreating `game` on SQLite (seats and moves refer to it, and
    foreign keys are on): SQLite drops a column that is in no index with ALTER TABLE."""
    with op.batch_alter_table('game', schema=None, recreate='never') as batch_op:
        batch_op.drop_index('ix_game_clock_due', sqlite_where=sa.text('clock_next_at IS NOT NULL'), postgresql_where=sa.text('clock_next_at IS NOT NULL'))
        batch_op.drop_column('clock_rows')
        batch_op.drop_column('clock_next_at')
        batch_op.drop_column('clock_held')
