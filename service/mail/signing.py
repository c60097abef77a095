"""DKIM signing of outgoing mail (RFC 6376, issue 29.1) with dkimpy.

`DkimSigner.from_config(config)` reads DKIM_SELECTOR and DKIM_KEY_FILE (the PEM private key that
`skyjo-pbem mail keygen` writes); the signing domain is MAIL_FROM's, so the signature is aligned
with the From address for DMARC. Neither set: no signer, mails go unsigned (the development
default). Only one of them, or a key file that cannot be read: `SigningConfigError` at start.

A signature is a function of the message's bytes, the key and a time: RSA PKCS#1 v1.5 signatures are
deterministic, and the signature's time (`t=`) is the row's creation time (its Date header), not
the clock's. So the same outbox row gives the same signed bytes on every retry, and after a sender
died between the server's 250 and marking the row sent (service.mail.message: delivery is at least
once, a mail sent twice is the same bytes).

The bytes signed are the bytes smtplib sends (`BytesGenerator` with the message's own policy, CRLF,
`utf8=True` when an address needs SMTPUTF8); the `DKIM-Signature` field is then put in front of the
message's headers as it is (dkimpy folds it to lines shorter than the policy's limit, so the
generator writes it unchanged). Headers signed: those RFC 6376 recommends that the message has,
plus `List-Unsubscribe-Post` and `Auto-Submitted` (receivers want the one-click header signed);
From is signed twice, so no second From can be added. Signing is the last step of
`service.mail.message.build_message`: a header added to the message after it breaks the signature
(if it is a signed one) or goes unsigned, so headers belong in `build_message` before it.
"""

from __future__ import annotations

import base64
import io
from datetime import UTC, datetime
from email.generator import BytesGenerator
from email.message import EmailMessage
from email.utils import parseaddr
from pathlib import Path

import dkim
from dkim.crypto import UnparsableKeyError, parse_pem_private_key

CANONICALIZE = (b"relaxed", b"relaxed")
EXTRA_SIGNED = (b"list-unsubscribe-post", b"auto-submitted")


class SigningConfigError(RuntimeError):
    """DKIM_SELECTOR / DKIM_KEY_FILE are set wrongly (the message says what to fix)."""


def from_domain(mail_from: str) -> str:
    """The domain of MAIL_FROM's address (lowercase, no trailing dot), or "" when it has none."""
    addr = parseaddr(mail_from or "")[1]
    return addr.rpartition("@")[2].strip().lower().rstrip(".") if "@" in addr else ""


def read_key(path: str | Path) -> bytes:
    """The PEM private key in `path`, checked to be an RSA key dkimpy can use."""
    try:
        pem = Path(path).read_bytes()
    except OSError as exc:
        raise SigningConfigError(f"DKIM_KEY_FILE {path}: {exc.strerror or exc}") from None
    try:
        parse_pem_private_key(pem)
    except (UnparsableKeyError, ValueError, IndexError) as exc:
        raise SigningConfigError(f"DKIM_KEY_FILE {path} holds no RSA private key in PEM form ({exc})") from None
    return pem


KEY_BITS = 2048


def new_private_key() -> bytes:
    """A new RSA key for DKIM (2048 bits: the size receivers expect; longer keys do not fit in one
    DNS TXT string and some resolvers mishandle them), as unencrypted PKCS#8 PEM."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=KEY_BITS)
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


def public_key_b64(key_pem: bytes) -> str:
    """The public half of a PEM private key as DKIM's `p=` value (base64 SubjectPublicKeyInfo)."""
    from cryptography.hazmat.primitives import serialization

    key = serialization.load_pem_private_key(key_pem, password=None)
    der = key.public_key().public_bytes(serialization.Encoding.DER,
                                        serialization.PublicFormat.SubjectPublicKeyInfo)
    return base64.b64encode(der).decode("ascii")


def dns_record(key_pem: bytes) -> str:
    """The TXT record to publish at `<selector>._domainkey.<domain>` for this key."""
    return f"v=DKIM1; k=rsa; p={public_key_b64(key_pem)}"


def txt_strings(value: str, size: int = 255) -> str:
    """A TXT value as the zone file writes it: quoted strings of at most 255 characters each (a
    DKIM record is longer than one; resolvers join them)."""
    return " ".join(f'"{value[i:i + size]}"' for i in range(0, len(value), size))


class _FixedTimeDKIM(dkim.DKIM):
    """dkimpy's signer with the signature's time (`t=`) given instead of read from the clock, which
    makes a signature a function of its inputs (see the module docstring)."""

    def __init__(self, message: bytes, timestamp: int) -> None:
        super().__init__(message, linesep=b"\r\n")
        self.timestamp = timestamp
        self.should_sign |= set(EXTRA_SIGNED)

    def gen_header(self, fields, *args, **kwargs):
        for i, (tag, _value) in enumerate(fields):  # `sign` passes its list of (tag, value) pairs
            if tag == b"t":
                fields[i] = (b"t", str(self.timestamp).encode("ascii"))
        return super().gen_header(fields, *args, **kwargs)


def wire_bytes(msg: EmailMessage) -> bytes:
    """The bytes smtplib's `send_message` puts on the wire for `msg` (before dot-stuffing)."""
    addresses = [parseaddr(str(msg.get(name, "")))[1] for name in ("From", "To")]
    international = not all(a.isascii() for a in addresses)
    out = io.BytesIO()
    policy = msg.policy.clone(utf8=True) if international else msg.policy
    BytesGenerator(out, policy=policy).flatten(msg, linesep="\r\n")
    return out.getvalue()


class DkimSigner:
    """Signs messages as `domain` with the key published at `<selector>._domainkey.<domain>`."""

    def __init__(self, selector: str, domain: str, key_pem: bytes) -> None:
        if not selector or not domain:
            raise SigningConfigError("DKIM signing needs a selector and MAIL_FROM's domain")
        self.selector = selector.strip().encode("ascii")
        self.domain = domain.strip().lower().encode("idna")  # an IDN domain as its A-label (punycode)
        self.key_pem = key_pem

    def __repr__(self) -> str:  # never the key
        return f"DkimSigner(selector={self.selector.decode()}, domain={self.domain.decode()})"

    @classmethod
    def from_config(cls, config) -> DkimSigner | None:
        """The signer the configuration asks for, or None when DKIM is not configured."""
        selector = (config.get("DKIM_SELECTOR") or "").strip()
        key_file = (config.get("DKIM_KEY_FILE") or "").strip()
        if not selector and not key_file:
            return None
        if not selector or not key_file:
            missing = "DKIM_SELECTOR" if not selector else "DKIM_KEY_FILE"
            raise SigningConfigError(f"{missing} is not set: DKIM needs both DKIM_SELECTOR and DKIM_KEY_FILE")
        domain = from_domain(str(config.get("MAIL_FROM") or ""))
        if not domain:
            raise SigningConfigError("MAIL_FROM has no domain to sign for (e.g. SKYJO <skyjo@example.com>)")
        return cls(selector, domain, read_key(key_file))

    def signature(self, message: bytes, signed_at: datetime) -> bytes:
        """The `DKIM-Signature: ...` field (CRLF-terminated) for `message` signed at `signed_at`."""
        when = signed_at if signed_at.tzinfo else signed_at.replace(tzinfo=UTC)
        signer = _FixedTimeDKIM(message, int(when.timestamp()))
        return signer.sign(self.selector, self.domain, self.key_pem, canonicalize=CANONICALIZE)

    def sign(self, msg: EmailMessage, signed_at: datetime) -> EmailMessage:
        """Put the signature of `msg`'s wire bytes in front of its headers; returns `msg`."""
        field = self.signature(wire_bytes(msg), signed_at).decode("ascii")
        name, _sep, value = field.partition(":")
        # the raw field, unparsed: the generator writes a str value's lines as they are (each is
        # shorter than the policy's max_line_length), so the signed header is sent unchanged
        msg._headers.insert(0, (name, value.strip().replace("\r\n", "\n")))  # noqa: SLF001 - prepend (RFC 6376 5.6)
        return msg
