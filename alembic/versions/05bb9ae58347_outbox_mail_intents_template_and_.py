"""outbox mail intents: template and context, bodies rendered at send time

A move's transaction queues its mails as small rows (template name + the seat's view as JSON); the
sender renders the bodies when it takes the row. So `text_body` is NULL until then.

Revision ID: 05bb9ae58347
Revises: e4b2a7d19c03
Create Date: 2026-11-30 15:17:18.515981

"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa
import sqlmodel


# revision identifiers, used by Alembic.
revision: str = '05bb9ae58347'
down_revision: Union[str, Sequence[str], None] = 'e4b2a7d19c03'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    """Upgrade schema."""
    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.add_column(sa.Column('template', sa.String(length=40), nullable=True))
        batch_op.add_column(sa.Column('context', sa.JSON(), nullable=True))
        batch_op.alter_column('text_body',
               existing_type=sa.TEXT(),
               nullable=True)



def downgrade() -> None:
    """Downgrade schema. Refuses while mails still wait to be rendered (the old schema cannot hold
    them): let a sender run first (`skyjo-pbem worker --once`)."""
    waiting = op.get_bind().execute(sa.text("SELECT COUNT(*) FROM outbox WHERE text_body IS NULL")).scalar()
    if waiting:
        raise RuntimeError(f"{waiting} queued mail(s) are not rendered yet: run a sender before downgrading")
    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.alter_column('text_body',
               existing_type=sa.TEXT(),
               nullable=False)
        batch_op.drop_column('context')
        batch_op.drop_column('template')

