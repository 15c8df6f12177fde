"""The API's two NDJSON streams against a live uvicorn (as in production), fed by the channel
layer this test process shares with it through Redis: what each opens with, what each change
brings, what the tokens may see, and how a revoked token's stream ends.

The test moves and challenges through the services in this process; their group messages go
out after commit to Redis, where the server's streams wait. Every wait is for the line the test
needs, with a timeout well below the streams' own catch-up (``4 * API_STREAM_KEEP_ALIVE``, 28 s
by default): a line that comes in time came by its message.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import httpx
import pytest
from django.conf import settings
from django.db import connection
from django.utils import timezone

from api.models import AccessToken
from api.selectors import token_for_secret
from api.services import token_revoke
from community.services.challenges import challenge_decline, challenge_withdraw
from community.services.notes import notes_read
from games.models import Table
from tests.api.stream_support import (
    DEFAULT_CHECK,
    REVOKED_WITHIN,
    card_ids,
    challenge_from,
    expected_view,
    fresh,
    hand_of,
    revoked_after,
    seat_to_move,
    stream,
)
from tests.conftest import play_a_legal_move, user_at
from tests.support.api import token_for
from tests.support.api_streams import start_api_server
from tests.support.processes import stop

pytestmark = pytest.mark.django_db(transaction=True)


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


def test_account_stream_a_withdrawn_challenge_goes_at_once(server, running_table, carol) -> None:
    """The challenger withdraws: the challenge leaves the receiver's stream with the withdrawal
    (before, it went only at the stream's catch-up, 28 s later), whether or not its note was
    read, and its note is no longer unread news."""
    me = user_at(running_table, 1)
    waiting, second = challenge_from(carol, me), challenge_from(carol, me)
    notes_read(user=fresh(me))  # the second's note already read: no count goes down for it
    with stream(server, "/api/stream/events", token_for(me, "read")) as events:
        events.wait_type("challenge", challenge_id=second.pk)
        challenge_withdraw(challenge_id=second.pk, user=fresh(carol))
        events.wait_type("challengeGone", challenge_id=second.pk)
    third = challenge_from(carol, me)
    with stream(server, "/api/stream/events", token_for(me, "read")) as events:
        events.wait_type("challenge", challenge_id=third.pk)
        challenge_withdraw(challenge_id=third.pk, user=fresh(carol))
        events.wait_type("challengeGone", challenge_id=third.pk)
    assert fresh(me).notes_unread == 0
    gone = [
        seen.line["challenge"]["id"] for seen in events.seen if seen.line["type"] == "challengeGone"
    ]
    assert gone == [third.pk]
    listed = [
        seen.line["challenge"]["id"] for seen in events.seen if seen.line["type"] == "challenge"
    ]
    assert waiting.pk in listed and waiting.pk not in gone  # still waiting: listed, never gone


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


def test_with_redis_down_streams_catch_up_and_a_revoked_token_still_ends_them(
    django_db_blocker, on_private_redis, site_redis_timeouts, running_table
) -> None:
    """The server's channel layer (and this test's) on a private Redis, which dies: a move
    still reaches the table's stream (the process looks at its tables more often once it hears
    the layer fail), and a token revoked in the database (no message can come) ends both
    streams within the check."""
    environment = {"REDIS_URL": on_private_redis.url, **site_redis_timeouts}
    environment["REDIS_CACHE_URL"] = on_private_redis.url_of(1)
    server = _server(django_db_blocker, environment)
    base = next(server)
    try:
        me = user_at(running_table, 0)
        secret = token_for(me, "read")
        with (
            stream(base, "/api/stream/events", secret) as events,
            stream(base, f"/api/stream/tables/{running_table.pk}", secret) as table,
        ):
            events.wait_type("gameStart")
            table.wait_type("full")
            play_a_legal_move(running_table)
            table.wait_type("state", version=running_table.version)  # by its message
            on_private_redis.stop()
            play_a_legal_move(running_table)  # its message is skipped: Redis is gone
            table.wait_type("state", DEFAULT_CHECK + 2, version=running_table.version)
            revoked = time.monotonic()
            AccessToken.objects.filter(key_hash=token_for_secret(secret).key_hash).update(
                revoked_at=timezone.now()
            )
            seconds = [revoked_after(events, revoked), revoked_after(table, revoked)]
    finally:
        server.close()
    print(f"tokenRevoked {max(seconds):.3f} s after the database alone revoked it, Redis down")
    assert max(seconds) <= REVOKED_WITHIN
