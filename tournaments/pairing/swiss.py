"""A two-player Swiss round (District Noir) as one maximum-weight perfect matching.

Every pair of players is an edge (above ``DENSE_LIMIT`` players, the pairs that can matter:
``pair_swiss``), and so is every player with a "bye" node when the count is odd. An
edge's cost is a tuple compared in strict order; its weight packs the tuple into one
integer (each level multiplied past the largest total the lower levels can reach), so the
heaviest perfect matching is the lexicographically cheapest pairing:

1. repeats: games the pair has already played against each other (never the same pair
   twice while another pairing exists);
2. the bye: byes the player has already had (one bye each while avoidable), then the
   player's points (the bye goes to the lowest score group that can take it);
3. score closeness: the squared difference of the pair's points (equal scores together;
   one big float is worse than two small ones);
4. the bye again: the player's place from the bottom (the lowest-standing player of that
   score group who can take it);
5. first seat: how far past one the pair's seat balances go once seated (last but the
   tie-break, so scores that leave no better pairing can take a balance to two);
6. a deterministic tie-break: the squared gap between the pair's standings (neighbours meet).

Integers keep networkx's blossom algorithm exact. Ties left between equally cheap matchings
go the same way for the same input: the graph is always built in standing order.
"""

from __future__ import annotations

from collections.abc import Sequence

# networkx ships no types (types-networkx would add them).
import networkx as nx  # type: ignore[import-untyped]

from tournaments.pairing.history import PlayerHistory, PlayerId, by_standing
from tournaments.pairing.rounds import Round, Table

Cost = tuple[int, ...]


#: Up to this many players the graph has every pair (exact); above it, a sparse graph.
DENSE_LIMIT = 64
#: In the sparse graph, how many places apart two players of neighbouring score groups may be.
NEIGHBOURS = 8
#: In the sparse graph, how many places apart two players of the same score group may be.
WITHIN = 16


def pair_swiss(players: Sequence[PlayerHistory]) -> Round:
    """The next round for the players still in (points must be multiples of 0.5).

    Up to ``DENSE_LIMIT`` players every pair is an edge, so the pairing is the cheapest
    there is. Above it (blossom in pure Python is cubic), the graph keeps only the pairs
    who have not met and stand at most ``WITHIN`` places apart in a score group or
    ``NEIGHBOURS`` places apart across groups at most one point apart, and the bye edges
    of those who have had the fewest byes; when that leaves no perfect matching, every
    pair again. (tests/tournaments/test_swiss.py checks that it finds what every pair
    would.)
    """
    ordered = by_standing(players)
    if len({p.id for p in ordered}) != len(ordered):
        raise ValueError("each player once")
    if len(ordered) < 2:
        return Round(tables=(), byes=tuple(p.id for p in ordered))
    # Nodes are places in the standing; the bye node, when there is one, comes last.
    count = len(ordered)
    nodes = count + count % 2
    costs = _edge_costs(ordered)
    matching = None
    if count > DENSE_LIMIT:
        matching = _cheapest_perfect_matching(nodes, _sparse(costs, ordered))
    if matching is None:
        matching = _cheapest_perfect_matching(nodes, costs)
    if matching is None:
        raise AssertionError("a complete graph always has a perfect matching")
    byes: tuple[PlayerId, ...] = ()
    tables = []
    for a, b in matching:
        if b == count:
            byes = (ordered[a].id,)
        else:
            tables.append(_seat(ordered[a], a, ordered[b], b))
    return Round(tables=tuple(tables), byes=byes)


def seat_pair(a: PlayerHistory, b: PlayerHistory) -> Table:
    """Who has been first less (by seat balance, then count) goes first; then whoever was
    not first last time; then the better standing."""
    ordered = by_standing((a, b))
    return _seat(ordered[0], 0, ordered[1], 1)


def _seat_key(player: PlayerHistory, place: int) -> tuple[int, int, bool, int]:
    return (player.seat_balance, player.firsts, player.last_first, place)


def _seat(a: PlayerHistory, a_place: int, b: PlayerHistory, b_place: int) -> Table:
    first, second = (a, b) if _seat_key(a, a_place) < _seat_key(b, b_place) else (b, a)
    return Table(seats=(first.id, second.id))


def _seat_cost(first_balance: int, second_balance: int) -> int:
    """How far past one the seat balances go once the pair is seated."""
    return max(0, abs(first_balance + 1) - 1) + max(0, abs(second_balance - 1) - 1)


def _edge_costs(ordered: list[PlayerHistory]) -> dict[tuple[int, int], Cost]:
    count = len(ordered)
    halves = [_half_points(p.points) for p in ordered]
    lowest = min(halves)
    met = [dict(p.met) for p in ordered]
    keys = [_seat_key(p, place) for place, p in enumerate(ordered)]
    balances = [p.seat_balance for p in ordered]
    costs: dict[tuple[int, int], Cost] = {}
    for i, a in enumerate(ordered):
        for j in range(i + 1, count):
            b = ordered[j]
            seat = (
                _seat_cost(balances[i], balances[j])
                if keys[i] < keys[j]
                else _seat_cost(balances[j], balances[i])
            )
            costs[(i, j)] = (
                met[i].get(b.id, 0),
                0,
                0,
                (halves[i] - halves[j]) ** 2,
                0,
                seat,
                (j - i) ** 2,
            )
        if count % 2:
            costs[(i, count)] = (0, a.byes, halves[i] - lowest, 0, count - 1 - i, 0, 0)
    return costs


def _sparse(
    costs: dict[tuple[int, int], Cost], ordered: list[PlayerHistory]
) -> dict[tuple[int, int], Cost]:
    fewest_byes = min(p.byes for p in ordered)
    count = len(ordered)
    return {
        (i, j): cost
        for (i, j), cost in costs.items()
        if (j == count and ordered[i].byes == fewest_byes)
        or (
            j < count
            and cost[0] == 0
            and cost[6] <= (WITHIN if cost[3] == 0 else NEIGHBOURS if cost[3] <= 4 else 0) ** 2
        )
    }


def _cheapest_perfect_matching(
    nodes: int, costs: dict[tuple[int, int], Cost]
) -> list[tuple[int, int]] | None:
    """The perfect matching of nodes 0..nodes-1 (over the edges of ``costs``) whose costs
    add up to the lexicographically least total, as (lower, higher) pairs in order; None
    when the edges allow no perfect matching."""
    levels = len(next(iter(costs.values())))
    pairs = nodes // 2
    # Each level's multiplier exceeds the most that all the levels below can add up to.
    multipliers = [1] * levels
    for level in range(levels - 2, -1, -1):
        most = max(cost[level + 1] for cost in costs.values())
        multipliers[level] = multipliers[level + 1] * (pairs * most + 1)
    packed = {edge: sum(c * m for c, m in zip(cost, multipliers)) for edge, cost in costs.items()}
    ceiling = max(packed.values()) + 1
    graph = nx.Graph()
    graph.add_nodes_from(range(nodes))
    graph.add_weighted_edges_from((a, b, ceiling - w) for (a, b), w in packed.items())
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    if 2 * len(matching) != nodes:
        return None
    return sorted((min(a, b), max(a, b)) for a, b in matching)


def _half_points(points: float) -> int:
    halves = round(points * 2)
    if halves != points * 2:
        raise ValueError(f"points in halves only: {points}")
    return halves
