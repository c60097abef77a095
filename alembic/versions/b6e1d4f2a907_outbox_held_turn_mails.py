"""outbox: held turn mails (the decision a mail asks for, issue 15.2)

A turn mail for a decision its player is already looking at on the board is queued with a later
`send_after` and the game and decision id it asks for; delivery drops it when the seat no longer
owes that decision by then.

Revision ID: b6e1d4f2a907
Revises: d73c7c39aea7
Create Date: 2026-12-02 16:00:00.000000

"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision: str = 'b6e1d4f2a907'
down_revision: Union[str, Sequence[str], None] = 'd73c7c39aea7'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    """Upgrade schema."""
    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.add_column(sa.Column('hold_game', sa.String(length=24), nullable=True))
        batch_op.add_column(sa.Column('hold_decision', sa.String(length=64), nullable=True))


def downgrade() -> None:
    """Downgrade schema."""
    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.drop_column('hold_decision')
        batch_op.drop_column('hold_game')
