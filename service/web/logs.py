"""Seat and spectator tokens are passwords: no log line may carry one (issue 20, point 7).

`RedactTokens` masks the token part of `/s/<token>` and `/watch/<game>/<token>` paths in a log
record's message and arguments (`/s/…`). `create_app` puts it on the app's logger (the error log
names the request path) and `serve` on werkzeug's request log; under gunicorn the logger class of
gunicorn.conf.py (`gunicorn_log.RedactingLogger`) puts it on the error and the access log, whose
records carry their arguments as a mapping (`%(r)s`).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping

TOKEN_PATH = re.compile(r"(/s/|/me/|/watch/[0-9a-f]+/)[A-Za-z0-9_.-]{8,}")  # /me/: issue 31.4's signed link


def redact(text: str) -> str:
    return TOKEN_PATH.sub(r"\1…", text)


class RedactTokens(logging.Filter):
    """Request and error log lines without seat or spectator tokens."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, Mapping):  # `%(name)s` formats, e.g. gunicorn's access log (issue 31.1)
            record.args = {k: redact(a) if isinstance(a, str) else a for k, a in record.args.items()}
        elif record.args:
            args = record.args if isinstance(record.args, tuple) else (record.args,)
            record.args = tuple(redact(a) if isinstance(a, str) else a for a in args)
        if isinstance(record.msg, str):
            record.msg = redact(record.msg)
        return True
