"""Inbound transports over real protocols: SMTP into the built-in receiver, IMAP against a private
Dovecot (Debian's dovecot-imapd; skipped locally when missing, a failure under CI=true)."""

from __future__ import annotations

import imaplib
import os
import pwd
import shutil
import smtplib
import socket
import subprocess
import tempfile
import threading
import time
from email.message import EmailMessage
from pathlib import Path

import pytest

import engine
from engine.plans import parse_plan
from service.mail.inbound import InboundSMTP, parse_imap_url, poll_imap
from service.mail.replies import classify, read_reply, seat_tokens
from service.mail.reply_text import extract_commands
from tests.service.helpers import random_reply_plan

IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}
DOMAIN = "skyjo.example.org"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def reply(
    body: str = "draw swap B2\n\nOn Mon, SKYJO wrote:\n> Your turn\n",
    token: str = "tok123",
    mid: str = "<r1@example.com>",
) -> EmailMessage:
    m = EmailMessage()
    m["From"] = "Åsa Öberg <asa@example.se>"
    m["To"] = f"SKYJO <play+{token}@{DOMAIN}>"
    m["Subject"] = "Re: Your turn"
    m["Message-ID"] = mid
    m.set_content(body)
    return m


# ------------------------------------------------------------------------------ SMTP
class Sink:
    def __init__(self) -> None:
        self.mails: list[bytes] = []
        self.event = threading.Event()

    def __call__(self, raw: bytes) -> None:
        self.mails.append(raw)
        self.event.set()


def test_smtp_round_trip_hands_the_bytes_to_the_callback() -> None:
    sink = Sink()
    port = free_port()
    with InboundSMTP(sink, "127.0.0.1", port, accept_domains=[DOMAIN]):
        with smtplib.SMTP("127.0.0.1", port, timeout=10) as smtp:
            smtp.send_message(reply(), to_addrs=[f"play+tok123@{DOMAIN}"])
        assert sink.event.wait(5)
    assert len(sink.mails) == 1
    raw = sink.mails[0]
    assert raw.startswith(f"Delivered-To: play+tok123@{DOMAIN}\r\n".encode())
    assert seat_tokens(raw, DOMAIN) == ["tok123"]
    assert extract_commands(raw).lines == ["draw swap B2"]
    assert classify(raw, [f"skyjo@{DOMAIN}"]) is None


def test_smtp_refuses_other_domains_and_answers_451_when_the_handler_fails() -> None:
    def broken(raw: bytes) -> None:
        raise RuntimeError("database down")

    port = free_port()
    with InboundSMTP(broken, "127.0.0.1", port, accept_domains=[DOMAIN]):
        with smtplib.SMTP("127.0.0.1", port, timeout=10) as smtp:
            with pytest.raises(smtplib.SMTPRecipientsRefused):
                smtp.send_message(reply(), to_addrs=["someone@elsewhere.example.com"])
        with smtplib.SMTP("127.0.0.1", port, timeout=10) as smtp:
            with pytest.raises(smtplib.SMTPDataError) as err:
                smtp.send_message(reply(), to_addrs=[f"play+tok123@{DOMAIN}"])
            assert err.value.smtp_code == 451


def test_a_reply_over_smtp_plays_a_whole_turn_on_an_engine_game() -> None:
    """The path without the service: SMTP -> receiver -> commands -> plan -> applied."""
    g = engine.new_game(["Ann", "Bo"], seed="smtp")
    for s in (0, 1):
        g.play(s, "reveal A1")
        g.play(s, "reveal B1")
    seat = g.pending()[0].seat
    results: list[list[str]] = []

    def handle(raw: bytes) -> None:
        if classify(raw, [f"skyjo@{DOMAIN}"]):
            return
        plan = parse_plan(g, seat, extract_commands(raw).text)
        results.append([m.text() for m, _ in plan.apply(g, seat)])

    port = free_port()
    with InboundSMTP(handle, "127.0.0.1", port):
        with smtplib.SMTP("127.0.0.1", port, timeout=10) as smtp:
            body = "draw: if 4 or less swap B2, else flip C3\n\n-- \nAnn\n"
            smtp.send_message(reply(body), to_addrs=[f"play+tok@{DOMAIN}"])
            auto = reply("draw swap A1")
            auto["Auto-Submitted"] = "auto-replied"
            smtp.send_message(auto, to_addrs=[f"play+tok@{DOMAIN}"])
    assert len(results) == 1 and results[0][0] == "draw" and results[0][1] in ("swap B2", "flip C3")
    assert g.pending()[0].seat != seat


def _huge(to: str, html: bool) -> EmailMessage:
    """About 8 MB: the commands on top, then a wall of text that looks like replies and commands."""
    filler = "\n".join(
        f"note {i}: if {i % 9} or less swap B2, else On Mon wrote: > take A1" for i in range(100_000)
    )
    m = reply("draw swap B2\n\n" + filler)
    m.replace_header("To", to)
    if html:
        m.set_content(
            f"<html><body><div>draw swap B2</div><blockquote>{filler}</blockquote></body></html>",
            subtype="html",
        )
    return m


def test_a_huge_mail_over_smtp_costs_little_cpu() -> None:
    """Issue 20.5: an 8 MB mail cost about 10 s of CPU, to any address, because its commands were
    read before its address was checked. A mail to no seat address is not read at all; one to a
    seat address only at its start, which holds the commands."""
    read: list[tuple[str, list[str], list[str], float]] = []

    def handle(raw: bytes) -> None:
        start = time.thread_time()  # this thread's CPU: the same on an idle and a busy machine
        r = read_reply(raw, DOMAIN, [f"skyjo@{DOMAIN}"])
        read.append((r.tokens and r.tokens[0], r.tokens, r.commands.lines, time.thread_time() - start))

    port = free_port()
    with InboundSMTP(handle, "127.0.0.1", port, accept_domains=[DOMAIN]):
        with smtplib.SMTP("127.0.0.1", port, timeout=60) as smtp:
            for html in (False, True):
                for to in (f"nobody@{DOMAIN}", f"play+tok123@{DOMAIN}"):
                    mail = _huge(to, html)
                    assert len(mail.as_bytes()) > 6_000_000
                    smtp.send_message(mail, to_addrs=[to])
    assert len(read) == 4
    for _, tokens, lines, cpu in read:
        assert cpu < 2.0, f"{cpu:.2f} s of CPU for one mail"
        assert lines == (["draw swap B2"] if tokens else [])  # no seat: not read


# ------------------------------------------------------------------------------ IMAP URLs
def test_parse_imap_url() -> None:
    c = parse_imap_url("imaps://bot%40example.org:p%3Ass@imap.example.org/Play%20Replies")
    assert (c.secure, c.host, c.port, c.user, c.password, c.folder) == (
        True,
        "imap.example.org",
        993,
        "bot@example.org",
        "p:ss",
        "Play Replies",
    )
    c = parse_imap_url("imap://u:p@localhost:1143?starttls=require")
    assert (c.secure, c.port, c.folder, c.starttls) == (False, 1143, "INBOX", "require")
    assert parse_imap_url("imap://u:p@h").starttls == "auto"
    for bad in ("pop3://u:p@h", "imaps://h/INBOX", "imap://u:p@h?starttls=maybe", "imaps://u:p@/x"):
        with pytest.raises(ValueError):
            parse_imap_url(bad)


# ------------------------------------------------------------------------------ IMAP (Dovecot)
def _dovecot_binary() -> str | None:
    return shutil.which("dovecot") or next((p for p in ("/usr/sbin/dovecot",) if Path(p).exists()), None)


@pytest.fixture
def dovecot():
    """A private Dovecot on 127.0.0.1 with one user (skyjo / s3cret), maildir in a temporary dir."""
    yield from _run_dovecot(tls=False)


@pytest.fixture
def dovecot_tls():
    """The same with TLS: STARTTLS on the imap port and an imaps port, a self-signed certificate for
    127.0.0.1 (its file in `cafile`)."""
    if shutil.which("openssl") is None:
        if IN_CI:
            pytest.fail("openssl is required under CI=true")
        pytest.skip("openssl not installed")
    yield from _run_dovecot(tls=True)


def _run_dovecot(tls: bool):
    binary = _dovecot_binary()
    if binary is None:
        if IN_CI:
            pytest.fail("dovecot is required under CI=true (apt-get install dovecot-imapd)")
        pytest.skip("dovecot not installed (apt-get install dovecot-imapd)")
    root = Path(tempfile.mkdtemp(prefix="skyjo-dovecot-"))
    root.chmod(0o755)
    (root / "run").mkdir()
    mail = root / "mail"
    mail.mkdir()
    (root / "users").write_text("skyjo:{PLAIN}s3cret::::::\n")
    port = free_port()
    tls_port = free_port() if tls else 0
    ssl_conf = "ssl = no"
    if tls:
        subprocess.run(
            [
                "openssl",
                "req",
                "-x509",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-days",
                "2",
                "-subj",
                "/CN=127.0.0.1",
                "-addext",
                "subjectAltName=IP:127.0.0.1",
                "-keyout",
                str(root / "key.pem"),
                "-out",
                str(root / "cert.pem"),
            ],
            check=True,
            capture_output=True,
        )
        (root / "key.pem").chmod(0o644)
        ssl_conf = f"ssl = yes\nssl_cert = <{root}/cert.pem\nssl_key = <{root}/key.pem"
    if os.geteuid() == 0:
        shutil.chown(mail, "nobody", "nogroup")
        users = "uid=nobody gid=nogroup"
        extra = ""
    else:  # rootless: everything runs as the current user
        me = pwd.getpwuid(os.getuid())
        users = f"uid={me.pw_uid} gid={me.pw_gid}"
        extra = (
            f"default_internal_user = {me.pw_name}\ndefault_login_user = {me.pw_name}\n"
            "service anvil {\n  chroot =\n}\nservice imap-login {\n  chroot =\n}\n"
        )
    conf = root / "dovecot.conf"
    conf.write_text(f"""
protocols = imap
listen = 127.0.0.1
base_dir = {root}/run
state_dir = {root}/run/state
log_path = {root}/dovecot.log
{ssl_conf}
disable_plaintext_auth = no
auth_mechanisms = plain login
mail_location = maildir:{mail}/%u
first_valid_uid = 1
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {root}/users
}}
userdb {{
  driver = static
  args = {users} home={mail}/%u
}}
service imap-login {{
  inet_listener imap {{
    address = 127.0.0.1
    port = {port}
  }}
  inet_listener imaps {{
    address = 127.0.0.1
    port = {tls_port}
  }}
}}
service pop3-login {{
  inet_listener pop3 {{
    port = 0
  }}
}}
{extra}""")
    proc = subprocess.Popen([binary, "-F", "-c", str(conf)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 15
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    log = (root / "dovecot.log").read_text() if (root / "dovecot.log").exists() else ""
                    out = proc.stdout.read().decode() if proc.poll() is not None and proc.stdout else ""
                    pytest.fail(f"dovecot did not start: {out}\n{log}")
                time.sleep(0.1)
        yield {
            "url": f"imap://skyjo:s3cret@127.0.0.1:{port}/INBOX",
            "port": port,
            "imaps_url": f"imaps://skyjo:s3cret@127.0.0.1:{tls_port}/INBOX",
            "cafile": str(root / "cert.pem"),
        }
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
        if proc.stdout:
            proc.stdout.close()
        shutil.rmtree(root, ignore_errors=True)


def _append(port: int, raw: bytes, folder: str = "INBOX", flags: str | None = None) -> None:
    c = imaplib.IMAP4("127.0.0.1", port)
    try:
        c.login("skyjo", "s3cret")
        c.append(folder, flags, None, raw)
    finally:
        c.logout()


def _count(port: int, folder: str = "INBOX") -> int:
    c = imaplib.IMAP4("127.0.0.1", port)
    try:
        c.login("skyjo", "s3cret")
        typ, data = c.select(folder)
        return int(data[0])
    finally:
        c.logout()


def test_imap_poll_hands_each_message_over_once(dovecot) -> None:
    raw = reply(mid="<imap-1@example.com>").as_bytes().replace(b"\n", b"\r\n").replace(b"\r\r\n", b"\r\n")
    _append(dovecot["port"], raw)
    _append(dovecot["port"], b"From: x@example.com\r\nSubject: already read\r\n\r\nold\r\n", flags="(\\Seen)")
    got: list[bytes] = []
    assert poll_imap(dovecot["url"], got.append) == 1
    assert got == [raw]  # the exact bytes
    assert extract_commands(got[0]).lines == ["draw swap B2"]
    assert seat_tokens(got[0], DOMAIN) == ["tok123"]
    assert poll_imap(dovecot["url"], got.append) == 0
    assert len(got) == 1
    assert _count(dovecot["port"]) == 2  # left in place, marked seen


def test_imap_poll_moves_or_deletes_processed_messages(dovecot) -> None:
    port = dovecot["port"]
    _append(port, reply(mid="<a@x>").as_bytes())
    _append(port, reply(mid="<b@x>").as_bytes())
    got: list[bytes] = []
    assert poll_imap(dovecot["url"], got.append, processed_folder="Processed") == 2
    assert _count(port) == 0 and _count(port, "Processed") == 2
    _append(port, reply(mid="<c@x>").as_bytes())
    assert poll_imap(dovecot["url"], got.append, delete=True) == 1
    assert _count(port) == 0
    assert [extract_commands(r).lines for r in got] == [["draw swap B2"]] * 3


def test_imap_poll_flags_a_message_whose_handling_failed_and_goes_on(dovecot) -> None:
    port = dovecot["port"]
    _append(port, reply(mid="<bad@x>", body="boom").as_bytes())
    _append(port, reply(mid="<good@x>").as_bytes())
    got: list[bytes] = []

    def handle(raw: bytes) -> None:
        if b"boom" in raw:
            raise RuntimeError("cannot handle")
        got.append(raw)

    assert poll_imap(dovecot["url"], handle) == 1
    assert len(got) == 1
    assert poll_imap(dovecot["url"], handle) == 0  # the failed one is not retried forever
    c = imaplib.IMAP4("127.0.0.1", port)
    c.login("skyjo", "s3cret")
    c.select("INBOX")
    typ, data = c.search(None, "FLAGGED")
    assert len(data[0].split()) == 1
    c.logout()


def test_imap_starttls_required_but_not_offered(dovecot) -> None:
    with pytest.raises(ConnectionError, match="STARTTLS"):
        poll_imap(dovecot["url"] + "?starttls=require", lambda raw: None)


def test_imap_wrong_password(dovecot) -> None:
    from imap_tools.errors import MailboxLoginError

    with pytest.raises(MailboxLoginError):
        poll_imap(dovecot["url"].replace("s3cret", "wrong"), lambda raw: None)


def test_imap_starttls_and_imaps_with_a_verified_certificate(dovecot_tls) -> None:
    import ssl

    ctx = ssl.create_default_context(cafile=dovecot_tls["cafile"])
    port = dovecot_tls["port"]
    _append(port, reply(mid="<tls-1@x>").as_bytes())
    _append(port, reply(mid="<tls-2@x>").as_bytes())
    got: list[bytes] = []
    assert poll_imap(dovecot_tls["url"] + "?starttls=require", got.append, limit=1, ssl_context=ctx) == 1
    assert poll_imap(dovecot_tls["imaps_url"], got.append, ssl_context=ctx) == 1
    assert len(got) == 2
    # an unknown certificate is refused: the default context verifies it
    _append(port, reply(mid="<tls-3@x>").as_bytes())
    with pytest.raises(ssl.SSLError):
        poll_imap(dovecot_tls["imaps_url"], got.append)
    with pytest.raises(ssl.SSLError):
        poll_imap(dovecot_tls["url"], got.append)  # auto: STARTTLS offered, so it is used and verified
    assert len(got) == 2


def test_a_whole_classic_game_played_by_replies_over_smtp() -> None:
    """Every decision of a 2-player game arrives as a reply mail over SMTP (quoted turn mail, reply
    header, signature) to a per-seat address carrying the game version; a stand-in for the service
    maps the token to the seat, refuses stale versions and applies the plan. Ends with a winner."""
    import random

    from engine.plans import parse_plan as plan_of
    from service.mail.replies import read_reply, reply_address

    rng = random.Random(5)
    g = engine.new_game(["Ann", "Bo"], seed="by-mail")
    tokens = {"AnnTok_0123456789abcdef": 0, "BoTok_0123456789abcdef0": 1}
    by_seat = {v: k for k, v in tokens.items()}
    seen: set[str] = set()
    log: list[str] = []

    def handle(raw: bytes) -> None:  # what the service will do, minus the database and answer mails
        r = read_reply(raw, DOMAIN, [f"skyjo@{DOMAIN}"])
        if r.ignore or r.key in seen or not r.tokens or r.tokens[0] not in tokens:
            log.append("ignored")
            return
        seen.add(r.key)
        if r.version != g.version:
            log.append("stale")
            return
        try:
            plan_of(g, tokens[r.tokens[0]], r.commands.text).apply(g, tokens[r.tokens[0]])
            log.append("applied")
        except engine.EngineError:
            log.append("refused")

    def text_for(seat: int) -> str:
        return random_reply_plan(g, seat, rng)

    port = free_port()
    n = 0
    with (
        InboundSMTP(handle, "127.0.0.1", port, accept_domains=[DOMAIN]),
        smtplib.SMTP("127.0.0.1", port, timeout=10) as smtp,
    ):
        while not g.is_over:
            seat = g.pending()[0].seat
            n += 1
            to = reply_address(DOMAIN, by_seat[seat], g.version)
            body = (
                f"{text_for(seat)}\n\n-- \n{g.names[seat]}\n\nOn Mon, 30 Nov 2026 at 12:00, SKYJO <{to}> wrote:\n"
                "> Your turn. Reply with your move.\n"
            )
            m = reply(body, token=by_seat[seat], mid=f"<m{n}@example.com>")
            m.replace_header("To", f"SKYJO <{to}>")
            smtp.send_message(m, to_addrs=[to])
            if n % 25 == 0:  # the same mail twice, and a stale reply: neither is applied
                smtp.send_message(m, to_addrs=[to])
                stale = reply("take swap A1", token=by_seat[seat], mid=f"<stale{n}@example.com>")
                stale.replace_header("To", reply_address(DOMAIN, by_seat[seat], max(0, g.version - 1)))
                smtp.send_message(stale, to_addrs=[stale["To"]])
            assert n < 3000
    assert g.winners is not None
    assert log.count("applied") > 20 and "refused" not in log
    assert log.count("ignored") == log.count("stale") == n // 25
