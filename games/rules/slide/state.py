"""Slide's state, its JSON form, and drawing a state consistent with one seat's view.

Card ids are positions in the initial shuffle of the 100 cards: ids 0..16n-1 are
dealt (seat s gets 16s..16s+15, row-major), the others stay out of play unseen.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from games.rules.base import View
from games.rules.slide.grid import CELLS, HOLE, SIZE

ROUNDS = 16
DECK_SIZE = 100
ZERO_SHIFT = "allowZeroShiftEntry"
PICK, SLIDE, OVER = "pick", "slide", "over"


@dataclass(frozen=True, slots=True)
class SlideState:
    """One moment of a game.

    ``values[id]`` is a card's number; ``grids[s]`` seat s's 16 cells (card id or
    ``HOLE``); ``up`` a bitmask of face-up card ids (centre and grid); ``picks[s]``
    the cell seat s picked this round or -1; ``first`` the token holder; ``turn``
    the seat sliding now or -1. ``log`` holds public events only.
    """

    num_players: int
    seed: int
    allow_zero_shift: bool
    values: tuple[int, ...]
    grids: tuple[tuple[int, ...], ...]
    up: int
    picks: tuple[int, ...]
    centre: tuple[int, ...]
    round: int
    first: int
    phase: str
    turn: int
    log: tuple[dict[str, Any], ...]


Cell = dict[str, Any] | None
"""A grid cell as a view shows it: ``{"card", "value"}`` face up, ``{"card": None, "value": None,
"picked"}`` face down (``picked``: the viewer's own pick), None for the hole."""


class SlideView(View):
    waiting_seats: list[int]  # in the pick phase, those who have not picked yet
    phase: str  # "pick", "slide" or "over"
    round: int
    rounds: int
    first_player: int  # the token holder
    order: list[int]  # the seats in this round's turn order
    turn: int | None  # the seat sliding now
    grids: list[list[list[Cell]]]  # per seat, 4 rows of 4 cells
    picked: list[bool]  # per seat, whether it has picked this round
    picked_count: int
    my_pick: list[int] | None  # the viewer's own pick, ``[row, col]``
    centre: list[dict[str, Any]]  # ``{"card", "value"}``
    entries: list[dict[str, Any]]  # ``entry_preview`` of each legal entry now
    options: dict[str, bool]
    out_of_play: int  # cards never dealt


def read_options(options: dict[str, Any] | None) -> bool:
    """The table option ``allowZeroShiftEntry`` (default off, rules A1)."""
    options = dict(options or {})
    allow = options.pop(ZERO_SHIFT, False)
    if options or not isinstance(allow, bool):
        raise ValueError(f"Slide accepts only the boolean option {ZERO_SHIFT!r}.")
    return allow


def full_deck() -> list[int]:
    """The 100 numbers: 1 to 10, ten copies each."""
    return [value for value in range(1, 11) for _ in range(10)]


def state_to_json(state: SlideState) -> dict[str, Any]:
    return {
        "num_players": state.num_players,
        "seed": state.seed,
        "options": {ZERO_SHIFT: state.allow_zero_shift},
        "values": list(state.values),
        "grids": [list(grid) for grid in state.grids],
        "up": [card for card in range(len(state.values)) if state.up >> card & 1],
        "picks": list(state.picks),
        "centre": list(state.centre),
        "round": state.round,
        "first": state.first,
        "phase": state.phase,
        "turn": state.turn,
        "log": [dict(event) for event in state.log],
    }


def state_from_json(data: dict[str, Any]) -> SlideState:
    up = 0
    for card in data["up"]:
        up |= 1 << card
    return SlideState(
        num_players=data["num_players"],
        seed=data["seed"],
        allow_zero_shift=read_options(data["options"]),
        values=tuple(data["values"]),
        grids=tuple(tuple(grid) for grid in data["grids"]),
        up=up,
        picks=tuple(data["picks"]),
        centre=tuple(data["centre"]),
        round=data["round"],
        first=data["first"],
        phase=data["phase"],
        turn=data["turn"],
        log=tuple(dict(event) for event in data["log"]),
    )


def sample_from_view(view: SlideView, seat: int, rng: random.Random) -> SlideState:
    """A state whose view for ``seat`` is ``view``.

    Known: face-up grid cards and centre cards (ids and numbers), holes, the log,
    the seat's own pick. Drawn by ``rng``: which unseen id sits in each face-down
    cell, every unseen card's number (from what is left of the 100), the other
    seats' picks.
    """
    n = view["num_players"]
    values: list[int | None] = [None] * DECK_SIZE
    up, grids, blanks = 0, [], []
    for s, rows in enumerate(view["grids"]):
        grid = []
        for i, cell in enumerate(cell for row in rows for cell in row):
            if cell is not None and cell["card"] is not None:
                grid.append(cell["card"])
                values[cell["card"]] = cell["value"]
                up |= 1 << cell["card"]
            else:
                grid.append(HOLE)
                if cell is not None:
                    blanks.append((s, i))
        grids.append(grid)
    for item in view["centre"]:
        values[item["card"]] = item["value"]
        up |= 1 << item["card"]
    remaining = full_deck()
    for value in values:
        if value is not None:
            remaining.remove(value)
    rng.shuffle(remaining)
    unknown = [card for card in range(DECK_SIZE) if values[card] is None]
    for card, value in zip(unknown, remaining, strict=True):
        values[card] = value
    unseen_in_play = [card for card in unknown if card < CELLS * n]
    rng.shuffle(unseen_in_play)
    for (s, i), card in zip(blanks, unseen_in_play, strict=True):
        grids[s][i] = card
    picks = [-1] * n
    if view["phase"] == PICK:
        for s in range(n):
            if s == seat and view["my_pick"] is not None:
                picks[s] = view["my_pick"][0] * SIZE + view["my_pick"][1]
            elif s != seat and view["picked"][s]:
                picks[s] = rng.choice([i for t, i in blanks if t == s])
    return SlideState(
        num_players=n,
        seed=rng.randrange(2**31),
        allow_zero_shift=view["options"][ZERO_SHIFT],
        values=tuple(value or 0 for value in values),
        grids=tuple(tuple(grid) for grid in grids),
        up=up,
        picks=tuple(picks),
        centre=tuple(item["card"] for item in view["centre"]),
        round=view["round"],
        first=view["first_player"],
        phase=view["phase"],
        turn=-1 if view["turn"] is None else view["turn"],
        log=tuple(dict(event) for event in view["log"]),
    )
