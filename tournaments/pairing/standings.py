"""Standings: points first, then each format's tie-breaks, in order.

- Swiss: Buchholz, then Sonneborn-Berger.
- Multiplayer: the sum of places (lower is better), then head-to-head.
- Round robin: head-to-head, then Sonneborn-Berger.

The histories come from ``history.build_histories`` over every player of the tournament,
withdrawn ones included (their results still count for their opponents); timeouts,
forfeits and withdrawals are losses there (``history.Game.forfeited``). A bye adds its
points but no opponent: it counts for neither Buchholz nor Sonneborn-Berger.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from tournaments.pairing.history import PlayerHistory, PlayerId


@dataclass(frozen=True, slots=True)
class Standing:
    """One line of the table: equal ranks share a place (1, 1, 3)."""

    player: PlayerId
    rank: int
    points: float
    #: The format's tie-breaks in the order they apply (a sum of places as it is: lower
    #: is better there).
    tiebreaks: tuple[float, ...]


Histories = Mapping[PlayerId, PlayerHistory]


def buchholz(player: PlayerId, histories: Histories) -> float:
    """The sum of the final points of every opponent, once per game played against them."""
    return sum(
        histories[opponent].points
        for game in histories[player].games
        for opponent, _ in game.versus
    )


def sonneborn_berger(player: PlayerId, histories: Histories) -> float:
    """The final points of every opponent beaten, plus half those of every opponent drawn."""
    return sum(
        result * histories[opponent].points
        for game in histories[player].games
        for opponent, result in game.versus
    )


def head_to_head(player: PlayerId, among: Iterable[PlayerId], histories: Histories) -> float:
    """Points against the others of ``among`` alone: 1 for each finish ahead of one of
    them at a table, 0.5 level, 0 behind."""
    others = set(among) - {player}
    return sum(
        result
        for game in histories[player].games
        for opponent, result in game.versus
        if opponent in others
    )


def sum_of_places(player: PlayerId, histories: Histories) -> float:
    """The places of every game added up (1 + those strictly ahead at the table)."""
    return float(sum(game.place for game in histories[player].games))


def swiss_standings(histories: Histories) -> tuple[Standing, ...]:
    return _rank(histories, [_higher(buchholz), _higher(sonneborn_berger)])


def round_robin_standings(histories: Histories) -> tuple[Standing, ...]:
    return _rank(histories, [_head_to_head, _higher(sonneborn_berger)])


def multiplayer_standings(histories: Histories) -> tuple[Standing, ...]:
    return _rank(histories, [_lower(sum_of_places), _head_to_head])


#: A tie-break: (player, the players tied with them so far, histories) -> (its value, the
#: value as sorted: the lower the better).
Criterion = Callable[[PlayerId, frozenset[PlayerId], Histories], tuple[float, float]]


def _higher(value: Callable[[PlayerId, Histories], float]) -> Criterion:
    def criterion(
        player: PlayerId, tied: frozenset[PlayerId], hs: Histories
    ) -> tuple[float, float]:
        result = value(player, hs)
        return result, -result

    return criterion


def _lower(value: Callable[[PlayerId, Histories], float]) -> Criterion:
    def criterion(
        player: PlayerId, tied: frozenset[PlayerId], hs: Histories
    ) -> tuple[float, float]:
        result = value(player, hs)
        return result, result

    return criterion


def _head_to_head(
    player: PlayerId, tied: frozenset[PlayerId], hs: Histories
) -> tuple[float, float]:
    result = head_to_head(player, tied, hs)
    return result, -result


def _rank(histories: Histories, criteria: list[Criterion]) -> tuple[Standing, ...]:
    """Sorts by points, then by each criterion among those still tied on everything
    before it (head-to-head counts only the games between them)."""
    values: dict[PlayerId, list[float]] = {p: [] for p in histories}
    keys: dict[PlayerId, list[float]] = {p: [-h.points] for p, h in histories.items()}
    for criterion in criteria:
        groups: dict[tuple[float, ...], set[PlayerId]] = {}
        for player in histories:
            groups.setdefault(tuple(keys[player]), set()).add(player)
        for tied in groups.values():
            frozen = frozenset(tied)
            for player in tied:
                value, key = criterion(player, frozen, histories)
                values[player].append(value)
                keys[player].append(key)
    order = sorted(histories, key=lambda p: (keys[p], p))
    standings: list[Standing] = []
    for index, player in enumerate(order):
        same = standings and keys[order[index - 1]] == keys[player]
        rank = standings[-1].rank if same else index + 1
        standings.append(Standing(player, rank, histories[player].points, tuple(values[player])))
    return tuple(standings)
