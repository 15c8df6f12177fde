"""What each page and each periodic sweep costs on the generated data, in this process.

A page is requested through the site's own URLs and middleware (Django's test client, the
bench settings: DEBUG off, cached templates, sessions and cache in Redis), ``warmup`` times
and then ``runs`` times; its server time is the wall time of each request, database time
included. A sweep is called as beat's task calls it, with the data's "now", inside a
transaction rolled back after it: every run finds the same handful due (``bench/years/plan.py``
``DUE``) and does the same work. Each run's queries are counted (by a wrapper around the
connection's execute: nothing is recorded).
"""

from __future__ import annotations

import datetime as dt
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from django.core import mail
from django.db import connection, transaction
from django.test import Client

from accounts.models import User
from bench.load.stats import percentile
from games.models import Rating, Table
from games.selectors.ratings import (
    LEADERBOARD_PAGE_SIZE,
    PROFILE_PAGE_SIZE,
    PROVISIONAL_GAMES,
)

AIM_MS = 50.0
LEADERBOARD_PAGE = 500
SLOW_MS = 2000.0  # a first run slower than this: only SLOW_RUNS runs
SLOW_RUNS = 2


@dataclass
class Measured:
    name: str
    kind: str  # "page" or "sweep"
    address: str
    ms: list[float] = field(default_factory=list)
    cpu_ms: list[float] = field(default_factory=list)  # this process's CPU: not PostgreSQL's
    queries: list[int] = field(default_factory=list)
    statuses: set[int] = field(default_factory=set)
    done: set[int] = field(default_factory=set)  # what a sweep returned (how much it did)
    load: float = 0.0  # the load average (1 minute) when it was measured
    call: Callable[[], int] | None = field(default=None, repr=False)  # one more run

    @property
    def p50(self) -> float:
        return percentile(self.ms, 50)

    @property
    def p95(self) -> float:
        return percentile(self.ms, 95)

    @property
    def cpu_p50(self) -> float:
        return percentile(self.cpu_ms, 50)

    @property
    def fixed(self) -> bool:
        return len(set(self.queries)) == 1

    @property
    def query_count(self) -> str:
        low, high = min(self.queries), max(self.queries)
        return str(low) if low == high else f"{low} to {high}"

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": self.kind,
            "address": self.address,
            "p50": round(self.p50, 1),
            "p95": round(self.p95, 1),
            "cpu_p50": round(self.cpu_p50, 1),
            "queries": sorted(set(self.queries)),
            "statuses": sorted(self.statuses),
            "done": sorted(self.done),
            "runs": len(self.ms),
            "load": self.load,
        }


class Counter:
    def __init__(self) -> None:
        self.count = 0

    def __call__(self, execute: Callable, sql: str, params: Any, many: bool, context: Any) -> Any:
        self.count += 1
        return execute(sql, params, many, context)


@contextmanager
def counted() -> Iterator[Counter]:
    counter = Counter()
    with connection.execute_wrapper(counter):
        yield counter


def _measure(item: Measured, call: Callable[[], int], runs: int, warmup: int) -> Measured:
    """Runs ``call`` (which returns a status or a count) ``warmup`` times, then ``runs`` times
    timed and counted; fewer when it is slow."""
    started = time.perf_counter()
    call()
    if (time.perf_counter() - started) * 1000 > SLOW_MS:
        runs, warmup = SLOW_RUNS, 0
    for _ in range(max(warmup - 1, 0)):
        call()
    for _ in range(runs):
        with counted() as counter:
            started, cpu = time.perf_counter(), time.process_time()
            result = call()
            item.ms.append((time.perf_counter() - started) * 1000)
            item.cpu_ms.append((time.process_time() - cpu) * 1000)
        item.queries.append(counter.count)
        (item.statuses if item.kind == "page" else item.done).add(result)
    item.load = round(os.getloadavg()[0], 1)
    item.call = call
    return item


def slowest(item: Measured, top: int = 3) -> list[tuple[float, str]]:
    """The ``top`` slowest queries of one more run of ``item``: (ms, SQL)."""
    from django.test.utils import CaptureQueriesContext

    assert item.call is not None
    with CaptureQueriesContext(connection) as captured:
        item.call()
    found = [(float(q["time"]) * 1000, q["sql"]) for q in captured.captured_queries]
    return sorted(found, reverse=True)[:top]


Chosen = Callable[[str], bool]


def chosen(only: str | None) -> Chosen:
    """Whether a page or sweep of this name is measured: all, or those whose name has one of
    ``only``'s comma-separated parts."""
    parts = [part for part in (only or "").split(",") if part]
    return lambda name: not parts or any(part in name for part in parts)


EVERY = chosen(None)


def page(name: str, client: Client, address: str, runs: int, warmup: int) -> Measured:
    def get() -> int:
        return client.get(address).status_code

    return _measure(Measured(name, "page", address), get, runs, warmup)


def sweep(name: str, task: str, work: Callable[[], int], runs: int, warmup: int) -> Measured:
    def once() -> int:
        mail.outbox = []
        with transaction.atomic():
            done = work()
            transaction.set_rollback(True)  # every run finds the same things due
        return done

    return _measure(Measured(name, "sweep", task), once, runs, warmup)


@dataclass(frozen=True)
class Subjects:
    """Whom and what the pages show: the player with the profile's games, their latest and
    their longest finished table, and the leaderboard page measured past the first."""

    star: User
    latest: Table
    longest: Table
    history_last: int
    leaderboard_page: int


def subjects(star_name: str, games: list[str]) -> Subjects:
    star = User.objects.get(username=star_name)
    theirs = Table.objects.filter(status=Table.Status.FINISHED, seats__user=star)
    latest = theirs.order_by("-finished_at", "-pk").first()
    longest = theirs.order_by("-moves_played", "-pk").first()
    assert latest is not None and longest is not None, "the profile's player has no games"
    played = theirs.count()
    # Page 500 of every game's established players, or the last page of the shortest.
    fewest = min(
        Rating.objects.filter(
            game=slug, games_played__gte=PROVISIONAL_GAMES, user__is_active=True
        ).count()
        for slug in games
    )
    pages = max(1, -(-fewest // LEADERBOARD_PAGE_SIZE))
    return Subjects(
        star=star,
        latest=latest,
        longest=longest,
        history_last=max(1, -(-played // PROFILE_PAGE_SIZE)),
        leaderboard_page=min(LEADERBOARD_PAGE, pages),
    )


def pages(
    found: Subjects, games: list[str], runs: int, warmup: int, wanted: Chosen = EVERY
) -> Iterator[Measured]:
    visitor, player = Client(), Client()
    player.force_login(found.star)
    name = found.star.username
    profile = f"/players/{name}/"
    listed = [
        ("lobby, a visitor", visitor, "/"),
        (f"lobby, signed in ({name})", player, "/"),
    ]
    for slug in games:
        address = f"/games/{slug}/leaderboard/"
        deep = found.leaderboard_page
        listed.append((f"leaderboard {slug}, page 1", visitor, address))
        listed.append((f"leaderboard {slug}, page {deep}", visitor, f"{address}?page={deep}"))
    last = found.history_last
    listed += [
        (f"profile of {name}", visitor, profile),
        (f"profile of {name}, signed in", player, profile),
        (f"history of {name}, page 2", visitor, f"{profile}?page=2"),
        (f"history of {name}, page {last} (last)", visitor, f"{profile}?page={last}"),
    ]
    for label, table in (("latest", found.latest), ("longest", found.longest)):
        replay = f"/t/{table.pk}/replay/"
        moves = table.moves_played
        what = f"{table.game}, {table.num_seats} seats, {moves} moves"
        listed.append((f"replay of their {label} ({what}), step 0", visitor, replay))
        listed.append((f"replay of their {label}, last step", visitor, f"{replay}?step={moves}"))
    for title, client, address in listed:
        if wanted(title):
            yield page(title, client, address, runs, warmup)


def _pace_minute(now: dt.datetime) -> Callable[[], int]:
    """The pace job a minute after the data's "now", its last run a minute before it: the rows
    whose oldest turn leaves the window in that minute, and the turns stored in the minute
    before "now" (since nothing moved after it) with their players' rows. Run inside
    ``_pace_uncounted``."""
    from games.services.pace import pace_refresh_changed

    minute = dt.timedelta(minutes=1)
    return lambda: pace_refresh_changed(now=now + minute, after=now - minute)


@contextmanager
def _pace_uncounted(now: dt.datetime) -> Iterator[None]:
    """The turns of the minute before "now" not counted yet, as at the job's next run (the
    generator counted everything up to "now"); counted again after."""
    from games.models import PaceMove

    with transaction.atomic():
        PaceMove.objects.filter(at__gte=now - dt.timedelta(minutes=1)).delete()
        yield
        transaction.set_rollback(True)


def sweeps(now: dt.datetime, runs: int, warmup: int, wanted: Chosen = EVERY) -> Iterator[Measured]:
    """Every sweep beat runs (``CELERY_BEAT_SCHEDULE``), at the data's "now"."""
    from accounts.sessions import sessions_sweep
    from community.services.notes import sweep_note_mails
    from community.services.push import sweep_pushes
    from games.jobs import sweeps as games_sweeps
    from tournaments.services.rounds import sweep_tournaments

    # At the data's "now" exactly: what the generator made due is due, all else (a live table's
    # clock among them) falls due strictly after it.
    at = now
    listed: list[tuple[str, str, Callable[[], int]]] = []
    for name, task, work in (
        ("deadlines", "games.tasks.sweep_deadlines", games_sweeps.sweep_deadlines),
        ("reminders", "games.tasks.sweep_reminders", games_sweeps.sweep_reminders),
        ("vacations", "games.tasks.sweep_vacations", games_sweeps.sweep_vacations),
        ("notifications by e-mail", "community.tasks.sweep_note_mails", sweep_note_mails),
        ("notifications by push", "community.tasks.sweep_pushes", sweep_pushes),
        ("tournaments", "tournaments.tasks.sweep", sweep_tournaments),
    ):

        def call(work: Callable[..., int] = work) -> int:
            return work(now=at)

        listed.append((name, task, call))
    # Every five minutes: with nothing changed since its last run, then after a busy five.
    listed.append(("places", "games.tasks.sweep_places", games_sweeps.sweep_places))
    # It reads the clock itself: the generated sessions expire days after the data's "now".
    listed.append(("sessions (hourly)", "accounts.tasks.sweep_sessions", sessions_sweep))
    for name, task, work in listed:
        if wanted(name):
            yield sweep(name, task, work, runs, warmup)
    if wanted("pace (every minute)"):
        with _pace_uncounted(at):
            yield sweep(
                "pace (every minute)", "games.tasks.sweep_pace", _pace_minute(at), runs, warmup
            )
    busy = f"places, after {BUSY_RATINGS:,} ratings moved"
    if wanted(busy):
        with _ladder_moved(BUSY_RATINGS):
            yield sweep(busy, "games.tasks.sweep_places", games_sweeps.sweep_places, runs, warmup)


# Ratings moved between two runs of the places' job in a busy five minutes: 400 games finished
# (the generated years finish about 3 games in five minutes).
BUSY_RATINGS = 1000


@contextmanager
def _ladder_moved(ratings: int) -> Iterator[None]:
    """The ladder's rows of ``ratings`` established ratings each moved a step or two up or down,
    as the triggers add them (a row of -1, a row of +1); the ladder as it was again after."""
    from games.models import STEPS_A_POINT, RatingStep

    table = RatingStep._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT COALESCE(MAX(id), 0) FROM {table}")
        [(last,)] = cursor.fetchall()
        cursor.execute(
            f"""
            WITH moved AS (
                SELECT game, floor(ordinal * %(steps)s)::int AS step,
                    (ARRAY[-2, -1, 1, 2])[1 + (id %% 4)] AS by
                FROM {Rating._meta.db_table} WHERE games_played >= %(established)s
                ORDER BY md5(id::text) LIMIT %(ratings)s
            )
            INSERT INTO {table} (game, step, count)
            SELECT game, step, -1 FROM moved UNION ALL SELECT game, step + by, 1 FROM moved""",
            {"steps": STEPS_A_POINT, "established": PROVISIONAL_GAMES, "ratings": ratings},
        )
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute(f"DELETE FROM {table} WHERE id > %s", [last])
