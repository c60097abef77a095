"""render: what pages and mails show, prepared from a seat's view only (never the state, C13) as
plain dicts, lists and strings that the Jinja macros in templates/ loop over. No HTML here: the
board, the move pickers, the score sheet and the chart are the macros of templates/_board.html,
_moves.html, _sheet.html and _chart.html, shared by pages and mails.

Modules: `cards` (card texts and classes, player order), `links` (paths, URLs, move slugs), `moves`
(move groups and pickers, the Confirm sentence, the status line), `action_moves` and `action_text`
(SKYJO Action's moves: cards by name, pairs chosen in two steps, sentences), `sheet` (score rows, chart data,
standings), `text` (the plain-text board and links of mails), `clock_text` (the clock's sentences),
`board` (the board's data, and the front that web/, play/, mail/ and the templates' `r` use).
Texts are translated with Flask-Babel's `gettext`. Imports store/, clock/ (its time zones) and
engine/ (its SKYJO Action move parser, to read a view's move texts) only."""
