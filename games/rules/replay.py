"""A game replayed from its seed and its moves: the one setup-and-apply loop of the site.

All of a game's randomness comes from its seed, so ``setup`` and then ``apply`` of every move,
in order, rebuild each state it went through exactly (docs/architecture.md, invariant 2). The
stored state is checked against it, a finished game is shown step by step from it, and anyone
can check a finished game's shuffle with it (``games.selectors``: replays, fairness).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator
from typing import Any

from games.rules.base import Action, Rules, StateT

Move = tuple[int, Action]
"""One move of the log: the seat that played it, and its action."""


def replay(
    rules: Rules[StateT, Any],
    num_players: int,
    seed: int,
    options: dict[str, Any] | None,
    moves: Iterable[Move],
) -> Iterator[StateT]:
    """The state after ``setup``, then the state after each move in turn: ``n`` moves give
    ``n + 1`` states. A move the rules refuse raises their ``IllegalAction``."""
    state = rules.setup(num_players, seed, options)
    yield state
    for seat, action in moves:
        state = rules.apply(state, seat, action)
        yield state


def final(states: Iterable[StateT]) -> StateT:
    """The last of ``states``: ``final(replay(...))`` is the state after every move."""
    return deque(states, maxlen=1)[0]
