"""`skyjo-pbem mail check` and `mail keygen` (issue 29.2): against a DNS server started here (dnslib,
on a free port, asked through `--nameserver`) and real SMTP servers in-process (aiosmtpd with
STARTTLS on a self-signed certificate the client is told to trust, and one without); never the
internet."""

from __future__ import annotations

import os
import re

import pytest
from dnslib.server import DNSLogger, DNSServer
from dnslib.zoneresolver import ZoneResolver

from service.cli import main
from service.mail.signing import dns_record, new_private_key, txt_strings
from tests.service.smtp_fixture import SmtpServer, server_tls_context, tls_files  # noqa: F401

DOMAIN = "skyjo.example"
SELECTOR = "s2026"
GOOD_RECORDS = {
    "spf": f'{DOMAIN}. 300 IN TXT "v=spf1 mx a:smtp.{DOMAIN} ~all"',
    "dmarc": f'_dmarc.{DOMAIN}. 300 IN TXT "v=DMARC1; p=none; rua=mailto:postmaster@{DOMAIN}"',
    "mx": f"{DOMAIN}. 300 IN MX 10 mx.{DOMAIN}.",
}


@pytest.fixture(scope="module")
def key_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("dkim") / "dkim.pem"
    path.write_bytes(new_private_key())
    return path


def dkim_line(key_pem: bytes) -> str:
    return f"{SELECTOR}._domainkey.{DOMAIN}. 300 IN TXT {txt_strings(dns_record(key_pem))}"


class Zone:
    """A DNS server on 127.0.0.1 and a free port answering from a zone text."""

    def __init__(self, lines: list[str]) -> None:
        self.server = DNSServer(ZoneResolver("\n".join(lines)), address="127.0.0.1", port=0,
                                logger=DNSLogger("-request,-reply,-truncated,-error,-recv,-send,-data"))
        self.server.start_thread()

    @property
    def nameserver(self) -> str:
        return f"127.0.0.1:{self.server.server.server_address[1]}"

    def stop(self) -> None:
        self.server.stop()
        self.server.server.server_close()


@pytest.fixture
def zone():
    started: list[Zone] = []

    def start(lines: list[str]) -> Zone:
        started.append(Zone(lines))
        return started[-1]

    yield start
    for z in started:
        z.stop()


@pytest.fixture
def tls_smtp(tls_files):  # noqa: F811
    cert, key = tls_files
    server = SmtpServer(tls_context=server_tls_context(cert, key)).start()
    yield server
    server.stop()


@pytest.fixture
def plain_smtp():
    server = SmtpServer().start()
    yield server
    server.stop()


@pytest.fixture
def mail_env(monkeypatch, key_file, tls_files):  # noqa: F811
    """The environment of a host configured for real mail (the CLI reads it like every command)."""
    for name in ("MAIL_DOMAIN", "IMAP_URL", "DATABASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("MAIL_FROM", f"SKYJO <play@{DOMAIN}>")
    monkeypatch.setenv("BASE_URL", f"https://{DOMAIN}")
    monkeypatch.setenv("DKIM_SELECTOR", SELECTOR)
    monkeypatch.setenv("DKIM_KEY_FILE", str(key_file))
    monkeypatch.setenv("SSL_CERT_FILE", str(tls_files[0]))  # the test server's certificate is trusted

    def use_smtp(server: SmtpServer, starttls: bool = True) -> None:
        monkeypatch.setenv("MAIL_URL", f"smtp://127.0.0.1:{server.port}?starttls={int(starttls)}&timeout=5")

    return use_smtp


def check(capsys, z: Zone) -> tuple[int, str]:
    code = main(["mail", "check", "--nameserver", z.nameserver, "--timeout", "5"])
    out = capsys.readouterr().out
    return code, out


def statuses(out: str) -> dict[str, str]:
    return {m.group(2): m.group(1) for m in re.finditer(r"^(ok|missing|wrong)\s+(\S+)", out, re.M)}


def test_a_ready_host_exits_0_with_every_check_ok(capsys, zone, mail_env, tls_smtp, key_file):
    mail_env(tls_smtp)
    z = zone([*GOOD_RECORDS.values(), dkim_line(key_file.read_bytes())])
    code, out = check(capsys, z)
    assert code == 0, out
    assert statuses(out) == {"SPF": "ok", "DKIM": "ok", "DMARC": "ok", "MX": "ok", "SMTP": "ok", "STARTTLS": "ok"}
    assert "publish:" not in out
    assert f"DKIM aligned (d={DOMAIN})" in out and f"10 mx.{DOMAIN}." in out


def test_missing_dkim_and_dmarc_exit_1_naming_the_records_to_publish(capsys, zone, mail_env, tls_smtp, key_file):
    mail_env(tls_smtp)
    z = zone([GOOD_RECORDS["spf"], GOOD_RECORDS["mx"]])
    code, out = check(capsys, z)
    assert code == 1, out
    found = statuses(out)
    assert found["DKIM"] == "missing" and found["DMARC"] == "missing" and found["SPF"] == "ok"
    record = txt_strings(dns_record(key_file.read_bytes()))
    assert f"publish: {SELECTOR}._domainkey.{DOMAIN}. TXT {record}" in out  # the keygen's record
    assert f'publish: _dmarc.{DOMAIN}. TXT "v=DMARC1; p=none' in out


def test_a_record_of_another_key_is_wrong(capsys, zone, mail_env, tls_smtp):
    mail_env(tls_smtp)
    z = zone([*GOOD_RECORDS.values(), dkim_line(new_private_key())])
    code, out = check(capsys, z)
    assert code == 1 and statuses(out)["DKIM"] == "wrong", out


def test_no_spf_no_mx_and_an_spf_that_lets_anyone_send(capsys, zone, mail_env, tls_smtp, key_file):
    mail_env(tls_smtp)
    z = zone([GOOD_RECORDS["dmarc"], dkim_line(key_file.read_bytes())])
    code, out = check(capsys, z)
    assert code == 1 and statuses(out)["SPF"] == "missing" and statuses(out)["MX"] == "missing", out
    assert f'publish: {DOMAIN}. TXT "v=spf1 mx a:127.0.0.1 ~all"' in out
    z = zone([f'{DOMAIN}. 300 IN TXT "v=spf1 +all"', GOOD_RECORDS["dmarc"], GOOD_RECORDS["mx"],
              dkim_line(key_file.read_bytes())])
    code, out = check(capsys, z)
    assert code == 1 and statuses(out)["SPF"] == "wrong", out


def test_a_server_without_starttls(capsys, zone, mail_env, plain_smtp, key_file):
    """MAIL_URL asks for STARTTLS and the server offers none: not ready. A relay on loopback that
    MAIL_URL uses without it: said, but not required."""
    z = zone([*GOOD_RECORDS.values(), dkim_line(key_file.read_bytes())])
    mail_env(plain_smtp, starttls=True)
    code, out = check(capsys, z)
    assert code == 1 and statuses(out)["STARTTLS"] == "missing" and statuses(out)["SMTP"] == "ok", out
    mail_env(plain_smtp, starttls=False)
    code, out = check(capsys, z)
    assert code == 0 and statuses(out)["STARTTLS"] == "missing", out


def test_a_server_that_does_not_answer(capsys, zone, mail_env, monkeypatch, key_file):
    z = zone([*GOOD_RECORDS.values(), dkim_line(key_file.read_bytes())])
    closed = SmtpServer()  # a free port nobody listens on
    monkeypatch.setenv("MAIL_URL", f"smtp://127.0.0.1:{closed.port}?starttls=1")
    code, out = check(capsys, z)
    assert code == 1 and statuses(out)["SMTP"] == "wrong" and "does not answer" in out, out
    monkeypatch.delenv("MAIL_URL")
    code, out = check(capsys, z)
    assert code == 1 and statuses(out)["SMTP"] == "missing" and "publish: MAIL_URL=" in out, out


def test_bad_configuration_exits_2(capsys, zone, mail_env, monkeypatch, tmp_path):
    z = zone([])
    monkeypatch.setenv("MAIL_URL", "ftp://127.0.0.1:21")
    assert main(["mail", "check", "--nameserver", z.nameserver]) == 2
    assert "MAIL_URL" in capsys.readouterr().err
    monkeypatch.setenv("DKIM_KEY_FILE", str(tmp_path / "none.pem"))
    assert main(["mail", "check", "--nameserver", z.nameserver]) == 2
    assert "DKIM_KEY_FILE" in capsys.readouterr().err
    assert main(["mail", "check", "--nameserver", "not an address"]) == 2


def test_keygen_writes_a_private_key_and_prints_its_record(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("MAIL_FROM", f"SKYJO <play@{DOMAIN}>")
    path = tmp_path / "k.pem"
    assert main(["mail", "keygen", "--selector", SELECTOR, "--key-file", str(path)]) == 0
    out = capsys.readouterr().out
    assert oct(os.stat(path).st_mode & 0o777) == "0o600"
    assert f"{SELECTOR}._domainkey.{DOMAIN}. TXT {txt_strings(dns_record(path.read_bytes()))}" in out
    before = path.read_bytes()
    assert main(["mail", "keygen", "--selector", SELECTOR, "--key-file", str(path)]) == 2  # never overwritten
    assert path.read_bytes() == before and "exists" in capsys.readouterr().err
