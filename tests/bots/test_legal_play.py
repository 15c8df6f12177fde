"""Every bot, at every level, only ever plays legal actions, in every game and player count."""

from __future__ import annotations

import random

import pytest

from games.bots import BOT_LEVELS
from games.bots.base import Bot
from games.bots.ismcts import ISMCTSBot, random_policy
from games.catalog import get_bot
from games.rules import all_rules
from games.rules.base import Rules
from tests.bots.conftest import TINY_PLAYOUTS

LEVELS = ("random", *BOT_LEVELS)
GAMES_PER_COUNT = 4

CASES = [
    pytest.param(rules, n, id=f"{rules.slug}-{n}p")
    for rules in all_rules()
    for n in range(rules.min_players, rules.max_players + 1)
]
FEWEST_AND_MOST = [
    pytest.param(rules, n, id=f"{rules.slug}-{n}p")
    for rules in all_rules()
    for n in sorted({rules.min_players, rules.max_players})
]


def _play_a_game(rules: Rules, levels: list[str], seed: int, bots: list[Bot] | None = None) -> int:
    """Plays a whole game with bots at ``levels`` (or these ``bots``, named by ``levels``);
    returns how many moves the bots made."""
    rng = random.Random(seed)
    bots = bots or [get_bot(level, rules.slug) for level in levels]
    state = rules.setup(len(levels), seed)
    moves = 0
    while rules.outcome(state) is None:
        assert moves < 3000, "the game did not end"
        # Like the platform, any seat the game waits for may be asked first.
        seat = rng.choice(rules.waiting_seats(state))
        view = rules.view(state, seat)
        legal = rules.legal_actions(state, seat)
        action = bots[seat].choose(view, list(legal), random.Random(rng.random()))
        assert action in legal, f"{levels[seat]} bot played {action!r}"
        state = rules.apply(state, seat, action)
        moves += 1
    return moves


@pytest.mark.parametrize(("rules", "num_players"), CASES)
def test_bots_of_every_level_only_play_legal_actions(rules: Rules, num_players: int) -> None:
    for game in range(GAMES_PER_COUNT):
        # Each seat gets a level; over the games every level sits at every seat.
        levels = [LEVELS[(game + seat) % len(LEVELS)] for seat in range(num_players)]
        assert _play_a_game(rules, levels, seed=1000 * num_players + game) > 0


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize(("rules", "num_players"), FEWEST_AND_MOST)
def test_a_table_of_one_level_plays_to_the_end(rules: Rules, num_players: int, level: str) -> None:
    _play_a_game(rules, [level] * num_players, seed=num_players)


@pytest.mark.parametrize(("rules", "num_players"), FEWEST_AND_MOST)
def test_the_generic_search_bot_plays_every_game_through_the_protocol_alone(
    rules: Rules, num_players: int
) -> None:
    """ISMCTS needs nothing but the rules protocol: it plays any registered game, those
    with a search of their own (Gnav's) included, with random playouts and no heuristic."""
    bots: list[Bot] = [
        ISMCTSBot(rules, iterations=TINY_PLAYOUTS, rollout=random_policy)
        for _ in range(num_players)
    ]
    assert _play_a_game(rules, ["ismcts"] * num_players, seed=7, bots=bots) > 0


def test_an_unknown_game_or_level_still_gets_a_bot_that_plays() -> None:
    rules = all_rules()[0]
    state = rules.setup(rules.min_players, 3)
    seat = rules.active_seats(state)[0]
    view = rules.view(state, seat)
    for bot in (get_bot("hard", "no-such-game"), get_bot("genius", rules.slug)):
        assert bot.choose(view, view["legal_actions"], random.Random(0)) in view["legal_actions"]
