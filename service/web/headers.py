"""Security headers on every response (issue 20, point 6).

Every page URL carries a seat's secret token, so no page may hand its address to another site:
`Referrer-Policy: no-referrer` above all. Then a Content-Security-Policy that allows no inline
script but the ones a template marks with this request's nonce (`csp_nonce()` in templates), no
framing (`frame-ancestors 'none'`), `nosniff`, and HSTS when the service is served over https
(BASE_URL). A view that sets its own policy (the dev mailbox's sandboxed mail frame) keeps it.
"""

from __future__ import annotations

import secrets

from flask import Flask, Response, g


def csp_nonce() -> str:
    """This request's script nonce (made on first use)."""
    if "csp_nonce" not in g:
        g.csp_nonce = secrets.token_urlsafe(16)
    return g.csp_nonce


def policy(nonce: str | None) -> str:
    scripts = f"'nonce-{nonce}'" if nonce else "'none'"
    return (
        "default-src 'self'; "
        f"script-src {scripts}; "
        "style-src 'self' 'unsafe-inline'; "  # the board's colours come with the page
        "img-src 'self' data:; "
        "object-src 'none'; base-uri 'none'; form-action 'self'; "
        "frame-ancestors 'none'"
    )


def init_app(app: Flask) -> None:
    app.jinja_env.globals["csp_nonce"] = csp_nonce
    https = str(app.config.get("BASE_URL", "")).startswith("https://")

    @app.after_request
    def _headers(response: Response) -> Response:
        headers = response.headers
        headers.setdefault("Content-Security-Policy", policy(g.get("csp_nonce")))
        headers.setdefault("Referrer-Policy", "no-referrer")
        headers.setdefault("X-Content-Type-Options", "nosniff")
        headers.setdefault(
            "X-Frame-Options",
            "DENY" if "frame-ancestors 'none'" in headers["Content-Security-Policy"] else "SAMEORIGIN",
        )
        if https:
            headers.setdefault("Strict-Transport-Security", "max-age=31536000")
        return response
