"""No log line carries a seat or spectator token (issue 20, point 7)."""

from __future__ import annotations

import logging

from service.web.logs import RedactTokens, redact
from tests.conftest import make_app

TOKEN = "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-ab"


def test_the_error_log_masks_the_token_in_the_request_path(tmp_path, caplog):
    app = make_app(f"sqlite:///{tmp_path / 'logs.sqlite3'}", TESTING=False, PROPAGATE_EXCEPTIONS=False)

    def boom(token: str):
        raise RuntimeError("a bug")

    app.add_url_rule("/s/<token>/boom", "boom", boom)
    with caplog.at_level(logging.ERROR, logger=app.logger.name):
        assert app.test_client().get(f"/s/{TOKEN}/boom").status_code == 500
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "Exception on /s/…/boom" in logged
    assert TOKEN not in logged and TOKEN not in caplog.text


def test_request_log_arguments_are_masked_too():
    record = logging.LogRecord(
        "werkzeug",
        logging.INFO,
        __file__,
        1,
        '%s - "%s" %s',
        ("127.0.0.1", f"GET /watch/3f/{TOKEN} HTTP/1.1", "200"),
        None,
    )
    RedactTokens().filter(record)
    assert record.getMessage() == '127.0.0.1 - "GET /watch/3f/… HTTP/1.1" 200'
    assert redact("/new") == "/new" and redact("/s/short") == "/s/short"


def test_a_record_with_named_arguments_is_masked_and_still_formats():
    """gunicorn's access log logs `format % {"r": request line, ...}`: a mapping, not a tuple (it
    failed with 'Logging error' for every request before, issue 31.1)."""
    record = logging.LogRecord("gunicorn.access", logging.INFO, __file__, 1, "<%(p)s> %(r)s %(s)s",
                               ({"p": 7, "r": "GET /s/abcdefghijkl0123 HTTP/1.1", "s": "200"},), None)
    assert RedactTokens().filter(record)
    assert record.getMessage() == "<7> GET /s/… HTTP/1.1 200"
