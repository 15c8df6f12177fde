"""Slide's 4 x 4 grid: the slide-in geometry (rules §4) and the end-game scoring (§5).

Cells are numbered row-major, ``index = row * 4 + col``. A grid is a tuple of 16
cells holding a card id, or ``HOLE`` where the picked card left.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

SIZE = 4
CELLS = SIZE * SIZE
HOLE = -1
EDGES = ("top", "bottom", "left", "right")


def _path(hole: int, edge: str) -> tuple[int, ...]:
    """The cells from the hole to the cell where a card entering at ``edge`` lands."""
    row, col = divmod(hole, SIZE)
    if edge == "left":
        return tuple(row * SIZE + k for k in range(col, -1, -1))
    if edge == "right":
        return tuple(row * SIZE + k for k in range(col, SIZE))
    if edge == "top":
        return tuple(k * SIZE + col for k in range(row, -1, -1))
    return tuple(k * SIZE + col for k in range(row, SIZE))


#: PATHS[hole][edge]: hole first, entry cell last; the cards in between shift one step.
PATHS: tuple[dict[str, tuple[int, ...]], ...] = tuple(
    {edge: _path(hole, edge) for edge in EDGES} for hole in range(CELLS)
)

NEIGHBOURS: tuple[tuple[int, ...], ...] = tuple(
    tuple(
        r * SIZE + c
        for r, c in ((row - 1, col), (row + 1, col), (row, col - 1), (row, col + 1))
        if 0 <= r < SIZE and 0 <= c < SIZE
    )
    for row, col in (divmod(i, SIZE) for i in range(CELLS))
)


def cell_pos(index: int) -> list[int]:
    """``[row, col]`` of a cell index, as views and outcomes show it."""
    return [index // SIZE, index % SIZE]


def entry_edges(hole: int, allow_zero_shift: bool) -> tuple[str, ...]:
    """The legal entries for a hole, in ``EDGES`` order.

    By default an entry that shifts no card (the hole lies on that edge) is illegal:
    "a card can't be placed straight into the empty slot" (rules §4, reading A1).
    """
    if allow_zero_shift:
        return EDGES
    return tuple(edge for edge in EDGES if len(PATHS[hole][edge]) > 1)


def slide_in(grid: tuple[int, ...], edge: str, card: int) -> tuple[int, ...]:
    """The grid after ``card`` enters at ``edge`` of the hole's row or column."""
    path = PATHS[grid.index(HOLE)][edge]
    cells = list(grid)
    for i in range(len(path) - 1):
        cells[path[i]] = grid[path[i + 1]]
    cells[path[-1]] = card
    return tuple(cells)


def entry_preview(hole: int, edge: str) -> dict[str, Any]:
    """Where the cards move for one entry: the new card's cell and every shift."""
    path = PATHS[hole][edge]
    return {
        "edge": edge,
        "place": cell_pos(path[-1]),
        "shifts": [
            {"from": cell_pos(path[i + 1]), "to": cell_pos(path[i])} for i in range(len(path) - 1)
        ],
    }


def score_grid(values: Sequence[int]) -> dict[str, Any]:
    """Cancellation and score of a full face-up grid, as the end screen shows it.

    Every card with an orthogonal neighbour of the same number is removed, all at
    once, so every connected same-number group of 2+ cards goes and nothing
    cascades. The score is the sum of the cards left; lower is better.
    """
    cancelled = [any(values[j] == values[i] for j in NEIGHBOURS[i]) for i in range(CELLS)]
    groups: list[dict[str, Any]] = []
    seen = [False] * CELLS
    for start in range(CELLS):
        if not cancelled[start] or seen[start]:
            continue
        seen[start] = True
        members, frontier = [start], [start]
        while frontier:
            i = frontier.pop()
            for j in NEIGHBOURS[i]:
                if not seen[j] and values[j] == values[i]:
                    seen[j] = True
                    members.append(j)
                    frontier.append(j)
        groups.append({"value": values[start], "cells": [cell_pos(i) for i in sorted(members)]})
    kept = [i for i in range(CELLS) if not cancelled[i]]
    return {
        "score": sum(values[i] for i in kept),
        "cards_left": len(kept),
        "cancelled": CELLS - len(kept),
        "groups": groups,
        "kept": [cell_pos(i) for i in kept],
        "values": [list(values[r * SIZE : (r + 1) * SIZE]) for r in range(SIZE)],
    }
