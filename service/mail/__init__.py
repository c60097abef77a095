"""mail: everything that leaves or arrives as mail. The transactional outbox and its sender
(`outbox`), the composers that queue one intent per mail (`mails`), reading reply mails
(`replies`) and receiving them over SMTP or IMAP (`inbound`). Imports render/ and store/."""
