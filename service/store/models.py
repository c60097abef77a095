"""Database tables of the service (SQLModel).

The naming convention is set on the shared metadata before any table is defined, so constraints get
stable names on SQLite and PostgreSQL alike (Alembic batch mode needs them).
"""

from datetime import UTC, datetime

from sqlalchemy import JSON, Column, Integer, UniqueConstraint, text
from sqlmodel import Field, SQLModel

# (importing naming sets the naming convention before any table)
from service.store.naming import NULLABLE_JSON


def utcnow() -> datetime:
    return datetime.now(UTC)


class GameRow(SQLModel, table=True):
    """One game. `state` is the engine's full JSON (hidden information: never rendered). `version`
    is the engine state's version: every move's UPDATE is conditional on it (exactly once)."""

    __tablename__ = "game"

    id: str = Field(primary_key=True, max_length=24)
    status: str = Field(default="inviting", max_length=16)  # inviting | active | finished | cancelled
    variant: str = Field(default="classic", max_length=32)
    options: dict = Field(default_factory=dict, sa_type=JSON)
    decision_hours: int = Field(default=48)
    reminder_hours: list = Field(default_factory=lambda: [24, 4], sa_type=JSON)  # before the deadline
    timeout_policy: str = Field(default="bot", max_length=8)  # bot | wait
    title: str = Field(default="", max_length=400)
    state: dict | None = Field(default=None, sa_type=NULLABLE_JSON)
    version: int = Field(default=0, sa_column=Column(Integer, nullable=False, default=0))
    record: dict | None = Field(default=None, sa_type=NULLABLE_JSON)  # engine record at the deal (moves empty)
    setup: dict = Field(default_factory=dict, sa_type=JSON)  # seed/deals for the deal (hidden)
    spectator_salt: str = Field(max_length=64)
    rematch_of: str | None = Field(default=None, max_length=24)
    rematch_id: str | None = Field(default=None, max_length=24)
    # the id of the game's newest table-talk message (None: nobody wrote yet): a mail checks it
    # before it looks for messages to carry (`mail.talk`), so a game without talk costs no query
    last_message_id: int | None = None
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)


class SeatRow(SQLModel, table=True):
    """A player of a game. `seat` is the engine seat once dealt (invitation order until then)."""

    __tablename__ = "seat"
    __table_args__ = (UniqueConstraint("game_id", "position", name="uq_seat_game_position"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: str = Field(foreign_key="game.id", index=True, max_length=24)
    position: int  # order on the new-game form, 0 = host
    seat: int | None = None  # engine seat, set at the deal
    name: str = Field(max_length=40)
    email: str = Field(index=True, max_length=254)
    status: str = Field(default="invited", max_length=16)  # invited | accepted | declined
    is_host: bool = False
    token_salt: str = Field(max_length=64)
    token_hash: str = Field(unique=True, max_length=64)
    mail_pref: str = Field(default="every", max_length=16)  # every | digest | off
    tz: str | None = Field(default=None, max_length=64)  # IANA zone (asked at acceptance), None = host's
    # the newest table-talk message this seat's mails have covered: its next mail carries the later ones
    mailed_message_id: int | None = None
    # the game version this seat's previous mail showed: its next mail lists the public events since
    # (issue 28.1, `service.mail.talk`); None: since the seat's own last move
    mailed_version: int | None = None
    # a mail for every message the others write (issue 19), only with mail_pref "every"; off by default
    talk_mail: bool = Field(default=False, sa_column_kwargs={"server_default": text("false")})
    # the language of this seat's pages and mails (issue 17; service.i18n.LANGUAGES), chosen by the
    # host on /new, changeable on the accept page and in the seat's settings
    lang: str = Field(default="en", max_length=8, sa_column_kwargs={"server_default": "en"})
    # issue 18: a seat the computer plays, with its level (easy | normal | strong); None: a person.
    # A computer seat has no address (`email` is ""), gets no mail, and is accepted at once.
    computer: str | None = Field(default=None, max_length=8)
    # issue 32.2: calendar invitations of this seat's deadlines (off by default), and "<UID> <SEQUENCE>
    # <clock row id>" of the last one sent and not yet cancelled (the seat's next mail carries the
    # CANCEL once that clock row is closed; `service.mail.ical`)
    calendar: bool = Field(default=False, sa_column_kwargs={"server_default": text("false")})
    calendar_event: str | None = Field(default=None, max_length=200)
    created_at: datetime = Field(default_factory=utcnow)


class MoveRow(SQLModel, table=True):
    """The move log: with the game's record it is a complete engine game record, and with the saved
    state's own (deal-time) log it is the game's public event log (see `play.lookups.full_game`)."""

    __tablename__ = "move"
    # (game_id, number) also serves every lookup by game: no index of its own on game_id, one less
    # index to write per move
    __table_args__ = (UniqueConstraint("game_id", "number", name="uq_move_game_number"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: str = Field(foreign_key="game.id", max_length=24)
    number: int  # 1-based
    seat: int
    move: str = Field(max_length=200)
    version_before: int
    created_at: datetime = Field(default_factory=utcnow)
    # the public events of the decision (on its last step's row): the game's event log lives here,
    # not in the saved state, which so stays about as small in a long game as in a new one
    events: list | None = Field(default=None, sa_type=NULLABLE_JSON)


MAX_MESSAGE_CHARS = 500


class MessageRow(SQLModel, table=True):
    """Table talk (issue 19): what a seat wrote to the table, from its board or in a reply mail.
    Only the player's own text, never anything from the game's state. `version` is the game's
    version it came with (after the move it came with, if any): pages show it after that move.
    A host may hide a message (`hidden`); it stays in the table, its text is no longer shown."""

    __tablename__ = "message"

    id: int | None = Field(default=None, primary_key=True)
    game_id: str = Field(foreign_key="game.id", index=True, max_length=24)
    seat: int  # engine seat of the writer
    text: str = Field(max_length=MAX_MESSAGE_CHARS)
    version: int
    hidden: bool = False
    created_at: datetime = Field(default_factory=utcnow)
