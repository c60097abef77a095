"""render: what pages and mails show, prepared from a seat's view only (never the state, C13) as
plain dicts, lists and strings that the Jinja macros in templates/ loop over. No HTML here: the
board, the move pickers, the score sheet and the chart are the macros of templates/_board.html,
_moves.html, _sheet.html and _chart.html, shared by pages and mails.

Modules: `cards` (card texts and classes, player order), `links` (paths, URLs, move slugs), `moves`
(move groups and pickers, the Confirm sentence, the status line), `action_moves` and `action_text`
(SKYJO Action's moves: cards by name, pairs chosen in two steps, sentences), `sheet` (score rows, chart data,
standings), `text` (the plain-text board and links of mails), `clock_text` (the clock's sentences),
`board` (the board's data), `results`, `reply_box`, `talk`. Callers import each function from its
module; the templates' `r` is set up in `create_app`. Texts are translated with Flask-Babel's
`gettext`; SKYJO Action's card names come from `service/words`. Imports store/, i18n, words/ and
engine/ (its SKYJO Action move parser, to read a view's move texts) only."""
