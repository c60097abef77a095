"""What a use case raises when it refuses: the message is for the player (translated), the status
is the HTTP answer a page gives (`web.errors`), and `context` carries the game and seat for the page
that explains (a stale link shows the current board)."""

from __future__ import annotations


class UseCaseError(Exception):
    status = 400

    def __init__(self, message: str, **context):
        super().__init__(message)
        self.message = message
        self.context = context


class Invalid(UseCaseError):
    status = 400


class NotFound(UseCaseError):
    status = 404


class Forbidden(UseCaseError):
    status = 403


class Conflict(UseCaseError):
    status = 409
