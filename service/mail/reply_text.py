"""The command lines of a reply mail: `extract_commands(msg)` finds what the player wrote above (or
below) the quoted turn mail. No Flask, no database; never raises on odd mail.

1. the text part (or an HTML-only body turned into text, quotes dropped), decoded from base64 /
   quoted-printable and its charset, CRLF and format=flowed undone;
2. the kept library `mail-parser-reply` (many languages) cuts the latest reply from the thread;
3. our own strict rules cut again, line by line: quoted lines (`>`), reply headers in the languages
   our players write ("On … wrote:", "Am … schrieb …:", "Op … schreef …:", "Den … skrev …:",
   French/Spanish/Italian/Polish/Czech/Danish/Finnish), Outlook "From:/Sent:" blocks, banners such as
   "-----Original Message-----" and forwarded-message headers, a `--` line, `__` rules and "Sent from
   my …" lines. A reply that starts with a reply header and a quote (bottom-posting) is read below
   the quote; one whose header is not followed by a quote is read as empty (never our own text).
4. the commands are the first block of non-empty lines, plus following blocks that continue a plan
   (lines starting with if / else / otherwise / then / and).

Who a reply is for and whether to read it at all is service.mail.replies.
"""

from __future__ import annotations

import email
import email.policy
import logging
import re
from dataclasses import dataclass, field
from email.message import EmailMessage, Message
from html.parser import HTMLParser

from mailparser_reply import EmailReplyParser

log = logging.getLogger(__name__)

MAX_COMMAND_LINES = 12
MAX_LINE_CHARS = 300
LANGUAGES = ["en", "de", "nl", "sv", "da", "fr", "es", "it", "pl", "cs"]


@dataclass(frozen=True)
class ReplyCommands:
    """What a reply asks for: `lines` (the command lines, stripped), `ignored` (the rest of the
    player's own text, for the answer mail), `source` (the MIME type read, or None)."""

    lines: list[str] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)
    source: str | None = None

    @property
    def text(self) -> str:
        """The command text to hand to `engine.plans.parse_plan` (lines joined by newlines)."""
        return "\n".join(self.lines)

    def __bool__(self) -> bool:
        return bool(self.lines)


# ------------------------------------------------------------------------------ message and body
def as_message(msg: EmailMessage | Message | bytes | str) -> EmailMessage:
    """Any form of a mail -> EmailMessage with the modern policy."""
    if isinstance(msg, EmailMessage):
        return msg
    if isinstance(msg, Message):
        msg = msg.as_bytes()
    if isinstance(msg, str):
        msg = msg.encode("utf-8", "surrogateescape")
    if not isinstance(msg, bytes | bytearray):
        raise TypeError("a mail must be bytes or an email.message.Message")
    return email.message_from_bytes(bytes(msg), policy=email.policy.default)  # type: ignore[return-value]


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
    is converted (blockquotes and quote containers dropped). Attachments are never read."""
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
        text = html_to_text(text)
    elif part.get_param("format", "", header="content-type").lower() == "flowed":
        text = _unflow(text, part.get_param("delsp", "", header="content-type").lower() == "yes")
    return normalize(text), ctype


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


# ------------------------------------------------------------------------------ cutting the reply
_WROTE = (
    r"wrote|schrieb|schreef|skrev|a [ée]crit|escribi[óo]|ha scritto|napisa[łl](?:\(a\))?|"
    r"napsal(?:\(a\))?|kirjoitti|sent|escreveu"
)
_HEADER_START = re.compile(r"^\s*(?:on|am|op|den|le|el|il|w dniu|dne|p[aå]|em)\s", re.IGNORECASE)
_HEADER_END = re.compile(r"\b(?:" + _WROTE + r")\b[^\n]{0,200}:\s*$", re.IGNORECASE)
_WROTE_LINE = re.compile(
    r"^.{0,300}\b(?:wrote|schrieb|schreef|skrev|a [ée]crit|escribi[óo]|ha scritto)\b[^\n]{0,200}:\s*$",
    re.IGNORECASE,
)
_FIELD = re.compile(
    r"^\s*\**\s*(from|fr[åa]n|von|van|de|da|od|fra|l[äa]hett[äa]j[äa]|sent|skickat|gesendet|verzonden|envoy[ée]|"
    r"inviato|enviado|date|datum|to|till|an|aan|[àa]|a|para|cc|subject|[äa]mne|betreff|onderwerp|objet|oggetto|"
    r"asunto|emne|verstuurd|sendt|l[äa]hetetty)\s*:\**\s*(.*)$",
    re.IGNORECASE,
)
_FROM_FIELD = re.compile(
    r"^\s*\**\s*(from|fr[åa]n|von|van|de|da|od|fra|l[äa]hett[äa]j[äa])\s*:", re.IGNORECASE
)
_BANNER = re.compile(
    r"^\s*(?:-{2,}|_{2,}|={2,}|\*{2,})\s*[^-_=*]{3,80}?\s*(?:-{2,}|_{2,}|={2,}|\*{2,})\s*$|"
    r"^\s*(?:begin forwarded message|anfang der weitergeleiteten nachricht|vidarebefordrat meddelande|"
    r"doorgestuurd bericht|message transf[ée]r[ée]|forwarded message|original message|"
    r"urspr[üu]ngliche nachricht|ursprungligt meddelande|oorspronkelijk bericht|message d'origine)\b.*$",
    re.IGNORECASE,
)
_SIG = re.compile(r"^\s*(?:--|-- |—|–|_{3,}|-{5,})\s*$")
_MOBILE = re.compile(
    r"^\s*(?:sent from|sent with|sent via|get outlook for|skickat fr[åa]n|von meinem|gesendet von|"
    r"verstuurd (?:vanaf|met)|envoy[ée] (?:de|depuis)|inviato da|enviado desde|wys[łl]ane z)\b",
    re.IGNORECASE,
)
_CONTINUATION = re.compile(r"^\s*(?:if|else|otherwise|elif|when|then|and)\b", re.IGNORECASE)


def _quoted(line: str) -> bool:
    return line.lstrip().startswith(">") or line.lstrip().startswith("|>")


def _reply_header_len(lines: list[str], i: int) -> int:
    """Number of lines (1-4) of a reply header ("On … wrote:", "Am … schrieb …:") starting at line i,
    or 0."""
    line = lines[i]
    if _WROTE_LINE.match(line):
        return 1
    if _HEADER_START.match(line):
        for k in range(i, min(i + 4, len(lines))):
            if k > i and not lines[k].strip():
                break
            if _HEADER_END.search(" ".join(x.strip() for x in lines[i : k + 1])):
                return k - i + 1
    return 0


def _field_block(lines: list[str], i: int) -> bool:
    """An Outlook-style header block: a From: line followed by other header fields."""
    if not _FROM_FIELD.match(lines[i]):
        return False
    fields = 0
    for k in range(i + 1, min(i + 7, len(lines))):
        if _FIELD.match(lines[k]):
            fields += 1
        elif lines[k].strip():
            break
    return fields >= 1


def _hard_stop(lines: list[str], i: int) -> bool:
    s = lines[i]
    return bool(_SIG.match(s) or _MOBILE.match(s) or _BANNER.match(s) or _field_block(lines, i))


def cut_reply(text: str) -> list[str]:
    """The player's own lines of a reply body (our strict rules; see the module docstring)."""
    lines = normalize(text).split("\n")
    out: list[str] = []
    i = 0
    n = len(lines)
    while i < n:
        line = lines[i]
        if _quoted(line):
            if any(x.strip() for x in out):
                break  # top-posted reply followed by the quote: the reply has ended
            i += 1
            continue
        h = _reply_header_len(lines, i)
        if h:
            if any(x.strip() for x in out):
                break
            # bottom-posting: read below the quote; an unquoted original is never read
            i += h
            while i < n and not lines[i].strip():
                i += 1
            if i >= n or not _quoted(lines[i]):
                return []
            continue
        if _hard_stop(lines, i):
            break
        out.append(line.rstrip())
        i += 1
    return out


def _library_reply(text: str) -> str | None:
    try:
        return EmailReplyParser(languages=LANGUAGES).parse_reply(text)
    except Exception:  # noqa: BLE001 - the library must never make us fail on a mail
        log.debug("mail-parser-reply failed", exc_info=True)
        return None


def _command_block(lines: list[str]) -> tuple[list[str], list[str]]:
    stripped = [line.strip() for line in lines]
    i = 0
    while i < len(stripped) and not stripped[i]:
        i += 1
    cmds: list[str] = []
    while i < len(stripped):
        if stripped[i]:
            cmds.append(stripped[i])
            i += 1
            continue
        # a blank line ends the commands unless the next block continues a plan
        k = i
        while k < len(stripped) and not stripped[k]:
            k += 1
        if k < len(stripped) and _CONTINUATION.match(stripped[k]):
            i = k
            continue
        break
    rest = [s for s in stripped[i:] if s]
    if len(cmds) > MAX_COMMAND_LINES:
        rest = cmds[MAX_COMMAND_LINES:] + rest
        cmds = cmds[:MAX_COMMAND_LINES]
    cmds = [c[:MAX_LINE_CHARS] for c in cmds]
    return cmds, rest[:20]


def extract_commands(msg: EmailMessage | Message | bytes) -> ReplyCommands:
    """The command lines of a reply mail (see the module docstring). Never raises on odd mail."""
    try:
        text, source = body_text(msg)
    except Exception:  # noqa: BLE001 - a broken mail has no commands
        log.info("unreadable mail body", exc_info=True)
        return ReplyCommands()
    if not text.strip():
        return ReplyCommands(source=source)
    cmds, rest = _command_block(cut_reply(text))
    # The library may only cut more: its reading is used when it is a prefix of ours (e.g. it knows
    # a disclaimer or a header we don't), never when it reads other lines.
    latest = _library_reply(text)
    if cmds and latest and latest.strip():
        lib_cmds, _ = _command_block(cut_reply(latest))
        if lib_cmds and lib_cmds != cmds and cmds[: len(lib_cmds)] == lib_cmds:
            rest = cmds[len(lib_cmds) :] + rest
            cmds = lib_cmds
    return ReplyCommands(cmds, rest, source)
