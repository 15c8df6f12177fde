"""What the tests of the API's streams share: reading a stream, the views a seat may see, and
the bounds on a revoked token's stream."""

from __future__ import annotations

import json
from typing import Any

from django.core.serializers.json import DjangoJSONEncoder

from accounts.models import User
from community.models import Challenge
from community.services.challenges import challenge_create
from games.models import Table
from games.rules import get_rules
from tests.support.api_streams import StreamReader

# The default token check (API_STREAM_TOKEN_CHECK): a revocation only the database knows of
# ends the stream within it and a margin.
DEFAULT_CHECK = 4.0
REVOKED_WITHIN = 5.0


def stream(base: str, path: str, secret: str) -> StreamReader:
    return StreamReader(base, path, secret)


def as_json(value: Any) -> Any:
    """``value`` as it comes out of the stream's JSON."""
    return json.loads(json.dumps(value, cls=DjangoJSONEncoder))


def expected_view(table: Table, seat: int | None) -> Any:
    """The game's ``view(state, seat)`` of the table as the caller last read it."""
    rules = get_rules(table.game)
    return as_json(rules.view(rules.from_json(table.state), seat))


def card_ids(value: Any) -> set[int]:
    """Every card (``{"id", "kind", "value"...}``) anywhere in a District Noir view."""
    found: set[int] = set()
    if isinstance(value, dict):
        if "id" in value and "kind" in value:
            found.add(value["id"])
        for item in value.values():
            found |= card_ids(item)
    elif isinstance(value, list):
        for item in value:
            found |= card_ids(item)
    return found


def hand_of(table: Table, seat: int) -> set[int]:
    return set(table.state["hands"][seat])


def seat_to_move(table: Table) -> int:
    rules = get_rules(table.game)
    return rules.active_seats(rules.from_json(table.state))[0]


def fresh(user: User) -> User:
    """The user as a request would load them (their counts as stored now)."""
    return User.objects.get(pk=user.pk)


def challenge_from(sender: User, receiver: User) -> Challenge:
    return challenge_create(
        sender=sender,
        receivers=[receiver],
        game="district-noir",
        num_seats=2,
        seconds_per_move=86400,
    )


def revoked_after(reader: StreamReader, revoked_at: float) -> float:
    """Seconds from the revocation to the stream's ``tokenRevoked`` line; the stream ends right
    after it (it waited for channels-redis's cancelled receive, up to 5 s, before)."""
    line = reader.wait_for(lambda line: line["type"] == "tokenRevoked", "tokenRevoked", 10)
    assert reader.wait_end(2) == []
    return line.at - revoked_at
