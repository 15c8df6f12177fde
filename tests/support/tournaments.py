"""Random tournaments and exhaustive checkers for the pairing tests (tests/tournaments/).

The checkers read the raw games (``Game``, ``Bye``), not the histories the code builds:
who met whom, each player's points and seats come from the definitions here.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import combinations

from tournaments.pairing.history import Bye, Game, PlayerHistory, build_histories
from tournaments.pairing.rounds import Round


@dataclass
class Tournament:
    """A tournament as it is played: the games so far, and each round as it was paired
    (the histories it was paired from, and the round)."""

    ratings: dict[int, float]
    games: list[Game] = field(default_factory=list)
    byes: list[Bye] = field(default_factory=list)
    rounds: list[tuple[dict[int, PlayerHistory], Round]] = field(default_factory=list)
    withdrawn: set[int] = field(default_factory=set)

    def active(self) -> dict[int, PlayerHistory]:
        histories = build_histories(self.ratings, self.games, self.byes)
        return {p: h for p, h in histories.items() if p not in self.withdrawn}


def ratings_for(rng: random.Random, count: int) -> dict[int, float]:
    """Ids from 1 (not in rating order), ratings with the odd tie."""
    ids = rng.sample(range(1, 10 * count + 1), count)
    return {player: float(rng.choice(range(1200, 1400, 25))) for player in ids}


def random_places(rng: random.Random, size: int) -> tuple[int, ...]:
    """A table's places: a draw now and then, the rest shuffled."""
    if size == 2:
        return rng.choice([(1, 2), (2, 1), (1, 2), (2, 1), (1, 1)])
    places = [rng.randint(1, size) for _ in range(size)]
    return tuple(places)


def play(
    rng: random.Random,
    count: int,
    rounds: int,
    pair: Callable[[list[PlayerHistory]], Round],
    *,
    withdraw: float = 0.0,
) -> Tournament:
    """Plays ``rounds`` rounds paired by ``pair``, random results; after each round a
    player withdraws with probability ``withdraw`` (their later games are not played)."""
    tournament = Tournament(ratings_for(rng, count))
    for number in range(rounds):
        histories = tournament.active()
        if len(histories) < 2:
            break
        # The pairing must not depend on the order it is given the players in.
        players = list(histories.values())
        rng.shuffle(players)
        paired = pair(players)
        tournament.rounds.append((histories, paired))
        for table in paired.tables:
            places = random_places(rng, len(table.seats))
            if rng.random() < 0.05:
                tournament.games.append(Game.forfeited(number, table.seats, table.seats[:1]))
            else:
                tournament.games.append(Game(number, table.seats, places))
        tournament.byes += [Bye(number, p) for p in paired.byes]
        if rng.random() < withdraw and len(histories) > 2:
            tournament.withdrawn.add(rng.choice(sorted(histories)))
    return tournament


# Raw facts from the games, as their definitions say.


def times_met(games: Sequence[Game]) -> Counter[frozenset[int]]:
    """How often each pair sat at the same table."""
    met: Counter[frozenset[int]] = Counter()
    for game in games:
        met.update(frozenset(pair) for pair in combinations(game.seats, 2))
    return met


def two_player_points(games: Sequence[Game], byes: Sequence[Bye]) -> Counter[int]:
    """A win 1, a draw 0.5, a bye 1."""
    points: Counter[int] = Counter()
    for game in games:
        (a, b), (pa, pb) = game.seats, game.places
        points[a] += 1.0 if pa < pb else 0.5 if pa == pb else 0.0
        points[b] += 1.0 if pb < pa else 0.5 if pa == pb else 0.0
    for bye in byes:
        points[bye.player] += 1.0
    return points


def seat_balance(games: Sequence[Game]) -> Counter[int]:
    """Games in the first seat less games in another seat, by player."""
    balance: Counter[int] = Counter()
    for game in games:
        for seat, player in enumerate(game.seats):
            balance[player] += 1 if seat == 0 else -1
    return balance


# Exhaustive search.


def pairings(players: Sequence[int]) -> Iterator[tuple[frozenset[frozenset[int]], int | None]]:
    """Every way to pair the players: (the pairs, who has the bye when the count is odd)."""
    players = list(players)
    if len(players) % 2:
        for bye in players:
            rest = [p for p in players if p != bye]
            for pairs in perfect_matchings(rest):
                yield pairs, bye
    else:
        for pairs in perfect_matchings(players):
            yield pairs, None


def perfect_matchings(players: list[int]) -> Iterator[frozenset[frozenset[int]]]:
    if not players:
        yield frozenset()
        return
    head, rest = players[0], players[1:]
    for partner in rest:
        remaining = [p for p in rest if p != partner]
        for pairs in perfect_matchings(remaining):
            yield pairs | {frozenset((head, partner))}


def partitions(players: Sequence[int], sizes: Sequence[int]) -> Iterator[list[frozenset[int]]]:
    """Every way to seat the players at tables of these sizes (tables unordered)."""
    players = list(players)
    if not players:
        yield []
        return
    head, rest = players[0], players[1:]
    for size in sorted(set(sizes)):
        others = list(sizes)
        others.remove(size)
        for partners in combinations(rest, size - 1):
            remaining = [p for p in rest if p not in partners]
            for tables in partitions(remaining, others):
                yield [frozenset((head, *partners)), *tables]


def round_pairs(paired: Round) -> frozenset[frozenset[int]]:
    return frozenset(frozenset(table.seats) for table in paired.tables)
