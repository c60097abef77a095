"""Where a decision was made (`moves.decide`'s `via`): what the move path tells the clock and the
mails about it. One word per way in:

* `link`: a move link's Confirm page; `board`: a move button of the board; `plan`: the board's
  whole-turn field (all three on a page: the mover's next decision mail is held, issue 15.2);
* `reply`: a reply mail (its answer mail carries the mover's next decision);
* `timeout`: the clock played for a late seat; `play-now`: the host had the computer play for a
  seat now (both: the mails say "played for you", and it is not the player acting);
* `computer`: a computer seat's own decision (issue 18).
"""

from __future__ import annotations

from typing import Literal

Via = Literal["link", "board", "plan", "reply", "timeout", "computer", "play-now"]

ON_PAGE: frozenset[str] = frozenset({"link", "board", "plan"})
BY_CLOCK: frozenset[str] = frozenset({"timeout", "play-now"})
