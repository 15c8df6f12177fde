"""A league (as Little Golem's): divisions of round-robin groups of about ten, a season at
a time.

At a season's end, in every group, the top two move up a division (not from the first)
and the bottom two move down (not from the last); a group of five or fewer moves one
each way, a group of two or fewer no one. Everyone else stays. Those who leave are taken
out (a division may be left empty: it keeps its level), the new players join the lowest
division, and each division is dealt again into
groups of at most ``GROUP_SIZE`` (``round_robin.groups_by_rating``, by last season's
places: the winners of the groups first), so a division grows more groups as it grows.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from tournaments.pairing.history import PlayerId
from tournaments.pairing.round_robin import GROUP_SIZE, groups_by_rating

Group = tuple[PlayerId, ...]


@dataclass(frozen=True, slots=True)
class Division:
    """One level of the league: its groups, each a round robin."""

    groups: tuple[Group, ...]

    def players(self) -> tuple[PlayerId, ...]:
        return tuple(p for group in self.groups for p in group)


@dataclass(frozen=True, slots=True)
class League:
    """The divisions, the first (the strongest) first."""

    divisions: tuple[Division, ...]


def league_start(seeds: Sequence[PlayerId], group_size: int = GROUP_SIZE) -> League:
    """The first season: ``seeds`` best first, ``group_size`` to a division from the top,
    the last division holding the rest (merged into the one above when fewer than half)."""
    if len(set(seeds)) != len(seeds):
        raise ValueError("each player once")
    chunks = [list(seeds[k : k + group_size]) for k in range(0, len(seeds), group_size)]
    if len(chunks) > 1 and len(chunks[-1]) < group_size / 2:
        chunks[-2].extend(chunks.pop())
    return League(tuple(_deal(chunk, group_size) for chunk in chunks))


def movers(group_size: int) -> int:
    """How many of a group of that size move up, and how many down."""
    return 2 if group_size > 5 else 1 if group_size > 2 else 0


def league_next_season(
    league: League,
    results: Mapping[Group, Sequence[PlayerId]],
    *,
    leaving: Collection[PlayerId] = (),
    joining: Sequence[PlayerId] = (),
    group_size: int = GROUP_SIZE,
) -> League:
    """The next season from this one's final standings: ``results[group]`` is that
    group's players, the winner first (``standings.round_robin_standings``' order)."""
    count = len(league.divisions)
    if count == 0:
        return league_start([p for p in joining if p not in set(leaving)], group_size)
    gone = set(leaving)
    # Where each player goes, seeded by where they come from: those relegated from above
    # first, then those who stay, then those promoted, each in their last season's place.
    levels: list[list[tuple[int, int, PlayerId]]] = [[] for _ in range(count)]
    for level, division in enumerate(league.divisions):
        for group in division.groups:
            ranked = list(results[group])
            if sorted(ranked) != sorted(group):
                raise ValueError(f"the results of {group} name other players")
            moving = movers(len(ranked))
            for position, player in enumerate(ranked):
                target = level
                if level > 0 and position < moving:
                    target = level - 1
                elif level < count - 1 and position >= len(ranked) - moving:
                    target = level + 1
                if player not in gone:
                    levels[target].append((level, position, player))
    divisions = []
    for level, entries in enumerate(levels):
        staying = [player for _, _, player in sorted(entries)]
        if level == count - 1:
            staying += [p for p in joining if p not in gone and p not in staying]
        divisions.append(_deal(staying, group_size))
    return League(tuple(divisions))


def _deal(players: Sequence[PlayerId], group_size: int) -> Division:
    """Groups of at most ``group_size``, dealt like a snake in the order given."""
    order = {player: -float(index) for index, player in enumerate(players)}
    return Division(groups_by_rating(order, group_size))
