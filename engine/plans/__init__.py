"""A whole turn in one message: plans of moves with conditions on the drawn card (pure, no I/O).

Players who answer by mail write one reply per turn, so a reply may carry several moves and a
decision that depends on the card they are about to draw, which only the server sees:

    take swap B2                          take the discard top and put it on B2
    draw swap B2 / draw flip C3           draw, then place it / discard it and turn up C3
    draw: if 4 or less swap B2, else flip C3
    draw: if 4 or less swap B2, if 9 or more flip C3, else swap A1
    reveal A1, reveal C3                  both opening reveals at once

Grammar (case-insensitive; newlines, `,` `;` `:` separate parts; `then` / `and` may separate moves):

    plan      := moves [conditions]
    moves     := move (sep move)*          each move is the variant's own text (Game.parse_move),
                                           so SKYJO Action moves work too
    conditions:= ("if" cond moves sep)+ ["else" moves]      only right after `draw`
    cond      := N or less | N or more | at most N | at least N | <= N | >= N | < N | > N
               | = N | is N | N | is not N | != N | between N and M | N to M | star | negative
               | positive           (N a whole number, -2 to 12; `it is`, `card is` may lead)

The first condition that matches the drawn card wins. An `else` is required unless the conditions
together cover every card of the game's deck; a condition that can never apply (nothing matches it,
or earlier ones catch everything it would) is an error.

No peeking (C13): the answer to a plan never depends on a card its writer could not see. A plan is
checked, before anything is applied, only as far as the writer's view decides it: every move of
every branch up to and including the first move that turns up a card (a reveal, a flip, a placed
drawn or picked card, a card off the action deck ...). A refused plan changes nothing, and its
message names no hidden card. After such a move only the next opening reveal may follow (C4, A3); any
other move there is refused by the plan's shape alone ("your reply must end with ..."), because what
may follow depends on the card. Once the reveals have decided who starts (C5: a third reveal is
legal only on a tie), the plan stops: the moves before are applied, `PlanSteps.stopped` says where
(with a message for the player), and the seat is asked for the rest like any pending decision.

The package, lowest layer first: `conditions` (the `if ...` tests and the text clean-up), `hidden`
(what a move turns up), `plan` (the Plan value, its checks and `apply`), `grammar` (text -> Plan,
`parse_plan`). Callers import from `engine.plans`.
"""

from __future__ import annotations

from ..words import N_
from .conditions import CONDITION_HELP, Condition, parse_condition
from .grammar import MAX_PLAN_CHARS, parse_plan, read_plan
from .plan import Branch, Plan, PlanSteps, Stop, deck_values, validate_plan

__all__ = [
    "COMMAND_HELP",
    "COMMAND_HELP_LINES",
    "CONDITION_HELP",
    "MAX_PLAN_CHARS",
    "Branch",
    "Condition",
    "Plan",
    "PlanSteps",
    "Stop",
    "deck_values",
    "parse_condition",
    "parse_plan",
    "read_plan",
    "validate_plan",
]

# Two lines for every turn mail and error answer (plain text; the mail layer may wrap them), each a
# message id the service says in the reader's language (service/words)
COMMAND_HELP_LINES = (
    N_("Reply with your move on the first line: draw swap B2 | draw flip C3 | take swap C1 | reveal A1."),
    N_("Decide on the card you draw: draw: if 4 or less swap B2, if 9 or more flip C3, else swap A1."),
)
COMMAND_HELP = "\n".join(COMMAND_HELP_LINES)
