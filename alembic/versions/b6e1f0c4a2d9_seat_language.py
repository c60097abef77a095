"""seat language: `seat.lang`

Issue 17: each seat's pages and mails are in its own language (en, sv, nl, af, de), chosen by the
host for each invitee and changeable by the player. Existing seats get English, what they had.

Revision ID: b6e1f0c4a2d9
Revises: b6e1d4f2a907
Create Date: 2026-12-02 16:00:00

"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa
import sqlmodel


# revision identifiers, used by Alembic.
revision: str = 'b6e1f0c4a2d9'
down_revision: Union[str, Sequence[str], None] = 'b6e1d4f2a907'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    """ALTER TABLE ADD COLUMN with a server default (SQLite too: no copy of `seat`)."""
    with op.batch_alter_table('seat', schema=None, recreate='never') as batch_op:
        batch_op.add_column(sa.Column('lang', sqlmodel.sql.sqltypes.AutoString(length=8), server_default='en',
                                      nullable=False))


def downgrade() -> None:
    with op.batch_alter_table('seat', schema=None, recreate='never') as batch_op:
        batch_op.drop_column('lang')
