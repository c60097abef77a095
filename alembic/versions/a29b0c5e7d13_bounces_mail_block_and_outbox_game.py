"""bounces (issue 29): the addresses nothing is mailed to

`mail_block`: one row per address (a hash of it) that bounced permanently or asked for no mail at
all. (`outbox.game_ref`, the game a mail is about, comes from c7d29e5a1f30.)

Revision ID: a29b0c5e7d13
Revises: c7d29e5a1f30
Create Date: 2026-12-06 03:30:00.000000

"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa
import sqlmodel


# revision identifiers, used by Alembic.
revision: str = 'a29b0c5e7d13'
down_revision: Union[str, Sequence[str], None] = 'c7d29e5a1f30'
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


def downgrade() -> None:
    """Downgrade schema."""
    op.drop_table('mail_block')
