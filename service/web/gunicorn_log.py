"""gunicorn's logs without seat or spectator tokens (issue 34.4a): gunicorn logs a bad request line
as it came (`Invalid HTTP request line: 'HEAD /s/<token> …'`), and its access log names each path.
`RedactingLogger` is gunicorn's logger with `logs.RedactTokens` on its error and access logs; the
repository's gunicorn.conf.py selects it (gunicorn reads that file from its working directory), or
pass `--logger-class service.web.gunicorn_log.RedactingLogger`. Only gunicorn imports this module."""

from __future__ import annotations

from gunicorn.glogging import Logger

from service.web.logs import RedactTokens


class RedactingLogger(Logger):
    """gunicorn's Logger; every record of its error and access logs goes through RedactTokens."""

    def setup(self, cfg) -> None:
        super().setup(cfg)
        for log in (self.error_log, self.access_log):
            if not any(isinstance(f, RedactTokens) for f in log.filters):
                log.addFilter(RedactTokens())
