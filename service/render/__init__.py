"""render: what pages and mails show, computed from a seat's view only: links and slugs, the move
pickers' groups, the text board, the score sheet. Shared by web/ and mail/; imports store/ only."""
