"""Issue 32.2: a real calendar server accepts the deadline events the turn mails carry.

Radicale (a CalDAV server from PyPI, the dev extras) runs as a subprocess on a free port with a
temporary storage folder and no authentication. The test makes a calendar collection (MKCALENDAR),
PUTs the VEVENT of Ann's opening mail as received over SMTP (as a client stores it: a VCALENDAR
without METHOD), gets it back by GET, and PUTs the updated event (the reminder after a vacation,
SEQUENCE 1) over it. Radicale validates what it stores with its own iCalendar parser (vobject), so
an event it refuses fails here. Without radicale the test is skipped, but fails under CI=true.
"""

from __future__ import annotations

import base64
import http.client
import subprocess
import sys
import time

import pytest
from icalendar import Calendar

from service.mail.ical import PRODID
from tests.service.smtp_fixture import IN_CI, free_port, smtp_server  # noqa: F401  (the fixture)
from tests.service.test_calendar_invites import ANN, _calendars, _deliver, _received, _start

pytestmark = pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
AUTH = {"Authorization": "Basic " + base64.b64encode(b"ann:x").decode()}  # any login (auth type none)


def _unavailable(reason: str):
    if IN_CI:
        pytest.fail(f"radicale must run under CI: {reason}")
    pytest.skip(reason)


@pytest.fixture
def radicale(tmp_path):
    try:
        import radicale as _radicale  # noqa: F401
    except ImportError:
        _unavailable("radicale is not installed (pip install -e '.[dev]')")
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "radicale", "--config", "", "--server-hosts", f"127.0.0.1:{port}",
         "--auth-type", "none", "--rights-type", "owner_only", "--storage-filesystem-folder",
         str(tmp_path / "collections")],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 15
        while True:
            try:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
                conn.request("OPTIONS", "/", headers=AUTH)
                conn.getresponse().read()
                conn.close()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    err = proc.stderr.read().decode(errors="replace")[-500:] if proc.poll() is not None else ""
                    _unavailable(f"radicale did not start: {err}")
                time.sleep(0.1)
        yield port
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()


def _call(port: int, method: str, path: str, body: bytes | None = None, ctype: str | None = None):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    headers = dict(AUTH)
    if ctype:
        headers["Content-Type"] = ctype
    conn.request(method, path, body=body, headers=headers)
    r = conn.getresponse()
    data = r.read()
    conn.close()
    return r.status, data


def _stored_form(cal: Calendar) -> bytes:
    """The mail's event as a calendar client stores it: the same VEVENT in a VCALENDAR without METHOD."""
    out = Calendar()
    out.add("prodid", PRODID)
    out.add("version", "2.0")
    for ev in cal.walk("VEVENT"):
        out.add_component(ev)
    return out.to_ical()


def test_radicale_accepts_the_event_of_a_turn_mail_and_its_update(app, client, smtp_server, radicale):  # noqa: F811
    game, tokens = _start(app, client, calendar_for=(ANN,))
    _deliver(app, smtp_server)
    (method, cal, _att), = _calendars(_received(smtp_server, ANN)[-1])
    assert method == "REQUEST"
    (ev,) = cal.walk("VEVENT")
    uid = str(ev["uid"])
    status, _body = _call(radicale, "MKCALENDAR", "/ann/deadlines/")
    assert status == 201, _body
    path = "/ann/deadlines/deadline.ics"
    bad = _stored_form(cal).replace(b"BEGIN:VEVENT", b"BEGIN:VEVENT\r\nDTSTART:not-a-time", 1)
    status, _body = _call(radicale, "PUT", "/ann/deadlines/bad.ics", bad, "text/calendar; charset=utf-8")
    assert status == 400  # the server does check what it stores
    status, body = _call(radicale, "PUT", path, _stored_form(cal), "text/calendar; charset=utf-8")
    assert status == 201, body
    status, body = _call(radicale, "GET", path)
    assert status == 200
    got = Calendar.from_ical(body)
    (stored,) = got.walk("VEVENT")
    assert str(stored["uid"]) == uid
    assert stored.decoded("dtstart") == ev.decoded("dtstart")
    assert [a.decoded("trigger") for a in stored.walk("VALARM")] == [a.decoded("trigger") for a in ev.walk("VALARM")]
    # the update of the same event (what a client does with the higher SEQUENCE): stored over it
    ev["sequence"] = 1
    status, body = _call(radicale, "PUT", path, _stored_form(cal), "text/calendar; charset=utf-8")
    assert status in (201, 204), body
    status, body = _call(radicale, "GET", path)
    (stored,) = Calendar.from_ical(body).walk("VEVENT")
    assert int(stored["sequence"]) == 1
