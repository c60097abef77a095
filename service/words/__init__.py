"""Words in the reader's language (issues 17, 27): the engine's sentences (`sentences`: refusals,
events, the reply help), the names of SKYJO Action's cards and grid lines (`names`) and the move
words of each language (`reply_words`). Imports only the engine and Flask-Babel; render, mail and
play import it."""
