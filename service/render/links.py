"""Links: the paths and URLs of a seat's pages and move links, and the slugs that name a decision in
a move link's path (`reveal-a1`, `draw`, `take-swap-b2`, or `m~` + base64url for any other move
text). Pages use the paths, mails the absolute URLs (the service's BASE_URL in front).

A move link names the decision it answers (`?d=`, the engine's `Game.decision_id`), not the game's
version: it stays good while its seat owes that decision (issue 15.1). A link only shows a move
(GET); the move is applied by the Confirm form's POST, which carries a token of its own
(`tokens.move_form_token`)."""

from __future__ import annotations

import base64
import re

from flask import current_app

from service.render.cards import COLUMNS
from service.store import tokens


def base_url() -> str:
    return str(current_app.config["BASE_URL"]).rstrip("/")


def move_form_token(token: str, slug: str, decision: str | int) -> str:
    return tokens.move_form_token(token, slug, decision)


def seat_path(token: str) -> str:
    return f"/s/{token}"


def seat_url(token: str) -> str:
    return base_url() + seat_path(token)


def move_path(token: str, slug: str, decision: str | int) -> str:
    """The link of a move for a decision (an int: a state version, the links of before issue 15)."""
    if isinstance(decision, int):
        return f"/s/{token}/m/{slug}?v={decision}"
    return f"/s/{token}/m/{slug}?d={decision}"


def move_url(token: str, slug: str, decision: str | int) -> str:
    return base_url() + move_path(token, slug, decision)


def unsubscribe_url(token: str) -> str:
    return f"{base_url()}/s/{token}/unsubscribe"


def never_mail_url(token: str) -> str:
    """The invitation's "I don't want mail from this service" (issue 29): GET confirms, POST acts
    (also the RFC 8058 one-click target of an invitation's List-Unsubscribe)."""
    return f"{base_url()}/s/{token}/never"


def bounced_path(token: str, position: int) -> str:
    """The host's page for a seat whose address bounces (issue 29): correct it, or the computer."""
    return f"/s/{token}/bounced/{int(position)}"


def prefs_url(token: str) -> str:
    return f"{base_url()}/s/{token}/prefs"


def watch_path(game_id: str, salt: str) -> str:
    return f"/watch/{game_id}/{tokens.spectator_token(game_id, salt)}"


def watch_url(game_id: str, salt: str) -> str:
    return base_url() + watch_path(game_id, salt)


# ---------------------------------------------------------------------------------------------------
# slugs


def split_move(text: str) -> tuple[str, str | None]:
    """A move text's verb (lower case) and argument (upper case), e.g. `swap b2` -> ("swap", "B2")."""
    parts = text.split()
    return parts[0].lower(), (parts[1].upper() if len(parts) > 1 else None)


def is_cell(arg: str | None) -> bool:
    return bool(arg) and len(arg) == 2 and arg[0] in COLUMNS and arg[1] in "123"


_CLASSIC_TEXT = re.compile(r"^(?:(?:reveal|swap|flip) [A-D][1-3]|draw|take)$")


def slug_for(texts: list[str]) -> str:
    """URL part for a decision: `reveal-a1`, `draw`, `take-swap-b2`; any other move text (SKYJO Action
    moves carry names and hyphens) is `m~` + base64url of the text."""
    if all(_CLASSIC_TEXT.match(t) for t in texts):
        return "-".join(" ".join(texts).lower().split())
    raw = "\n".join(texts).encode()
    return "m~" + base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def texts_of_slug(slug: str) -> list[str] | None:
    """The move texts of a slug (not yet checked by the engine), or None if it is malformed."""
    if slug.startswith("m~"):
        body = slug[2:]
        try:
            raw = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)).decode()
        except (ValueError, UnicodeDecodeError):
            return None
        texts = [t for t in raw.split("\n") if t.strip()]
        return texts if texts and all(len(t) <= 120 for t in texts) and len(texts) <= 3 else None
    parts = slug.strip().lower().split("-")
    if not parts or not all(p.isalnum() and p.isascii() for p in parts) or len(slug) > 40:
        return None
    if parts[:2] == ["take", "swap"] and len(parts) == 3:
        return ["take", f"swap {parts[2].upper()}"]
    return [" ".join(p.upper() if len(p) == 2 and p[0] in "abcd" and p[1] in "123" else p for p in parts)]
