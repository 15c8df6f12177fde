"""Read side of ratings: leaderboards and player profiles, each a fixed number of queries."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from django.core.paginator import Page, Paginator
from django.db.models import (
    BooleanField,
    Case,
    Prefetch,
    QuerySet,
    Value,
    When,
)

from accounts.models import User
from games.catalog import playable_games
from games.models import PROVISIONAL_GAMES as PROVISIONAL_GAMES
from games.models import PlayerPace, PlayerRecord, Rating, RatingChange, Table
from games.rules import Rules, get_rules
from games.selectors.charts import Chart, rating_chart
from games.selectors.pace import PACE_MIN_MOVES, pace_of
from games.selectors.paging import KeyedRows
from games.selectors.places import places_set
from games.selectors.solo import solo_level_name, solo_opponent, solo_result
from games.selectors.tables import finished_seats, row_seats

LEADERBOARD_PAGE_SIZE = 50
PROFILE_PAGE_SIZE = 20
RUNNING_LIMIT = 50
# The chart draws at most this many of a player's latest rated games.
CHART_LIMIT = 300


def _page(rows: QuerySet | KeyedRows, number: str | int | None, size: int) -> Page:
    page = Paginator(rows, size).get_page(number)
    page.object_list = list(page.object_list)
    return page


@dataclass
class Leaderboard:
    rules: Rules
    games: tuple[Rules, ...]
    established: Page
    provisional: Page
    provisional_games: int = PROVISIONAL_GAMES


LEADERBOARD_ORDER = ("-ordinal", "-games_played", "user_id")


def _ranked(ratings: QuerySet[Rating]) -> KeyedRows:
    """One game's established (or provisional) players in the leaderboard's order, a page at
    a time: counted and paged from its index alone (``rating_established``,
    ``rating_provisional``), then the page's rows read with their users. A player a moderator
    disabled is left out by id (``user_inactive``: a few), not by a join to every player."""
    listed = ratings.exclude(user__in=User.objects.filter(is_active=False)).order_by(
        *LEADERBOARD_ORDER
    )
    return KeyedRows(listed, listed.select_related("user"), key="user_id")


def leaderboard_for(
    rules: Rules, *, page: str | int | None = 1, provisional_page: str | int | None = 1
) -> Leaderboard:
    """Players with enough rated games by rating; the others apart, as provisional. 4 queries,
    however many players and however deep the page."""
    ratings = Rating.objects.filter(game=rules.slug)
    return Leaderboard(
        rules=rules,
        games=playable_games(),
        established=_page(
            _ranked(ratings.filter(games_played__gte=PROVISIONAL_GAMES)),
            page,
            LEADERBOARD_PAGE_SIZE,
        ),
        provisional=_page(
            _ranked(ratings.filter(games_played__lt=PROVISIONAL_GAMES)),
            provisional_page,
            LEADERBOARD_PAGE_SIZE,
        ),
    )


def leaderboard_top(rules: Rules, *, limit: int = 5) -> list[Rating]:
    """The first ``limit`` players: established ones by rating, then provisional ones. 1 query."""
    established = Case(
        When(games_played__gte=PROVISIONAL_GAMES, then=Value(True)),
        default=Value(False),
        output_field=BooleanField(),
    )
    return list(
        Rating.objects.filter(game=rules.slug, user__is_active=True)
        .select_related("user")
        .annotate(established=established)
        .order_by("-established", "-ordinal", "-games_played", "user_id")[:limit]
    )


@dataclass
class Record:
    game: str
    name: str
    wins: int
    draws: int
    losses: int

    @property
    def played(self) -> int:
        return self.wins + self.draws + self.losses


@dataclass
class SoloRecord:
    """Solo games of one game at one level: played alone against the game, never rated."""

    game: str
    name: str
    opponent: str
    level: Any
    level_name: str
    wins: int
    played: int

    @property
    def losses(self) -> int:
        return self.played - self.wins


@dataclass
class Profile:
    player: User
    ratings: Sequence[Rating]
    # Games against people (and bots) only; solo games are counted apart, by level.
    records: list[Record]
    solo_records: list[SoloRecord]
    running: list[Table]
    finished: Page
    # As the periodic job stored it (None: no game in its window).
    pace: PlayerPace | None = None
    provisional_games: int = PROVISIONAL_GAMES
    pace_min_moves: int = PACE_MIN_MOVES
    game_names: dict[str, str] = field(default_factory=dict, repr=False)

    @cached_property
    def chart(self) -> Chart:
        """Read when drawn only: the page keeps the drawn chart in the cache by ``chart_key``."""
        return rating_chart(_chart_changes(self.player), self.game_names)

    @property
    def chart_key(self) -> str:
        """The chart changes only with this: a rated game played, or the ratings replayed
        (``ratings_recompute``), changes some rating's count of games or its value."""
        return ";".join(
            f"{r.game}:{r.games_played}:{r.ordinal!r}" for r in sorted(self.ratings, key=_game)
        )


def _game(rating: Rating) -> str:
    return rating.game


def profile_for(player: User, *, page: str | int | None = 1) -> Profile:
    """A player's ratings, chart, record, pace, running and finished games. 9 queries, and one
    for the pace unless ``player`` was read with it (``select_related("pace")``)."""
    names = {rules.slug: rules.name for rules in playable_games()}
    records, solo_records = _records(player, names)
    return Profile(
        player=player,
        ratings=_ratings_with_place(player, names),
        records=records,
        solo_records=solo_records,
        running=list(
            _with_seats(
                Table.objects.filter(
                    status=Table.Status.RUNNING,
                    seats__user=player,
                    seats__rank__isnull=True,  # tables.UNFINISHED: the index of such seats
                )
            ).order_by("-started_at", "-pk")[:RUNNING_LIMIT]
        ),
        finished=_finished_page(player, page),
        pace=pace_of(player),
        game_names=names,
    )


def _ratings_with_place(player: User, names: dict[str, str]) -> Sequence[Rating]:
    """The player's ratings, each with its place on the leaderboard if not provisional
    (``selectors.places``)."""
    ratings = list(Rating.objects.filter(user=player).order_by("-last_played"))
    for rating in ratings:
        rating.game_name = names.get(rating.game, rating.game)
        rating.provisional = rating.games_played < PROVISIONAL_GAMES
    places_set(ratings)
    return ratings


def _chart_changes(player: User) -> list[RatingChange]:
    latest = RatingChange.objects.filter(user=player).order_by("-created_at", "-id")
    return list(reversed(latest[:CHART_LIMIT]))


def _records(player: User, names: dict[str, str]) -> tuple[list[Record], list[SoloRecord]]:
    """Per game: wins (alone in first place), draws (first place shared) and losses against
    other seats; and apart, per game and level, the solo games won (ranked first, ahead of
    the game: ``games.rules.base.Outcome``) of those played. One query: the rows each game's
    end added to (``services.records``)."""
    records, solo_records = [], []
    for row in PlayerRecord.objects.filter(user=player).order_by("game", "solo", "level"):
        name = names.get(row.game, row.game)
        if not row.solo:
            records.append(Record(row.game, name, row.wins, row.draws, row.losses))
            continue
        rules = get_rules(row.game)
        level = json.loads(row.level)
        solo_records.append(
            SoloRecord(
                game=row.game,
                name=name,
                opponent=solo_opponent(rules),
                level=level,
                level_name=solo_level_name(rules, level),
                wins=row.wins,
                played=row.wins + row.draws + row.losses,
            )
        )
    solo_records.sort(key=lambda r: (r.game, r.level is None, r.level))  # levels in order
    return records, solo_records


def _with_seats(tables: QuerySet[Table]) -> QuerySet[Table]:
    return tables.defer("state", "options").prefetch_related(
        Prefetch("seats", queryset=row_seats())
    )


def _finished_page(player: User, number: str | int | None) -> Page:
    """The player's finished games, newest first, each with their seat and rating change: a
    page's tables found, and counted, from one index alone (the player's seats with their
    game's end, ``seat_user_finished``), then only those read."""
    tables = KeyedRows(
        finished_seats(player),
        _with_seats(Table.objects.all()).order_by("-finished_at", "-pk"),
        key="table_id",
        row_key="pk",
    )
    page = _page(tables, number, PROFILE_PAGE_SIZE)
    changes = {
        change.table_id: change
        for change in RatingChange.objects.filter(
            user=player, table_id__in=[t.pk for t in page.object_list]
        )
    }
    for table in page.object_list:
        table.player_seat = next(s for s in table.seats.all() if s.user_id == player.pk)
        table.rating_change = changes.get(table.pk)
        table.solo = solo_result(table)
    return page
