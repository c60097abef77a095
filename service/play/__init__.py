"""play: the use cases. Imports mail/, clock/, render/ and store/; web/ and the CLI call it.

* `moves`: the one move path (`decide`: one check, engine, game row, move rows, deadlines, mail
  intents in one transaction) and its entry points: a link (`play`), a plan from the board or a reply
  mail (`play_plan`, `play_plan_for`); a timeout, "play now" and a computer seat call `decide`;
* `via`: the words for where a decision was made;
* `games`: create, accept, decline, cancel, the deal, rematch, export;
* `settings`: new link, mail preference, my links, vacation, play now, unsubscribe;
* `notify`: who is mailed what after a move (turn, round-over, game-over, reply answers);
* `clock_service`: the clock's settings from the game row, `dealt` / `moved`, what pages show of it;
* `timeouts`: the handlers the clock's sweep calls (bot move, reminder, digest);
* `reply_service`: a received reply mail, from its address to the plan it plays;
* `lookups`, `errors`: reading a game by token, the errors a use case raises.

Callers (web/, the CLI, the tools) import each use case from its module: there is no namespace module.
"""
