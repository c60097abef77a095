"""The clock's handlers in the service (`ServiceClockHandlers`, injected into `tick` by the
scheduler through `app.extensions["clock_handlers"]`, which `create_app` sets):

* `on_timeout`: the strong bot's decision for the late seat, through the one move path
  (`moves.decide` with the bot's turn, `via` "timeout", or "play-now" when the host asked for it in
  a game that waits; bound to the deadline's version: the usual checks apply); after a bot `draw`
  it also places the card (`moves.bot_turn`);
* `on_computer`: the decision a computer seat owes (issue 18, `play.computer`), through the one
  move path too (`via` "computer"), without the timeout's notices;
* `on_reminder`: the turn mail again, with the reminder on top (its links and Reply-To still play);
* `on_digest`: one mail per address listing each waiting game (with each game's table talk since
  the seat's previous mail).
"""

from __future__ import annotations

from datetime import datetime

from flask_babel import gettext as _
from sqlmodel import Session

import engine
from service.clock.deadlines import open_deadlines
from service.i18n import game_title, local_time, speaking
from service.mail import compose as mails
from service.mail.talk import since_last_mail
from service.play import computer, moves, notify
from service.play.lookups import load_engine_game, lock_game, seat_at, seats_of
from service.render.links import seat_url
from service.store import tokens
from service.store.clock_models import Deadline, SeatClock
from service.store.models import GameRow

BOT = "strong"  # the timeout bot (issue 18.2): decides from the late seat's view only
CIRCLE_LIMIT = 3  # the same position this often: the computer stops playing (engine.times_seen)


def _owes(g: engine.Game, seat: int, kind: str | None = None) -> bool:
    return any(p.seat == seat and (kind is None or p.kind == kind) for p in g.pending())


class ServiceClockHandlers:
    """`tick`'s handlers for the service (they need an app context: the scheduler provides one)."""

    def on_timeout(self, s: Session, d: Deadline) -> bool:
        lock_game(s, d.game_id)  # the move path's lock: a person's move waits, or goes first
        game = s.get(GameRow, d.game_id, populate_existing=True)
        if game is None or game.status != "active" or game.state is None:
            return False
        seat = seat_at(s, d.game_id, d.seat)
        g = load_engine_game(game)
        if seat is None or not _owes(g, d.seat, d.kind):
            return False
        if engine.times_seen(g) >= CIRCLE_LIMIT:
            # The computers (or a player and the computer) keep bringing the game back to the same
            # position: playing on would never end the round (issue 16.2). The computer stops here,
            # the decision waits for its player, and everybody is told why.
            for r in seats_of(s, game.id):
                if r.seat is not None and r.status == "accepted":
                    mails.notice(s, game, r, lambda: _(
                        "The computer stopped playing for %(name)s: the game kept coming back to the same "
                        "position and would never end. It is %(name)s's decision now.", name=seat.name))
            return False
        # the one move path, bound to the deadline's version (the seat has not decided since); a
        # drawn card is placed at once too. "play now" is the host's in a game that waits (policy
        # `wait` never times out by itself).
        via = "play-now" if d.policy == "wait" else "timeout"
        moves.decide(s, game, seat, moves.Turn(bot=BOT), via=via, g=g, expected_version=d.version)
        return True

    def on_computer(self, s: Session, d: Deadline) -> bool:
        return computer.play_owed_decision(s, d)

    def on_reminder(self, s: Session, d: Deadline) -> bool:
        game = s.get(GameRow, d.game_id)
        if game is None or game.status != "active" or game.state is None:
            return False
        seat = seat_at(s, d.game_id, d.seat)
        if seat is None or not _owes(load_engine_game(game), d.seat, d.kind):
            return False
        sc = s.get(SeatClock, (d.game_id, d.seat))
        tz = sc.tz if sc else "UTC"
        with speaking(seat.lang):
            if d.policy == "wait":
                msg = _("Reminder: the game is waiting for your decision (it was due %(when)s).",
                        when=local_time(d.deadline_at, tz))
            else:
                msg = _("Reminder: please decide by %(when)s, or the computer will play this decision for you.",
                        when=local_time(d.deadline_at, tz))
        # the turn mail again, with the reminder on top: its move links and Reply-To still play
        notify.decision_or_nothing(s, game, seat, load_engine_game(game), clock_note=msg, reminder=True)
        return True

    def on_digest(self, s: Session, seat_clocks: list[SeatClock], now: datetime) -> None:
        """The morning digest of one address: each of its games waiting for a decision, with the
        seat's own board and the table talk since the seat's previous mail (templates/mail/digest.*;
        issue 19: a digest seat gets no mail per message)."""
        games, to_name, lang = [], "", None
        for sc in seat_clocks:
            game = s.get(GameRow, sc.game_id)
            seat = seat_at(s, sc.game_id, sc.seat)
            if game is None or seat is None or game.status != "active" or game.state is None:
                continue
            view = engine.view(load_engine_game(game), sc.seat, log=False)
            due = open_deadlines(s, sc.game_id, sc.seat)
            lang = lang or seat.lang  # one mail per address: in the language of its first game's seat
            talk, since = since_last_mail(s, game, seat)
            with speaking(lang):
                games.append({"title": game.title if lang == "en" else game_title(
                                  [r.name for r in seats_of(s, game.id)]), "view": view,
                              "url": seat_url(tokens.seat_token(seat.token_salt)),
                              "due": local_time(due[0].deadline_at, sc.tz) if due else None,
                              "talk": talk, "since": since})
            to_name = seat.name
        if games:
            mails.digest(s, seat_clocks[0].address, to_name, games, now=now, lang=lang or "en")
