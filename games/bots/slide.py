"""Slide's greedy heuristic, from docs/rules/slide.md (§4 sliding, §5 scoring) and a seat's view.

Lower grid sums win, and equal orthogonal neighbours cancel. A slide is judged by the
grid it leaves: every face-up card that already has an equal neighbour counts nothing;
any other face-up card counts its number, less the chance that one of its face-down
neighbours turns out equal; face-down cards count the same wherever they are pushed.
The pick is blind: the bot prefers a hole with more ways to slide in (more choice next).
"""

from __future__ import annotations

import math
from typing import Any, cast

from games.bots.base import seat_of
from games.bots.games import GameBots
from games.rules.base import Action, AnyRules, State
from games.rules.slide.state import SlideView

SIZE = 4
CELLS = SIZE * SIZE
NEIGHBOURS = tuple(
    tuple(
        r * SIZE + c
        for r, c in ((row - 1, col), (row + 1, col), (row, col - 1), (row, col + 1))
        if 0 <= r < SIZE and 0 <= c < SIZE
    )
    for row, col in (divmod(i, SIZE) for i in range(CELLS))
)
UNKNOWN = 0  # a face-down card in a flat grid of numbers; face-up numbers are 1..10
HOLE = -1
# The chance that a face-down card equals a given number (ten numbers, ten copies each).
MATCH = 0.1
KEEP = tuple((1.0 - MATCH) ** hidden for hidden in range(5))
"""The chance that none of ``hidden`` face-down neighbours matches a card."""


def _path(hole: int, edge: str) -> list[int]:
    """The cells from the hole to the entry cell, as in ``games.rules.slide.grid``."""
    row, col = divmod(hole, SIZE)
    if edge == "left":
        return [row * SIZE + k for k in range(col, -1, -1)]
    if edge == "right":
        return [row * SIZE + k for k in range(col, SIZE)]
    if edge == "top":
        return [k * SIZE + col for k in range(row, -1, -1)]
    return [k * SIZE + col for k in range(row, SIZE)]


def flat_grid(rows: list[list[dict[str, Any] | None]]) -> list[int]:
    """A grid from a view as 16 numbers: 1..10 face up, ``UNKNOWN``, or ``HOLE``."""
    flat = []
    for cell in (cell for row in rows for cell in row):
        if cell is None:
            flat.append(HOLE)
        else:
            flat.append(cell["value"] or UNKNOWN)
    return flat


def slide_in(grid: list[int], edge: str, value: int) -> list[int]:
    path = _path(grid.index(HOLE), edge)
    cells = list(grid)
    for i in range(len(path) - 1):
        cells[path[i]] = grid[path[i + 1]]
    cells[path[-1]] = value
    return cells


def grid_cost(grid: list[int]) -> float:
    """The expected end score of the face-up cards, as they lie now; lower is better."""
    cost = 0.0
    for i in range(CELLS):
        value = grid[i]
        if value <= UNKNOWN:
            continue
        hidden = 0
        for j in NEIGHBOURS[i]:
            other = grid[j]
            if other == value:
                break
            hidden += other == UNKNOWN
        else:
            cost += value * KEEP[hidden]
    return cost


def scores(view: SlideView, legal_actions: list[Action]) -> list[float]:
    me = seat_of(view)
    if view["phase"] == "pick":
        return [_pick_score(action) for action in legal_actions]
    grid = flat_grid(view["grids"][me])
    values = {item["card"]: item["value"] for item in view["centre"]}
    cache: dict[tuple[int, str], float] = {}
    result = []
    for action in legal_actions:
        key = (values[action["card"]], action["edge"])
        if key not in cache:
            cache[key] = -grid_cost(slide_in(grid, action["edge"], key[0]))
        result.append(cache[key])
    return result


def _pick_score(action: Action) -> float:
    row: int = action["row"]
    col: int = action["col"]
    return sum((row > 0, row < SIZE - 1, col > 0, col < SIZE - 1))


HORIZON = 2
"""Rounds a search plays out before it judges the grids (the last rounds play to the end)."""
SCALE = 6.0
"""Points of expected score that make one grid clearly better than another."""


def evaluate(rules: AnyRules, world: State, root_view: SlideView, plies: int) -> list[float] | None:
    """Judges a search's world after ``HORIZON`` rounds: how each grid compares to the others."""
    n = root_view["num_players"]
    if plies < 2 * n * HORIZON:
        return None
    seen = cast(SlideView, rules.view(world, None))  # the search's rules are Slide's
    costs = [grid_cost(flat_grid(grid)) for grid in seen["grids"]]
    return [
        (sum(1.0 / (1.0 + math.exp((cost - other) / SCALE)) for other in costs) - 0.5) / (n - 1)
        for cost in costs
    ]


BOTS = GameBots(
    scores,
    playouts=600,
    greedy_rollouts=True,
    at_random=("pick",),  # blind picks: the heuristic has little to say
    prior_weight=1.0,
    evaluate=evaluate,
)
"""Slide's bots: rollouts played with this heuristic, cut short by ``evaluate``."""
