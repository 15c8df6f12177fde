"""Round robin: groups of at most ten, and a Berger (circle method) schedule for each.

In a group of n players everyone meets everyone once: n - 1 rounds (n rounds with a bye
each round when n is odd). The circle method keeps one place fixed and turns the others
one step a round; the fixed player alternates seats, and so does everyone else whenever
the turn carries them across the circle, so that over the schedule each player's first
seats and other seats differ by at most one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from tournaments.pairing.history import PlayerId
from tournaments.pairing.rounds import Round, Table

#: The largest group that plays one round robin.
GROUP_SIZE = 10


@dataclass(frozen=True, slots=True)
class Group:
    """One round-robin group: its players (best seed first) and its rounds."""

    players: tuple[PlayerId, ...]
    rounds: tuple[Round, ...]


def round_robin(
    ratings: Mapping[PlayerId, float], group_size: int = GROUP_SIZE
) -> tuple[Group, ...]:
    """Every group's schedule, the players split by ``groups_by_rating``."""
    return tuple(
        Group(players=group, rounds=berger_schedule(group))
        for group in groups_by_rating(ratings, group_size)
    )


def groups_by_rating(
    ratings: Mapping[PlayerId, float], group_size: int = GROUP_SIZE
) -> tuple[tuple[PlayerId, ...], ...]:
    """As few groups of at most ``group_size`` as hold everyone, their sizes within one of
    each other, dealt by rating like a snake (1 2 3 3 2 1 1 2 ...) so each gets a fair share
    of the strong and the weak. Within a group, the best rating first."""
    if group_size < 2:
        raise ValueError("a group needs room for two")
    seeded = sorted(ratings, key=lambda player: (-ratings[player], player))
    count = max(1, -(-len(seeded) // group_size))
    groups: list[list[PlayerId]] = [[] for _ in range(count)]
    for index, player in enumerate(seeded):
        lap, step = divmod(index, count)
        groups[step if lap % 2 == 0 else count - 1 - step].append(player)
    return tuple(tuple(group) for group in groups if group)


def berger_schedule(players: Sequence[PlayerId]) -> tuple[Round, ...]:
    """The rounds of one group in order (none for a group of one)."""
    if len(set(players)) != len(players):
        raise ValueError("each player once")
    if len(players) < 2:
        return ()
    circle: list[PlayerId | None] = list(players)
    if len(circle) % 2:
        circle.append(None)
    size = len(circle)
    fixed, turning = circle[-1], circle[:-1]
    rounds = []
    for number in range(size - 1):
        # This round's order around the circle: the turning players moved `number` steps.
        order = turning[number:] + turning[:number]
        pairs = [(order[0], fixed) if number % 2 == 0 else (fixed, order[0])]
        for k in range(1, size // 2):
            pairs.append((order[k], order[size - 1 - k]))
        tables, byes = [], []
        for first, second in pairs:
            if first is None or second is None:
                byes.append(first if second is None else second)
            else:
                tables.append(Table(seats=(first, second)))
        rounds.append(Round(tables=tuple(tables), byes=tuple(p for p in byes if p is not None)))
    return tuple(rounds)
