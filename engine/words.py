"""The engine's sentences, written once, as gettext message ids (issue 27).

The engine speaks English only, and its English is the message id: every sentence a player reads
(a refusal in `errors.TEXTS`, an event in `view.sentence`, SKYJO Action's in `action.text`, the
reply help in `plans.COMMAND_HELP_LINES`) is a %-format string marked with `N_` (which does
nothing; `pybabel extract` finds it, babel.cfg), and the engine fills it in with `fill`. The
service says the same message id in the reader's language (service/words) from the same params.
No Flask or Babel here: the engine stays pure.

A sentence built from parts is a `Said` (its message id and params); a param may be a `Said` too
("a star", "column B"), a `Names` (players joined with "and"), or a value the service names in the
reader's words (an action card, see `engine.action.text.ActionCard`), a `Listed` (values with ", "
between).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def N_(text: str) -> str:  # noqa: N802 - gettext's name for a no-op marker
    """`text` unchanged: marks it as a message id for `pybabel extract` (the engine's English)."""
    return text


def fill(text: str, params: dict[str, Any]) -> str:
    """`text` (a %-format message id: `%(who)s`, `%(text)r` for a quoted one) with `params` in
    English: a list (refusals one after another) joined with "; ", anything else as `%s`/`%r`
    write it (a nested sentence or refusal by its English)."""
    if not params:
        return text
    return text % {k: "; ".join(str(x) for x in v) if isinstance(v, list) else v for k, v in params.items()}


class Said:
    """A sentence: its message id (`text`) and its params. `str()` is its English; the service
    says it in the reader's language (`service.words.sentences.said`)."""

    __slots__ = ("params", "text")

    def __init__(self, text: str, **params: Any) -> None:
        self.text = text
        self.params = params

    def __str__(self) -> str:
        return fill(self.text, self.params)

    def __repr__(self) -> str:
        return f"Said({self.text!r}, **{self.params!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Said) and (self.text, self.params) == (other.text, other.params)

    __hash__ = None  # type: ignore[assignment]


class Listed(tuple[Any, ...]):
    """Values one after another with ", " between (cards: `3, a star`), each said in the reader's
    language."""

    def __new__(cls, values: Iterable[Any]) -> Listed:
        return super().__new__(cls, values)

    def __str__(self) -> str:
        return ", ".join(str(v) for v in self)


class Names(tuple[str, ...]):
    """Players' names one after another: `Ann and Bo` in English (the service joins them in the
    reader's language)."""

    def __new__(cls, names: Iterable[str]) -> Names:
        return super().__new__(cls, names)

    def __str__(self) -> str:
        return " and ".join(self)
