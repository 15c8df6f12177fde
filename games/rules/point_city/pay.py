"""Paying for buildings in Point City (docs/rules/point-city.md §3.3).

A payment is a tuple of 11 counts of resource cards spent, indexed by card kind:
0-4 a single card of that basic resource, 5-9 a double card of that resource, 10 an
Ingenuity card. Permanent resources are not part of it: they cost nothing, so the
rules module always uses them first and passes only what is left to pay (``need``).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from itertools import product

from games.rules.point_city.cards import RESOURCES, Card

INGENUITY_KIND = 10
KIND_NAMES = (*RESOURCES, *(f"double-{name}" for name in RESOURCES), "ingenuity")
"""The keys of an action's ``pay`` dict, by card kind."""

Payment = tuple[int, ...]


def card_kind(card: Card) -> int:
    if card.resource == 5:
        return INGENUITY_KIND
    return card.resource + 5 if card.double else card.resource


@lru_cache(maxsize=4096)
def _type_options(need: int, singles: int, doubles: int) -> tuple[tuple[int, int, int], ...]:
    """Ways ``(singles, doubles, left for Ingenuity)`` to pay ``need`` units of one type.

    Only minimal ways (no card could be dropped) that no other way beats card for card:
    a double or an Ingenuity is worth at least a single, so keeping them is never worse.
    """
    if need == 0:
        return ((0, 0, 0),)
    found = []
    for d in range(min(doubles, (need + 1) // 2) + 1):
        for s in range(min(singles, max(0, need - 2 * d)) + 1):
            found.append((s, d, max(0, need - s - 2 * d)))
    return tuple(
        (s, d, i)
        for s, d, i in found
        if not any(
            (s2, d2, i2) != (s, d, i)
            and d2 <= d
            and i2 <= i
            and max(0, s2 - s - (d - d2)) <= i - i2
            for s2, d2, i2 in found
        )
    )


def payments(need: Sequence[int], have: Sequence[int]) -> list[Payment]:
    """The distinct sensible payments of ``need`` from the cards ``have`` (counts by kind).

    ``need`` holds the units still owed per basic resource. The list is empty when the
    cards cannot pay. The first payment is the default: fewest Ingenuity cards, then
    fewest doubles, then least waste, then fewest cards.
    """
    return list(cached_payments(tuple(need), tuple(have)))


# A pure function of a few small counts, asked again and again in every turn of every
# playout (each adjacent pair, then the chosen take once more): memoised, bounded.
@lru_cache(maxsize=16384)
def cached_payments(need: tuple[int, ...], have: tuple[int, ...]) -> tuple[Payment, ...]:
    """``payments`` as an immutable tuple, for callers that pass tuples."""
    wild = have[INGENUITY_KIND]
    short = sum(max(0, need[t] - have[t] - 2 * have[t + 5]) for t in range(5))
    if short > wild:
        return ()  # the quick answer for most pairs a player cannot afford
    options = [_type_options(need[t], have[t], have[t + 5]) for t in range(5)]
    result: list[tuple[tuple[int, ...], Payment]] = []
    for chosen in product(*options):
        owed = chosen[0][2] + chosen[1][2] + chosen[2][2] + chosen[3][2] + chosen[4][2]
        if owed > wild:
            continue
        pay = [0] * 11
        waste = 0
        for r, (s, d, _) in enumerate(chosen):
            pay[r], pay[r + 5] = s, d
            waste += max(0, s + 2 * d - need[r])
        pay[INGENUITY_KIND] = owed
        key = (owed, sum(pay[5:10]), waste, sum(pay[:5]))
        result.append((key, tuple(pay)))
    result.sort()
    return tuple(pay for _, pay in result)


FREE: tuple[Payment, ...] = ((0,) * 11,)
"""The one payment for a take that builds nothing, or whose cost permanents cover."""

Cell = tuple[tuple[int, ...] | None, int]
"""A market card as paying sees it: the building's cost if its building side shows (else
None), and the kind of resource card it is if its resource side shows (else -1)."""


def pair_payments(
    first: Cell, second: Cell, perm: Sequence[int], stock: tuple[int, ...]
) -> tuple[Payment, ...]:
    """The payments offered for taking two market cards, given the taker's permanent
    resources and resource cards (counts by kind); empty if the taker cannot pay.

    Permanent resources pay first, each once for both buildings (rules P3); a resource
    card taken beside a building may pay for it. This runs for every adjacent pair on
    every turn of every playout, so it answers the common cases without allocating.
    """
    cost, kind = first
    other, other_kind = second
    if cost is None:
        if other is None:
            return FREE
        cost = other
    elif other is None:
        kind = other_kind
    else:
        cost = tuple(x + y for x, y in zip(cost, other))
        kind = -1
    need = (
        max(0, cost[0] - perm[0]),
        max(0, cost[1] - perm[1]),
        max(0, cost[2] - perm[2]),
        max(0, cost[3] - perm[3]),
        max(0, cost[4] - perm[4]),
    )
    if not any(need):
        return FREE
    have = stock if kind < 0 else (*stock[:kind], stock[kind] + 1, *stock[kind + 1 :])
    short = 0
    for t in range(5):
        missing = need[t] - have[t] - 2 * have[t + 5]
        if missing > 0:
            short += missing
    if short > have[INGENUITY_KIND]:
        return ()
    return cached_payments(need, have)


def pay_json(pay: Payment) -> dict[str, int]:
    return {KIND_NAMES[k]: n for k, n in enumerate(pay) if n}


def pay_from_json(data: object) -> Payment | None:
    """The payment an action's ``pay`` dict names, or None if it is malformed."""
    if not isinstance(data, dict):
        return None
    pay = [0] * 11
    for key, count in data.items():
        if key not in KIND_NAMES or type(count) is not int or count < 1:
            return None
        pay[KIND_NAMES.index(key)] = count
    return tuple(pay)
