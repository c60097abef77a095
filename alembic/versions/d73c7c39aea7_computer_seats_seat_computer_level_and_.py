"""computer seats: seat.computer level and clock_seat.computer

Issue 18: `seat.computer` is the level (easy | normal | strong) of a seat the computer plays, NULL
for a person. `clock_seat.computer` is the clock's own copy of that fact (the clock knows only
`(game_id, seat)`): the decisions of such a seat are due at once and never reminded.

Revision ID: d73c7c39aea7
Revises: 93d9415b6790
Create Date: 2026-12-02 15:46:21.250123

"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa
import sqlmodel


# revision identifiers, used by Alembic.
revision: str = 'd73c7c39aea7'
down_revision: Union[str, Sequence[str], None] = '93d9415b6790'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    """Upgrade schema: two columns, with ALTER TABLE on SQLite too (no copy of `seat`: other tables
    refer to it, and foreign keys are on)."""
    with op.batch_alter_table('clock_seat', schema=None, recreate='never') as batch_op:
        batch_op.add_column(sa.Column('computer', sa.Boolean(), server_default=sa.text('false'), nullable=False))

    with op.batch_alter_table('seat', schema=None, recreate='never') as batch_op:
        batch_op.add_column(sa.Column('computer', sqlmodel.sql.sqltypes.AutoString(length=8), nullable=True))


def downgrade() -> None:
    """Downgrade schema."""
    with op.batch_alter_table('seat', schema=None, recreate='never') as batch_op:
        batch_op.drop_column('computer')

    with op.batch_alter_table('clock_seat', schema=None, recreate='never') as batch_op:
        batch_op.drop_column('computer')
