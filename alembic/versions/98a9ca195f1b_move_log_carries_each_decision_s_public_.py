"""move log carries each decision's public events (the state no longer grows with them)

Existing rows keep NULL: their events are in the saved state's log already (usecases.full_game reads
the state's log, then the events of the move rows).

Revision ID: 98a9ca195f1b
Revises: 05bb9ae58347
Create Date: 2026-11-30 16:11:08.091733

"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa
import sqlmodel


# revision identifiers, used by Alembic.
revision: str = '98a9ca195f1b'
down_revision: Union[str, Sequence[str], None] = '05bb9ae58347'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    """Upgrade schema."""
    with op.batch_alter_table('move', schema=None) as batch_op:
        batch_op.add_column(sa.Column('events', sa.JSON(), nullable=True))


def downgrade() -> None:
    """Downgrade schema: first every game's saved state gets its whole event log back (the older
    code keeps it there)."""
    bind = op.get_bind()
    games = sa.table("game", sa.column("id", sa.String), sa.column("state", sa.JSON))
    moves = sa.table("move", sa.column("game_id", sa.String), sa.column("number", sa.Integer),
                     sa.column("events", sa.JSON))
    for game_id, state in bind.execute(sa.select(games.c.id, games.c.state)).all():
        if not state:
            continue
        rows = bind.execute(sa.select(moves.c.events).where(moves.c.game_id == game_id)
                            .order_by(moves.c.number)).all()
        extra = [e for (events,) in rows for e in (events or ())]
        if extra:
            state["log"] = list(state["log"]) + extra
            bind.execute(games.update().where(games.c.id == game_id).values(state=state))
    with op.batch_alter_table('move', schema=None) as batch_op:
        batch_op.drop_column('events')

