"""seat.mailed_version: the game version a seat's previous mail showed (issue 28.1)

Every mail to a seat lists the public events since that seat's previous mail; this is the pointer
(like `mailed_message_id` for the table talk). NULL (seats of before): their next mail lists the
events since the seat's own last move.

Revision ID: b7e2d4c6a8f1
Revises: c3f8a1d6e2b4
Create Date: 2026-12-06 06:40:00.000000

"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op


# revision identifiers, used by Alembic.
revision: str = 'b7e2d4c6a8f1'
down_revision: Union[str, Sequence[str], None] = 'c3f8a1d6e2b4'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    with op.batch_alter_table('seat', schema=None, recreate='never') as batch_op:
        batch_op.add_column(sa.Column('mailed_version', sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('seat', schema=None) as batch_op:
        batch_op.drop_column('mailed_version')
