from __future__ import annotations

import os
import random
from collections.abc import Callable, Iterator

import pytest
from django.test import Client
from django.utils import translation

from accounts.models import User
from games.models import Table
from games.rules import get_rules
from games.services.moves import move_play
from games.services.tables import table_create, table_join
from tests.factories import UserFactory

# Fixtures of the fault tests: a private redis-server, the site on it, an SMTP inbox.
pytest_plugins = ["tests.support.faults"]


def pytest_collection_modifyitems(config, items) -> None:
    """Browser tests run last in one process: they are the slowest, and the rest report sooner.
    On several workers (pytest-xdist hands out files in this order) they go first, so that
    the long files start early and the short ones fill the workers' ends."""
    in_workers = os.environ.get("PYTEST_XDIST_WORKER") is not None
    items.sort(key=lambda item: (item.get_closest_marker("e2e") is not None) != in_workers)


@pytest.fixture(scope="session", autouse=True)
def _flush_by_delete() -> Iterator[None]:
    """A transactional test (``django_db(transaction=True)``, every browser test) ends with
    Django's flush: on PostgreSQL one TRUNCATE of every table, which makes new files for each
    table and index: 0.3 to 0.5 s here, after each of some 400 tests. The tables a test leaves
    hold a few rows: deleting them takes under 10 ms. Sequences are not reset, as before
    (``reset_sequences`` keeps Django's own flush)."""
    from django.db.backends.postgresql.operations import DatabaseOperations

    truncate = DatabaseOperations.sql_flush

    def sql_flush(self, style, tables, *, reset_sequences=False, allow_cascade=False):
        if reset_sequences or not tables:
            return truncate(
                self, style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade
            )
        # Django's foreign keys are deferrable: rows go in any order, checked at the commit.
        deletes = [f"DELETE FROM {self.quote_name(table)}" for table in tables]
        return ["SET CONSTRAINTS ALL DEFERRED", *deletes]

    DatabaseOperations.sql_flush = sql_flush
    yield
    DatabaseOperations.sql_flush = truncate


@pytest.fixture(autouse=True)
def _redis_not_paused() -> None:
    """A test that breaks a Redis client must not silence the next test's: every breaker (one
    per Redis server, ``config.redis_guard``) starts closed."""
    from config import redis_guard

    redis_guard.reset_breakers()


@pytest.fixture
def site_redis_timeouts(settings) -> dict[str, str]:
    """The site's own Redis timeouts (half a second), for a test that hangs a Redis of its own:
    the test settings wait longer on the shared one (config/settings.py). Set in this process
    before the test builds its clients; returned as the environment for a server it starts."""
    for name, seconds in settings.SITE_REDIS_TIMEOUTS.items():
        setattr(settings, name, seconds)
    return {name: str(seconds) for name, seconds in settings.SITE_REDIS_TIMEOUTS.items()}


@pytest.fixture(autouse=True)
def _a_channel_layer_of_its_own() -> Iterator[None]:
    """channels-redis keeps its receiving state (a receive lock, the loop receiving, a lock per
    channel held until a received message's backup is cleaned) in the layer object, for one
    event loop at a time. A site has one loop; the tests run their sockets on loops of their own
    (``async_to_sync``), and a lock left held by one test's ended loop failed a later test's
    receives ("bound to a different event loop"). Each test gets a new layer object; its
    connections on the process's sending loop (``config.layer_sends``) close after it."""
    from channels.layers import channel_layers

    from config import layer_sends

    channel_layers.backends.clear()
    yield
    layer_sends.close()


@pytest.fixture(autouse=True)
def _language_of_the_next_test_is_the_default() -> Iterator[None]:
    """A request in Czech (a cookie, a header) leaves Czech active in the thread, as Django's
    LocaleMiddleware does between requests; the next test starts in the default again."""
    yield
    translation.deactivate()


def forget_boards() -> None:
    """Drops every cached public part (Django's cache and this process's own copies): for a
    test that changes a table without a new version, which the site itself never does."""
    from django.core.cache import cache

    from games import board_cache
    from games.live import renders

    cache.clear()
    board_cache.forget_local_parts()
    renders.forget()


@pytest.fixture(autouse=True)
def _empty_cache(_redis_not_paused) -> None:
    """Boards' public parts are cached by table and version: table ids repeat across tests."""
    forget_boards()


@pytest.fixture
def make_user(db) -> Callable[..., User]:
    return UserFactory


@pytest.fixture
def alice(make_user) -> User:
    return make_user(username="alice")


@pytest.fixture
def bob(make_user) -> User:
    return make_user(username="bob")


@pytest.fixture
def carol(make_user) -> User:
    return make_user(username="carol")


def client_for(user: User | None) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


@pytest.fixture
def running_table(alice: User, bob: User) -> Table:
    """A District Noir table where alice (seat 0) and bob (seat 1) have just started."""
    table = table_create(user=alice, game="district-noir", num_seats=2, seconds_per_move=86400)
    table_join(table_id=table.pk, user=bob)
    table.refresh_from_db()
    return table


def user_at(table: Table, position: int) -> User:
    return table.seats.get(position=position).user


def play_a_legal_move(table: Table, rng: random.Random | None = None) -> Table:
    """Plays a legal move of the first seat to act, through the service, as its user: the first
    legal move, or one chosen by ``rng``."""
    rules = get_rules(table.game)
    table.refresh_from_db()
    state = rules.from_json(table.state)
    seat = rules.active_seats(state)[0]
    actions = rules.legal_actions(state, seat)
    move_play(
        table_id=table.pk,
        user=user_at(table, seat),
        action=rng.choice(actions) if rng else actions[0],
        version=table.version,
    )
    table.refresh_from_db()
    return table


def play_random_moves(
    table: Table, count: int, rng: random.Random | None = None, *, keep_running: bool = False
) -> Table:
    """Plays up to ``count`` random legal moves through the service, as the seated users.

    ``keep_running``: stop before a move that would end the game (a finished game shows every
    card, settles ratings, takes no more moves).
    """
    rng = rng or random.Random(0)
    rules = get_rules(table.game)
    for _ in range(count):
        table.refresh_from_db()
        if not table.is_running:
            break
        state = rules.from_json(table.state)
        seat = rng.choice(rules.active_seats(state))
        action = rng.choice(rules.legal_actions(state, seat))
        if keep_running and rules.outcome(rules.apply(state, seat, action)) is not None:
            break
        move_play(
            table_id=table.pk, user=user_at(table, seat), action=action, version=table.version
        )
    table.refresh_from_db()
    return table
