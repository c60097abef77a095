"""Fuzz every route of the real app with malformed requests; count the 500s (issue 20, "Measured").

    .venv/bin/python bench/fuzz.py [COUNT] [--seconds S] [--db sqlite,postgres] [--seed N]

For each database: the real app (`create_app`, development mode so the dev mailbox's routes are
there too, a fresh SQLite file or PostgreSQL schema) with a real 3-player game in play, reached
through HTTP only (the /new form, the dev mailbox, the invitations' Accept buttons). Then COUNT
requests (default 10,000; at most `--seconds` each), each a random method on a random route with
malformed parts: ids and integers past 32 and 64 bits, negative numbers, non-ASCII and NUL in paths,
query strings and forms, real tokens altered by one character, real move links with wrong versions,
CSRF tokens that are not ASCII, oversized bodies. In-process (Flask's test client: loopback only, no
port). A response of 500 or more is a bug: each distinct one is printed (method, path, status) to
stderr; the last line is `requests=N status_500=K` over all databases (K must be 0).
"""

from __future__ import annotations

import argparse
import email
import email.policy
import random
import re
import secrets
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import quote

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.pg import pg_schema_url  # noqa: E402

CSRF_RE = re.compile(r'name="csrf_token"(?: type="hidden")? value="([^"]+)"')
LINK_RE = re.compile(r"https?://localhost(/[^\s\"'<>]+)")
METHODS = ["GET", "GET", "GET", "HEAD", "POST", "POST", "POST", "PUT", "DELETE", "OPTIONS", "PATCH"]
INTEGERS = [
    "0",
    "-1",
    "1",
    "2147483647",
    "2147483648",
    "-2147483649",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775809",
    "1e9",
    "0x10",
    "99999999999999999999999",
    "",
    " 1",
    "1.5",
    "NaN",
    "٣",
]
NASTY = [
    "ü",
    "%C3%BC",
    "%00",
    "\x00",
    "%FF",
    "..",
    "%2e%2e",
    "a" * 3000,
    "<script>",
    "'",
    '"',
    "%",
    "\\",
    "😀",
    "\u202e",
    "\r\nX: y",
    "%0d%0aX:%20y",
    "/",
    "//",
    "?",
    "#",
    "+",
    " ",
]
ROUTES = [
    "/",
    "/healthz",
    "/readyz",
    "/metrics",
    "/new",
    "/links",
    "/s/{token}",
    "/s/{token}/m/{slug}",
    "/s/{token}/plan",
    "/s/{token}/vacation",
    "/s/{token}/vacation/end",
    "/s/{token}/play-now",
    "/s/{token}/accept",
    "/s/{token}/decline",
    "/s/{token}/cancel",
    "/s/{token}/rotate",
    "/s/{token}/rematch",
    "/s/{token}/prefs",
    "/s/{token}/unsubscribe",
    "/s/{token}/never",
    "/s/{token}/bounced/{int}",
    "/watch/{game}/{token}",
    "/me/{nasty}",
    "/me/{nasty}/settings",
    "/me/{nasty}/pause",
    "/dev/mail/",
    "/dev/mail/{int}",
    "/dev/mail/{int}/html",
    "/dev/mail/{int}/raw",
    "/dev/mail/{int}/reply",
    "/dev/mail/deliver",
    "/{nasty}",
    "/s/{nasty}/m/{nasty}",
]
FIELDS = [
    "csrf_token",
    "seat",
    "version",
    "v",
    "done",
    "to",
    "body",
    "plan",
    "move",
    "days",
    "hours",
    "mail_pref",
    "tz",
    "lang",
    "name",
    "email",
    "host_name",
    "host_email",
    "variant",
    "decision_hours",
    "players-0-name",
    "players-0-email",
    "opt_target_score",
    "until",
]


class Fuzzer:
    def __init__(self, url: str, rng: random.Random) -> None:
        from service import create_app
        from service.store import db

        self.rng = rng
        self.app = create_app(
            {
                "ENV_NAME": "development",
                "DATABASE_URL": url,
                "SECRET_KEY": secrets.token_hex(32),
                "BASE_URL": "http://localhost",
                "LINKS_RATE_LIMIT": "100000 per minute",
            }
        )
        self.app.logger.disabled = True  # each 500 is reported once below, without its traceback
        with self.app.app_context():
            db.create_all()
        self.client = self.app.test_client()
        self.seat_paths: list[str] = []
        self.move_paths: list[str] = []
        self.watch_paths: list[str] = []
        self.mail_ids: list[str] = []
        self.csrf = ""
        self._start_a_game()

    # -- a real game, through HTTP only --------------------------------------------------------
    def _form_token(self, path: str) -> str:
        found = CSRF_RE.search(self.client.get(path).text)
        return found.group(1) if found else ""

    def _mail_links(self) -> list[str]:
        self.client.post("/dev/mail/deliver", data={"csrf_token": self._form_token("/dev/mail/")})
        index = self.client.get("/dev/mail/").text
        self.mail_ids = sorted(set(re.findall(r'href="/dev/mail/(\d+)"', index)))
        links: list[str] = []
        for mail_id in self.mail_ids:
            raw = self.client.get(f"/dev/mail/{mail_id}/raw").data
            mail = email.message_from_bytes(raw, policy=email.policy.default)
            # both parts, as tests/service/helpers.links_of: the text part names the opening's
            # cells with one board link (short text links), its move links are in the HTML part
            for kind in ("plain", "html"):
                part = mail.get_body((kind,))
                links += LINK_RE.findall(part.get_content() if part is not None else "")
        return list(dict.fromkeys(link.replace("&amp;", "&").rstrip(".,") for link in links))

    def _start_a_game(self) -> None:
        self.csrf = self._form_token("/new")
        data = {
            "csrf_token": self.csrf,
            "host_name": "Ann",
            "host_email": "ann@example.com",
            "variant": "classic",
            "decision_hours": "48",
            "opt_target_score": "100",
            "players-0-name": "Bo",
            "players-0-email": "bo@example.com",
            "players-1-name": "Cy",
            "players-1-email": "cy@example.com",
        }
        made = self.client.post("/new", data=data)
        if made.status_code != 303:
            raise SystemExit(f"could not start a game: {made.status_code}")
        for link in self._mail_links():
            if re.fullmatch(r"/s/[A-Za-z0-9_-]+", link):
                self.client.post(link + "/accept", data={"csrf_token": self._form_token(link)})
        links = self._mail_links()
        self.seat_paths = sorted(
            {m.group(0) for link in links if (m := re.match(r"/s/[A-Za-z0-9_-]+", link))}
        )
        self.move_paths = [link for link in links if "/m/" in link]
        self.watch_paths = [link for link in links if link.startswith("/watch/")]
        if not self.seat_paths or not self.move_paths:
            raise SystemExit("the game sent no seat or move links")

    # -- malformed requests ----------------------------------------------------------------------
    def _token(self) -> str:
        rng = self.rng
        real = rng.choice(self.seat_paths).split("/")[2]
        kind = rng.randrange(10)
        if kind >= 5:
            return real
        if kind == 1:
            i = rng.randrange(len(real))
            return real[:i] + rng.choice("aZ9_-ü\x00%") + real[i + 1 :]
        if kind == 2:
            return quote(rng.choice(NASTY), safe="")
        if kind == 3:
            return real + rng.choice(NASTY)
        if kind == 4:
            return rng.choice(INTEGERS) or "x"
        return secrets.token_urlsafe(rng.choice([1, 8, 20, 200]))

    def _value(self) -> str:
        pick = self.rng.randrange(4)
        if pick == 0:
            return self.rng.choice(INTEGERS)
        if pick == 1:
            return self.rng.choice(NASTY)
        if pick == 2:
            return self.csrf
        return "".join(self.rng.choice("abcABC123 -_:,ü\x00") for _ in range(self.rng.randrange(1, 40)))

    def _new_game_form(self) -> dict:
        """A complete /new form with one or two fields made malformed."""
        data = {
            "csrf_token": self.csrf,
            "host_name": "Dee",
            "host_email": "dee@example.com",
            "variant": "classic",
            "decision_hours": "48",
            "opt_target_score": "100",
            "players-0-name": "Eve",
            "players-0-email": "eve@example.com",
        }
        for _ in range(self.rng.randrange(1, 3)):
            field = self.rng.choice(
                [*data, "players-1-name", "players-1-email", "host_tz", "opt_round_starter"]
            )
            data[field] = self.rng.choice([self._value(), "ñandú@example.org", "a\x00b", "x" * 300])
        return data

    def _confirm_form(self) -> tuple[str, dict]:
        """A move's Confirm form as its page makes it, with one field altered."""
        page = self.client.get(self.rng.choice(self.move_paths)).text
        found = re.search(r'<form method="post" action="([^"]+)">(.*?)</form>', page, re.S)
        if not found:
            return "/s/x/m/draw", {"csrf_token": self._value()}
        action = found.group(1).replace("&amp;", "&")
        fields = dict(re.findall(r'name="([^"]+)"(?: type="hidden")? value="([^"]*)"', found.group(2)))
        if fields:
            fields[self.rng.choice(list(fields))] = self.rng.choice([self._value(), "ü", "\x00"])
        return action, fields

    def request(self) -> tuple[str, str, int]:
        rng = self.rng
        method = rng.choice(METHODS)
        if rng.random() < 0.25:
            path = rng.choice(self.move_paths + self.watch_paths)
            if "?v=" in path and rng.random() < 0.7:
                path = path.split("?v=")[0] + "?v=" + rng.choice(INTEGERS)
        else:
            path = rng.choice(ROUTES).format(
                token=self._token(),
                slug=quote(self._value(), safe=""),
                nasty=quote(rng.choice(NASTY), safe=""),
                game=rng.choice(
                    [
                        self.watch_paths[0].split("/")[2] if self.watch_paths else "1",
                        quote(rng.choice(NASTY), safe=""),
                        rng.choice(INTEGERS) or "0",
                    ]
                ),
                int=rng.choice(INTEGERS + self.mail_ids) or "0",
            )
        if rng.random() < 0.4:
            path += ("&" if "?" in path else "?") + "&".join(
                f"{rng.choice(FIELDS)}={quote(self._value(), safe='')}" for _ in range(rng.randrange(1, 4))
            )
        data = (
            {rng.choice(FIELDS): self._value() for _ in range(rng.randrange(0, 6))}
            if method != "GET"
            else None
        )
        if data is not None and rng.random() < 0.05:
            data = {"body": "x" * 100_000}  # past MAX_CONTENT_LENGTH
        try:
            status = self.client.open(path, method=method, data=data).status_code
        except Exception as exc:  # noqa: BLE001 - an exception escaping the app is a 500 as well
            print(f"  exception {type(exc).__name__}: {exc}", file=sys.stderr)
            status = 599
        return method, path, status


def _key(method: str, path: str) -> tuple[str, str]:
    """One report per kind of request: the path without its query, tokens and numbers folded."""
    shape = re.sub(r"[A-Za-z0-9_-]{12,}", "<token>", path.split("?")[0])
    return method, re.sub(r"\d+", "N", shape)[:120]


def run(name: str, url: str, count: int, seconds: float, seed: int) -> tuple[int, int]:
    fuzzer = Fuzzer(url, random.Random(seed))
    seen: set[tuple[str, str]] = set()
    statuses: dict[int, int] = {}
    done = bad = 0
    start = time.perf_counter()
    while done < count and time.perf_counter() - start < seconds:
        method, path, status = fuzzer.request()
        done += 1
        statuses[status] = statuses.get(status, 0) + 1
        if status >= 500 and not (status == 503 and path.split("?")[0] == "/readyz"):  # no worker here: not ready
            bad += 1
            key = _key(method, path)
            if key not in seen:
                seen.add(key)
                print(f"  {name}: {status} {method} {path[:200]!r}", file=sys.stderr)
    took = time.perf_counter() - start
    print(
        f"{name}: {done} requests in {took:.1f} s ({done / took:.0f}/s), by status {dict(sorted(statuses.items()))}, "
        f"status_500={bad}",
        file=sys.stderr,
    )
    return done, bad


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("count", nargs="?", type=int, default=10_000, help="requests per database")
    parser.add_argument("--seconds", type=float, default=600.0, help="at most this long per database")
    parser.add_argument("--db", default="sqlite,postgres")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    total = bad = 0
    for name in args.db.split(","):
        if name == "sqlite":
            with tempfile.TemporaryDirectory() as tmp:
                n, k = run(
                    name, f"sqlite:///{Path(tmp) / 'fuzz.sqlite3'}", args.count, args.seconds, args.seed
                )
        elif name == "postgres":
            got = pg_schema_url()
            if got is None:
                raise SystemExit("PostgreSQL is not reachable")
            url, drop = got
            try:
                n, k = run(name, url, args.count, args.seconds, args.seed)
            finally:
                drop()
        else:
            parser.error(f"unknown database {name!r}")
        total, bad = total + n, bad + k
    print(f"requests={total} status_500={bad}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
