"""Every error is a readable page with the right 4xx status; a 500 is a bug."""

from __future__ import annotations

from flask import render_template
from flask_babel import gettext as _
from flask_wtf.csrf import CSRFError
from werkzeug.exceptions import HTTPException

from service.play.errors import UseCaseError

TITLES = {
    400: lambda: _("That did not work"),
    403: lambda: _("Not allowed"),
    404: lambda: _("Not found"),
    405: lambda: _("Not allowed"),
    409: lambda: _("That move was not made"),
    413: lambda: _("Too much data"),
    429: lambda: _("Slow down"),
    500: lambda: _("Something went wrong"),
}


def page(status: int, message: str):
    title = TITLES.get(status, TITLES[400])()
    return render_template("message.html", title=title, message=message, status=status), status


def init_app(app) -> None:
    @app.errorhandler(CSRFError)
    def _csrf(exc):
        return page(400, _("This form has expired or came from somewhere else. Please go back, reload "
                           "the page and try again."))

    @app.errorhandler(UseCaseError)
    def _usecase(exc: UseCaseError):
        return page(exc.status, exc.message)

    @app.errorhandler(HTTPException)
    def _http(exc: HTTPException):
        messages = {
            404: _("There is nothing here. If you followed a link from a mail, it may be old or mistyped."),
            405: _("This address cannot be used like that."),
            429: _("Too many requests. Please wait a minute and try again."),
        }
        code = exc.code or 400
        return page(code, messages.get(code, exc.description or ""))
