"""`skyjo-pbem mail check` (issue 29.2): is this host ready to mail real inboxes?

Each check gives a `Finding`: ok, missing or wrong, what was found, and the record to publish when
it is not ok. `required`: a receiver (Gmail, Yahoo, Outlook) or the service itself needs it, so the
command exits 1 while it is not ok.

* SPF: exactly one `v=spf1` TXT record at MAIL_FROM's domain (and at MAIL_DOMAIN's, the return
  path of bounces, when it differs), not one that lets anyone send (`+all`).
* DKIM: the TXT record at `<DKIM_SELECTOR>._domainkey.<MAIL_FROM's domain>` holds the public half
  of DKIM_KEY_FILE (compared by modulus and exponent, whatever form the record uses).
* DMARC: a `v=DMARC1` record at `_dmarc.<domain>` (or at a parent domain), and alignment: the DKIM
  signature's domain is MAIL_FROM's (aligned under `adkim=s` too); without DKIM, SPF must align.
* MX: MAIL_DOMAIN (reply and bounce addresses; default MAIL_FROM's domain) has an MX record.
* SMTP: MAIL_URL answers EHLO, and STARTTLS (or it is smtps://); STARTTLS is required unless the
  server is on loopback and MAIL_URL does not ask for it (a local relay).

DNS is asked through a dnspython `Resolver` given by the caller (the system's, or `--nameserver`);
nothing here reads the environment.
"""

from __future__ import annotations

import base64
import re
import smtplib
import socket
import ssl
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import dns.exception
import dns.resolver
from dkim.crypto import UnparsableKeyError, parse_pem_private_key, parse_public_key
from dkim.util import InvalidTagValueList, parse_tag_value

from service.mail.signing import dns_record, from_domain, txt_strings
from service.mail.transport import SmtpTransport

OK, MISSING, WRONG = "ok", "missing", "wrong"
_LOOPBACK = {"localhost", "127.0.0.1", "::1"}


@dataclass
class Finding:
    check: str  # SPF, DKIM, DMARC, MX, SMTP, STARTTLS
    status: str  # ok | missing | wrong
    detail: str
    publish: str | None = None  # the record (or setting) that makes it ok
    required: bool = True

    @property
    def failing(self) -> bool:
        return self.required and self.status != OK


class DnsUnavailable(Exception):
    """The resolver gave no answer at all (timeout, no server): nothing can be said."""


def _answer(resolver: dns.resolver.Resolver, name: str, rdtype: str) -> Any:
    """The records of `rdtype` at `name`; [] when there are none."""
    try:
        return resolver.resolve(name, rdtype)
    except (dns.resolver.NXDOMAIN, dns.resolver.NoAnswer):
        return []
    except (dns.exception.Timeout, dns.resolver.NoNameservers) as exc:
        raise DnsUnavailable(f"no answer for {name} {rdtype} ({type(exc).__name__})") from None


def _txt(resolver: dns.resolver.Resolver, name: str) -> list[str]:
    """The TXT records at `name`, each one's strings joined; [] when there are none."""
    return [b"".join(r.strings).decode("utf-8", "replace") for r in _answer(resolver, name, "TXT")]


def _mx(resolver: dns.resolver.Resolver, name: str) -> list[str]:
    answer = _answer(resolver, name, "MX")
    return [f"{r.preference} {r.exchange.to_text()}" for r in sorted(answer, key=lambda r: r.preference)]


def _host(url: str | None) -> str:
    return (urlsplit(url or "").hostname or "").lower()


def check_spf(resolver, domain: str, smtp_host: str, what: str = "MAIL_FROM") -> Finding:
    publish = f'{domain}. TXT "v=spf1 mx{f" a:{smtp_host}" if smtp_host else ""} ~all"' + (
        "  (or the include: your mail provider names)")
    records = [t for t in _txt(resolver, domain) if t.lower().startswith("v=spf1")]
    if not records:
        return Finding("SPF", MISSING, f"{domain} ({what}) has no SPF record", publish)
    if len(records) > 1:
        return Finding("SPF", WRONG, f"{domain} has {len(records)} SPF records (receivers read none)",
                       "one record: merge them into " + publish)
    record = records[0]
    if re.search(r"(^|\s)\+?all(\s|$)", record):
        return Finding("SPF", WRONG, f"{domain}: {record} lets anyone send as {domain}", publish)
    return Finding("SPF", OK, f"{domain}: {record}")


def _rsa_numbers(public_b64: str) -> tuple[int, int] | None:
    try:
        key = parse_public_key(base64.b64decode(re.sub(r"\s", "", public_b64), validate=True))
    except (UnparsableKeyError, ValueError, IndexError, TypeError):
        return None
    return key["modulus"], key["publicExponent"]


def check_dkim(resolver, domain: str, selector: str | None, key_pem: bytes | None) -> Finding:
    if not selector or key_pem is None:
        return Finding("DKIM", MISSING, "mail is not signed: DKIM_SELECTOR and DKIM_KEY_FILE are not set",
                       "run `skyjo-pbem mail keygen`, publish the record it prints, set DKIM_SELECTOR and "
                       "DKIM_KEY_FILE")
    name = f"{selector}._domainkey.{domain}"
    publish = f"{name}. TXT {txt_strings(dns_record(key_pem))}"
    records = [t for t in _txt(resolver, name) if "p=" in t]
    if not records:
        return Finding("DKIM", MISSING, f"no DKIM record at {name}", publish)
    private = parse_pem_private_key(key_pem)
    mine = (private["modulus"], private["publicExponent"])
    for record in records:
        try:
            tags = parse_tag_value(record.encode())
        except InvalidTagValueList:
            continue
        if _rsa_numbers(tags.get(b"p", b"").decode()) == mine:
            return Finding("DKIM", OK, f"{name} holds the public key of DKIM_KEY_FILE")
    return Finding("DKIM", WRONG, f"{name} holds another key than DKIM_KEY_FILE (or none)", publish)


def _dmarc_record(resolver, domain: str) -> tuple[str, str] | None:
    """(name, record) of the DMARC policy for `domain`: its own, else a parent's (the organizational
    domain's, looked for label by label: no public-suffix list here)."""
    labels = domain.split(".")
    for i in range(len(labels) - 1):
        name = "_dmarc." + ".".join(labels[i:])
        records = [t for t in _txt(resolver, name) if t.replace(" ", "").lower().startswith("v=dmarc1")]
        if records:
            return name, records[0]
    return None


def _aligned(a: str, b: str, strict: bool) -> bool:
    return a == b if strict else (a == b or a.endswith("." + b) or b.endswith("." + a))


def check_dmarc(resolver, domain: str, envelope_domain: str, signed: bool) -> Finding:
    publish = f'_dmarc.{domain}. TXT "v=DMARC1; p=none; adkim=r; aspf=r; rua=mailto:postmaster@{domain}"'
    found = _dmarc_record(resolver, domain)
    if found is None:
        return Finding("DMARC", MISSING, f"no DMARC record at _dmarc.{domain}", publish)
    name, record = found
    try:
        tags = {k.decode().lower(): v.decode().strip().lower()
                for k, v in parse_tag_value(record.encode()).items()}
    except InvalidTagValueList:
        return Finding("DMARC", WRONG, f"{name}: {record} is not a valid tag list", publish)
    if tags.get("p") not in {"none", "quarantine", "reject"}:
        return Finding("DMARC", WRONG, f"{name}: {record} has no policy (p=none, quarantine or reject)", publish)
    spf_aligned = _aligned(envelope_domain, domain, tags.get("aspf") == "s")
    if signed:  # the signature's d= is MAIL_FROM's domain itself: aligned in either mode
        how = f"DKIM aligned (d={domain})" + ("" if spf_aligned else f"; SPF of {envelope_domain} not aligned")
        return Finding("DMARC", OK, f"{name}: p={tags['p']}; {how}")
    if spf_aligned:
        return Finding("DMARC", OK, f"{name}: p={tags['p']}; SPF aligned, no DKIM (see DKIM)")
    return Finding("DMARC", WRONG, f"{name}: neither DKIM (not configured) nor SPF ({envelope_domain}) "
                                   f"aligns with {domain}", "configure DKIM (see DKIM)")


def check_mx(resolver, mail_domain: str, base_host: str) -> Finding:
    hosts = _mx(resolver, mail_domain)
    if not hosts:
        return Finding("MX", MISSING, f"{mail_domain} (MAIL_DOMAIN: replies and bounces) has no MX record",
                       f"{mail_domain}. MX 10 {base_host or 'your-inbound-host'}.  (where `skyjo-pbem "
                       "inbound-smtp` listens, or your IMAP provider's mail servers)")
    return Finding("MX", OK, f"{mail_domain}: " + ", ".join(hosts))


def check_smtp(url: str | None, *, ssl_context: ssl.SSLContext | None = None,
               timeout: float = 10) -> list[Finding]:
    """EHLO and STARTTLS of MAIL_URL's server (no login, nothing sent). ValueError: a bad MAIL_URL."""
    if not url:
        return [Finding("SMTP", MISSING, "MAIL_URL is not set: no mail can leave",
                        "MAIL_URL=smtp://user:password@smtp.example.com:587")]
    t = SmtpTransport(url, timeout=timeout, ssl_context=ssl_context)
    context = ssl_context or ssl.create_default_context()
    where = f"{t.host}:{t.port}"
    try:
        if t.implicit_tls:
            conn: smtplib.SMTP = smtplib.SMTP_SSL(t.host, t.port, timeout=timeout, context=context)
        else:
            conn = smtplib.SMTP(t.host, t.port, timeout=timeout)
    except (OSError, smtplib.SMTPException) as exc:
        return [Finding("SMTP", WRONG, f"{where} does not answer ({type(exc).__name__}: {exc})")]
    try:
        code, _msg = conn.ehlo(t.helo or socket.gethostname() or "localhost")
        if code != 250:
            return [Finding("SMTP", WRONG, f"{where} refused EHLO ({code})")]
        found = [Finding("SMTP", OK, f"{where} answers EHLO")]
        required = t.starttls or t.host not in _LOOPBACK
        if t.implicit_tls:
            found.append(Finding("STARTTLS", OK, f"{where}: implicit TLS (smtps://)"))
        elif not conn.has_extn("starttls"):
            found.append(Finding("STARTTLS", MISSING, f"{where} does not offer STARTTLS: mail and the "
                                 "password would travel unencrypted", "a server that offers STARTTLS "
                                 "(port 587) or smtps:// (port 465)", required))
        else:
            try:
                conn.starttls(context=context)
                conn.ehlo(t.helo or socket.gethostname() or "localhost")
                note = "" if t.starttls else " (MAIL_URL does not use it: add ?starttls=1)"
                found.append(Finding("STARTTLS", OK, f"{where} offers STARTTLS{note}"))
            except (OSError, smtplib.SMTPException) as exc:
                found.append(Finding("STARTTLS", WRONG, f"{where}: STARTTLS failed ({type(exc).__name__}: "
                                     f"{exc})", "a certificate valid for " + t.host, required))
        return found
    except (OSError, smtplib.SMTPException) as exc:
        return [Finding("SMTP", WRONG, f"{where}: {type(exc).__name__}: {exc}")]
    finally:
        try:
            conn.quit()
        except (OSError, smtplib.SMTPException):
            conn.close()


def check_all(config: dict, resolver: dns.resolver.Resolver, key_pem: bytes | None, *,
              ssl_context: ssl.SSLContext | None = None, timeout: float = 10) -> list[Finding]:
    """Every check for `config` (MAIL_FROM, MAIL_DOMAIN, MAIL_URL, DKIM_SELECTOR, BASE_URL);
    `key_pem`: DKIM_KEY_FILE's content (None: not configured)."""
    domain = from_domain(str(config.get("MAIL_FROM") or ""))
    mail_domain = (config.get("MAIL_DOMAIN") or domain).strip().lower().rstrip(".")
    smtp_host = _host(config.get("MAIL_URL"))
    selector = (config.get("DKIM_SELECTOR") or "").strip() or None
    found: list[Finding] = []
    for check in (
        lambda: [check_spf(resolver, domain, smtp_host)],
        lambda: [check_spf(resolver, mail_domain, smtp_host, "MAIL_DOMAIN, the return path")]
        if mail_domain != domain else [],
        lambda: [check_dkim(resolver, domain, selector, key_pem)],
        lambda: [check_dmarc(resolver, domain, mail_domain, signed=bool(selector and key_pem))],
        lambda: [check_mx(resolver, mail_domain, _host(config.get("BASE_URL")))],
    ):
        try:
            found += check()
        except DnsUnavailable as exc:
            found.append(Finding("DNS", WRONG, str(exc)))
    found += check_smtp(config.get("MAIL_URL"), ssl_context=ssl_context, timeout=timeout)
    return found
