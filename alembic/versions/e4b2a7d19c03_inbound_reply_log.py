"""inbound reply log: each reply mail processed once

The table of service/reply_models.py: the key of every reply mail taken in (its Message-ID, or a
hash of its bytes), unique, so the same mail delivered twice is played once.

Revision ID: e4b2a7d19c03
Revises: c91656f44dbf
Create Date: 2026-11-30 13:55:00.000000

"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa
import sqlmodel


# revision identifiers, used by Alembic.
revision: str = 'e4b2a7d19c03'
down_revision: Union[str, Sequence[str], None] = 'c91656f44dbf'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    """Upgrade schema."""
    op.create_table('inbound_reply',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('key', sqlmodel.sql.sqltypes.AutoString(length=255), nullable=False),
    sa.Column('game_id', sqlmodel.sql.sqltypes.AutoString(length=24), nullable=True),
    sa.Column('seat', sa.Integer(), nullable=True),
    sa.Column('outcome', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
    sa.Column('received_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_inbound_reply')),
    sa.UniqueConstraint('key', name=op.f('uq_inbound_reply_key'))
    )


def downgrade() -> None:
    """Downgrade schema."""
    op.drop_table('inbound_reply')
