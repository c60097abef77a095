"""One term per game concept and language (issue 28, point 4): no msgstr of a catalogue uses a
synonym that docs/glossary.md forbids for that language (sv "öppningen" where the glossary says
"början", af "onderstebo", de "Rundenbeender", ...). The glossary is the one source: its
**Forbidden** table is read here, nothing is repeated in this file."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from service import i18n

GLOSSARY = Path(__file__).resolve().parents[2] / "docs" / "glossary.md"


def _cells(line: str) -> list[str]:
    """A markdown table row's cells (`\\|` inside a cell is a literal bar)."""
    parts = re.split(r"(?<!\\)\|", line.strip().strip("|"))
    return [p.strip().replace("\\|", "|") for p in parts]


def forbidden_patterns() -> dict[str, list[tuple[str, str, re.Pattern[str]]]]:
    """Per language: (concept, entry, pattern) for each forbidden synonym of docs/glossary.md."""
    text = GLOSSARY.read_text(encoding="utf-8")
    table = text.split("## Forbidden", 1)[1]
    out: dict[str, list[tuple[str, str, re.Pattern[str]]]] = {}
    for line in table.splitlines():
        if not line.startswith("|") or line.startswith("| ---") or line.startswith("| concept"):
            continue
        concept, lang, entries = _cells(line)[:3]
        for entry in (e.strip() for e in entries.split(" ; ")):
            out.setdefault(lang, []).append((concept, entry, _pattern(entry)))
    return out


def _pattern(entry: str) -> re.Pattern[str]:
    if entry.startswith("re:"):
        return re.compile(entry[3:])
    stem, star = (entry[:-1], True) if entry.endswith("*") else (entry, False)
    body = r"\s+".join(re.escape(w) for w in stem.split()) + (r"\w*" if star else "")
    return re.compile(rf"(?<!\w){body}(?!\w)", re.IGNORECASE)


def _msgstrs(lang: str) -> list[tuple[str, str]]:
    with (i18n.TRANSLATIONS / lang / "LC_MESSAGES" / "messages.po").open("rb") as f:
        cat = read_po(f)
    out = []
    for m in cat:
        if not m.id:
            continue
        msgid = m.id if isinstance(m.id, str) else m.id[0]
        for s in [m.string] if isinstance(m.string, str) else m.string:
            # placeholders are not words: %(name)s must not read as a forbidden "name"
            out.append((msgid, re.sub(r"%\(\w+\)[sdr]", "\u2063", s or "")))
    return out


def test_the_glossary_forbids_synonyms_in_every_translated_language() -> None:
    patterns = forbidden_patterns()
    assert set(patterns) == set(i18n.TRANSLATED), sorted(patterns)
    assert all(len(p) >= 5 for p in patterns.values()), {k: len(v) for k, v in patterns.items()}


def test_the_forbidden_patterns_match_inflections_at_word_boundaries() -> None:
    by_entry = {(lang, entry): p for lang, ps in forbidden_patterns().items() for _c, entry, p in ps}
    pak = by_entry[("nl", "pak")]
    assert pak.search("Pak een kaart") and not pak.search("aflegstapel") and not pak.search("pakket")
    cell = by_entry[("af", "blok")]
    assert cell.search("die blok B2") and not cell.search("blokkeer die aanval")
    beender = by_entry[("de", "rundenbeender*")]
    assert beender.search("des Rundenbeenders") and not beender.search("die Runde beendet")


@pytest.mark.parametrize("lang", i18n.TRANSLATED)
def test_no_catalogue_uses_a_synonym_the_glossary_forbids(lang: str) -> None:
    patterns = forbidden_patterns()[lang]
    found = [f"{concept}: {entry!r} in {text!r} (msgid {msgid!r})"
             for msgid, text in _msgstrs(lang)
             for concept, entry, pattern in patterns if pattern.search(text)]
    assert not found, f"{lang}: {len(found)} non-glossary terms (docs/glossary.md):\n" + "\n".join(found)


# a player's name followed by a suffix built onto it: sv "%(name)ss" ("Hanss"), de "%(name)s’"
_GENITIVE_ON_A_NAME = re.compile(r"%\((?:name|names|who|whose|target|attacker|host)\)s(?:s\b|’|')")


@pytest.mark.parametrize("lang", i18n.TRANSLATED)
def test_no_genitive_is_built_as_a_suffix_on_a_name(lang: str) -> None:
    """Genitives by sentence, not by suffix (issue 28, point 5): "Hans" + "s" reads "Hanss"; a
    translation says "besluten åt %(name)s", "die Auslage von %(name)s", "%(name)s se rooster"."""
    with (i18n.TRANSLATIONS / lang / "LC_MESSAGES" / "messages.po").open("rb") as f:
        cat = read_po(f)
    found = [(m.id, s) for m in cat if m.id
             for s in ([m.string] if isinstance(m.string, str) else m.string) if _GENITIVE_ON_A_NAME.search(s or "")]
    assert not found, found
