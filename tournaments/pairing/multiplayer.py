"""A round of tables of three players or more (Slide 2-6, Point City 2-4, Gnav exactly 4).

The tables' sizes come first (``table_sizes``): all of the size asked for when the count
divides, else the nearest sizes the game allows, else byes. Then who sits where, cheapest
first, compared in order:

1. repeats: over every pair at a table, the games they have already played together;
2. standing: over every pair at a table, how many places apart they stand (the leaders
   play the leaders).

Up to ``EXACT_LIMIT`` players every seating is weighed (a branch and bound); above it the
tables start as blocks of the standing and players swap between tables near each other while
a swap makes the round cheaper. At each table the first seat goes to whoever has been first least.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

from tournaments.pairing.history import PlayerHistory, PlayerId, by_standing, points_by_place
from tournaments.pairing.rounds import Round, Table

__all__ = ["EXACT_LIMIT", "SWAP_REACH", "Split", "pair_tables", "points_by_place", "table_sizes"]

#: Up to this many players the seating is the cheapest there is.
EXACT_LIMIT = 12
#: Above it, how many tables apart (in the standing) two players may swap seats.
SWAP_REACH = 6
Cost = tuple[int, int]


@dataclass(frozen=True, slots=True)
class Split:
    """The round's table sizes (largest first) and how many players sit out."""

    sizes: tuple[int, ...]
    byes: int = 0


def table_sizes(count: int, preferred: int, minimum: int, maximum: int) -> Split:
    """How ``count`` players sit at tables of ``minimum``..``maximum`` seats.

    All at ``preferred`` when that divides; else the split whose sizes stay nearest to it
    (the largest gap first, then the gaps' sum, then fewer tables), as even as possible;
    when no split fits the game's limits (five players at Gnav), the fewest byes that
    leave one that does.
    """
    if not 2 <= minimum <= preferred <= maximum:
        raise ValueError("sizes need 2 <= minimum <= preferred <= maximum")
    for byes in range(count + 1):
        seated = count - byes
        best: tuple[tuple[int, int, int], tuple[int, ...]] | None = None
        for tables in range(1, seated // minimum + 1):
            small, extra = divmod(seated, tables)
            sizes = (small + 1,) * extra + (small,) * (tables - extra)
            if min(sizes) < minimum or max(sizes) > maximum:
                continue
            gaps = [abs(size - preferred) for size in sizes]
            key = (max(gaps), sum(gaps), tables)
            if best is None or key < best[0]:
                best = (key, sizes)
        if best is not None:
            return Split(sizes=best[1], byes=byes)
    return Split(sizes=(), byes=count)


def pair_tables(
    players: Sequence[PlayerHistory], *, preferred: int, minimum: int, maximum: int
) -> Round:
    """The next round's tables (the leaders' table first, each in seat order) and byes.

    The byes go to those who have had the fewest, the lowest-standing among them.
    """
    ordered = by_standing(players)
    if len({p.id for p in ordered}) != len(ordered):
        raise ValueError("each player once")
    split = table_sizes(len(ordered), preferred, minimum, maximum)
    resting = set(sorted(range(len(ordered)), key=lambda k: (ordered[k].byes, -k))[: split.byes])
    seated = [p for k, p in enumerate(ordered) if k not in resting]
    groups = seat_groups(seated, split.sizes)
    tables = tuple(Table(seats=_seat_order([seated[k] for k in group])) for group in groups)
    return Round(tables=tables, byes=tuple(ordered[k].id for k in sorted(resting)))


def seat_groups(ordered: list[PlayerHistory], sizes: Sequence[int]) -> list[tuple[int, ...]]:
    """Who sits together, as places in ``ordered`` (the standing), the leaders' table first."""
    met_by_id = [dict(p.met) for p in ordered]
    met = [[met_by_id[k].get(q.id, 0) for q in ordered] for k in range(len(ordered))]
    groups = _improve(_blocks(sizes), met)
    if len(ordered) <= EXACT_LIMIT:
        groups = _exact(len(ordered), sorted(sizes), met, groups)
    return sorted(groups)


def _cost(group: Sequence[int], met: Sequence[Sequence[int]]) -> Cost:
    pairs = list(combinations(group, 2))
    return (sum(met[a][b] for a, b in pairs), sum(abs(a - b) for a, b in pairs))


def _total(groups: Sequence[Sequence[int]], met: Sequence[Sequence[int]]) -> Cost:
    costs = [_cost(group, met) for group in groups]
    return (sum(c[0] for c in costs), sum(c[1] for c in costs))


def _blocks(sizes: Sequence[int]) -> list[tuple[int, ...]]:
    groups, start = [], 0
    for size in sorted(sizes, reverse=True):
        groups.append(tuple(range(start, start + size)))
        start += size
    return groups


def _improve(groups: list[tuple[int, ...]], met: Sequence[Sequence[int]]) -> list[tuple[int, ...]]:
    """Swaps two players of tables at most ``SWAP_REACH`` apart in the standing while a
    swap makes the round cheaper (each swap lowers the cost, so this ends)."""
    groups = [tuple(sorted(g)) for g in groups]
    costs = [_cost(g, met) for g in groups]
    improved = True
    while improved:
        improved = False
        for i in range(len(groups)):
            for j in range(i + 1, min(len(groups), i + 1 + SWAP_REACH)):
                while _swap(groups, costs, i, j, met):
                    improved = True
    return groups


def _swap(
    groups: list[tuple[int, ...]], costs: list[Cost], i: int, j: int, met: Sequence[Sequence[int]]
) -> bool:
    """Makes the first swap between tables i and j that lowers their cost, if any."""
    for a in groups[i]:
        for b in groups[j]:
            new_i = tuple(sorted([x for x in groups[i] if x != a] + [b]))
            new_j = tuple(sorted([x for x in groups[j] if x != b] + [a]))
            cost_i, cost_j = _cost(new_i, met), _cost(new_j, met)
            if _add(cost_i, cost_j) < _add(costs[i], costs[j]):
                groups[i], groups[j] = new_i, new_j
                costs[i], costs[j] = cost_i, cost_j
                return True
    return False


def _exact(
    count: int, sizes: list[int], met: Sequence[Sequence[int]], start: list[tuple[int, ...]]
) -> list[tuple[int, ...]]:
    """Every seating weighed, the cheapest kept: the best-placed player left always opens
    the next table (so each seating is met once), a branch dropped once it costs as much
    as the best found."""
    best_cost, best = _total(start, met), start

    def search(
        left: tuple[int, ...], sizes: list[int], cost: Cost, chosen: list[tuple[int, ...]]
    ) -> None:
        nonlocal best_cost, best
        if cost >= best_cost:
            return
        if not left:
            best_cost, best = cost, list(chosen)
            return
        head, rest = left[0], left[1:]
        for size in sorted(set(sizes)):
            others = list(sizes)
            others.remove(size)
            for partners in combinations(rest, size - 1):
                group = (head, *partners)
                remaining = tuple(p for p in rest if p not in partners)
                search(remaining, others, _add(cost, _cost(group, met)), [*chosen, group])

    search(tuple(range(count)), sizes, (0, 0), [])
    return best


def _add(a: Cost, b: Cost) -> Cost:
    return (a[0] + b[0], a[1] + b[1])


def _seat_order(table: list[PlayerHistory]) -> tuple[PlayerId, ...]:
    """First whoever has been first least (then the better standing), then the others in
    the same order."""
    return tuple(p.id for p in sorted(table, key=lambda p: (p.firsts, table.index(p))))
