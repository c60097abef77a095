"""calendar invitations of deadlines (issue 32.2): seat.calendar, seat.calendar_event,
clock_deadline.moves, outbox.calendar

* `seat.calendar`: the seat asked for calendar invitations (off by default).
* `seat.calendar_event`: "<UID> <SEQUENCE> <clock row id>" of the last invitation sent to the seat
  and not yet cancelled; its next mail carries the CANCEL once that decision's clock row is closed.
* `clock_deadline.moves`: how often the deadline of this decision moved (vacation, play now, back
  from bot play): the event's SEQUENCE.
* `outbox.calendar`: the invitation (and cancellation) a mail carries, as plain data; the MIME part
  is built from it and the row's creation time (the same bytes on every retry).

Revision ID: a3c5e7f9b1d2
Revises: b7e2d4c6a8f1
Create Date: 2026-12-06 08:00:00.000000

"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op


# revision identifiers, used by Alembic.
revision: str = 'a3c5e7f9b1d2'
down_revision: Union[str, Sequence[str], None] = 'b7e2d4c6a8f1'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    with op.batch_alter_table('seat', schema=None, recreate='never') as batch_op:
        batch_op.add_column(sa.Column('calendar', sa.Boolean(), nullable=False, server_default=sa.false()))
        batch_op.add_column(sa.Column('calendar_event', sa.String(length=200), nullable=True))
    with op.batch_alter_table('clock_deadline', schema=None, recreate='never') as batch_op:
        batch_op.add_column(sa.Column('moves', sa.Integer(), nullable=False, server_default='0'))
    with op.batch_alter_table('outbox', schema=None, recreate='never') as batch_op:
        batch_op.add_column(sa.Column('calendar', sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.drop_column('calendar')
    with op.batch_alter_table('clock_deadline', schema=None) as batch_op:
        batch_op.drop_column('moves')
    with op.batch_alter_table('seat', schema=None) as batch_op:
        batch_op.drop_column('calendar_event')
        batch_op.drop_column('calendar')
