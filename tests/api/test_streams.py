"""The API's two NDJSON streams against a live uvicorn (as in production), fed by the channel
layer this test process shares with it through Redis: what each opens with, what each change
brings, what the tokens may see, and how a revoked token's stream ends.

The test moves and challenges through the services in this process; their group messages go
out after commit to Redis, where the server's streams wait. Every wait is for the line the test
needs, with a timeout well below the streams' own catch-up (``4 * API_STREAM_KEEP_ALIVE``, 28 s
by default): a line that comes in time came by its message.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import connection
from django.utils import timezone

from accounts.models import User
from api.models import AccessToken
from api.selectors import token_for_secret
from api.services import token_revoke
from community.models import Challenge
from community.services.challenges import challenge_create, challenge_decline
from games.models import Table
from games.rules import get_rules
from tests.conftest import play_a_legal_move, user_at
from tests.support.api import token_for
from tests.support.api_streams import StreamReader, start_api_server
from tests.support.processes import stop

pytestmark = pytest.mark.django_db(transaction=True)

# The default token check (API_STREAM_TOKEN_CHECK): a revocation only the database knows of
# ends the stream within it and a margin.
DEFAULT_CHECK = 4.0
REVOKED_WITHIN = 5.0


def _server(django_db_blocker, overrides: dict[str, str]) -> Iterator[str]:
    with django_db_blocker.unblock():
        if connection.vendor != "postgresql":
            pytest.skip("the server runs in another process and needs a shared database")
        if not settings.REDIS_URL:
            pytest.skip("the server's streams hear this process's changes only through Redis")
        url, process = start_api_server(connection.settings_dict, overrides)
    try:
        yield url
    finally:
        stop(process, 5)


@pytest.fixture(scope="module")
def server(django_db_setup, django_db_blocker) -> Iterator[str]:
    """The streams' defaults: a ping every 7 s, the token checked every 4 s."""
    yield from _server(django_db_blocker, {})


@pytest.fixture(scope="module")
def quick_server(django_db_setup, django_db_blocker) -> Iterator[str]:
    """A ping every second, and the token checked only once a minute: a revocation that ends a
    stream here in seconds came by its message."""
    yield from _server(
        django_db_blocker, {"API_STREAM_KEEP_ALIVE": "1", "API_STREAM_TOKEN_CHECK": "60"}
    )


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


def test_account_stream_opens_with_what_is_current(server, running_table, carol) -> None:
    mover = user_at(running_table, seat_to_move(running_table))
    waiting_for_them = challenge_from(carol, mover)
    with stream(server, "/api/stream/events", token_for(mover, "read")) as events:
        start = events.wait_type("gameStart", table_id=running_table.pk)
        turn = events.wait_type("turn", table_id=running_table.pk)
        challenge = events.wait_type("challenge", challenge_id=waiting_for_them.pk)
    assert events.status == 200
    assert events.headers["content-type"] == "application/x-ndjson"
    assert start["table"]["game"] == "district-noir"
    assert turn["table"]["my_turn"] is True
    assert turn["table"]["version"] == running_table.version
    assert challenge["challenge"]["sender"] == carol.username
    assert events.types() == ["gameStart", "turn", "challenge"]


def test_account_stream_a_new_challenge_and_its_end_on_decline(
    server, running_table, carol, make_user
) -> None:
    me = user_at(running_table, 1)
    dave = make_user(username="dave")
    first = challenge_from(carol, me)
    with stream(server, "/api/stream/events", token_for(me, "read")) as events:
        events.wait_type("challenge", challenge_id=first.pk)
        second = challenge_from(dave, me)
        line = events.wait_type("challenge", challenge_id=second.pk)
        assert line["challenge"]["sender"] == "dave"
        challenge_decline(challenge_id=first.pk, user=fresh(me), reason="later")
        events.wait_type("challengeGone", challenge_id=first.pk)
    assert events.types().count("challengeGone") == 1


def test_a_game_played_through_on_both_streams(server, running_table) -> None:
    """The table's stream: its seat's view, then one state a move; the account's: a turn each
    time the opponent's move hands it over, and the game's end. One game for both (a game is
    the slowest thing here)."""
    seat, other = 1, 0
    me = user_at(running_table, seat)
    secret = token_for(me, "read")
    path = f"/api/stream/tables/{running_table.pk}"
    with (
        stream(server, "/api/stream/events", secret) as events,
        stream(server, path, secret) as table,
    ):
        events.wait_type("gameStart", table_id=running_table.pk)
        full = table.next().line
        assert full["type"] == "full"
        assert full["id"] == running_table.pk
        assert full["seat"] == seat
        assert full["status"] == Table.Status.RUNNING
        assert full["version"] == running_table.version
        assert full["view"] == expected_view(running_table, seat)
        assert not card_ids(full) & hand_of(running_table, other)
        versions = [full["version"]]
        turns = 0
        handed_over = False  # the opponent moved since my last turn line
        while running_table.is_running:
            handed_over = handed_over or seat_to_move(running_table) == other
            play_a_legal_move(running_table)
            received = table.next()
            while received is not None and received.line["type"] == "ping":
                received = table.next()
            assert received is not None, f"the stream ended early: {table.types()}"
            line = received.line
            assert line["type"] == "state"
            assert line["version"] == running_table.version  # one line a move, none skipped
            assert line["seat"] == seat
            assert line["view"] == expected_view(running_table, seat)
            versions.append(line["version"])
            if not running_table.is_running:
                break
            assert not card_ids(line) & hand_of(running_table, other)  # never the other's hand
            if handed_over and seat_to_move(running_table) == seat:
                version = running_table.version
                turn = events.wait_for(
                    lambda line, v=version: (
                        line["type"] == "turn" and line["table"]["version"] == v
                    ),
                    f"a turn at version {version}",
                ).line
                assert turn["table"]["my_turn"] is True
                turns += 1
                handed_over = False
        assert line["status"] == Table.Status.FINISHED
        assert line["outcome"] is not None
        rest = table.wait_end()  # the game ended: so does the table's stream
        events.wait_type("gameFinish", table_id=running_table.pk)
    assert versions == sorted(set(versions))
    assert len(versions) > 10
    assert turns >= 2
    assert all(line["type"] == "ping" for line in rest)


def test_a_spectators_token_gets_the_spectators_view(server, running_table, carol) -> None:
    path = f"/api/stream/tables/{running_table.pk}"
    with stream(server, path, token_for(carol, "read")) as table:
        full = table.next().line
        assert full["seat"] is None
        assert full["view"] == expected_view(running_table, None)
        assert full["view"]["hand"] is None
        assert not card_ids(full) & (hand_of(running_table, 0) | hand_of(running_table, 1))
        play_a_legal_move(running_table)
        state = table.wait_type("state")
    assert state["seat"] is None
    assert state["version"] == running_table.version
    assert state["view"] == expected_view(running_table, None)


def test_a_ping_line_keeps_the_stream_alive(quick_server, running_table) -> None:
    path = f"/api/stream/tables/{running_table.pk}"
    with stream(quick_server, path, token_for(user_at(running_table, 0), "read")) as table:
        full = table.wait_for(lambda line: line["type"] == "full", "full")
        ping = table.wait_for(lambda line: line["type"] == "ping", "a ping", 5)
    assert ping.line == {"type": "ping"}
    assert ping.at - full.at < 3  # a second (API_STREAM_KEEP_ALIVE), and a margin


def test_refusals_are_json_before_any_line(server, running_table) -> None:
    """A token without the read scope is a 403 on both streams, an unknown table a 404."""
    me = user_at(running_table, 0)
    no_read = token_for(me, "play", "challenge")
    for path in ("/api/stream/events", f"/api/stream/tables/{running_table.pk}"):
        reader = stream(server, path, no_read).start()
        reader.close()
        assert reader.status == 403, path
        assert reader.headers["content-type"].startswith("application/json")
        assert "read" in reader.body["error"]
        assert reader.seen == []
    unknown = stream(server, f"/api/stream/tables/{running_table.pk + 1000}", token_for(me, "read"))
    unknown.start().close()
    assert unknown.status == 404
    assert unknown.headers["content-type"].startswith("application/json")
    assert unknown.body["error"]
    assert unknown.seen == []


def revoked_after(reader: StreamReader, revoked_at: float) -> float:
    """Seconds from the revocation to the stream's ``tokenRevoked`` line; the stream ends right
    after it (it waited for channels-redis's cancelled receive, up to 5 s, before)."""
    line = reader.wait_for(lambda line: line["type"] == "tokenRevoked", "tokenRevoked", 10)
    assert reader.wait_end(2) == []
    return line.at - revoked_at


def test_a_revoked_token_ends_its_open_streams_at_once(quick_server, running_table) -> None:
    """The token check here comes once a minute: the revocation's message ends them."""
    me = user_at(running_table, 0)
    secret = token_for(me, "read")
    token = token_for_secret(secret)
    path = f"/api/stream/tables/{running_table.pk}"
    with (
        stream(quick_server, "/api/stream/events", secret) as events,
        stream(quick_server, path, secret) as table,
    ):
        events.wait_type("gameStart")
        table.wait_type("full")  # in its groups by then
        revoked = time.monotonic()
        assert token_revoke(user=me, token_id=token.pk)
        seconds = [revoked_after(events, revoked), revoked_after(table, revoked)]
    print(f"tokenRevoked {seconds[0]:.3f} s (events), {seconds[1]:.3f} s (table) after revoke")
    assert max(seconds) <= REVOKED_WITHIN
    again = httpx.get(
        f"{quick_server}/api/stream/events",
        headers={"Authorization": f"Bearer {secret}"},
        timeout=10,
    )
    assert again.status_code == 401


def test_a_token_revoked_in_the_database_alone_ends_within_the_check(server, running_table) -> None:
    """No message: the stream's own check (every 4 s by default) finds it."""
    me = user_at(running_table, 0)
    secret = token_for(me, "read")
    with stream(server, "/api/stream/events", secret) as events:
        events.wait_type("gameStart")
        revoked = time.monotonic()
        AccessToken.objects.filter(key_hash=token_for_secret(secret).key_hash).update(
            revoked_at=timezone.now()
        )
        seconds = revoked_after(events, revoked)
    print(f"tokenRevoked {seconds:.3f} s after the database alone revoked it")
    assert seconds <= DEFAULT_CHECK + 1
