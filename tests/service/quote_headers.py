"""Quote headers of common mail clients in the languages our players write (en, sv, nl, af, de),
as they put them above the quoted service mail (issue 34.4): Gmail, Outlook (its header block), Apple
Mail and Thunderbird. Each case: (client and language, the lines the client writes before the quote,
whether the quote below is `>`-prefixed)."""

from __future__ import annotations

SKYJO = "SKYJO <skyjo@localhost>"

QUOTE_HEADERS: list[tuple[str, str, bool]] = [
    # Gmail
    ("gmail en", f"On Mon, 1 Dec 2025 at 10:00, {SKYJO} wrote:", True),
    ("gmail en wrapped", "On Mon, 1 Dec 2025 at 10:00, SKYJO <\nskyjo@localhost> wrote:", True),
    ("gmail sv", f"Den mån 1 dec. 2025 kl 10:00 skrev {SKYJO}:", True),
    ("gmail nl", f"Op ma 1 dec 2025 om 10:00 schreef {SKYJO}:", True),
    ("gmail af", f"Op Ma., 1 Des. 2025 om 10:00 het {SKYJO} geskryf:", True),
    ("gmail af wrapped", "Op Ma., 1 Des. 2025 om 10:00 het SKYJO <\nskyjo@localhost> geskryf:", True),
    ("gmail de", f"Am Mo., 1. Dez. 2025 um 10:00 Uhr schrieb {SKYJO}:", True),
    # Apple Mail
    ("apple en", f"On 1 Dec 2025, at 10:00, {SKYJO} wrote:", True),
    ("apple sv", f"1 dec. 2025 kl. 10:00 skrev {SKYJO}:", True),
    ("apple nl", f"Op 1 dec. 2025 om 10:00 heeft {SKYJO} het volgende geschreven:", True),
    ("apple af", f"Op 1 Des. 2025 om 10:00 het {SKYJO} geskryf:", True),
    ("apple de", f"Am 01.12.2025 um 10:00 schrieb {SKYJO}:", True),
    # Thunderbird
    ("thunderbird en", "On 01/12/2025 10:00, SKYJO wrote:", True),
    ("thunderbird sv", "Den 2025-12-01 kl. 10:00, skrev SKYJO:", True),
    ("thunderbird nl", "Op 01-12-2025 om 10:00 schreef SKYJO:", True),
    ("thunderbird af", "Op 01-12-2025 om 10:00 het SKYJO geskryf:", True),
    ("thunderbird de", "Am 01.12.25 um 10:00 schrieb SKYJO:", True),
    # Outlook: a header block, the original below it unquoted
    ("outlook en", f"From: {SKYJO}\nSent: Monday, 1 December 2025 10:00\nTo: Ann <ann@example.com>\n"
                   "Subject: Your turn", False),
    ("outlook sv", f"Från: {SKYJO}\nSkickat: den 1 december 2025 10:00\nTill: Ann <ann@example.com>\n"
                   "Ämne: Din tur", False),
    ("outlook nl", f"Van: {SKYJO}\nVerzonden: maandag 1 december 2025 10:00\nAan: Ann <ann@example.com>\n"
                   "Onderwerp: Jouw beurt", False),
    ("outlook af", f"Vanaf: {SKYJO}\nGestuur: Maandag, 1 Desember 2025 10:00\nAan: Ann <ann@example.com>\n"
                   "Onderwerp: Jou beurt", False),
    ("outlook af van", f"Van: {SKYJO}\nGestuur: Maandag, 1 Desember 2025 10:00\nAan: Ann <ann@example.com>\n"
                       "Onderwerp: Jou beurt", False),
    ("outlook de", f"Von: {SKYJO}\nGesendet: Montag, 1. Dezember 2025 10:00\nAn: Ann <ann@example.com>\n"
                   "Betreff: Du bist dran", False),
]
