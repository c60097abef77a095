"""Mail configuration and header hygiene: who mails come from, and text made safe for headers.

`current_config()` is the sender address and base URL in effect: the active Flask app's config
(MAIL_FROM, BASE_URL) when there is an app context, else what `configure(...)` set (workers without
an app), else the environment. Nothing here needs an app context or a database.

Every value that goes into a header passes one of the cleaners: `clean_header_text` (one line, no
control characters: a CR/LF in a player's name never becomes a header of its own), `clean_address`
(one plain addr-spec, IDN domains as punycode), `clean_url` (for List-Unsubscribe) and
`clean_thread_key` (for the thread's root Message-ID). They are cached: a game's names, subject and
addresses come back in every mail it sends.
"""

from __future__ import annotations

import functools
import os
import re
import unicodedata
from dataclasses import dataclass
from email.headerregistry import Address
from email.utils import parseaddr
from urllib.parse import urlsplit

from flask import current_app, has_app_context

DEFAULT_MAIL_FROM = "SKYJO <skyjo@localhost>"
DEFAULT_BASE_URL = "http://localhost:5000"

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]+")
_ATEXT = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+"
_PLAIN_ADDRESS = re.compile(rf"({_ATEXT}(?:\.{_ATEXT})*)@([A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*)")


@functools.lru_cache(maxsize=4096)
def clean_header_text(value: str, max_len: int = 200) -> str:
    """One line of text safe for a header: control characters (CR, LF, ...) become spaces."""
    value = unicodedata.normalize("NFC", str(value))
    value = _CONTROL.sub(" ", value)
    value = re.sub(r"\s+", " ", value).strip()
    if len(value) > max_len:
        value = value[: max_len - 1].rstrip() + "…"
    return value


@functools.lru_cache(maxsize=4096)
def clean_address(addr: str) -> str:
    """A single plain addr-spec (`local@domain`), or ValueError. IDN domains become punycode.
    A plain ASCII dot-atom address (every reply address we make) skips the full parser."""
    addr = str(addr).strip()
    plain = _PLAIN_ADDRESS.fullmatch(addr)
    if plain and len(addr) <= 254:
        return f"{plain.group(1)}@{plain.group(2).lower()}"
    if not addr or _CONTROL.search(addr) or re.search(r"[\s,;<>()\[\]\\\"]", addr) or addr.count("@") != 1:
        raise ValueError("not a single plain e-mail address")
    local, _, domain = addr.rpartition("@")
    if not local or not domain:
        raise ValueError("not a single plain e-mail address")
    try:
        domain = domain.encode("idna").decode("ascii").lower()
    except UnicodeError as exc:
        raise ValueError("invalid domain in e-mail address") from exc
    if not local.isascii():
        raise ValueError("non-ASCII local parts are not supported")
    parsed = Address(addr_spec=f"{local}@{domain}")  # raises ValueError when not one addr-spec
    return parsed.addr_spec


@functools.lru_cache(maxsize=64)
def parse_from(mail_from: str, fallback_domain: str = "localhost") -> Address:
    """MAIL_FROM (or a row's From) as an Address; a bare local part gets `fallback_domain`."""
    name, addr = parseaddr(clean_header_text(mail_from, 400))
    addr = addr or "skyjo"
    if "@" not in addr:
        addr = f"{addr}@{fallback_domain}"
    return Address(display_name=clean_header_text(name, 100), addr_spec=clean_address(addr))


@functools.lru_cache(maxsize=4096)  # a seat's unsubscribe URL comes back in every mail
def clean_url(url: str) -> str:
    """A URL usable inside `<...>` in a header, or ValueError."""
    url = str(url).strip()
    if not url or _CONTROL.search(url) or re.search(r"[\s<>\"]", url):
        raise ValueError("URL not usable in a header")
    return url


@functools.lru_cache(maxsize=4096)
def clean_thread_key(key: str) -> str:
    """A thread key (e.g. "game-12-seat-1") usable as the local part of a Message-ID."""
    key = re.sub(r"[^A-Za-z0-9._+-]", "-", str(key)).strip(".-")
    if not key:
        raise ValueError("empty thread key")
    return key[:120]


@functools.lru_cache(maxsize=64)
def _host_of(base_url: str) -> str:
    host = urlsplit(base_url).hostname or ""
    host = re.sub(r"[^A-Za-z0-9.-]", "", host.encode("idna").decode("ascii") if host else "")
    return host or "localhost"


@dataclass(frozen=True)
class MailConfig:
    """Values derived once per configuration (`current_config` keeps one per MAIL_FROM/BASE_URL)."""

    mail_from: str = DEFAULT_MAIL_FROM
    base_url: str = DEFAULT_BASE_URL

    @functools.cached_property
    def base_host(self) -> str:
        return _host_of(self.base_url)

    @functools.cached_property
    def from_address(self) -> Address:
        """MAIL_FROM as an Address; a bare local part gets BASE_URL's host as its domain."""
        return parse_from(self.mail_from, self.base_host)

    @functools.cached_property
    def domain(self) -> str:
        """Domain for Message-IDs: MAIL_FROM's domain (else BASE_URL's host, else localhost)."""
        return re.sub(r"[^A-Za-z0-9.-]", "", self.from_address.domain) or self.base_host

    @functools.cached_property
    def from_header(self) -> str:
        """`from_address` as header text (formatting an Address is slow; it is asked for every mail)."""
        return str(self.from_address)


_configured: MailConfig | None = None


def configure(*, mail_from: str | None = None, base_url: str | None = None) -> MailConfig:
    """Set the module-level configuration (for workers without an app). Returns it."""
    global _configured
    base = _configured or MailConfig()
    _configured = MailConfig(
        mail_from=mail_from if mail_from is not None else base.mail_from,
        base_url=base_url if base_url is not None else base.base_url,
    )
    return _configured


@functools.lru_cache(maxsize=16)
def _config_of(mail_from: str, base_url: str) -> MailConfig:
    return MailConfig(mail_from=mail_from, base_url=base_url)


def current_config() -> MailConfig:
    """App config when an app context is active, else `configure(...)`, else environment."""
    if has_app_context():
        cfg = current_app.config
        return _config_of(cfg.get("MAIL_FROM") or DEFAULT_MAIL_FROM, cfg.get("BASE_URL") or DEFAULT_BASE_URL)
    if _configured is not None:
        return _configured
    return MailConfig(
        mail_from=os.environ.get("MAIL_FROM") or DEFAULT_MAIL_FROM,
        base_url=os.environ.get("BASE_URL") or DEFAULT_BASE_URL,
    )
