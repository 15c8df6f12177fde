"""Real games, played by the rules themselves, that the generated tables are copies of.

Each is ``rules.setup`` with a seed of its own and then random legal actions of the seats the
game waits for, to the end (a finished game) or to a point drawn at random (a running one). A
generated table takes one's seed, options, moves and state with players and dates of its own,
so that its stored state is exactly the replay of its seed and moves (invariant 2), whoever
sits at it. No Django here: only ``games.rules`` (registered by ``games.catalog``).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from games.rules import Action, get_rules

# (game, seats): the share of the site's tables. Every game a quarter; the seat counts of each
# as a site's players might choose them (Point City alone against its automa too).
MIX: dict[tuple[str, int], float] = {
    ("district-noir", 2): 0.25,
    ("gnav", 4): 0.25,
    ("slide", 2): 0.10,
    ("slide", 3): 0.07,
    ("slide", 4): 0.05,
    ("slide", 5): 0.02,
    ("slide", 6): 0.01,
    ("point-city", 2): 0.13,
    ("point-city", 3): 0.06,
    ("point-city", 4): 0.03,
    ("point-city", 1): 0.03,
}
SEED_BITS = 62  # as games.services.tables draws a table's seed


@dataclass(frozen=True)
class Recorded:
    """One game as the rules played it: what a table stores of it, and its log."""

    game: str
    num_seats: int
    options: dict[str, Any]
    seed: int
    moves: list[tuple[int, Action]]  # (seat, action), in order
    state: dict[str, Any]  # rules.to_json of the state after the moves
    outcome: dict[str, Any] | None  # Outcome.to_json of a finished game, else None
    waiting: list[int]  # the seats it waits for (a running game)
    turns: list[int]  # how many moves each seat made


def play(game: str, num_seats: int, rng: random.Random, *, finish: bool) -> Recorded:
    """A game of ``game`` at ``num_seats`` seats played by random legal actions: to the end
    with ``finish``, else stopped after a random number of moves with a seat still to move."""
    rules = get_rules(game)
    options = dict(rules.default_options)
    seed = rng.getrandbits(SEED_BITS)
    state = rules.setup(num_seats, seed, options)
    moves: list[tuple[int, Action]] = []
    states = [state]
    while rules.outcome(state) is None:
        seat = rng.choice(rules.waiting_seats(state) or rules.active_seats(state))
        action = rng.choice(rules.legal_actions(state, seat))
        state = rules.apply(state, seat, action)
        moves.append((seat, action))
        states.append(state)
    if not finish:  # stop before the end, at a point where someone is to move
        cut = rng.randrange(1, len(moves))
        while not rules.waiting_seats(states[cut]):
            cut -= 1
        moves, state = moves[:cut], states[cut]
    outcome = rules.outcome(state)
    turns = [0] * num_seats
    for seat, _action in moves:
        turns[seat] += 1
    return Recorded(
        game=game,
        num_seats=num_seats,
        options=options,
        seed=seed,
        moves=moves,
        state=rules.to_json(state),
        outcome=outcome.to_json() if outcome is not None else None,
        waiting=[] if outcome is not None else sorted(rules.waiting_seats(state)),
        turns=turns,
    )


def recorded_games(count: int, *, finish: bool, seed: int = 31) -> list[Recorded]:
    """``count`` games (at least one of every game and seat count of ``MIX``) in ``MIX``'s
    proportions; running ones (``finish=False``) are never solo: a one-seat table is not in
    anyone's lobby waiting, and it runs at once."""
    rng = random.Random(seed)
    mix = {kind: share for kind, share in MIX.items() if finish or kind[1] > 1}
    total = sum(mix.values())
    games = []
    for (game, seats), share in mix.items():
        for _ in range(max(1, round(count * share / total))):
            games.append(play(game, seats, rng, finish=finish))
    return games
