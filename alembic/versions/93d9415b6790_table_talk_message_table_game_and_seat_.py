"""table talk: message table, game and seat pointers

Issue 19: `message` holds what players write to the table (their own text, at most 500 characters,
with the game version it came with and the host's hidden flag). `game.last_message_id` is the newest
message of a game and `seat.mailed_message_id` the newest one a seat's mails have carried: a mail
looks for messages only when the first is past the second. `seat.talk_mail`: the seat asked for a
mail per message (off by default).

Revision ID: 93d9415b6790
Revises: 3d5e7a1c9b42
Create Date: 2026-12-02 14:15:51.669025

"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa
import sqlmodel


# revision identifiers, used by Alembic.
revision: str = '93d9415b6790'
down_revision: Union[str, Sequence[str], None] = '3d5e7a1c9b42'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    """Upgrade schema: the message table, then the pointers (ALTER TABLE ADD COLUMN on SQLite too)."""
    op.create_table('message',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('game_id', sqlmodel.sql.sqltypes.AutoString(length=24), nullable=False),
    sa.Column('seat', sa.Integer(), nullable=False),
    sa.Column('text', sqlmodel.sql.sqltypes.AutoString(length=500), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('hidden', sa.Boolean(), nullable=False),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.ForeignKeyConstraint(['game_id'], ['game.id'], name=op.f('fk_message_game_id_game')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_message'))
    )
    with op.batch_alter_table('message', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_message_game_id'), ['game_id'], unique=False)

    with op.batch_alter_table('game', schema=None, recreate='never') as batch_op:
        batch_op.add_column(sa.Column('last_message_id', sa.Integer(), nullable=True))

    with op.batch_alter_table('seat', schema=None, recreate='never') as batch_op:
        batch_op.add_column(sa.Column('mailed_message_id', sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column('talk_mail', sa.Boolean(), server_default=sa.text('false'), nullable=False))



def downgrade() -> None:
    """Downgrade schema: the messages go (the table first: it refers to `game`), then the two
    pointers, with ALTER TABLE on SQLite too (no copy of `game` or `seat`: other tables refer to
    them, and foreign keys are on)."""
    with op.batch_alter_table('message', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_message_game_id'))

    op.drop_table('message')
    with op.batch_alter_table('seat', schema=None, recreate='never') as batch_op:
        batch_op.drop_column('talk_mail')
        batch_op.drop_column('mailed_message_id')

    with op.batch_alter_table('game', schema=None, recreate='never') as batch_op:
        batch_op.drop_column('last_message_id')
