"""Table talk on pages, as plain data (issue 19): `timeline(log, talk)` puts the messages into the
public event log, each after the events of the move it came with. Templates print it (escaped, as
all text: a link in a message stays text). No HTML here."""

from __future__ import annotations

from service.words.sentences import event_text


def timeline(log: list[dict], talk: list[dict], names: list[str] | None = None) -> list[dict]:
    """The log's events and the messages in the order they happened, oldest first. `talk`: dicts
    with `at` (the log's length when the message was written), `id`, `name`, `text` (None when the
    host hid it) and `hidden`. Each item is `{"text": ...}` for an event, and for a message the
    message's fields with `talk: True`. `names` (the players'): events said in the current language
    (`words.sentences`); without, the engine's English text."""
    items: list[dict] = []
    pending = sorted(talk, key=lambda m: (m["at"], m["id"]))
    k = 0
    for i, event in enumerate(log):
        while k < len(pending) and pending[k]["at"] <= i:
            items.append({**pending[k], "talk": True})
            k += 1
        items.append({"text": event_text(event, names) if names else event.get("text", ""), "talk": False})
    items.extend({**m, "talk": True} for m in pending[k:])
    return items
