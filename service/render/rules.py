"""A game's rules in words (issue 28.5): the variants' and options' names (the new-game form, the
rules pages, the invitation), each option's value in words, and which of a game's options differ
from its variant's default. The rules themselves are the text of `templates/_rules.html`
(RULES.md C1–C13, A1–A11); this module only says the options. No HTML."""

from __future__ import annotations

from flask_babel import lazy_gettext as _l

import engine
from engine.action import ACTION_KINDS
from service.clock.entries import rules_of
from service.words.names import action_effect, action_name

VARIANT_LABELS = {"classic": _l("Classic SKYJO"), "action": _l("SKYJO Action")}

OPTION_LABELS = {
    "column_removal": _l("Remove a column of three equal cards"),
    "final_reveal_removal": _l("Also remove such columns when cards are turned up at round end"),
    "start_tiebreak": _l("Tie for the opening start"),
    "round_starter": _l("Who starts later rounds"),
    "doubling": _l("Double the closer's score unless lowest"),
    "doubling_tie": _l("Closer tied for lowest"),
    "doubling_positive_only": _l("Never double a score of 0 or less"),
    "target_score": _l("Game ends when a total reaches"),
    "final_tiebreak": _l("Tie for the lowest total at game end"),
}

CHOICE_LABELS = {
    "extra_reveal": _l("tied players reveal one more card"),
    "highest_card": _l("highest single card"),
    "previous_closer": _l("the previous round's closer"),
    "highest_reveal": _l("highest opening reveal"),
    "previous_winner": _l("the previous round's winner"),
    "strict": _l("strict: a tie is doubled"),
    "lenient": _l("lenient: a tie is not doubled"),
    "extra_round": _l("one more round among the tied"),
    "most_rounds_won": _l("most rounds won"),
    "shared": _l("shared victory"),
}

# An option's label where a variant means something else by it (else OPTION_LABELS)
VARIANT_OPTION_LABELS = {
    "action": {
        "final_reveal_removal": _l("Also remove sets (a column of three, a row of four equal cards) when cards "
                                   "are turned up at round end"),
    },
}

# the rule each option changes (RULES.md), per variant where they differ
OPTION_RULES = {
    "classic": {"column_removal": "C8", "final_reveal_removal": "C8", "start_tiebreak": "C5", "round_starter": "C6",
                "doubling": "C10", "doubling_tie": "C10", "doubling_positive_only": "C10", "target_score": "C12",
                "final_tiebreak": "C12"},
    "action": {"final_reveal_removal": "A5", "round_starter": "C6", "doubling": "A8", "doubling_tie": "A8",
               "doubling_positive_only": "A8", "target_score": "A11", "final_tiebreak": "A11"},
}


def option_label(variant: str, name: str):
    return VARIANT_OPTION_LABELS.get(variant, {}).get(name) or OPTION_LABELS.get(
        name, name.replace("_", " ").capitalize())


def default_in_words(default, allowed) -> str:
    """An option's value as a person reads it: on/off, the choice's label, the number."""
    if allowed is bool:
        return str(_l("on") if default else _l("off"))
    if isinstance(allowed, tuple):
        return str(CHOICE_LABELS.get(default, str(default).replace("_", " ")))
    return str(default)


def game_options(variant: str, options: dict | None) -> list[dict]:
    """Each option a game can set (the deck tables of SKYJO Action have no form field and are left
    out), in the engine's order: `name`, `label`, `rule` (its RULES.md id), `value` and `default` in
    words, and `changed` (this game's value is not the variant's default: a house rule)."""
    if variant not in OPTION_RULES:
        return []
    options = options or {}
    out = []
    for name, (default, allowed) in engine.option_table(variant).items():
        if name not in OPTION_RULES[variant]:
            continue
        value = options.get(name, default)
        out.append({"name": name, "label": str(option_label(variant, name)), "rule": OPTION_RULES[variant][name],
                    "value": default_in_words(value, allowed), "default": default_in_words(default, allowed),
                    "changed": value != default})
    return out


def changed_options(variant: str, options: dict | None) -> list[dict]:
    """The options of a game that differ from its variant's default (what an invitation names)."""
    return [o for o in game_options(variant, options) if o["changed"]]


def variant_label(variant: str) -> str:
    return str(VARIANT_LABELS.get(variant, variant))


def action_cards() -> list[dict]:
    """SKYJO Action's nine cards (A9) by name and effect, in the reader's language."""
    return [{"kind": k, "name": action_name(k), "effect": action_effect(k)} for k in ACTION_KINDS]


def terms_of(game) -> dict:
    """What an invitation and the accept page say about a game (`templates/_game_terms.html`): its
    variant, options and clock, as plain data (a mail's intent keeps it as JSON)."""
    return {"variant": game.variant, "options": dict(game.options or {}), "clock": rules_of(game)}
