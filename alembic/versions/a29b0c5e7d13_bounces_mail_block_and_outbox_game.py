"""bounces (issue 29): the addresses nothing is mailed to, and the game of each outbox row

`mail_block`: one row per address (a hash of it) that bounced permanently or asked for no mail at
all; `outbox.game_ref`: the game a mail is about, so a bounce of it reaches that game's host.

Revision ID: a29b0c5e7d13
Revises: b6e1f0c4a2d9
Create Date: 2026-12-06 03:30:00.000000

"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa
import sqlmodel


# revision identifiers, used by Alembic.
revision: str = 'a29b0c5e7d13'
down_revision: Union[str, Sequence[str], None] = 'b6e1f0c4a2d9'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    """Upgrade schema."""
    op.create_table('mail_block',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('address_hash', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
    sa.Column('reason', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
    sa.Column('detail', sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_mail_block')),
    sa.UniqueConstraint('address_hash', name=op.f('uq_mail_block_address_hash'))
    )
    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.add_column(sa.Column('game_ref', sa.String(length=24), nullable=True))


def downgrade() -> None:
    """Downgrade schema."""
    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.drop_column('game_ref')
    op.drop_table('mail_block')
