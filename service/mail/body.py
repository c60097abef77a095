"""A mail's body as plain text: the text part (or an HTML-only body turned into text, quoted parts
dropped), decoded from base64 / quoted-printable and its charset, CRLF and format=flowed undone,
invisible and control characters removed. Attachments are never read; nothing here raises on odd
mail except `as_message` on what is not a mail at all.

Only the start of a body is read (issue 20.5: one 8 MB mail cost half a minute of CPU): at most
`MAX_HTML_CHARS` of an HTML body are parsed and `MAX_TEXT_CHARS` of text come back. A reply's
commands stand at its top, or below a quote of one turn mail, far inside both limits.

Used by service.mail.reply_text (the command lines of a reply) and service.mail.replies.
"""

from __future__ import annotations

import email
import email.policy
import logging
import re
from email.message import EmailMessage, Message
from html.parser import HTMLParser

log = logging.getLogger(__name__)

MAX_TEXT_CHARS = 100_000
MAX_HTML_CHARS = 1_000_000
# The MIME structure a mail may have before it is parsed at all (issue 34.3: 1,000 nested multipart
# levels in 68 KB cost the stdlib parser seconds and end in a RecursionError): at most
# MAX_CONTAINERS multipart or message parts (so also at most that deep) and MAX_PARTS boundary lines.
# A reply (multipart/mixed > alternative > related > a few images, or a forwarded mail) has far fewer.
MAX_CONTAINERS = 20
MAX_PARTS = 200
# Only a mail's first megabyte is parsed at all (the parse of 10 MB cost 0.34 s of CPU; issue 34.3):
# the headers, and the reply's text, which precedes its attachments.
MAX_PARSED_BYTES = 1_000_000
_CONTAINER = re.compile(rb"(?im)^content-type:[ \t]*(?:\r?\n[ \t]+)*(?:multipart|message)/")
_BOUNDARY = re.compile(rb'(?i)boundary\s*=\s*"?([^";\r\n]{1,200})')


class MailTooComplex(ValueError):
    """A mail whose MIME structure is over the limits (`mime_too_complex`): it is not parsed."""


MAX_ADDRESS_HEADER_CHARS = 8192  # one address header: a hundred addresses or so
_FOLD = re.compile(r"\r?\n(?=[ \t])")


def raw_headers(m: Message) -> list[tuple[str, str]]:
    """A mail's headers as received, (lowercased name, unfolded value), none parsed by the stdlib's
    header classes (whose parse of a header with thousands of addresses costs seconds, issue 34.3b)."""
    return [(name.lower(), _FOLD.sub("", value)) for name, value in m.raw_items()]


def mime_too_complex(raw: bytes) -> str | None:
    """Why the mail's MIME structure is over the limits (read from the bytes with two regular
    expressions, before any parsing), or None."""
    containers = len(_CONTAINER.findall(raw))
    if containers > MAX_CONTAINERS:
        return f"{containers} multipart/message parts (at most {MAX_CONTAINERS})"
    boundaries = set(_BOUNDARY.findall(raw))
    if len(boundaries) > MAX_CONTAINERS:
        return f"{len(boundaries)} MIME boundaries (at most {MAX_CONTAINERS})"
    parts = sum(raw.count(b"\n--" + b) for b in boundaries)
    if parts > MAX_PARTS:
        return f"{parts} MIME boundary lines (at most {MAX_PARTS})"
    return None


def as_message(msg: EmailMessage | Message | bytes | str) -> EmailMessage:
    """Any form of a mail -> EmailMessage with the modern policy: of bytes, the first
    MAX_PARSED_BYTES. Raises MailTooComplex for bytes over the MIME limits (see
    `mime_too_complex`), without parsing them."""
    if isinstance(msg, EmailMessage):
        return msg
    if isinstance(msg, Message):
        msg = msg.as_bytes()
    if isinstance(msg, str):
        msg = msg.encode("utf-8", "surrogateescape")
    if not isinstance(msg, bytes | bytearray):
        raise TypeError("a mail must be bytes or an email.message.Message")
    data = bytes(msg[:MAX_PARSED_BYTES])
    why = mime_too_complex(data)
    if why is not None:
        raise MailTooComplex(why)
    return email.message_from_bytes(data, policy=email.policy.default)  # type: ignore[return-value]


def _part_text(part: Message) -> str:
    try:
        text = part.get_content()  # type: ignore[attr-defined]
        if isinstance(text, str):
            return text
    except (LookupError, UnicodeError, AttributeError, KeyError, ValueError):
        pass
    payload = part.get_payload(decode=True) or b""
    if isinstance(payload, str):
        return payload
    charset = part.get_content_charset() or "utf-8"
    for cs in (charset, "utf-8", "windows-1252"):
        try:
            return payload.decode(cs)
        except (LookupError, UnicodeDecodeError):
            continue
    return payload.decode("utf-8", "replace")


def body_text(msg: EmailMessage | Message | bytes) -> tuple[str, str | None]:
    """(plain text of the body, the MIME type it came from). Prefers text/plain; an HTML-only body
    is converted (blockquotes and quote containers dropped). Attachments are never read. Only the
    start of a long body is read (see the module docstring)."""
    m = as_message(msg)
    try:
        part = m.get_body(preferencelist=("plain", "html"))
    except (KeyError, AttributeError):
        part = None
    if part is None:
        # a single non-text part, or a multipart without a usable body
        if m.get_content_maintype() == "text":
            part = m
        else:
            return "", None
    ctype = part.get_content_type()
    text = _part_text(part)
    if ctype == "text/html":
        text = html_to_text(text[:MAX_HTML_CHARS])
    elif part.get_param("format", "", header="content-type").lower() == "flowed":
        text = _unflow(
            text[:MAX_TEXT_CHARS], part.get_param("delsp", "", header="content-type").lower() == "yes"
        )
    return normalize(text[:MAX_TEXT_CHARS]), ctype


_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def normalize(text: str) -> str:
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = text.replace("\u00a0", " ").replace("\ufeff", "").replace("\u200b", "").replace("\u200c", "")
    text = text.replace("\u2028", "\n").replace("\u2029", "\n")
    return _CONTROL.sub("", text)


def _unflow(text: str, delsp: bool) -> str:
    """RFC 3676 format=flowed: a line ending in a space continues on the next line."""
    out: list[str] = []
    buf = ""
    for line in normalize(text).split("\n"):
        if line.startswith(" "):  # space-stuffing
            line = line[1:]
        if line.endswith(" ") and line != "-- ":
            buf += line[:-1] if delsp else line
            continue
        out.append(buf + line)
        buf = ""
    if buf:
        out.append(buf)
    return "\n".join(out)


class _HTMLText(HTMLParser):
    _SKIP = frozenset({"script", "style", "head", "title", "blockquote", "template"})
    _BLOCK = frozenset(
        {
            "p",
            "div",
            "br",
            "tr",
            "li",
            "ul",
            "ol",
            "table",
            "h1",
            "h2",
            "h3",
            "h4",
            "h5",
            "h6",
            "pre",
            "hr",
            "section",
            "article",
            "header",
            "footer",
            "dd",
            "dt",
        }
    )
    _QUOTE_CLASSES = (
        "gmail_quote",
        "yahoo_quoted",
        "moz-cite-prefix",
        "protonmail_quote",
        "gmail_signature",
        "moz-signature",
        "x_gmail_quote",
        "ms-outlook-mobile-reference-message",
    )
    _STOP_IDS = (
        "appendonsend",
        "divrplyfwdmsg",
        "x_divrplyfwdmsg",
        "reply-intro",
        "mail-editor-reference-message-container",
    )

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skip: list[str] = []  # stack of tags whose content is skipped
        self.stopped = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.stopped:
            return
        a = {k.lower(): (v or "") for k, v in attrs}
        if (a.get("id", "").lower() in self._STOP_IDS) and not self.skip:
            self.stopped = True
            return
        if tag == "br":
            self.parts.append("\n")
            return
        if tag in self._BLOCK:
            self._break()
        if tag in ("hr", "img", "meta", "link", "input", "wbr", "col", "area", "source", "base"):
            return
        classes = a.get("class", "").lower()
        if (
            self.skip
            or tag in self._SKIP
            or any(c in classes for c in self._QUOTE_CLASSES)
            or a.get("type", "").lower() == "cite"
        ):
            self.skip.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if self.stopped:
            return
        if self.skip:
            # close the innermost open skipped element of this tag (tolerates sloppy HTML)
            for i in range(len(self.skip) - 1, -1, -1):
                if self.skip[i] == tag:
                    del self.skip[i:]
                    break
            return
        if tag in self._BLOCK:
            self._break()

    def _break(self) -> None:
        """A block boundary: end the current line (several boundaries make one line break)."""
        if self.parts and not self.parts[-1].endswith("\n"):
            self.parts.append("\n")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if not self.stopped and not self.skip:
            if tag == "br":
                self.parts.append("\n")
            elif tag in self._BLOCK:
                self._break()

    def handle_data(self, data: str) -> None:
        if not self.stopped and not self.skip:
            text = re.sub(r"[ \t\r\n]+", " ", data)
            if text == " " and (not self.parts or self.parts[-1].endswith("\n")):
                return  # markup indentation between blocks
            self.parts.append(text)


def html_to_text(html: str) -> str:
    """Visible text of an HTML mail body without quoted parts (blockquote, Gmail/Yahoo/Thunderbird
    quote containers) and without anything after Outlook's reply marker."""
    p = _HTMLText()
    try:
        p.feed(html)
        p.close()
    except Exception:  # noqa: BLE001 - html.parser is lenient; never fail on a mail
        log.debug("html parse failed", exc_info=True)
    lines = [line.strip() for line in "".join(p.parts).split("\n")]
    text = "\n".join(lines)
    return re.sub(r"\n{3,}", "\n\n", text).strip("\n")
