"""`skyjo-pbem i18n update | compile | check`: the catalogues in translations/ (issue 17).

    skyjo-pbem i18n update    extract every msgid from engine/, service/ and templates/ (babel.cfg) and merge
                              it into translations/<lang>/LC_MESSAGES/messages.po for each language
                              (new entries empty, changed ones marked fuzzy, gone ones kept as #~)
    skyjo-pbem i18n compile   write the .mo files (the app also does this at start when a .po is newer)
    skyjo-pbem i18n check     per language: messages, translated, untranslated, fuzzy, and msgids of
                              the code missing from the catalogue; exit 1 unless all are complete

The same as `pybabel extract -F babel.cfg -k N_ -k _l -k lazy_gettext -k lazy_ngettext:1,2 -o messages.pot .`
then `pybabel update -i messages.pot -d translations`.
"""

from __future__ import annotations

import argparse
import sys
from io import BytesIO
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po, write_po

from service.i18n import ROOT, TRANSLATED, TRANSLATIONS, compile_catalogues

KEYWORDS = {"N_": None, "_": None, "gettext": None, "ngettext": (1, 2), "lazy_gettext": None, "_l": None,
            "lazy_ngettext": (1, 2), "pgettext": ((1, "c"), 2)}


def extract(root: Path = ROOT) -> Catalog:
    """Every msgid the code and templates use (babel.cfg's mapping), as a template catalogue."""
    with (root / "babel.cfg").open() as f:
        method_map, options_map = parse_mapping_cfg(f)
    catalog = Catalog(project="skyjo-pbem", charset="utf-8", fuzzy=False)
    for filename, lineno, message, comments, context in extract_from_dir(
            str(root), method_map, options_map, keywords=KEYWORDS, comment_tags=("NOTE",), strip_comment_tags=True):
        catalog.add(message, None, [(filename, lineno)], auto_comments=comments, context=context)
    return catalog


def read(lang: str, root: Path = TRANSLATIONS) -> Catalog:
    path = root / lang / "LC_MESSAGES" / "messages.po"
    if not path.exists():
        return Catalog(locale=lang, project="skyjo-pbem", fuzzy=False)
    with path.open("rb") as f:
        return read_po(f, locale=lang)


def write(catalog: Catalog, lang: str, root: Path = TRANSLATIONS) -> Path:
    path = root / lang / "LC_MESSAGES" / "messages.po"
    path.parent.mkdir(parents=True, exist_ok=True)
    buf = BytesIO()
    # no line numbers: a catalogue changes (and merges) only when its texts do
    write_po(buf, catalog, width=110, sort_output=False, include_previous=True, include_lineno=False)
    path.write_bytes(buf.getvalue())
    return path


def update(root: Path = ROOT) -> dict[str, Path]:
    template = extract(root)
    out = {}
    for lang in TRANSLATED:
        catalog = read(lang)
        before, created = {key(m) for m in catalog if m.id}, catalog.creation_date
        catalog.update(template, no_fuzzy_matching=False)
        catalog.fuzzy = False
        if {key(m) for m in catalog if m.id} == before:  # no new msgids: the header stays (fewer conflicts)
            catalog.creation_date = created
        out[lang] = write(catalog, lang)
    return out


def key(message) -> tuple:
    return (message.id, message.context)


def status(lang: str, template: Catalog) -> dict:
    """The state of one language's catalogue against the code's msgids."""
    catalog = read(lang)
    entries = [m for m in catalog if m.id]
    have = {key(m) for m in entries}

    def translated(m) -> bool:
        return all(m.string) if isinstance(m.string, (list, tuple)) else bool(m.string)

    return {
        "messages": len(entries),
        "translated": sum(1 for m in entries if translated(m) and not m.fuzzy),
        "untranslated": [m.id for m in entries if not translated(m)],
        "fuzzy": [m.id for m in entries if m.fuzzy],
        "missing": [m.id for m in template if m.id and key(m) not in have],
    }


def cmd_i18n(args: argparse.Namespace) -> int:
    if args.i18n_command == "update":
        for lang, path in update().items():
            print(f"{lang}: {path.relative_to(ROOT)}")
        return 0
    if args.i18n_command == "compile":
        for mo in compile_catalogues(force=True):
            print(mo.relative_to(ROOT))
        return 0
    template = extract()
    complete = True
    for lang in TRANSLATED:
        st = status(lang, template)
        bad = len(st["untranslated"]) + len(st["fuzzy"]) + len(st["missing"])
        complete &= bad == 0
        print(f"{lang}: {st['messages']} messages, {st['translated']} translated, {len(st['untranslated'])} "
              f"untranslated, {len(st['fuzzy'])} fuzzy, {len(st['missing'])} missing from the catalogue")
    return 0 if complete else 1


def add_command(subparsers) -> None:
    p = subparsers.add_parser("i18n", help="translations: update the catalogues from the code, compile, check")
    sub = p.add_subparsers(dest="i18n_command", required=True)
    sub.add_parser("update", help="extract msgids from service/ and templates/ and merge them into each .po")
    sub.add_parser("compile", help="write the .mo files (the app does this at start when stale)")
    sub.add_parser("check", help="untranslated, fuzzy and missing messages per language (exit 1 if any)")
    p.set_defaults(func=cmd_i18n)


if __name__ == "__main__":  # pragma: no cover
    parser = argparse.ArgumentParser()
    add_command(parser.add_subparsers(dest="command", required=True))
    ns = parser.parse_args()
    sys.exit(ns.func(ns))
