"""What a web process's API streams share (#30.6), seen by their readers and counted in the
server: one check of all their tokens at a time, one read of a table a version and one line an
audience, no read for a message that changes nothing, a few threads for any number of streams.

The server is uvicorn in this process (a thread of its own), so that the test can count what
it reads: each selector the streams read through is wrapped with a counter. Its streams hear
this process's changes through Redis, as a web process hears the others'.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
import uvicorn
from django.conf import settings
from django.db import connection
from django.utils import timezone

import api.streams
from api import selectors
from api.models import AccessToken
from api.selectors import token_for_secret
from api.stream_reads import READ_THREADS
from api.stream_tokens import TOKEN_CHECK
from community.broadcast import notes_changed
from games.models import Table
from games.services.tables import table_create, table_join, table_leave
from tests.api.stream_support import (
    REVOKED_WITHIN,
    card_ids,
    challenge_from,
    expected_view,
    hand_of,
    revoked_after,
    seat_to_move,
    stream,
)
from tests.conftest import play_a_legal_move, user_at
from tests.support.api import token_for
from tests.support.api_streams import StreamReader
from tests.support.processes import HOST, free_port, wait_for

pytestmark = pytest.mark.django_db(transaction=True)

# The selectors the streams read through once their first line is out.
READS = (
    "tokens_live",
    "table_versions",
    "table_with_seats",
    "table_data_at",
    "tables_running",
    "incoming_challenges",
)


class InProcessServer:
    """uvicorn serving the site from a thread of this process."""

    def __init__(self) -> None:
        from config.asgi import application

        self.port = free_port()
        config = uvicorn.Config(
            application,
            host=HOST,
            port=self.port,
            lifespan="off",
            log_level="warning",
            timeout_graceful_shutdown=1,
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, name="uvicorn", daemon=True)

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}"

    def __enter__(self) -> InProcessServer:
        self.thread.start()
        wait_for(lambda: self.server.started, "the server to start", 30, every=0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(10)


@pytest.fixture
def server() -> Iterator[str]:
    if connection.vendor != "postgresql":
        pytest.skip("the server's threads need a database they share with the test")
    if not settings.REDIS_URL:
        pytest.skip("the server's streams hear this test's changes only through Redis")
    with InProcessServer() as running:
        yield running.url


class Reads:
    """How often the server's streams called each selector of ``READS``, and with what."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self.calls: list[tuple[str, tuple[Any, ...]]] = []
        self._lock = threading.Lock()

    def wrap(self, name: str, real: Any) -> Any:
        def counted(*args: Any, **kwargs: Any) -> Any:
            with self._lock:
                self.counts[name] += 1
                self.calls.append((name, args))
            return real(*args, **kwargs)

        return counted

    def clear(self) -> None:
        with self._lock:
            self.counts.clear()
            self.calls.clear()

    def __getitem__(self, name: str) -> int:
        return self.counts[name]


@pytest.fixture
def reads(monkeypatch) -> Reads:
    counted = Reads()
    for name in READS:
        monkeypatch.setattr(selectors, name, counted.wrap(name, getattr(selectors, name)))
    return counted


def table_path(table: Table) -> str:
    return f"/api/stream/tables/{table.pk}"


def moved(table: Table, readers: list[StreamReader]) -> list[dict[str, Any]]:
    """Plays a move; each reader's ``state`` line of the new version, in their order."""
    play_a_legal_move(table)
    return [reader.wait_type("state", version=table.version) for reader in readers]


def test_one_check_a_process_for_its_streams_tokens_and_a_revoked_one_ends_within_it(
    server, reads, running_table, make_user
) -> None:
    """Twelve streams of eleven tokens: the process checks them all in one query every
    ``TOKEN_CHECK`` seconds; a token revoked in the database alone ends its two streams within
    that and a margin, and the others go on."""
    alice, bob = user_at(running_table, 0), user_at(running_table, 1)
    victim = token_for(alice, "read")
    others = [token_for(bob, "read")] + [token_for(make_user(), "read") for _ in range(9)]
    with (
        stream(server, "/api/stream/events", victim) as its_events,
        stream(server, table_path(running_table), victim) as its_table,
    ):
        readers = [stream(server, table_path(running_table), secret) for secret in others]
        try:
            for reader in readers:
                reader.start().wait_type("full")
            its_events.wait_type("gameStart")
            its_table.wait_type("full")
            reads.clear()
            revoked = time.monotonic()
            AccessToken.objects.filter(pk=token_for_secret(victim).pk).update(
                revoked_at=timezone.now()
            )
            seconds = [revoked_after(its_events, revoked), revoked_after(its_table, revoked)]
            checked_for = time.monotonic() - revoked
            checks = [args for name, args in reads.calls if name == "tokens_live"]
            states = moved(running_table, readers)  # the others go on
        finally:
            for reader in readers:
                reader.close()
    assert max(seconds) <= REVOKED_WITHIN
    assert 1 <= len(checks) <= checked_for // TOKEN_CHECK + 1  # not one a stream
    assert all(len(set(token_ids)) == len(others) + 1 for (token_ids,) in checks)
    assert all(line["version"] == running_table.version for line in states)
    assert not any("tokenRevoked" in reader.types() for reader in readers)


def test_a_tables_streams_share_one_read_a_version_and_one_line_an_audience(
    server, reads, running_table, make_user
) -> None:
    """Both seats and three spectators at one table: a move is one read of the table for all
    five, and three lines drawn (each seat's own, the spectators' one); the spectators get the
    same line, each seat its own view, never the other's hand."""
    seats = [user_at(running_table, 0), user_at(running_table, 1)]
    watchers = [make_user() for _ in range(3)]
    readers = [
        stream(server, table_path(running_table), token_for(user, "read"))
        for user in seats + watchers
    ]
    moves = 4
    try:
        for reader in readers:
            reader.start().wait_type("full")
        reads.clear()
        for _move in range(moves):
            states = moved(running_table, readers)
            for position, line in enumerate(states[:2]):
                assert line["seat"] == position
                assert line["view"] == expected_view(running_table, position)
                assert not card_ids(line) & hand_of(running_table, 1 - position)
            spectators = states[2:]
            assert spectators[0]["seat"] is None
            assert spectators[0]["view"] == expected_view(running_table, None)
            assert spectators[1] == spectators[0] and spectators[2] == spectators[0]
    finally:
        for reader in readers:
            reader.close()
    assert reads["table_with_seats"] == moves  # one read a version, for the five streams
    assert reads["table_data_at"] == 3 * moves  # one line an audience and version


def test_an_account_stream_reads_only_for_what_may_change_its_lines(
    server, reads, running_table, carol, monkeypatch
) -> None:
    """The bell's count (a mention, a follower, notes read while no challenge is listed)
    changes no line: no read. A challenge reads the challenges alone, a turn the tables
    alone."""
    monkeypatch.setattr(api.streams, "REFRESH", 3600.0)  # no look without a message meanwhile
    me = user_at(running_table, 1 - seat_to_move(running_table))
    with stream(server, "/api/stream/events", token_for(me, "read")) as events:
        events.wait_type("gameStart")
        reads.clear()
        notes_changed([me.pk], kind="mention")
        notes_changed([me.pk], kind="follower")
        notes_changed([me.pk], kind="turn")
        notes_changed([me.pk])  # fewer unread: no challenge listed, none can have gone
        challenge = challenge_from(carol, me)  # its note's count comes after them
        events.wait_type("challenge", challenge_id=challenge.pk)
        after_challenge = dict(reads.counts)
        play_a_legal_move(running_table)  # now it is my turn
        events.wait_type("turn", table_id=running_table.pk)
        after_turn = dict(reads.counts)
    assert after_challenge == {"incoming_challenges": 1}
    assert after_turn == {"incoming_challenges": 1, "tables_running": 1}


def _request_threads() -> int:
    """This process's threads that Django made for requests (asgiref's, one a request)."""
    return sum(1 for thread in threading.enumerate() if thread.name.startswith("ThreadPool"))


def test_open_streams_keep_no_thread_of_their_own(server, running_table, make_user) -> None:
    """Twenty open streams: no thread of a request is left waiting with one (reads run on the
    process's few shared threads)."""
    before = _request_threads()
    readers = [
        stream(server, table_path(running_table), token_for(make_user(), "read")) for _ in range(20)
    ]
    try:
        for reader in readers:
            reader.start().wait_type("full")
        moved(running_table, readers)  # each read the move on the shared threads
        left = wait_for(
            lambda: _request_threads() <= before + 2 or None,
            "the requests' threads to end",
            10,
            every=0.05,
        )
        readers_threads = sum(
            1 for thread in threading.enumerate() if thread.name.startswith("api-stream-read")
        )
    finally:
        for reader in readers:
            reader.close()
    assert left
    assert readers_threads <= READ_THREADS


def test_a_seat_given_up_before_the_start_is_not_its_old_players_to_see(
    server, alice, make_user
) -> None:
    """A player leaves seat 1 of an open table, another takes it, and the game starts: the
    leaver's open stream shows the spectator's view, the taker's stream seat 1's. Each reader's
    seat is found from the seats read with the table, not kept from an earlier line."""
    leaver, taker, third = make_user(), make_user(), make_user()
    table = table_create(user=alice, game="slide", num_seats=3, seconds_per_move=86400)
    table_join(table_id=table.pk, user=leaver)
    with (
        stream(server, table_path(table), token_for(leaver, "read")) as left,
        stream(server, table_path(table), token_for(taker, "read")) as took,
    ):
        assert left.wait_type("full")["seat"] == 1
        assert took.wait_type("full")["seat"] is None
        table_leave(table_id=table.pk, user=leaver)
        table_join(table_id=table.pk, user=taker)
        table_join(table_id=table.pk, user=third)  # the table is full: the game starts
        table.refresh_from_db()
        assert table.status == Table.Status.RUNNING
        leavers = left.wait_type("state", version=table.version)
        takers = took.wait_type("state", version=table.version)
    assert leavers["seat"] is None
    assert leavers["view"] == expected_view(table, None)
    assert takers["seat"] == 1
    assert takers["view"] == expected_view(table, 1)


def test_an_idle_table_stream_wakes_for_its_pings_alone(server, running_table, monkeypatch) -> None:
    """A table's stream leaves the looks without a message to its process (one query for all
    its tables): idle, it wakes for its pings only, however short the looks' period."""
    monkeypatch.setattr(api.streams, "KEEP_ALIVE", 0.3)
    monkeypatch.setattr(api.streams, "REFRESH", 0.01)  # an account stream's: not a table's
    wakes = Counter[str]()
    real = api.streams._Clock.until_next

    def counted(clock: Any) -> float:
        wakes["until_next"] += 1
        return real(clock)

    monkeypatch.setattr(api.streams._Clock, "until_next", counted)
    path = table_path(running_table)
    with stream(server, path, token_for(user_at(running_table, 0), "read")) as table:
        table.wait_type("full")
        for _ping in range(3):
            table.wait_type("ping", 5)
    assert wakes["until_next"] <= 5  # the first wait, and one after each ping
