"""play: the use cases. Create, accept, decline, cancel, move, plan, rematch, vacation, play-now,
settings, replies and the clock's handlers: each loads the game, asks the engine and writes the
move, the state, the deadlines and the mail intents in one transaction. Imports mail/, clock/,
render/ and store/; web/ and the CLI call it."""
