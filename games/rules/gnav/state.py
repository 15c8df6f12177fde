"""Gnav's ranks, its state and the state's JSON form (the game is in games/rules/gnav/game.py).

Card ids are positions in the match's initial shuffle: ``faces[id]`` is the card's
strength, fixed for the match, while every deal shuffles the ids anew. An id therefore
says nothing about its face.
"""

from __future__ import annotations

from typing import Any, NamedTuple

NUM_SEATS = 4
START_LIVES = 3

FOOL = 1
HIGHEST_ORDINARY = 16  # Fool, Owl, Pot, 0 and I..XII are ordinary: strengths 1-16
HOUSE, HORSE, CAT, DRAGOON, CUCKOO = 17, 18, 19, 20, 21
PASS_ON = (HOUSE, HORSE)

#: English rank names, indexed by strength - 1 (strength 1 is the lowest).
RANK_NAMES = (
    "Fool",
    "Owl",
    "Pot",
    "0",
    *("I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII"),
    "House",
    "Horse",
    "Cat",
    "Dragoon",
    "Cuckoo",
)
#: The pack: two cards of each of the 21 strengths.
PACK = tuple(strength for strength in range(1, len(RANK_NAMES) + 1) for _ in range(2))
NUM_CARDS = len(PACK)

Event = dict[str, Any]
"""A log entry ``{"type": ..., "seat": ..., ...}``; card fields hold ids. Never mutated."""


class GnavState(NamedTuple):
    """A whole match. Per-seat tuples are indexed by seat; the deal fields describe the
    current deal (the last one once the match is over)."""

    seed: int
    cat_undo: bool
    faces: tuple[int, ...]  # strength of each card id
    lives: tuple[int, ...]
    out_order: tuple[int | None, ...]  # seats already out when this one went out; None: alive
    deal: int  # deals started so far, skipped ones included
    button: int
    dealer: int  # the effective dealer of the current deal
    resting: tuple[int, ...]
    order: tuple[int, ...]  # seats still in the deal, in turn order, dealer last
    turn: int | None  # the seat to act; None once the match is over
    dealt: tuple[int | None, ...]  # the card dealt to each seat this deal
    hands: tuple[int | None, ...]
    fools: tuple[bool, ...]  # the public Fool markers
    trades: tuple[tuple[int, int], ...]  # (asker, receiver) since the deal or the last Cat
    stock: tuple[int, ...]  # top first
    aside: tuple[int, ...]  # House/Horse/matadors turned up from the stock, face up
    discard: tuple[int, ...]  # cards given up to the stock, face down
    removed: tuple[int, ...]  # cards of seats knocked out during this deal, face down
    log: tuple[Event, ...]


_SEAT_TUPLES = ("lives", "out_order", "dealt", "hands", "fools")
_CARD_TUPLES = ("faces", "resting", "order", "stock", "aside", "discard", "removed")


def copy_event(event: Event) -> Event:
    """A copy whose list values are copies too (events hold only scalars and flat lists)."""
    return {key: list(value) if isinstance(value, list) else value for key, value in event.items()}


def state_to_json(state: GnavState) -> dict[str, Any]:
    data: dict[str, Any] = {
        "seed": state.seed,
        "cat_undo": state.cat_undo,
        "deal": state.deal,
        "button": state.button,
        "dealer": state.dealer,
        "turn": state.turn,
        "trades": [list(pair) for pair in state.trades],
        "log": [copy_event(event) for event in state.log],
    }
    for name in _SEAT_TUPLES + _CARD_TUPLES:
        data[name] = list(getattr(state, name))
    return data


def state_from_json(data: dict[str, Any]) -> GnavState:
    fields: dict[str, Any] = {name: tuple(data[name]) for name in _SEAT_TUPLES + _CARD_TUPLES}
    return GnavState(
        seed=data["seed"],
        cat_undo=data["cat_undo"],
        deal=data["deal"],
        button=data["button"],
        dealer=data["dealer"],
        turn=data["turn"],
        trades=tuple((pair[0], pair[1]) for pair in data["trades"]),
        log=tuple(copy_event(event) for event in data["log"]),
        **fields,
    )
