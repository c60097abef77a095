"""Calendar invitations of deadlines (issue 32.2; RFC 5545 iCalendar, RFC 5546 iTIP, RFC 6047 iMIP).

A seat that asked for them (`SeatRow.calendar`, off by default) gets, with each mail asking for a
decision (the turn mail, its reminder, a reply's answer), a `text/calendar; method=REQUEST` part
for the decision's deadline. The data is decided when the mail is queued (`calendar_of`, in the
seat's language, from the intent: the decision id of the seat's view and the deadline of its
clock row) and stored on the outbox row; `add_parts` builds the MIME parts from it and the row's
creation time (DTSTAMP) when the message is built, so a retry has the same bytes (DKIM).

* UID: one per decision, derived from the game id, the seat and the public decision id (a hash, so
  it names nothing): the turn mail and every reminder of one decision update the same event.
* SEQUENCE: the deadline row's `moves` (vacation, its early end, "play now", back from bot play):
  higher whenever DTSTART moved, the same on a reminder of an unmoved deadline.
* DTSTART is the deadline (UTC), DTEND a quarter of an hour later (RFC 5545 wants DTEND after
  DTSTART); TRANSP:TRANSPARENT (a deadline does not make anyone busy); VALARMs at the game's
  reminder offsets before it; URL the seat's board.
* CANCEL: the seat row keeps "<UID> <SEQUENCE> <clock row id>" of the last invitation
  (`calendar_event`). Once that decision is no longer owed (its clock row is closed: made, timed
  out, the game over), the seat's next mail (whatever it is: the next turn mail, the round-over or
  game-over mail, a notice) carries a `method=CANCEL` for it with SEQUENCE + 1.
  No mail is sent for a cancellation alone: the next mail the game sends anyway carries it.

MIME (one iCalendar object, so one METHOD, per text/calendar part; RFC 6047 §2.4, and a
multipart/alternative carries one calendar part): the mail's text/plain and text/html stay as they
are; the main calendar part (the REQUEST, or a CANCEL alone) is the last alternative, which is what
Gmail, Outlook and Apple Mail read as an invitation; a CANCEL that travels with a REQUEST (the next
decision's) goes as an attached `cancel.ics` (text/calendar; method=CANCEL) in a multipart/mixed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage

from flask_babel import gettext as _
from icalendar import Alarm, Calendar, Event, vCalAddress, vText

from service.i18n import speaking
from service.mail.config import clean_address, parse_from

EVENT_MINUTES = 15
PRODID = "-//skyjo-pbem//deadlines//EN"


def event_uid(game_id: str, seat: int, decision: str, domain: str) -> str:
    """The one UID of a seat's decision: stable across the turn mail, its reminders and retries."""
    digest = hashlib.sha256(f"{game_id}/{seat}/{decision}".encode()).hexdigest()[:32]
    return f"deadline-{digest}@{domain}"


def calendar_of(seat, *, game_id: str, title: str, url: str, domain: str, event: dict | None,
                still_open: Callable[[int], bool]) -> dict | None:
    """The calendar data of one mail to `seat` (a `SeatRow`), and the seat's `calendar_event` moved
    with it (in the caller's transaction). `event`: the decision the mail asks for, as
    `{"decision", "deadline" (naive UTC), "moves", "alarms" (hours before), "row" (its clock row's
    id)}` (`play.notify`), or None. The previous event is cancelled when the mail invites to another
    decision, or, in a mail that asks for nothing (table talk, a notice, the game's end), when
    `still_open(row id)` says its clock row is closed: a decision still owed keeps its event.
    Returns {"request": ..., "cancel": ...} (either may be absent), or None."""
    out: dict = {}
    request_uid = None
    with speaking(seat.lang):
        summary = _("SKYJO: your move in %(title)s", title=title)
        if event is not None and seat.calendar:
            position = seat.seat if seat.seat is not None else seat.position
            request_uid = event_uid(game_id, position, event["decision"], domain)
            out["request"] = {
                "uid": request_uid, "sequence": int(event["moves"]), "start": _iso(event["deadline"]),
                "alarms": sorted({float(h) for h in event.get("alarms") or () if float(h) > 0}, reverse=True),
                "summary": summary, "url": url,
                "description": _("%(title)s waits for your move until this time. Your board: %(url)s",
                                 title=title, url=url)}
    if seat.calendar_event:
        uid, sequence, row = (seat.calendar_event.split(" ") + ["0", "0"])[:3]
        if uid != request_uid and (request_uid is not None or not still_open(int(row))):
            out["cancel"] = {"uid": uid, "sequence": int(sequence) + 1, "summary": summary}
    if "request" in out:
        seat.calendar_event = f"{request_uid} {out['request']['sequence']} {int(event['row'])}"
    elif "cancel" in out:
        seat.calendar_event = None
    return out or None


def _iso(value: datetime) -> str:
    return (value.astimezone(UTC).replace(tzinfo=None) if value.tzinfo else value).isoformat()


def ics(method: str, item: dict, *, organizer: str, attendee: str, attendee_name: str, stamp: datetime) -> bytes:
    """One iCalendar object (one METHOD) for `item` (a "request" or "cancel" entry of `calendar_of`)."""
    cal = Calendar()
    cal.add("prodid", PRODID)
    cal.add("version", "2.0")
    cal.add("method", method)
    cal.add_component(vevent(method, item, organizer=organizer, attendee=attendee,
                             attendee_name=attendee_name, stamp=stamp))
    return cal.to_ical()


def vevent(method: str, item: dict, *, organizer: str, attendee: str, attendee_name: str,
           stamp: datetime) -> Event:
    """The VEVENT of an invitation (also what a CalDAV client stores, without METHOD)."""
    ev = Event()
    ev.add("uid", item["uid"])
    ev.add("dtstamp", _utc(stamp))
    ev.add("sequence", item["sequence"])
    org = parse_from(organizer)
    who = vCalAddress(f"mailto:{org.addr_spec}")
    if org.display_name:
        who.params["cn"] = vText(org.display_name)
    ev.add("organizer", who)
    att = vCalAddress(f"mailto:{clean_address(attendee)}")
    if attendee_name:
        att.params["cn"] = vText(attendee_name)
    att.params.update({"role": "REQ-PARTICIPANT", "partstat": "NEEDS-ACTION", "rsvp": "FALSE"})
    ev.add("attendee", att)
    ev.add("summary", item["summary"])
    if method == "CANCEL":
        ev.add("status", "CANCELLED")
        return ev
    start = _utc(datetime.fromisoformat(item["start"])).replace(microsecond=0)  # iCalendar has seconds
    ev.add("dtstart", start)
    ev.add("dtend", start + timedelta(minutes=EVENT_MINUTES))
    ev.add("transp", "TRANSPARENT")
    ev.add("status", "CONFIRMED")
    ev.add("description", item["description"])
    ev.add("url", item["url"])
    for hours in item["alarms"]:
        alarm = Alarm()
        alarm.add("action", "DISPLAY")
        alarm.add("description", item["summary"])
        alarm.add("trigger", -timedelta(hours=hours))
        ev.add_component(alarm)
    return ev


def _utc(value: datetime) -> datetime:
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def add_parts(msg: EmailMessage, row, boundary: str) -> None:
    """The calendar parts of `row` (an `OutboxMail` with `calendar`) added to `msg`, whose text (and
    HTML) alternatives are set: the main one as the last alternative, a CANCEL beside a REQUEST as
    an attached cancel.ics (module docstring). Same row, same bytes: DTSTAMP is `row.created_at`."""
    data = row.calendar or {}
    args = {"organizer": row.from_addr, "attendee": row.to_addr, "attendee_name": row.to_name or "",
            "stamp": row.created_at}
    main, extra = (("REQUEST", data["request"]), data.get("cancel")) if "request" in data else (
        ("CANCEL", data["cancel"]), None)
    if msg.get_content_type() != "multipart/alternative":
        msg.make_alternative(boundary=boundary + ".a")
    # as bytes (base64): the iCalendar stream keeps its CRLF line ends (RFC 5545 3.1), which a text
    # part would turn into the message's own
    msg.add_alternative(ics(main[0], main[1], **args), maintype="text", subtype="calendar",
                        params={"charset": "utf-8", "method": main[0]})
    if extra is not None:
        msg.make_mixed(boundary=boundary + ".m")
        msg.add_attachment(ics("CANCEL", extra, **args), maintype="text", subtype="calendar",
                           params={"charset": "utf-8", "method": "CANCEL"}, filename="cancel.ics")
