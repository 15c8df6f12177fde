"""What the endpoints take and answer, for ninja's validation and the OpenAPI schema."""

from __future__ import annotations

import datetime as dt
from typing import Any

from ninja import Field, Schema


class Error(Schema):
    error: str = Field(description="Why the request was refused, in a sentence.")


class Account(Schema):
    id: int
    username: str
    name: str = Field(description="The name others see; a bot account's says so.")
    is_bot: bool
    scopes: list[str] = Field(description="What this token may do: read, play, challenge.")


class WaitingTable(Schema):
    id: int
    game: str
    version: int = Field(description="Send it back with the move chosen on it.")
    seat: int
    deadline: dt.datetime | None
    url: str


class TableView(Schema):
    id: int
    game: str
    status: str
    version: int
    seat: int | None = Field(description="Your seat, or null: you see what a spectator sees.")
    players: list[str]
    view: dict[str, Any] | None = Field(
        description="Exactly the game's view(state, seat) for your seat; legal_actions in it."
    )
    outcome: dict[str, Any] | None
    url: str


class MoveIn(Schema):
    action: Any = Field(description="One of view.legal_actions, as it is there.")
    version: int = Field(description="The table's version the action was chosen on.")


class ChallengeOut(Schema):
    id: int
    game: str
    status: str
    sender: str
    to: list[str]
    seats: int
    seconds_per_move: int
    rated: bool
    bot_level: str
    expires_at: dt.datetime
    table: int | None


class Challenges(Schema):
    incoming: list[ChallengeOut]
    outgoing: list[ChallengeOut]


class ChallengeIn(Schema):
    players: list[str] = Field(description="The usernames to invite, one seat each.")
    game: str
    seats: int | None = Field(None, description="Players at the table; default: you and them.")
    seconds_per_move: int = 86400
    rated: bool = True
    options: dict[str, Any] = {}
    bot_level: str = Field("", description="Who plays the seats left open: a bot level.")


class DeclineIn(Schema):
    reason: str = "generic"
