"""Plans in the player's language (issue 17): the words of a whole turn in Swedish, Dutch, Afrikaans
and German, read as the engine's English grammar (`engine.plans`, which stays language-free).

`to_english(text, lang)` replaces each word or phrase of `lang` it knows with its English
counterpart and leaves everything else as it is: cells (A1-D3), numbers, names, punctuation and
English words, so English is understood in every language. `dra: om 4 eller mindre byt B2, annars
vänd C3` reads as `draw: if 4 or less swap B2, else flip C3`. The game words come from the rule
texts the service was built from (sv "draghögen", "kasthögen"; nl "trekstapel", "aflegstapel";
af "trekstapel", "weggooistapel"; de "Nachziehstapel", "Ablagestapel"); the verbs are the informal
imperative the rule texts use (du/jij/jy/du).
"""

from __future__ import annotations

import re

# each language: English word or phrase -> that language's words for it (the first is what the help
# shows; lower case; phrases before their parts are matched longest first)
LEXICON: dict[str, dict[str, tuple[str, ...]]] = {
    "sv": {
        "draw": ("dra", "drag", "ta från draghögen", "dra från draghögen"),
        "take": ("ta", "ta från kasthögen", "ta kasthögen"),
        "swap": ("byt", "byt ut", "byt mot", "lägg"),
        "flip": ("vänd", "vänd upp", "kasta och vänd", "släng och vänd"),
        "reveal": ("visa", "vänd fram"),
        "if": ("om", "när"),
        "else": ("annars", "i övrigt"),
        "then": ("sedan", "sen", "så"),
        "and": ("och",),
        "or less": ("eller mindre", "eller lägre"),
        "or more": ("eller mer", "eller mera", "eller högre"),
        "between": ("mellan",),
        "at most": ("högst", "max"),
        "at least": ("minst",),
        "less than": ("mindre än", "lägre än", "under"),
        "more than": ("mer än", "större än", "högre än", "över"),
        "not": ("inte",),
        "is": ("är",),
        "star": ("stjärna", "stjärnkort"),
        "negative": ("negativt", "negativ"),
        "positive": ("positivt", "positiv"),
    },
    "nl": {
        "draw": ("trek", "pak van de trekstapel", "trek van de trekstapel"),
        "take": ("neem", "pak", "neem van de aflegstapel", "pak van de aflegstapel"),
        "swap": ("ruil", "wissel", "leg"),
        "flip": ("draai", "draai om", "leg af en draai"),
        "reveal": ("draai open", "open draaien"),
        "if": ("als", "indien"),
        "else": ("anders",),
        "then": ("dan", "daarna"),
        "and": ("en",),
        "or less": ("of minder", "of lager"),
        "or more": ("of meer", "of hoger"),
        "between": ("tussen",),
        "at most": ("hoogstens", "maximaal", "max"),
        "at least": ("minstens", "minimaal"),
        "less than": ("minder dan", "lager dan", "onder"),
        "more than": ("meer dan", "hoger dan", "boven"),
        "not": ("niet",),
        "is": ("is",),
        "star": ("ster", "sterkaart"),
        "negative": ("negatief",),
        "positive": ("positief",),
        "": ("om", "open"),  # `draai C3 om`, `draai A1 open`
    },
    "af": {
        "draw": ("trek", "trek van die trekstapel"),
        "take": ("neem", "vat", "neem van die weggooistapel", "vat van die weggooistapel"),
        "swap": ("ruil", "verruil", "sit"),
        "flip": ("draai", "draai om", "gooi weg en draai"),
        "reveal": ("openbaar", "draai oop", "wys"),
        "if": ("as", "indien"),
        "else": ("anders",),
        "then": ("dan", "daarna"),
        "and": ("en",),
        "or less": ("of minder", "of laer"),
        "or more": ("of meer", "of hoër"),
        "between": ("tussen",),
        "at most": ("hoogstens", "maksimum"),
        "at least": ("minstens", "minimum"),
        "less than": ("minder as", "laer as", "onder"),
        "more than": ("meer as", "hoër as"),  # not "bo": a player may be called Bo
        "not": ("nie",),
        "is": ("is",),
        "star": ("ster", "sterkaart"),
        "negative": ("negatief",),
        "positive": ("positief",),
        "": ("om",),  # `draai C3 om`
    },
    "de": {
        "draw": ("ziehe", "zieh", "ziehen", "vom nachziehstapel"),
        "take": ("nimm", "nehmen", "vom ablagestapel", "nimm vom ablagestapel"),
        "swap": ("tausche", "tausch", "tauschen", "lege"),
        "flip": ("decke", "decke auf", "dreh", "dreh um", "wirf ab und decke auf", "umdrehen"),
        "reveal": ("aufdecken", "zeige"),
        "if": ("wenn", "falls"),
        "else": ("sonst", "ansonsten"),
        "then": ("dann", "danach"),
        "and": ("und",),
        "or less": ("oder weniger", "oder niedriger"),
        "or more": ("oder mehr", "oder höher"),
        "between": ("zwischen",),
        "at most": ("höchstens", "maximal", "max"),
        "at least": ("mindestens", "minimal"),
        "less than": ("weniger als", "kleiner als", "unter"),
        "more than": ("mehr als", "größer als", "höher als", "über"),
        "not": ("nicht", "kein"),
        "is": ("ist",),
        "star": ("stern", "sternkarte"),
        "negative": ("negativ",),
        "positive": ("positiv",),
        "": ("auf", "um"),  # the particle of a separable verb: `decke C3 auf`
    },
}
# `between 3 and 6`: the "and" of a range is the language's "and" too (in LEXICON)

# SKYJO Action's moves (engine/action/moves.py: `action row 2`, `play insight column B of Bo`,
# `pick 2 C3`, `discard action defense`, `block`, `keep` ...): the words of the service's own
# translations (the board's "Actionrad", "Dra tre", ...), each card by its name in that language
# (A9) and read as the engine's id. "from" is not listed where the language's word for it is the
# one for "of" (nl/af "van", de "von"): the engine reads both alike (A9.8 `play thief of Bo ...`).
ACTION_WORDS: dict[str, dict[str, tuple[str, ...]]] = {
    "sv": {
        "action row": ("actionrad", "actionraden", "actionraden plats", "ta från actionraden",
                       "ta från actionraden plats", "från actionraden"),
        "action deck": ("actionkortleken", "actionkortlek", "actionleken", "actionlek", "ta från actionkortleken",
                        "ta från actionleken", "från actionkortleken", "från actionleken"),
        "decline": ("avstå", "avböj", "ta inget actionkort", "inget actionkort"),
        "play": ("spela",),
        "discard action": ("kasta actionkort", "släng actionkort", "kasta actionkortet"),
        "pick": ("välj",),
        "none": ("inget", "ingen", "inga"),
        "keep": ("behåll",),
        "remove": ("ta bort",),
        "block": ("blockera",),
        "allow": ("tillåt", "blockera inte", "släpp igenom"),
        "pass": ("passa",),
        "of": ("hos", "av"),
        "with": ("med",),
        "from": ("från",),
        "me": ("mig", "mej", "jag"),
        "seat": ("plats",),
        "row": ("rad", "raden"),
        "column": ("kolumn", "kolumnen"),
        "meteor": ("meteor",),
        "swap-own": ("byt dina egna kort", "byt egna kort", "byt egna", "byt egen"),
        "double-move": ("dubbeltur", "dubbeldrag"),
        "draw-three": ("dra tre kort", "dra tre"),
        "insight": ("upplysning", "insikt"),
        "reactivation": ("reaktivering", "återaktivering"),
        "defense": ("försvar",),
        "swap-with-player": ("byt kort med en annan spelare", "byt med en spelare", "byt med spelare"),
        "thief": ("actionkortstjuv", "tjuv"),
        "meteor-shower": ("meteorregn",),
    },
    "nl": {
        "action row": ("actierij", "uit de actierij", "neem uit de actierij"),
        "action deck": ("actiestapel", "van de actiestapel", "neem van de actiestapel"),
        "decline": ("afslaan", "sla af", "neem geen actiekaart", "geen actiekaart"),
        "play": ("speel", "speel uit"),
        "discard action": ("leg actiekaart af", "leg de actiekaart af", "actiekaart afleggen"),
        "pick": ("kies",),
        "none": ("geen", "niets", "niks"),
        "keep": ("houd", "hou"),
        "remove": ("haal weg", "haal hem weg", "weghalen"),
        "block": ("blokkeer", "blokkeren"),
        "allow": ("sta toe", "toestaan", "blokkeer niet", "niet blokkeren"),
        "pass": ("pas", "passen"),
        "of": ("van", "bij"),
        "with": ("met",),
        "me": ("mij", "mezelf", "ik"),
        "seat": ("plaats", "stoel"),
        "row": ("rij",),
        "column": ("kolom",),
        "meteor": ("meteoor",),
        "swap-own": ("eigen ruil",),
        "double-move": ("dubbele beurt",),
        "draw-three": ("trek drie", "pak drie"),
        "insight": ("inzicht",),
        "reactivation": ("reactivering",),
        "defense": ("verdediging",),
        "swap-with-player": ("ruil met een speler", "ruil met speler"),
        "thief": ("dief",),
        "meteor-shower": ("meteorenregen",),
    },
    "af": {
        "action row": ("aksiery", "uit die aksiery", "neem uit die aksiery"),
        "action deck": ("aksiestapel", "van die aksiestapel", "neem van die aksiestapel"),
        "decline": ("weier", "neem geen aksiekaart nie", "geen aksiekaart"),
        "play": ("speel",),
        "discard action": ("gooi aksiekaart weg", "gooi die aksiekaart weg"),
        "pick": ("kies",),
        "none": ("geen", "niks"),
        "keep": ("hou",),
        "remove": ("haal weg", "haal dit weg", "verwyder"),
        "block": ("blokkeer",),
        "allow": ("laat toe", "moenie blokkeer nie", "blokkeer nie"),
        "pass": ("pas",),
        "of": ("van", "by"),
        "with": ("met",),
        "me": ("my", "myself", "ek"),
        "seat": ("plek", "sitplek"),
        "row": ("ry",),
        "column": ("kolom",),
        "meteor": ("meteoor",),
        "swap-own": ("eie ruil",),
        "double-move": ("dubbele beurt",),
        "draw-three": ("trek drie",),
        "insight": ("insig",),
        "reactivation": ("heraktivering",),
        "defense": ("verdediging",),
        "swap-with-player": ("ruil met 'n speler", "ruil met speler"),
        "thief": ("dief",),
        "meteor-shower": ("meteoorreën",),
    },
    "de": {
        "action row": ("aktionsreihe", "aus der aktionsreihe", "nimm aus der aktionsreihe"),
        "action deck": ("aktionsstapel", "vom aktionsstapel", "nimm vom aktionsstapel"),
        "decline": ("verzichte", "ablehnen", "lehne ab", "nimm keine aktionskarte", "keine aktionskarte"),
        "play": ("spiele", "spiel"),
        "discard action": ("lege aktionskarte ab", "wirf aktionskarte ab", "aktionskarte ablegen"),
        "pick": ("wähle", "wähl"),
        "none": ("keine", "keins", "nichts"),
        "keep": ("behalte", "behalten"),
        "remove": ("entferne", "entfernen"),
        "block": ("wehre ab", "abwehren", "blocke"),
        "allow": ("lass zu", "zulassen", "wehre nicht ab", "nicht abwehren"),
        "pass": ("passe", "passen"),
        "of": ("von", "bei"),
        "with": ("mit", "gegen"),
        "me": ("mich", "mir", "ich"),
        "seat": ("platz",),
        "row": ("reihe", "zeile"),
        "column": ("spalte",),
        "meteor": ("meteor",),
        "swap-own": ("eigener tausch",),
        "double-move": ("doppelzug",),
        "draw-three": ("drei ziehen", "ziehe drei"),
        "insight": ("einblick",),
        "reactivation": ("reaktivierung",),
        "defense": ("verteidigung",),
        "swap-with-player": ("tausch mit einem spieler", "tausch mit spieler", "tausche mit spieler"),
        "thief": ("dieb",),
        "meteor-shower": ("meteoritenschauer",),
    },
}
for _lang, _words in ACTION_WORDS.items():
    LEXICON[_lang].update(_words)

_WORD = r"[^\W\d_]+"


def _pattern(lang: str) -> tuple[re.Pattern[str], dict[str, str]] | None:
    table = LEXICON.get(lang)
    if not table:
        return None
    english = {phrase: en for en, phrases in table.items() for phrase in phrases}
    alternatives = sorted(english, key=lambda p: (-len(p.split()), -len(p)))
    body = "|".join(r"\s+".join(re.escape(w) for w in p.split()) for p in alternatives)
    return re.compile(rf"(?<!\w)(?:{body})(?!\w)", re.IGNORECASE), english


_PATTERNS = {lang: _pattern(lang) for lang in LEXICON}


_FLIP = re.compile(r"(?<!\w)flip(?!\w)", re.IGNORECASE)


def to_english(text: str, lang: str | None, *, opening: bool = False) -> str:
    """`text` with `lang`'s plan words in English (cells, numbers, names and English words as they
    are); `text` itself for English or an unknown language. `opening`: the seat is to reveal cards
    (C4), where the rule texts' one verb for turning a card up (sv "vänd upp", nl "draai open", de
    "decke auf") means reveal, not the flip after a discard."""
    compiled = _PATTERNS.get(lang or "")
    if compiled is None or not isinstance(text, str):
        return text
    pattern, english = compiled
    out = pattern.sub(lambda m: english[" ".join(m.group(0).lower().split())], text)
    return _FLIP.sub("reveal", out) if opening else out


def first_words(lang: str | None) -> dict[str, str]:
    """The help's words of `lang`: English word -> the language's first word for it."""
    return {en: phrases[0] for en, phrases in LEXICON.get(lang or "", {}).items() if en}


# how a move or plan is written back to the player (the engine's English canonical text in their
# words): the first word of each LEXICON entry, except where a clearer one exists for showing
SHOWN: dict[str, dict[str, str]] = {
    "sv": {"reveal": "vänd upp", "flip": "vänd upp"},
    "nl": {"reveal": "draai open", "flip": "draai open", "from": "van"},
    "af": {"reveal": "draai om", "flip": "draai om", "from": "van"},
    "de": {"draw": "ziehe", "reveal": "decke auf", "flip": "decke auf", "from": "von", "me": "mir"},
}
# a move on a cell as the language says it (issue 28: docs/glossary.md): a sentence template, not
# the verb glued before the cell, so a separable verb takes the cell inside (de "decke C3 auf", nl
# "draai C3 open", af "draai C3 om"); `to_english` reads the particle after the cell as nothing
CELL_MOVES: dict[str, dict[str, str]] = {
    "sv": {"reveal": "vänd upp %(cell)s", "flip": "vänd upp %(cell)s"},
    "nl": {"reveal": "draai %(cell)s open", "flip": "draai %(cell)s open"},
    "af": {"reveal": "draai %(cell)s om", "flip": "draai %(cell)s om"},
    "de": {"reveal": "decke %(cell)s auf", "flip": "decke %(cell)s auf"},
}
_CELL_MOVE = re.compile(r"(?<![\w-])(reveal|flip)\s+([A-D][1-3])(?!\w)")
_CELL_MOVE_PART = re.compile(r"((?<![\w-])(?:reveal|flip)\s+[A-D][1-3](?!\w))")
_ENGLISH_KEYS = sorted({en for table in LEXICON.values() for en in table if en and en != "is"},
                       key=lambda p: (-len(p.split()), -len(p)))
_ENGLISH = re.compile(r"(?<!\w)(?:" + "|".join(re.escape(k) for k in _ENGLISH_KEYS) + r")(?!\w)")


def in_words_of(text: str, lang: str | None) -> str:
    """An English move or plan text (`draw: if 4 or less swap B2, else flip C3`) in `lang`'s words
    (`dra: om 4 eller mindre byt B2, annars vänd C3`), as `to_english` reads it back (in the
    opening, "turn up" is a reveal there too)."""
    table = LEXICON.get(lang or "")
    if not table or not isinstance(text, str):
        return text
    shown = {**{en: p[0] for en, p in table.items() if en}, **SHOWN.get(lang or "", {})}
    templates = CELL_MOVES.get(lang or "", {})
    out = []
    for part in _CELL_MOVE_PART.split(text):  # a verb and its cell, kept together
        m = _CELL_MOVE.fullmatch(part)
        if m and m.group(1) in templates:
            out.append(templates[m.group(1)] % {"cell": m.group(2)})
        else:
            out.append(_ENGLISH.sub(lambda w: shown.get(w.group(0), w.group(0)), part))
    return "".join(out)
