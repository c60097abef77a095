"""The words of random refusals and events, hashed (issue 27.1: one source per sentence).

Plays random games (classic and SKYJO Action, a fixed seed), throws random move texts and plans at
random seats, and collects every refusal the engine raises and every public event of the games.
For each it writes the engine's English (`str(exc)`, an event's `text`) and what the service says
in every language (en, sv, nl, af, de), plus the reply help, and prints one SHA-256 per language.
Run it on two versions of the code and compare: the same hashes mean every sentence is said the
same, byte for byte.

    .venv/bin/python bench/words_english.py [--count 150000] [--seed 27]

It runs on the code before issue 27 (refusals in service/play/refusals.py, events in
service/render/events.py) and after (service/words) alike.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import random
import re
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine  # noqa: E402
from engine.errors import EngineError  # noqa: E402
from engine.plans import parse_plan  # noqa: E402

LANGS = ("en", "sv", "nl", "af", "de")
NAMES = ["Ann", "Bo", "Cy"]
# words a player might send (the engine's, SKYJO Action's, and some it does not know)
WORDS = (
    "draw", "take", "swap", "flip", "reveal", "if", "else", "then", "and", "or less", "or more", "between",
    "at most", "at least", "less than", "more than", "not", "is", "star", "negative", "positive", "4", "9",
    "-2", "12", "0", "B2", "A1", "D3", "C1", "Z9", "E4", "B", "2", "5", ":", ",", ";", "'", "play", "action",
    "row", "deck", "column", "pick", "none", "decline", "keep", "remove", "block", "allow", "meteor", "pass",
    "discard", "swap-own", "double-move", "draw-three", "insight", "reactivation", "defense",
    "swap-with-player", "thief", "meteor-shower", "laser", "of", "with", "from", "Bo", "Ann", "bo", "me",
    "seat", "seat 9", "dance", "now", "1", "3", "action row 2", "action deck", "discard action thief",
)


def random_text(rng: random.Random, game: engine.Game, seat: int) -> str:
    legal = [m.text() for m in game.legal_moves(seat)]
    roll = rng.random()
    if legal and roll < 0.25:  # a legal move with a word changed, added or dropped
        words = rng.choice(legal).split()
        i = rng.randrange(len(words) + 1)
        words[i:i + rng.randint(0, 1)] = [rng.choice(WORDS)] if rng.random() < 0.8 else []
        return " ".join(words)
    if roll < 0.3:
        return rng.choice(["", "  ", "x" * rng.choice((5, 3000))])
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 7)))


def refusals(rng: random.Random, count: int) -> Iterator[tuple[EngineError, list[str]]]:
    """`count` refusals of random moves and plans in random games, each with the game's names."""
    made, n = 0, 0
    while made < count:
        variant = "action" if n % 2 else "classic"
        players = NAMES[: 2 + n % 2]
        game = engine.new_game(players, variant=variant, seed=f"words-{n}", options={"target_score": 40})
        n += 1
        moves = 0
        while not game.is_over and made < count and moves < 400:
            seat = rng.randrange(-1, len(players) + 1) if rng.random() < 0.05 else rng.randrange(len(players))
            text = random_text(rng, game, seat if 0 <= seat < len(players) else 0)
            try:
                if rng.random() < 0.5 and 0 <= seat < len(players):
                    parse_plan(game, seat, text)
                else:
                    game.play(seat, text)
                    moves += 1
            except EngineError as exc:
                if exc.code != "other":
                    made += 1
                    yield exc, players
            if rng.random() < 0.3 and not game.is_over:  # the game goes on
                owed = game.pending()[0].seat
                game.play(owed, engine.bot_move(game, owed, "random", rng))
                moves += 1
        if game.is_over and made < count:
            try:
                game.play(0, "draw")
            except EngineError as exc:
                made += 1
                yield exc, players


FIELD = re.compile(r"\{(\w+)(?:![rs])?\}|%\((\w+)\)[sr]")  # str.format (before issue 27) or %-format
SAMPLE = {"card": "thief", "line": "column B", "like": "meteor B2", "moves": "action row 2, action deck",
          "kind": "swap-own", "move": "draw", "cards": "swap-own, thief", "pick": "pick 1", "none": "pick none"}


def every_code() -> Iterator[EngineError]:
    """Each refusal code of the engine once, its params filled in (a nested refusal in `reason`)."""
    from engine.action.phases import card_refusal
    from engine.errors import TEXTS, IllegalMove

    for code in sorted(TEXTS):
        fields = {a or b for a, b in FIELD.findall(TEXTS[code])}
        params: dict[str, object] = {f: SAMPLE.get(f, f"<{f}>") for f in fields}
        if "reason" in params:
            params["reason"] = IllegalMove.of("not_your_turn", who="Bo")
        if "owed" in params:
            params["owed"] = [IllegalMove.of("owes_meteor", who="Bo", like="meteor B2"),
                              card_refusal(IllegalMove, "owes_defense", who="Cy", card="defense")]
        if "card" in params:  # the engine names an action card by its title (A9)
            yield card_refusal(IllegalMove, code, **params)
        else:
            yield IllegalMove.of(code, **params)


def events(rng: random.Random) -> Iterator[tuple[dict, list[str]]]:
    """The public events of random bot games, one game after another, with the game's names."""
    for n in itertools.count():
        variant = "action" if n % 2 else "classic"
        players = NAMES[: 2 + n % 2]
        game = engine.new_game(players, variant=variant, seed=f"events-{n}", options={"target_score": 60})
        while not game.is_over:
            owed = game.pending()[0].seat
            game.play(owed, engine.bot_move(game, owed, "random", rng))
        for e in engine.view(game, None)["log"]:
            yield e, players


def sayers() -> tuple[Callable, Callable, Callable]:
    """say(exc), event_text(event, names), command_help(action): today's module or the old ones."""
    try:
        from service.words.sentences import command_help, event_text, say
    except ImportError:  # before issue 27
        from service.mail.render import command_help
        from service.play.refusals import say
        from service.render.events import event_text
    return say, event_text, command_help


def app():
    from flask import Flask
    from flask_babel import Babel

    from service import i18n

    a = Flask("words")
    i18n.init_app(a, Babel())
    return a


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=150_000, help="refusals and events (about half each)")
    ap.add_argument("--seed", type=int, default=27)
    ap.add_argument("--out", help="also write every line of every language to this file")
    args = ap.parse_args(argv)
    say, event_text, command_help = sayers()
    rng = random.Random(args.seed)
    start = time.perf_counter()
    items: list[tuple[str, object, list[str]]] = [("refusal", e, NAMES) for e in every_code()]
    items += [("refusal", e, p) for e, p in refusals(rng, args.count // 2 - len(items))]
    items += [("event", e, p) for e, p in itertools.islice(events(rng), args.count - len(items))]
    english = hashlib.sha256()
    for kind, item, _names in items:
        english.update(f"{kind}\t{item['text'] if kind == 'event' else str(item)}\n".encode())
    hashes = {"engine": english.hexdigest()}
    out = open(args.out, "w", encoding="utf-8") if args.out else None
    codes: set[str] = set()
    types: set[str] = set()
    with app().app_context():
        from flask_babel import force_locale

        for lang in LANGS:
            h = hashlib.sha256()
            with force_locale(lang):
                for action in (False, True):
                    h.update(("\n".join(command_help(action)) + "\n").encode())
                for kind, item, names in items:
                    if kind == "refusal":
                        line = f"{item.code}\t{say(item)}"  # type: ignore[union-attr]
                        codes.add(item.code)  # type: ignore[union-attr]
                    else:
                        line = f"{item['type']}\t{event_text(item, names)}"  # type: ignore[index]
                        types.add(item["type"])  # type: ignore[index]
                    h.update((line + "\n").encode())
                    if out:
                        out.write(f"{lang}\t{line}\n")
            hashes[lang] = h.hexdigest()
    if out:
        out.close()
    refused = sum(1 for k, _i, _n in items if k == "refusal")
    print(f"{refused} refusals ({len(codes)} codes), {len(items) - refused} events ({len(types)} types), "
          f"{time.perf_counter() - start:.1f} s")
    for name, digest in hashes.items():
        print(f"{name:7} {digest}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
