"""Rate limits for the few endpoints that need them: "mail me my links" and /new (issue 29), each
per client address and per recipient address (the host's, for /new), so that many clients cannot
fill one inbox either.

Only those endpoints pay for it: Flask-Limiter's request hook ran on every request, moves
included. Counts live in process memory by default (each worker counts its own, which is enough to
stop a script from mailing an address over and over); `RATELIMIT_STORAGE_URI` (e.g.
`redis://host:6379`, the `redis` package) shares them between workers and hosts
(tests/service/test_topology.py counts one limit across two gunicorn workers).
"""

from __future__ import annotations

import logging

from flask import current_app, request
from limits import parse_many, storage, strategies

log = logging.getLogger(__name__)


class RateLimits:
    def __init__(self, storage_uri: str = "memory://"):
        self.strategy = strategies.FixedWindowRateLimiter(storage.storage_from_string(storage_uri))

    def hit(self, spec: str, scope: str, key: str) -> bool:
        """Count one request of `key` against every limit in `spec` ("5 per minute;30 per day");
        False when one of them is used up. A store that does not answer (Redis down) lets the
        request through and logs it: the limits guard against abuse, they must not take the pages
        down with them (issue 31.5)."""
        try:
            return all([self.strategy.hit(item, scope, key) for item in parse_many(spec)])
        except Exception as exc:  # noqa: BLE001 - redis' ConnectionError, TimeoutError, ...
            log.warning("rate limit store unavailable (%s): %s not counted", type(exc).__name__, scope)
            return True


def init_app(app) -> None:
    app.extensions["skyjo_ratelimits"] = RateLimits(app.config.get("RATELIMIT_STORAGE_URI") or "memory://")


def allow(scope: str, spec: str, key: str | None = None) -> bool:
    """True if this request is within `spec` for `scope`, counted by `key` (default: the client's
    address, which is the proxy's unless PROXY_HOPS says how many proxies to look through)."""
    return current_app.extensions["skyjo_ratelimits"].hit(spec, scope, key or request.remote_addr or "-")


def new_game_allowed(host_email: str | None) -> bool:
    """A POST to /new: within NEW_GAME_RATE_LIMIT for this client and NEW_GAME_HOST_RATE_LIMIT for
    the host's address (both are counted, so a refused one still costs)."""
    config = current_app.config
    per_client = allow("new-game", config["NEW_GAME_RATE_LIMIT"])
    address = (host_email or "").strip().lower()
    per_host = allow("new-game-host", config["NEW_GAME_HOST_RATE_LIMIT"], key=address) if address else True
    return per_client and per_host
