"""CPU of reading hostile reply mails (issue 34.3, 34.3b): `replies.read_reply`, the parse that every
received mail goes through before any database work, on mails built to be expensive.

    .venv/bin/python bench/hostile_mail.py [--runs N]

Prints, per mail, its size and the median and worst CPU time (`time.process_time`) over N runs, and
what became of it. The issue's bound: ~50 ms for any mail under the 10 MB size limit. (The test
tests/service/test_hostile_mail.py runs the worst two through the whole reply path with a margin.)
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from service.mail.replies import read_reply  # noqa: E402

HEAD = b"From: ann@example.com\r\nSubject: Re: x\r\nMessage-ID: <bench@example.com>\r\nMIME-Version: 1.0\r\n"
TO = b"To: play+0123456789ab-abcdefghijklmnopqrstuvwxyz.3@localhost\r\n"


def nested(levels: int) -> bytes:
    out = [HEAD, TO]
    out += [b'Content-Type: multipart/mixed; boundary="b%d"\r\n\r\n--b%d\r\n' % (i, i) for i in range(levels)]
    out.append(b"Content-Type: text/plain\r\n\r\nreveal A1\r\n")
    out += [b"--b%d--\r\n" % i for i in reversed(range(levels))]
    return b"".join(out)


def many_addresses(n: int) -> bytes:
    fakes = b", ".join(b"play+%012x-%s.1@localhost" % (i, b"a" * 26) for i in range(n))
    return HEAD + b"To: " + fakes + b"\r\nContent-Type: text/plain\r\n\r\nreveal A1\r\n"


def many_parts(n: int) -> bytes:
    return (HEAD + TO + b'Content-Type: multipart/mixed; boundary="q"\r\n\r\n'
            + b"--q\r\nContent-Type: text/plain\r\n\r\nx\r\n" * n + b"--q--\r\n")


def long_references(n: int) -> bytes:
    refs = b" ".join(b"<%d@example.com>" % i for i in range(n))
    return HEAD + TO + b"References: " + refs + b"\r\nContent-Type: text/plain\r\n\r\nreveal A1\r\n"


def big_text(size: int) -> bytes:
    line = b"reveal A1 and some more words on a long line of text\r\n"
    return HEAD + TO + b"Content-Type: text/plain\r\n\r\n" + line * (size // len(line))


MAILS = {
    "1,000 nested multipart levels": lambda: nested(1000),
    "20 nested multipart levels (allowed)": lambda: nested(19),
    "To: 20,000 reply addresses": lambda: many_addresses(20_000),
    "To: 120 reply addresses (allowed)": lambda: many_addresses(120),
    "5,000 MIME parts": lambda: many_parts(5000),
    "References: 200,000 ids": lambda: long_references(200_000),
    "9.9 MB of plain text": lambda: big_text(9_900_000),
}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    for name, build in MAILS.items():
        raw = build()
        times = []
        for _ in range(args.runs):
            started = time.process_time()
            r = read_reply(raw, "localhost")
            times.append(time.process_time() - started)
        outcome = r.ignore or f"read, {len(r.tokens)} reply address(es), {len(r.commands.lines)} command line(s)"
        print(f"{name:38} {len(raw):>10,} bytes  median {statistics.median(times) * 1000:7.1f} ms"
              f"  worst {max(times) * 1000:7.1f} ms  {outcome}")


if __name__ == "__main__":
    main()
