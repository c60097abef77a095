"""The command lines of a reply mail: `extract_commands(msg)` finds what the player wrote above (or
below) the quoted turn mail. No Flask, no database; never raises on odd mail.

1. the body as plain text (service.mail.body: the text part, or an HTML-only body without its
   quotes; decoded, CRLF and format=flowed undone);
2. the kept library `mail-parser-reply` (many languages) cuts the latest reply from the thread;
3. our own strict rules cut again, line by line: quoted lines (`>`), reply headers in the languages
   our players write ("On … wrote:", "Am … schrieb …:", "Op … schreef …:" / "… het volgende
   geschreven:", "Den … skrev …:", Afrikaans "Op … het … geskryf:",
   French/Spanish/Italian/Polish/Czech/Danish/Finnish), Outlook "From:/Sent:" blocks (also "Van:/
   Vanaf:/Gestuur:", "Från:/Skickat:", "Von:/Gesendet:"), banners such as
   "-----Original Message-----" and forwarded-message headers, a `--` line, `__` rules and "Sent from
   my …" lines. A reply that starts with a reply header and a quote (bottom-posting) is read below
   the quote; one whose header is not followed by a quote is read as empty (never our own text).
4. the commands are the first block of non-empty lines, plus following blocks that continue a plan
   (lines starting with if / else / otherwise / then / and).

Who a reply is for and whether to read it at all is service.mail.replies.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from email.message import EmailMessage, Message

from mailparser_reply import EmailReplyParser

from service.mail.body import body_text, normalize

log = logging.getLogger(__name__)

MAX_COMMAND_LINES = 12
MAX_LINE_CHARS = 300
LANGUAGES = ["en", "de", "nl", "sv", "da", "fr", "es", "it", "pl", "cs"]
# the library reads the start of a body only (its regular expressions cost ~0.1 s on 100,000
# characters, issue 34.3); the commands it may cut stand far inside it
LIBRARY_CHARS = 10_000


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


# ------------------------------------------------------------------------------ cutting the reply
_WROTE = (
    r"wrote|schrieb|schreef|geschreven|geskryf|skrev|a [ée]crit|escribi[óo]|ha scritto|napisa[łl](?:\(a\))?|"
    r"napsal(?:\(a\))?|kirjoitti|sent|escreveu"
)
_HEADER_START = re.compile(r"^\s*(?:on|am|op|den|le|el|il|w dniu|dne|p[aå]|em)\s", re.IGNORECASE)
_HEADER_END = re.compile(r"\b(?:" + _WROTE + r")\b[^\n]{0,200}:\s*$", re.IGNORECASE)
_WROTE_LINE = re.compile(
    r"^.{0,300}\b(?:wrote|schrieb|schreef|geschreven|geskryf|skrev|a [ée]crit|escribi[óo]|ha scritto)\b[^\n]{0,200}:\s*$",
    re.IGNORECASE,
)
_FIELD = re.compile(
    r"^\s*\**\s*(from|fr[åa]n|von|vanaf|van|de|da|od|fra|l[äa]hett[äa]j[äa]|sent|skickat|gesendet|verzonden|"
    r"gestuur|envoy[ée]|"
    r"inviato|enviado|date|datum|to|till|an|aan|[àa]|a|para|cc|subject|[äa]mne|betreff|onderwerp|objet|oggetto|"
    r"asunto|emne|verstuurd|sendt|l[äa]hetetty)\s*:\**\s*(.*)$",
    re.IGNORECASE,
)
_FROM_FIELD = re.compile(
    r"^\s*\**\s*(from|fr[åa]n|von|vanaf|van|de|da|od|fra|l[äa]hett[äa]j[äa])\s*:", re.IGNORECASE
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
    r"verstuurd (?:vanaf|met)|verzonden (?:vanaf|met)|gestuur (?:vanaf|met)|envoy[ée] (?:de|depuis)|inviato da|enviado desde|wys[łl]ane z)\b",
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
    latest = _library_reply(text[:LIBRARY_CHARS])
    if cmds and latest and latest.strip():
        lib_cmds, _ = _command_block(cut_reply(latest))
        if lib_cmds and lib_cmds != cmds and cmds[: len(lib_cmds)] == lib_cmds:
            rest = cmds[len(lib_cmds) :] + rest
            cmds = lib_cmds
    return ReplyCommands(cmds, rest, source)
