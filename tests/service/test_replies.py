"""Reading reply mails (service.mail.replies, reply_text, body) over real-world reply shapes, and fuzzing them into plans."""

from __future__ import annotations

import base64
from email.message import EmailMessage
from email.utils import formataddr

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import engine
from engine.plans import parse_plan
from service.mail.body import body_text, html_to_text
from service.mail.replies import (
    classify,
    message_key,
    parse_reply_address,
    read_reply,
    reply_address,
    seat_token_from_address,
    seat_tokens,
)
from service.mail.reply_text import cut_reply, extract_commands
from tests.service.smtp_fixture import engine as outbox_engine  # noqa: F401  (fixture: SQLite and PostgreSQL)

DOMAIN = "skyjo.example.org"
SEAT = f"play+Tk3n_9xQ@{DOMAIN}"
US = f"skyjo@{DOMAIN}"

TURN_MAIL = (
    """Your turn in game 12, Ann.

Discard pile: 5. Your grid: A1 3, B1 7, the rest face-down.
Reply with your move, e.g. draw swap B2, take swap C1,
or draw: if 4 or less swap B2, else flip C3.
"""
    + "-- \nSKYJO by mail\n"
)


def quoted(text: str = TURN_MAIL) -> str:
    return "\n".join("> " + line if line else ">" for line in text.splitlines())


def mail(
    body: str | None = None,
    *,
    html: str | None = None,
    cte: str | None = None,
    charset: str = "utf-8",
    sender: str = "Ann <ann@example.com>",
    to: str = SEAT,
    **headers: str,
) -> EmailMessage:
    m = EmailMessage()
    m["From"] = sender
    m["To"] = to
    m["Subject"] = "Re: Your turn in game 12"
    m["Message-ID"] = "<reply-1@example.com>"
    for k, v in headers.items():
        m[k.replace("_", "-")] = v
    if body is not None:
        m.set_content(body, charset=charset, cte=cte) if cte else m.set_content(body, charset=charset)
        if html is not None:
            m.add_alternative(html, subtype="html")
    elif html is not None:
        m.set_content(html, subtype="html", cte=cte) if cte else m.set_content(html, subtype="html")
    return m


def commands(m: EmailMessage | bytes) -> list[str]:
    return extract_commands(m).lines


# ------------------------------------------------------------------------------ reply shapes
def test_top_posted_gmail() -> None:
    body = f"draw swap B2\n\nOn Mon, 30 Nov 2026 at 12:00, SKYJO <{SEAT}> wrote:\n{quoted()}\n"
    assert commands(mail(body)) == ["draw swap B2"]


def test_gmail_header_wrapped_over_two_lines() -> None:
    body = f"take swap C1\n\nOn Mon, 30 Nov 2026 at 12:00, SKYJO by mail <\n{SEAT}> wrote:\n\n{quoted()}\n"
    assert commands(mail(body)) == ["take swap C1"]


def test_bottom_posted() -> None:
    body = f"On Mon, 30 Nov 2026 at 12:00, SKYJO <{SEAT}> wrote:\n{quoted()}\n\ndraw flip C3\n\nAnn\n"
    assert commands(mail(body)) == ["draw flip C3"]


def test_bottom_posted_without_header_and_inline() -> None:
    assert commands(mail(f"{quoted()}\n\ntake swap A1\n")) == ["take swap A1"]


def test_header_without_quote_is_never_read_as_commands() -> None:
    body = f"On Mon, 30 Nov 2026 at 12:00, SKYJO <{SEAT}> wrote:\n\n{TURN_MAIL}"
    assert commands(mail(body)) == []


def test_empty_reply_with_only_the_quote() -> None:
    assert commands(mail(f"\n\nOn Mon, 30 Nov 2026, SKYJO <{SEAT}> wrote:\n{quoted()}\n")) == []


def test_outlook_from_sent_block() -> None:
    body = (
        "draw: if 4 or less swap B2, else flip C3\r\n\r\n"
        "________________________________\r\n"
        f"From: SKYJO <{SEAT}>\r\nSent: Monday, November 30, 2026 12:00 PM\r\n"
        "To: Ann <ann@example.com>\r\nSubject: Your turn in game 12\r\n\r\n" + TURN_MAIL
    )
    assert commands(mail(body)) == ["draw: if 4 or less swap B2, else flip C3"]


def test_outlook_block_without_rule_line() -> None:
    body = (
        f"take swap B3\n\nFrom: SKYJO <{SEAT}>\nDate: Monday, 30 November 2026 at 12:00\n"
        "To: Ann\nSubject: Your turn\n\n" + TURN_MAIL
    )
    assert commands(mail(body)) == ["take swap B3"]


def test_swedish_outlook_block() -> None:
    body = (
        f"draw swap D1\n\nFrån: SKYJO <{SEAT}>\nSkickat: den 30 november 2026 12:00\n"
        "Till: Åsa Öberg\nÄmne: Din tur\n\n" + TURN_MAIL
    )
    assert commands(mail(body)) == ["draw swap D1"]


def test_original_message_banner() -> None:
    body = f"draw\n\n-----Original Message-----\nFrom: SKYJO\n{TURN_MAIL}"
    assert commands(mail(body)) == ["draw"]


@pytest.mark.parametrize(
    "header",
    [
        "Den mån 30 nov. 2026 kl 12:00 skrev SKYJO <{seat}>:",
        "Den 30 nov. 2026 kl. 12:00 skrev SKYJO by mail <{seat}>:",
        "Op ma 30 nov. 2026 om 12:00 schreef SKYJO <{seat}>:",
        "Op 30-11-2026 12:00 schreef SKYJO:",
        "Am Mo., 30. Nov. 2026 um 12:00 Uhr schrieb SKYJO <{seat}>:",
        "Am 30.11.2026 um 12:00 schrieb SKYJO:",
        "Le lun. 30 nov. 2026 à 12:00, SKYJO <{seat}> a écrit :",
        "El lun, 30 nov 2026 a las 12:00, SKYJO (<{seat}>) escribió:",
        "SKYJO <{seat}> wrote:",
        "On 30 Nov 2026, at 12:00, SKYJO <{seat}> wrote:",
        "Am Mo., 30. Nov. 2026 um 12:00 Uhr schrieb SKYJO <\n{seat}>:",
        "Op ma 30 nov 2026 om 12:00 schreef SKYJO <\n{seat}>:",
        "On Monday, November 30, 2026, 12:00:00 PM GMT+1, SKYJO <{seat}> wrote:",
        "On 30/11/2026 12:00, SKYJO wrote:",
    ],
)
def test_reply_headers_in_several_languages(header: str) -> None:
    body = f"draw swap B2\n\n{header.format(seat=SEAT)}\n{quoted()}\n"
    assert commands(mail(body)) == ["draw swap B2"]
    # and the same header in a bottom-posted reply
    body = f"{header.format(seat=SEAT)}\n{quoted()}\n\ntake swap A2\n"
    assert commands(mail(body)) == ["take swap A2"]


@pytest.mark.parametrize(
    "signature",
    [
        "-- \nAnn Åkesson\n+46 70 123 45 67",
        "--\nAnn",
        "—\nAnn",
        "Sent from my iPhone",
        "Skickat från min iPhone",
        "Von meinem iPhone gesendet",
        "Verstuurd vanaf mijn iPhone",
        "Get Outlook for Android",
        "__________\nAnn's footer",
    ],
)
def test_signatures(signature: str) -> None:
    assert commands(mail(f"draw swap B2\n{signature}\n")) == ["draw swap B2"]
    assert commands(mail(f"draw swap B2\n\n{signature}\n\nOn Mon, SKYJO wrote:\n{quoted()}")) == [
        "draw swap B2"
    ]


def test_signature_right_below_the_commands_is_cut_but_a_greeting_is_not_a_command() -> None:
    r = extract_commands(mail("draw swap B2\n\nThanks, nice game!\nAnn\n"))
    assert r.lines == ["draw swap B2"]
    assert r.ignored == ["Thanks, nice game!", "Ann"]


@pytest.mark.parametrize(
    "banner",
    [
        "---------- Forwarded message ---------",
        "Begin forwarded message:",
        "-------- Weitergeleitete Nachricht --------",
        "-------- Doorgestuurd bericht --------",
        "---------- Vidarebefordrat meddelande ----------",
        "-----Ursprüngliche Nachricht-----",
    ],
)
def test_forwarded(banner: str) -> None:
    body = f"take swap C2\n\n{banner}\nFrom: SKYJO <{SEAT}>\nDate: Mon\nSubject: Your turn\n\ndraw swap B2\n"
    assert commands(mail(body)) == ["take swap C2"]


def test_multi_line_plan_with_continuation_blocks() -> None:
    body = "draw\nif 4 or less swap B2\n\nelse flip C3\n\nCheers\n"
    assert commands(mail(body)) == ["draw", "if 4 or less swap B2", "else flip C3"]


def test_first_block_only_and_line_limits() -> None:
    body = "\n\n  take swap B2  \n\ndraw\n"
    r = extract_commands(mail(body))
    assert r.lines == ["take swap B2"] and r.text == "take swap B2" and r.ignored == ["draw"]
    long = "\n".join(["draw"] * 30)
    assert len(extract_commands(mail(long)).lines) == 12


def test_html_only_gmail() -> None:
    html = (
        '<div dir="ltr"><div>draw: if 4 or less swap B2,</div><div>else flip C3</div></div><br>'
        '<div class="gmail_quote"><div dir="ltr" class="gmail_attr">On Mon, 30 Nov 2026 at 12:00, SKYJO '
        f'&lt;{SEAT}&gt; wrote:<br></div><blockquote class="gmail_quote">Your turn. draw swap B2'
        "</blockquote></div>"
    )
    r = extract_commands(mail(html=html))
    assert r.lines == ["draw: if 4 or less swap B2,", "else flip C3"]
    assert r.source == "text/html"


def test_html_only_outlook() -> None:
    html = (
        "<html><head><style>p {margin:0}</style></head><body>"
        '<div class="elementToProof">take swap&nbsp;C1</div>'
        '<div id="appendonsend"></div><hr style="display:inline-block;width:98%">'
        '<div id="divRplyFwdMsg" dir="ltr"><b>From:</b> SKYJO<br><b>Sent:</b> Monday</div>'
        "<div>Your turn. draw swap B2</div></body></html>"
    )
    assert commands(mail(html=html)) == ["take swap C1"]


def test_html_only_thunderbird_with_entities_and_paragraphs() -> None:
    html = (
        '<p class="MsoNormal">draw</p>\n  <p class="MsoNormal">if 4 or less swap B2</p>\n'
        "<p class=MsoNormal>else flip C3<o:p></o:p></p>"
        '<div class="moz-cite-prefix">On 30/11/2026 12:00, SKYJO wrote:<br></div>'
        '<blockquote type="cite">draw swap B2</blockquote>'
    )
    assert commands(mail(html=html)) == ["draw", "if 4 or less swap B2", "else flip C3"]


def test_html_to_text_keeps_lines_and_drops_scripts() -> None:
    assert html_to_text("<script>x</script>a<br>b<div>c</div><div><br></div><div>d</div>") == "a\nb\nc\n\nd"


def test_plain_part_is_preferred_over_html() -> None:
    m = mail("take swap B2\n", html="<p>draw swap A1</p>")
    assert commands(m) == ["take swap B2"]


@pytest.mark.parametrize("cte", ["base64", "quoted-printable", "8bit"])
@pytest.mark.parametrize("charset", ["utf-8", "iso-8859-1", "windows-1252"])
def test_transfer_encodings_and_charsets(cte: str, charset: str) -> None:
    body = "draw swap B2\n\nHälsningar, Åsa Öberg\n\nDen mån 30 nov. 2026 kl 12:00 skrev SKYJO:\n> Din tur\n"
    m = mail(body, cte=cte, charset=charset, sender=formataddr(("Åsa Öberg", "asa@example.se")))
    raw = m.as_bytes()
    assert b"Hlsningar" not in raw
    r = extract_commands(raw)
    assert r.lines == ["draw swap B2"]
    assert r.ignored == ["Hälsningar, Åsa Öberg"]


def test_crlf_raw_bytes_with_base64_body() -> None:
    payload = base64.b64encode(b"take swap B2\r\n\r\nOn Mon, SKYJO wrote:\r\n> x\r\n").decode()
    raw = (
        "From: =?utf-8?q?J=C3=B6rg_M=C3=BCller?= <jorg@example.de>\r\n"
        f"To: {SEAT}\r\nSubject: Re: Your turn\r\nMIME-Version: 1.0\r\n"
        "Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n"
        f"{payload}\r\n"
    ).encode()
    assert commands(raw) == ["take swap B2"]


def test_quoted_printable_soft_breaks_and_format_flowed() -> None:
    raw = (
        f"From: ann@example.com\r\nTo: {SEAT}\r\nMIME-Version: 1.0\r\n"
        "Content-Type: text/plain; charset=utf-8; format=flowed\r\n"
        "Content-Transfer-Encoding: quoted-printable\r\n\r\n"
        "draw: if 4 or less swap B2, =\r\nelse flip C3\r\n\r\n-- \r\nAnn =C3=85\r\n"
    ).encode()
    assert commands(raw) == ["draw: if 4 or less swap B2, else flip C3"]
    flowed = (
        f"From: ann@example.com\r\nTo: {SEAT}\r\nMIME-Version: 1.0\r\n"
        "Content-Type: text/plain; charset=utf-8; format=flowed\r\n\r\n"
        "draw: if 4 or less swap B2, \r\nelse flip C3\r\n"
    ).encode()
    assert commands(flowed) == ["draw: if 4 or less swap B2, else flip C3"]


def test_unknown_charset_and_attachments() -> None:
    raw = (
        f"From: ann@example.com\r\nTo: {SEAT}\r\nMIME-Version: 1.0\r\n"
        "Content-Type: text/plain; charset=x-unknown-42\r\n\r\ntake swap B2\r\n"
    ).encode()
    assert commands(raw) == ["take swap B2"]
    m = mail("draw swap C3\n")
    m.add_attachment(b"draw swap A1", maintype="application", subtype="octet-stream", filename="x.bin")
    assert commands(m) == ["draw swap C3"]


def test_no_text_body() -> None:
    m = EmailMessage()
    m["From"] = "ann@example.com"
    m.set_content(b"\x00\x01", maintype="application", subtype="octet-stream")
    assert extract_commands(m).lines == [] and not extract_commands(m)
    assert body_text(m) == ("", None)
    assert extract_commands(b"").lines == []
    assert extract_commands(b"garbage\x00\xff").lines == ["garbage\ufffd"]  # never raises


def test_cut_reply_directly() -> None:
    assert cut_reply("draw\n> quoted\nswap B2") == ["draw"]
    assert cut_reply("> a\n> b\n\ndraw\n> c\ntake") == ["", "draw"]


# ------------------------------------------------------------------------------ classify
@pytest.mark.parametrize(
    "headers, reason",
    [
        ({"Auto_Submitted": "auto-replied"}, "auto-submitted"),
        ({"Auto_Submitted": "auto-generated; type=vacation"}, "auto-submitted"),
        ({"Return_Path": "<>"}, "bounce"),
        ({"Precedence": "bulk"}, "precedence"),
        ({"Precedence": "auto_reply"}, "precedence"),
        ({"Precedence": "list"}, "precedence"),
        ({"Precedence": "junk"}, "precedence"),
        ({"X_Autoreply": "yes"}, "auto-reply"),
        ({"List_Id": "<players.skyjo.example.org>"}, "mailing list"),
    ],
)
def test_classify_ignores_automatic_mail(headers: dict[str, str], reason: str) -> None:
    assert reason in (classify(mail("draw", **headers), [US]) or "")


def test_classify_accepts_a_normal_reply() -> None:
    assert classify(mail("draw", Auto_Submitted="no", Return_Path="<ann@example.com>"), [US]) is None
    assert classify(mail("draw", Precedence="first-class"), [US]) is None


def test_classify_bounces() -> None:
    assert "MAILER-DAEMON" in classify(
        mail("x", sender="Mail Delivery System <MAILER-DAEMON@mx.example.com>"), [US]
    )
    m = EmailMessage()
    m["From"] = "postmaster@example.com"
    m.set_content("Delivery failed")
    m.make_mixed()
    m.set_type("multipart/report")
    assert "delivery report" in classify(m, [US])


def test_classify_our_own_mail_never_loops() -> None:
    assert classify(mail("draw", sender=f"SKYJO <{US}>"), [US]) == "from our own address"
    assert classify(mail("draw", sender=f"<{SEAT}>"), [US, f"play@{DOMAIN}"]) == "from our own address"
    assert classify(mail("draw", sender="SKYJO <SKYJO@Skyjo.Example.ORG>"), [US]) == "from our own address"
    assert classify(mail("draw"), [US]) is None


# ------------------------------------------------------------------------------ seat addresses
@pytest.mark.parametrize(
    "addr, token",
    [
        (SEAT, "Tk3n_9xQ"),
        (f"SKYJO game 12 <{SEAT}>", "Tk3n_9xQ"),
        (f"Play+Tk3n_9xQ@{DOMAIN.upper()}", "Tk3n_9xQ"),
        (f"play+abc-DEF_123@{DOMAIN}.", "abc-DEF_123"),
        (f"play@{DOMAIN}", None),
        (f"play+@{DOMAIN}", None),
        ("play+abc@evil.example.com", None),
        (f"other+abc@{DOMAIN}", None),
        (f"play+a b@{DOMAIN}", None),
        (f"play+abc@x@{DOMAIN}", None),
        (f"play+Tk3n_9xQ.37@{DOMAIN}", "Tk3n_9xQ"),
        (f"play+Tk3n_9xQ.x7@{DOMAIN}", None),
        (f"play+Tk3n.9xQ@{DOMAIN}", None),
        ("", None),
    ],
)
def test_seat_token_from_address(addr: str, token: str | None) -> None:
    assert seat_token_from_address(addr, DOMAIN) == token


def test_seat_tokens_envelope_first() -> None:
    m = mail(
        "draw", to=f"Ann <ann@example.com>, SKYJO <play+second@{DOMAIN}>", Delivered_To=f"play+first@{DOMAIN}"
    )
    assert seat_tokens(m, DOMAIN) == ["first", "second"]
    assert seat_tokens(mail("draw", to="someone@example.com"), DOMAIN) == []


def test_message_key() -> None:
    assert message_key(mail("draw")) == "reply-1@example.com"
    m = mail("draw")
    del m["Message-ID"]
    assert message_key(m).startswith("sha256:") and message_key(m) == message_key(m.as_bytes())


def test_a_nul_in_the_message_id_is_not_part_of_the_key(outbox_engine) -> None:  # noqa: F811
    """Issue 20.2: on PostgreSQL a NUL in an inbound Message-ID made storing the key raise, so the
    SMTP receiver answered 451 and the sending server retried forever. The key is storable."""
    from sqlalchemy.orm import Session

    from service.store.reply_models import InboundReplyRow

    raw = f"From: a@example.org\r\nTo: play+tok@{DOMAIN}\r\nMessage-ID: <ab\x00c\x01d@x>\r\n\r\ndraw\r\n"
    key = read_reply(raw.encode(), DOMAIN).key
    assert key == "abcd@x"
    InboundReplyRow.__table__.create(outbox_engine)
    with Session(outbox_engine) as s, s.begin():
        s.add(InboundReplyRow(key=key))


# ------------------------------------------------------------------------------ fuzzing into plans
SHAPES = [
    "{cmd}\n\nOn Mon, 30 Nov 2026 at 12:00, SKYJO <{seat}> wrote:\n{quote}\n",
    "On Mon, 30 Nov 2026 at 12:00, SKYJO <{seat}> wrote:\n{quote}\n\n{cmd}\n",
    "{cmd}\n-- \nAnn\n",
    "{cmd}\n\nFrom: SKYJO <{seat}>\nSent: Monday\nTo: Ann\nSubject: turn\n\n{turn}",
    "{cmd}\n\nDen mån 30 nov. 2026 kl 12:00 skrev SKYJO <{seat}>:\n{quote}\n",
    "{cmd}",
]
WORDS = [
    "draw",
    "take",
    "swap",
    "flip",
    "reveal",
    "B2",
    "C3",
    "A1",
    "D3",
    "Z9",
    "if",
    "else",
    "4",
    "or",
    "less",
    "more",
    "9",
    "between",
    "and",
    ",",
    ":",
    "\n",
    "> ",
    "-- ",
    "wrote:",
    "é",
    "😀",
    "<=",
    "then",
    "\r\n",
    "",
]


def _game() -> engine.Game:
    g = engine.new_game(["Ann", "Bo"], seed="fuzz")
    for s in (0, 1):
        g.play(s, "reveal A1")
        g.play(s, "reveal B1")
    return g


def _mutate(text: str, data: st.DataObject) -> str:
    ops = data.draw(
        st.lists(st.tuples(st.integers(0, 3), st.integers(0, 10_000), st.sampled_from(WORDS)), max_size=4)
    )
    for op, pos, word in ops:
        p = pos % (len(text) + 1)
        if op == 0:
            text = text[:p] + word + text[p:]
        elif op == 1:
            text = text[:p] + text[p + 1 :]
        elif op == 2:
            text = text[:p] + text[p:].upper()
        else:
            text = text[:p] + " " + word + " " + text[p:]
    return text


_GAME = _game()
_VALID = [
    "draw swap B2",
    "take swap C3",
    "draw flip C3",
    "draw: if 4 or less swap B2, else flip C3",
    "draw: if 4 or less swap B2, if 9 or more flip C3, else swap A1",
    "draw",
    "take",
]


@settings(
    max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
@given(st.data())
def test_random_and_mutated_replies_never_crash_and_never_apply_from_invalid_text(
    data: st.DataObject,
) -> None:
    cmd = data.draw(
        st.one_of(
            st.sampled_from(_VALID),
            st.lists(st.sampled_from(WORDS), max_size=10).map(" ".join),
            st.text(max_size=60),
        )
    )
    shape = data.draw(st.sampled_from(SHAPES))
    body = shape.format(cmd=cmd, seat=SEAT, quote=quoted(), turn=TURN_MAIL)
    original = body
    body = _mutate(body, data)
    intact = body == original and cmd in _VALID
    how = data.draw(st.sampled_from(["plain", "base64", "qp", "html", "raw"]))
    if how == "raw":
        # bytes without a header block: not a real mail (a first line with a colon is a header)
        intact = False
        if data.draw(st.booleans()):
            msg: EmailMessage | bytes = body.encode("utf-8", "surrogatepass")
        else:
            msg = data.draw(st.binary(max_size=300))
    elif how == "html":
        import html as html_mod

        msg = mail(html="<div>" + html_mod.escape(body).replace("\n", "<br>") + "</div>")
    else:
        try:
            msg = mail(body, cte={"plain": None, "base64": "base64", "qp": "quoted-printable"}[how])
        except (ValueError, UnicodeError):
            return  # EmailMessage refuses some texts (e.g. lone surrogates): not a mail
    r = extract_commands(msg)  # must not raise
    classify(msg, [US])
    assert all(isinstance(line, str) and line == line.strip() and line for line in r.lines)
    assert len(r.lines) <= 12
    g = engine.Game.from_json(_GAME.to_json())
    before = g.to_json()
    try:
        plan = parse_plan(g, g.pending()[0].seat, r.text)
    except engine.EngineError:
        event("rejected")
        assert not intact, f"a valid reply was not understood: {body!r}"
        assert g.to_json() == before  # nothing applied from invalid text
        return
    event("plan applied")
    assert g.to_json() == before
    # a plan came out: its text must be a valid command text on its own (canonical round trip), and
    # it applies completely
    seat = g.pending()[0].seat
    assert parse_plan(g, seat, plan.text()) == plan
    if intact:
        assert plan == parse_plan(g, seat, cmd)
    steps = plan.apply(g, seat)
    assert len(steps) == len(plan.moves) + (1 if plan.branches else 0)


# ------------------------------------------------------------------------------ one call for the service
def test_read_reply_collects_everything_the_service_needs() -> None:
    m = mail(
        "take swap B2\n\nOn Mon, SKYJO wrote:\n> x\n",
        In_Reply_To="<turn-12-7@skyjo>",
        References="<root-12-0@skyjo> <turn-12-7@skyjo>",
    )
    r = read_reply(m.as_bytes(), DOMAIN, [US])
    assert r.ignore is None and r.tokens == ["Tk3n_9xQ"] and r.commands.lines == ["take swap B2"]
    assert r.key == "reply-1@example.com" and r.sender == "Ann <ann@example.com>"
    assert r.references == ["turn-12-7@skyjo", "root-12-0@skyjo"]
    assert r.subject == "Re: Your turn in game 12"
    auto = read_reply(mail("draw", Auto_Submitted="auto-replied").as_bytes(), DOMAIN, [US])
    assert auto.ignore and not auto.commands
    assert read_reply(b"\xff\x00garbage", DOMAIN, [US]).key  # never raises


@pytest.mark.parametrize(
    "body, expected",
    [
        (
            "draw flip C3\n\nSent with Proton Mail secure email.\n\n------- Original Message -------\n"
            "On Monday, SKYJO wrote:\n> x\n",
            ["draw flip C3"],
        ),
        (f"draw\n\n> On 30 Nov 2026, at 12:00, SKYJO <{SEAT}> wrote:\n> \n> Your turn\n", ["draw"]),
        (
            f"take swap A3\n\nGet Outlook for iOS\n________________________________\nFrom: SKYJO <{SEAT}>\n"
            "Sent: Monday, November 30, 2026 12:00:00 PM\n",
            ["take swap A3"],
        ),
        (
            f"On Monday, November 30, 2026, 12:00:00 PM GMT+1, SKYJO <{SEAT}> wrote:\n\nYour turn: draw swap B2\n\n"
            "take swap C3\n",
            [],
        ),  # an unquoted original below a header is never read
        ("  DRAW: If 4 Or Less Swap b2, Else Flip c3  \n", ["DRAW: If 4 Or Less Swap b2, Else Flip c3"]),
        ("Hi!\ndraw swap B2\n", ["Hi!", "draw swap B2"]),  # strict: the plan parser will refuse "Hi!"
    ],
)
def test_more_client_shapes(body: str, expected: list[str]) -> None:
    assert commands(mail(body)) == expected


def test_reply_address_carries_the_version() -> None:
    addr = reply_address(DOMAIN, "Tk3n_9xQ", 37)
    assert addr == f"play+Tk3n_9xQ.37@{DOMAIN}"
    assert parse_reply_address(f"SKYJO <{addr}>", DOMAIN) == ("Tk3n_9xQ", 37)
    assert parse_reply_address(reply_address(DOMAIN, "Tk3n_9xQ"), DOMAIN) == ("Tk3n_9xQ", None)
    with pytest.raises(ValueError):
        reply_address(DOMAIN, "bad token")
    r = read_reply(mail("draw", to=f"SKYJO <{addr}>").as_bytes(), DOMAIN, [US])
    assert r.tokens == ["Tk3n_9xQ"] and r.version == 37
    assert read_reply(mail("draw").as_bytes(), DOMAIN, [US]).version is None


def test_service_reply_tags_survive_lowercasing_and_uppercasing() -> None:
    tag = "0a1b2c3d4e5f-abcdefghijklmnopqrstuvwxyz"  # <game id>-<base32 HMAC>, as tokens.reply_token makes
    addr = reply_address(DOMAIN, tag, 5)
    assert addr == addr.lower()
    assert parse_reply_address(addr.upper(), DOMAIN) == (tag.upper(), 5)  # the service lowercases it
    assert parse_reply_address(addr, DOMAIN) == (tag, 5)
