"""mail: everything that leaves or arrives as mail. Imports store/, render/, words/ and i18n only.

Leaving (the transactional outbox): `outbox` queues rows in the caller's transaction, `delivery`
claims due rows with leases and sends them with retries, `sender` runs delivery in a background
thread, `transport` is SMTP or the dev mailbox, `message` builds the MIME message (and renders
intents), `config` is the sender address and the header cleaners. The table is
`service.store.outbox_models`. The composers that queue one intent per mail are `compose`, the
bodies are made by `render`.

Arriving: `inbound` receives mails over SMTP or IMAP, `replies` reads who a reply is for and
whether to ignore it, `reply_text` finds the command lines in its body (`body`: the body as
plain text).
"""
