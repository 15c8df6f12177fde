"""Paying for buildings in Point City (section 3.3 of the rules document).

A payment is a tuple of 11 counts of resource cards spent, indexed by card kind:
0-4 a single card of that basic resource, 5-9 a double card of that resource, 10 an
Ingenuity card. Permanent resources are not part of it: they cost nothing, so the
rules module always uses them first and passes only what is left to pay (``need``).
"""

from __future__ import annotations

from collections.abc import Sequence

from games.rules.point_city_cards import RESOURCES, Card

INGENUITY_KIND = 10
KIND_NAMES = (*RESOURCES, *(f"double-{name}" for name in RESOURCES), "ingenuity")
"""The keys of an action's ``pay`` dict, by card kind."""

Payment = tuple[int, ...]


def card_kind(card: Card) -> int:
    if card.resource == 5:
        return INGENUITY_KIND
    return card.resource + 5 if card.double else card.resource


def _type_options(need: int, singles: int, doubles: int) -> list[tuple[int, int, int]]:
    """Ways ``(singles, doubles, left for Ingenuity)`` to pay ``need`` units of one type.

    Only minimal ways (no card could be dropped) that no other way beats card for card:
    a double or an Ingenuity is worth at least a single, so keeping them is never worse.
    """
    if need == 0:
        return [(0, 0, 0)]
    found = []
    for d in range(min(doubles, (need + 1) // 2) + 1):
        for s in range(min(singles, max(0, need - 2 * d)) + 1):
            found.append((s, d, max(0, need - s - 2 * d)))
    return [
        (s, d, i)
        for s, d, i in found
        if not any(
            (s2, d2, i2) != (s, d, i)
            and d2 <= d
            and i2 <= i
            and max(0, s2 - s - (d - d2)) <= i - i2
            for s2, d2, i2 in found
        )
    ]


def payments(need: Sequence[int], have: Sequence[int]) -> list[Payment]:
    """The distinct sensible payments of ``need`` from the cards ``have`` (counts by kind).

    ``need`` holds the units still owed per basic resource. The list is empty when the
    cards cannot pay. The first payment is the default: fewest Ingenuity cards, then
    fewest doubles, then least waste, then fewest cards.
    """
    options = [_type_options(need[t], have[t], have[t + 5]) for t in range(5)]
    wild = have[INGENUITY_KIND]
    result: list[tuple[tuple[int, ...], Payment]] = []

    def walk(t: int, chosen: list[tuple[int, int, int]], owed: int) -> None:
        if t == 5:
            pay = [0] * 11
            waste = 0
            for r, (s, d, _) in enumerate(chosen):
                pay[r], pay[r + 5] = s, d
                waste += max(0, s + 2 * d - need[r])
            pay[INGENUITY_KIND] = owed
            key = (owed, sum(pay[5:10]), waste, sum(pay[:5]))
            result.append((key, tuple(pay)))
            return
        for option in options[t]:
            if owed + option[2] <= wild:
                chosen.append(option)
                walk(t + 1, chosen, owed + option[2])
                chosen.pop()

    walk(0, [], 0)
    result.sort()
    return [pay for _, pay in result]


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
