"""Secret link tokens.

A seat's token is HMAC-SHA256(SECRET_KEY, "seat:" + salt) cut to 160 bits, base64url. The database
keeps only the random per-seat salt and SHA-256 of the token: a copy of the database alone gives no
working link, while the service can still re-send a player's links ("mail me my links").
Rotating draws a new salt: every old link stops working.
"""

from __future__ import annotations

import base64
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
    mac = hmac.new(_key(), f"{purpose}:{salt}".encode(), hashlib.sha256).digest()[:TOKEN_BYTES]
    return base64.urlsafe_b64encode(mac).rstrip(b"=").decode()


def seat_token(salt: str) -> str:
    return derive("seat", salt)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def spectator_token(game_id: str, salt: str) -> str:
    return derive(f"watch:{game_id}", salt)


def check_spectator(game_id: str, salt: str, token: str) -> bool:
    return hmac.compare_digest(spectator_token(game_id, salt), token)


def looks_like_token(token: str) -> bool:
    return 20 <= len(token) <= 64 and all(c.isalnum() or c in "-_" for c in token)


def new_game_id() -> str:
    return secrets.token_hex(6)
