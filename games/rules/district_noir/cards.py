"""District Noir's cards (rules §1) and end-of-game scoring (rules §6), as plain data.

A card's face is a small int, its *face code*: the index of its face in ``FACES``.
Cards with the same face are interchangeable, so a face code is all a state needs.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

SUPPORT, ALLIANCE, BETRAYAL, CITY = "support", "alliance", "betrayal", "city"

#: One entry per distinct face: (kind, value, city name or None). Betrayal values are negative.
FACES: tuple[tuple[str, int, str | None], ...] = (
    (SUPPORT, 5, None),
    (SUPPORT, 6, None),
    (SUPPORT, 7, None),
    (SUPPORT, 8, None),
    (ALLIANCE, 2, None),
    (ALLIANCE, 3, None),
    (ALLIANCE, 4, None),
    (BETRAYAL, -1, None),
    (BETRAYAL, -2, None),
    (BETRAYAL, -3, None),
    (CITY, 0, "docks"),
    (CITY, 0, "police"),
    (CITY, 0, "cityhall"),
)
COPIES: tuple[int, ...] = (5, 6, 7, 8, 4, 2, 1, 3, 4, 2, 1, 1, 1)

#: The 45 cards of the box as face codes, before the shuffle.
DECK: tuple[int, ...] = tuple(code for code, n in enumerate(COPIES) for _ in range(n))

SUPPORT_VALUES: tuple[int, ...] = (5, 6, 7, 8)
SUPPORT_CODES: tuple[int, ...] = (0, 1, 2, 3)
POINT_CODES: tuple[int, ...] = (4, 5, 6, 7, 8, 9)
CITY_CODES: tuple[int, ...] = (10, 11, 12)
FIRST_CITY = CITY_CODES[0]
SET_POINTS = 5

_FACE_JSON: tuple[dict[str, Any], ...] = tuple(
    {"kind": kind, "value": value, **({"name": name} if name else {})}
    for kind, value, name in FACES
)
_CODE_OF: dict[tuple[str, int, str | None], int] = {face: code for code, face in enumerate(FACES)}


def card_json(card_id: int, code: int) -> dict[str, Any]:
    """A visible card as the views show it: ``{"id", "kind", "value"[, "name"]}``."""
    return {"id": card_id, **_FACE_JSON[code]}


def face_code(card: dict[str, Any]) -> int:
    """The face code of a card as ``card_json`` shows it."""
    return _CODE_OF[(card["kind"], card["value"], card.get("name"))]


def tally(codes: Iterable[int]) -> list[int]:
    """How many cards of each face code (13 counts)."""
    counts = [0] * len(FACES)
    for code in codes:
        counts[code] += 1
    return counts


def cities(counts: list[int]) -> int:
    return counts[10] + counts[11] + counts[12]


def face_points(counts: list[int], kind: str) -> int:
    """The sum of the values of a player's Alliance (or Betrayal) cards."""
    return sum(counts[c] * FACES[c][1] for c in POINT_CODES if FACES[c][0] == kind)


def summary(counts: list[int]) -> dict[str, Any]:
    """The public summary of one collection that the board shows beside it."""
    return {
        "support": {str(v): counts[c] for v, c in zip(SUPPORT_VALUES, SUPPORT_CODES)},
        "cities": cities(counts),
        "alliance": face_points(counts, ALLIANCE),
        "betrayal": face_points(counts, BETRAYAL),
    }


def majority_leaders(counts: tuple[list[int], list[int]]) -> dict[str, int | None]:
    """Who holds strictly more Support cards of each value; None on a tie (0-0 included)."""
    leaders: dict[str, int | None] = {}
    for value, code in zip(SUPPORT_VALUES, SUPPORT_CODES):
        a, b = counts[0][code], counts[1][code]
        leaders[str(value)] = 0 if a > b else 1 if b > a else None
    return leaders


def breakdown(counts: tuple[list[int], list[int]], seat: int) -> dict[str, Any]:
    """One seat's end-of-game score per §6, item by item."""
    own, other = counts[seat], counts[1 - seat]
    majorities = {
        str(v): v if own[c] > other[c] else 0 for v, c in zip(SUPPORT_VALUES, SUPPORT_CODES)
    }
    sets = min(own[c] for c in SUPPORT_CODES)
    alliance, betrayal = face_points(own, ALLIANCE), face_points(own, BETRAYAL)
    return {
        "majorities": majorities,
        "sets": sets,
        "set_points": SET_POINTS * sets,
        "alliance": alliance,
        "betrayal": betrayal,
        "total": sum(majorities.values()) + SET_POINTS * sets + alliance + betrayal,
        "support_counts": {str(v): own[c] for v, c in zip(SUPPORT_VALUES, SUPPORT_CODES)},
        "cities": cities(own),
    }


#: The tie-breaks of §6 in order: a name for the end screen and how to count it.
TIEBREAKS: tuple[tuple[str, Any], ...] = (
    ("support-8", lambda counts: counts[3]),
    ("support-7", lambda counts: counts[2]),
    ("support-6", lambda counts: counts[1]),
    ("support-5", lambda counts: counts[0]),
    ("cities", cities),
)


def final_ranking(
    counts: tuple[list[int], list[int]],
) -> tuple[list[int], list[float], str | None, list[dict[str, Any]]]:
    """Ranks, scores, the tie-break that decided (``"shared"`` for a draw) and the breakdowns."""
    breakdowns = [breakdown(counts, 0), breakdown(counts, 1)]
    totals = [b["total"] for b in breakdowns]
    scores = [float(t) for t in totals]
    if totals[0] != totals[1]:
        return ([0, 1] if totals[0] > totals[1] else [1, 0]), scores, None, breakdowns
    for name, count in TIEBREAKS:
        a, b = count(counts[0]), count(counts[1])
        if a != b:
            return ([0, 1] if a > b else [1, 0]), scores, name, breakdowns
    return [0, 0], scores, "shared", breakdowns
