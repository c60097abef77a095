"""Names and table talk without invisible or look-alike characters (issue 34.4a).

A name is shown in every page and mail of its game, and a message in every other seat's mail: a
character that shows nothing (a format character such as U+FEFF or U+2060, a soft hyphen, a line or
paragraph separator, a blank-looking letter such as U+2800 or U+3164) or a letter from another
script that looks like a Latin one (Cyrillic "А" in "Аnn") would let a player pass for another.

* `normal_name(name)`: NFKC (compatibility forms to their plain letters, odd spaces to a space),
  runs of blank space to one space, stripped;
* `has_invisible(text)`: does it keep a character that shows nothing (a name with one is refused
  with the forms' "Use letters, digits and punctuation only.");
* `skeleton(name)`: what a name looks like (look-alike letters of other scripts and I/l/1, O/0 folded
  together, accents and case dropped): two seats' names must have different skeletons;
* `clean_talk(text)`: a message as stored: NFKC, every line separator a line break, the invisible
  characters dropped (a message is never refused for them).
"""

from __future__ import annotations

import unicodedata

_INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
# letters and symbols that show as blank space (Braille blank, Hangul fillers, Mongolian vowel
# separator, Khmer inherent vowels)
_BLANK_LOOKING = frozenset("\u2800\u3164\u115f\u1160\uffa0\u180e\u17b4\u17b5")
_LINE_BREAKS = str.maketrans({"\r": "\n", "\u0085": "\n", "\u2028": "\n", "\u2029": "\n", "\t": " "})
# (look-alike, the Latin letter it passes for): Cyrillic and Greek capitals and small letters
_LOOKALIKES = [
    *zip("АВЕЅІЈКМНОРСТХУ", "ABESIJKMHOPCTXY", strict=True),
    *zip("аеорсухіјѕԁһӏԛԝ", "aeopcyxijsdhlqw", strict=True),
    *zip("ΑΒΕΖΗΙΚΜΝΟΡΤΥΧ", "ABEZHIKMNOPTYX", strict=True),
    *zip("αοριντυχκ", "aopivtuxk", strict=True),
    ("I", "l"), ("1", "l"), ("|", "l"), ("0", "O"),
]
_FOLD = str.maketrans(dict(_LOOKALIKES))


def invisible(char: str) -> bool:
    """A character that shows nothing (plain space and line breaks are visible enough)."""
    category = unicodedata.category(char)
    return category in _INVISIBLE_CATEGORIES or char in _BLANK_LOOKING or (category == "Zs" and char != " ")


def normal_name(name: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", name or "").split())


def has_invisible(text: str) -> bool:
    return any(invisible(c) for c in unicodedata.normalize("NFKC", text or ""))


def skeleton(name: str) -> str:
    letters = unicodedata.normalize("NFKD", normal_name(name))
    plain = "".join(c for c in letters if not unicodedata.combining(c) and not invisible(c))
    return " ".join(plain.translate(_FOLD).casefold().translate(_FOLD).split())


def lookalike_pairs(names: list[str]) -> list[tuple[str, str]]:
    """Pairs of `names` that look alike (the same `skeleton`), in order."""
    seen: dict[str, str] = {}
    pairs = []
    for name in names:
        key = skeleton(name)
        if key in seen:
            pairs.append((seen[key], name))
        else:
            seen[key] = name
    return pairs


def clean_talk(text: str) -> str:
    text = unicodedata.normalize("NFKC", (text or "").replace("\r\n", "\n").translate(_LINE_BREAKS))
    return "".join(c for c in text if c == "\n" or not invisible(c)).strip()
