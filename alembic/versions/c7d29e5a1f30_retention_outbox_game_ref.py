"""retention (issue 29.5): the game of each outbox row, so a finished game's mails can be deleted

`outbox.game_ref`: the game a mail is about (None: a mail for an address). `skyjo-pbem prune`
deletes a finished game's rows after GAME_KEEP_DAYS. The same column as the bounces branch's
migration a29b0c5e7d13 adds: keep it in one of the two when both are merged.

Revision ID: c7d29e5a1f30
Revises: b6e1f0c4a2d9
Create Date: 2026-12-06 03:45:00.000000

"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision: str = 'c7d29e5a1f30'
down_revision: Union[str, Sequence[str], None] = 'b6e1f0c4a2d9'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    """Upgrade schema."""
    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.add_column(sa.Column('game_ref', sa.String(length=24), nullable=True))


def downgrade() -> None:
    """Downgrade schema."""
    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.drop_column('game_ref')
