"""drop three indexes that other indexes cover: fewer index writes per move

Every move inserts a move row, closes one deadline row and opens another, and queues a mail; each
index on those tables is written each time. These three were never the best index for any query:
- `ix_move_game_id`: `uq_move_game_number (game_id, number)` serves every lookup by game;
- `ix_clock_deadline_open (game_id, seat) WHERE fired_at IS NULL`: the unique
  `uq_clock_deadline_open_decision (game_id, seat, kind)` has the same condition and columns first;
- `ix_outbox_game_id`: nothing reads the outbox by game (the service leaves the column empty).

Revision ID: 7f3c2a91d4e6
Revises: 98a9ca195f1b
Create Date: 2026-12-01 09:40:00.000000

"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision: str = '7f3c2a91d4e6'
down_revision: Union[str, Sequence[str], None] = '98a9ca195f1b'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None

_OPEN = sa.text('fired_at IS NULL')


def upgrade() -> None:
    """Upgrade schema."""
    with op.batch_alter_table('move', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_move_game_id'))
    with op.batch_alter_table('clock_deadline', schema=None) as batch_op:
        batch_op.drop_index('ix_clock_deadline_open', sqlite_where=_OPEN, postgresql_where=_OPEN)
    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.drop_index('ix_outbox_game_id')


def downgrade() -> None:
    """Downgrade schema."""
    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.create_index('ix_outbox_game_id', ['game_id'], unique=False)
    with op.batch_alter_table('clock_deadline', schema=None) as batch_op:
        batch_op.create_index('ix_clock_deadline_open', ['game_id', 'seat'], unique=False,
                              sqlite_where=_OPEN, postgresql_where=_OPEN)
    with op.batch_alter_table('move', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_move_game_id'), ['game_id'], unique=False)
