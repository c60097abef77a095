"""Classic SKYJO (RULES.md C1-C13) as one variant, registered once (`engine.variants`).

The rules and state are `engine.game.Game`, the options `engine.options.CLASSIC_OPTIONS`, the bots
`random` and `greedy` (`engine.bots`) and `strong` and `easy` (`engine.strong`), each picking a move
code; the view and the event sentences are `engine.view`'s own.
"""

from __future__ import annotations

from .bots import code_bot, greedy_code, random_code
from .game import Game
from .options import CLASSIC_OPTION_HELP, CLASSIC_OPTIONS
from .strong import easy_code, strong_code
from .variants import Variant, register_variant

CLASSIC = register_variant(
    Variant(
        name="classic",
        game=Game,
        options=CLASSIC_OPTIONS,
        option_help=CLASSIC_OPTION_HELP,
        bots={
            "random": code_bot(random_code),
            "greedy": code_bot(greedy_code),
            "strong": code_bot(strong_code),
            "easy": code_bot(easy_code),
        },
    )
)
