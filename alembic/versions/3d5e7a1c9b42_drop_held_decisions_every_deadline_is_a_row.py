"""drop held decisions: every deadline is a clock_deadline row again

The game row no longer holds the clock's one owed decision (`clock_held`, `clock_next_at`,
`clock_rows`, index `ix_game_clock_due`, from 8b199e953917): a move writes its deadlines as rows in
its own transaction, and the sweep claims them with a conditional UPDATE. A decision still held on
a game row when this runs becomes the `clock_deadline` row it stood for (its values are exactly the
row `clock.schedule_decisions` would have inserted: same deadline, reminders, next event), unless
the table already has an open row for that decision (the partial unique index allows one).

Revision ID: 3d5e7a1c9b42
Revises: 8b199e953917
Create Date: 2026-12-02 13:10:00

"""
from datetime import datetime
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision: str = '3d5e7a1c9b42'
down_revision: Union[str, Sequence[str], None] = '8b199e953917'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None

_TIMES = ("created_at", "deadline_at", "next_at", "vacation_until")
_COLUMNS = ("game_id", "seat", "kind", "version", "policy", "decision_seconds", "reminders_left",
            "reminders_sent", "created_at", "deadline_at", "next_at", "next_event", "vacation_until",
            "paused_remaining_s", "bot_played", "attempts")

_game = sa.table("game", sa.column("id", sa.String), sa.column("clock_held", sa.JSON))
_deadline = sa.table(
    "clock_deadline", sa.column("id", sa.Integer), sa.column("game_id", sa.String), sa.column("seat", sa.Integer),
    sa.column("kind", sa.String), sa.column("version", sa.Integer), sa.column("policy", sa.String),
    sa.column("decision_seconds", sa.Integer), sa.column("reminders_left", sa.JSON),
    sa.column("reminders_sent", sa.Integer), sa.column("created_at", sa.DateTime),
    sa.column("deadline_at", sa.DateTime), sa.column("next_at", sa.DateTime), sa.column("next_event", sa.String),
    sa.column("vacation_until", sa.DateTime), sa.column("paused_remaining_s", sa.Integer),
    sa.column("bot_played", sa.Boolean), sa.column("attempts", sa.Integer), sa.column("fired_at", sa.DateTime))


def _row(held: dict) -> dict:
    """The held JSON (times as ISO strings) as the deadline row's values."""
    values = {k: held.get(k) for k in _COLUMNS}
    for k in _TIMES:
        if values[k] is not None:
            values[k] = datetime.fromisoformat(values[k])
    values["reminders_left"] = list(values["reminders_left"] or [])
    values["reminders_sent"] = values["reminders_sent"] or 0
    values["attempts"] = values["attempts"] or 0
    values["bot_played"] = bool(values["bot_played"])
    return values


def upgrade() -> None:
    """Upgrade schema: held decisions become rows, then the game row's clock columns go."""
    conn = op.get_bind()
    held = conn.execute(sa.select(_game.c.id, _game.c.clock_held).where(_game.c.clock_held.is_not(None))).all()
    for _game_id, data in held:
        if not data:
            continue
        values = _row(data)
        d = _deadline.c
        taken = conn.execute(sa.select(d.id).where(d.game_id == values["game_id"], d.seat == values["seat"],
                                                   d.kind == values["kind"], d.fired_at.is_(None))).first()
        if taken is None:
            conn.execute(sa.insert(_deadline).values(**values))
    # Without recreating `game` on SQLite (seats and moves refer to it, and foreign keys are on):
    # SQLite drops a column that is in no index with ALTER TABLE, so the index goes first.
    with op.batch_alter_table('game', schema=None, recreate='never') as batch_op:
        batch_op.drop_index('ix_game_clock_due', sqlite_where=sa.text('clock_next_at IS NOT NULL'),
                            postgresql_where=sa.text('clock_next_at IS NOT NULL'))
        batch_op.drop_column('clock_rows')
        batch_op.drop_column('clock_next_at')
        batch_op.drop_column('clock_held')


def downgrade() -> None:
    """Downgrade schema: the columns come back empty; every decision stays a row (`clock_rows` true:
    the table may hold open rows of the game, which is what the held-decision code expects). With
    ALTER TABLE on SQLite too (no copy of `game`: seats and moves refer to it)."""
    with op.batch_alter_table('game', schema=None, recreate='never') as batch_op:
        batch_op.add_column(sa.Column('clock_held', sa.JSON(), nullable=True))
        batch_op.add_column(sa.Column('clock_next_at', sa.DateTime(), nullable=True))
        batch_op.add_column(sa.Column('clock_rows', sa.Boolean(), server_default=sa.text('true'), nullable=False))
        batch_op.create_index('ix_game_clock_due', ['clock_next_at'], unique=False,
                              sqlite_where=sa.text('clock_next_at IS NOT NULL'),
                              postgresql_where=sa.text('clock_next_at IS NOT NULL'))
