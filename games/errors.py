"""Errors a service raises for a request it refuses; the view turns them into a 4xx."""

from __future__ import annotations


class GameError(Exception):
    """A refused request, with a sentence for the player and the HTTP status to answer."""

    status = 400

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class NotFound(GameError):
    status = 404


class Forbidden(GameError):
    status = 403


class Conflict(GameError):
    """The request no longer fits the table: it moved on, filled up, or started."""

    status = 409
