"""Secret link tokens.

A seat's token is HMAC-SHA256(SECRET_KEY, "seat:" + salt) cut to 160 bits, base64url. The database
keeps only the random per-seat salt and SHA-256 of the token: a copy of the database alone gives no
working link, while the service can still re-send a player's links ("mail me my links").
Rotating draws a new salt: every old link stops working.

Sent mails are the exception while they are kept whole: an outbox row's rendered bodies, its
context and its List-Unsubscribe and Reply-To headers hold working links and reply addresses. After
MAIL_KEEP_DAYS (default 14) `skyjo-pbem prune` (daily in the worker and `serve`) drops all of them,
so from then on a sent row keeps no working link (service.mail.retention).
"""

from __future__ import annotations

import base64
import functools
import hashlib
import hmac
import secrets

from flask import current_app

TOKEN_BYTES = 20  # 160 bits


def new_salt() -> str:
    return secrets.token_hex(16)


def _key() -> bytes:
    return str(current_app.config["SECRET_KEY"]).encode()


def derive(purpose: str, salt: str) -> str:
    return _derive(_key(), purpose, salt)


def _derive(key: bytes, purpose: str, salt: str) -> str:
    mac = hmac.digest(key, f"{purpose}:{salt}".encode(), "sha256")[:TOKEN_BYTES]  # one-shot, in C
    return base64.urlsafe_b64encode(mac).rstrip(b"=").decode()


_seat_token = functools.lru_cache(maxsize=4096)(_derive)  # a seat's token is asked for by every mail


def seat_token(salt: str) -> str:
    return _seat_token(_key(), "seat", salt)


def move_form_token(token: str, slug: str, decision: str | int) -> str:
    """The CSRF token of a move's form (the Confirm page's, and each move button of the board):
    HMAC(SECRET_KEY) of the seat's link token, the move and the decision it answers (the engine's
    `Game.decision_id`; an int: a state version, the form of links mailed before issue 15). A page
    of another site can neither read nor make it, and it binds the form to exactly this move for
    this decision; no session cookie is needed (a mail scanner's GET gets none), and checking it
    costs one HMAC."""
    bound = f"d:{decision}" if isinstance(decision, str) else str(decision)
    return derive("move-form", f"{token}/{slug}/{bound}")


def same_secret(expected: str, given: str | None) -> bool:
    """`given` is `expected`, compared in constant time (anything not ASCII is simply not it:
    `hmac.compare_digest` refuses such strings)."""
    return bool(given) and given.isascii() and hmac.compare_digest(expected, given)


def check_move_form_token(token: str, slug: str, decision: str | int, given: str | None) -> bool:
    return same_secret(move_form_token(token, slug, decision), given)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def spectator_token(game_id: str, salt: str) -> str:
    return derive(f"watch:{game_id}", salt)


def check_spectator(game_id: str, salt: str, token: str) -> bool:
    return same_secret(spectator_token(game_id, salt), token)


REPLY_MAC_BYTES = 16  # 128 bits: 26 base32 characters


def reply_token(game_id: str, token_hash: str) -> str:
    """The secret tag of a seat's reply address (`play+<tag>.<version>@domain`): the game id and
    HMAC(SECRET_KEY, "reply:" + the seat's current token hash) in lowercase base32, so mail systems
    that lowercase addresses keep it working, a database copy alone gives no working address, and
    rotating the seat's links (a new token, a new hash) invalidates every old reply address."""
    return _reply_token(_key(), game_id, token_hash)


@functools.lru_cache(maxsize=4096)  # every turn mail asks for its seat's
def _reply_token(key: bytes, game_id: str, token_hash: str) -> str:
    mac = hmac.digest(key, f"reply:{token_hash}".encode(), "sha256")[:REPLY_MAC_BYTES]
    return f"{game_id}-" + base64.b32encode(mac).decode().rstrip("=").lower()


def split_reply_token(tag: str) -> tuple[str, str] | None:
    """`<game id>-<mac>` (any case) -> (game id, mac) in lowercase, or None."""
    game_id, sep, mac = (tag or "").lower().partition("-")
    if not sep or not (1 <= len(game_id) <= 24) or len(mac) != 26 or not mac.isalnum():
        return None
    return game_id, mac


def check_reply_token(tag: str, game_id: str, token_hash: str) -> bool:
    return same_secret(reply_token(game_id, token_hash), (tag or "").lower())


def mail_domain() -> str:
    """The domain of reply addresses: MAIL_DOMAIN, else the domain of MAIL_FROM."""
    return _mail_domain(current_app.config.get("MAIL_DOMAIN"), str(current_app.config.get("MAIL_FROM") or ""))


@functools.lru_cache(maxsize=16)
def _mail_domain(configured: str | None, mail_from: str) -> str:
    from email.utils import parseaddr

    domain = configured
    if not domain:
        addr = parseaddr(mail_from)[1]
        domain = addr.rpartition("@")[2] if "@" in addr else "localhost"
    return str(domain).strip().lower().rstrip(".")


def looks_like_token(token: str) -> bool:
    return 20 <= len(token) <= 64 and all(c.isalnum() or c in "-_" for c in token)


def new_game_id() -> str:
    return secrets.token_hex(6)


# "my games" (issue 31.4): one signed, expiring link to the page of an address's games, mailed by
# "mail me my links". It names a seat of the address (and a hash of the address, so a corrected or
# forgotten address ends it), never the address itself; itsdangerous signs it with SECRET_KEY.
MY_GAMES_SALT = "skyjo-my-games"


class LinkExpired(Exception):
    """A genuine "my games" link older than its lifetime."""


def _my_games_signer():
    from itsdangerous import URLSafeTimedSerializer

    return URLSafeTimedSerializer(str(current_app.config["SECRET_KEY"]), salt=MY_GAMES_SALT)


def _address_mark(email: str) -> str:
    return hashlib.sha256(email.strip().lower().encode()).hexdigest()[:16]


def my_games_token(seat_id: int, email: str) -> str:
    return _my_games_signer().dumps([seat_id, _address_mark(email)])


def my_games_seat(signed: str, max_age_s: float, email_of) -> int | None:
    """The seat id a "my games" link names, if its signature holds and `email_of(seat_id)` (the
    seat's address now) is the address it was made for; None: forged or no longer that address's.
    LinkExpired: genuine but too old."""
    from itsdangerous import BadSignature, SignatureExpired

    try:
        seat_id, mark = _my_games_signer().loads(signed, max_age=max_age_s)
    except SignatureExpired as exc:
        raise LinkExpired() from exc
    except (BadSignature, ValueError, TypeError):
        return None
    if not isinstance(seat_id, int) or not isinstance(mark, str):
        return None
    email = email_of(seat_id)
    return seat_id if email and hmac.compare_digest(_address_mark(email), mark) else None
