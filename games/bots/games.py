"""How a game's bots play it: its heuristic, its search settings and its hard bot's budget.

A game's bots are one ``GameBots`` value, written in the game's own bot module beside its
heuristic (``games/bots/<game>.py: BOTS``) and named in the game's record in the catalog
(games/catalog.py); a game without one is played by the random bot. This package never
looks a game up: whoever holds the record asks it for a bot (``GameBots.at``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from games.bots.base import EASY_BLUNDER, HARD_BUDGET, Bot, RandomBot
from games.bots.greedy import GreedyBot, Scorer
from games.bots.ismcts import (
    Evaluator,
    ISMCTSBot,
    Plausibility,
    Policy,
    greedy_policy,
    random_policy,
)
from games.rules.base import AnyRules


@dataclass(frozen=True)
class GameBots:
    scorer: Scorer
    playouts: int | None = None
    """The hard bot's playouts per move, measured with ``make bench`` (docs/benchmarks.md) so
    that a move takes well under a second on a small server (``HARD_BUDGET`` caps them);
    needed unless the game has its own hard bot (``strong``)."""
    rollout: Policy | None = None
    """The game's own playout policy, if it has one; else..."""
    greedy_rollouts: bool = False
    """...play the rollouts with the greedy heuristic (else at random)..."""
    at_random: tuple[str, ...] = ()
    """...except actions of these types."""
    root_width: int | None = None
    """The hard bot searches only the greedy heuristic's best few actions at its root..."""
    prior_weight: float = 0.0
    """...and leans towards the heuristic's favourites by this much (progressive bias)."""
    exploration: float = 0.7
    evaluate: Evaluator | None = None
    """Judges rollouts before the end of the game (else they play to the end)."""
    plausible: Plausibility | None = None
    """Weighs drawn worlds by how well they explain the others' play."""
    medium: Callable[[], Bot] | None = None
    """The game's own greedy bot, if it has one (else the scorer's ``GreedyBot``)."""
    strong: Callable[[], Bot] | None = None
    """The game's own hard bot, if it has one: it weighs every world its view allows, so
    it needs no budget (else ``ISMCTSBot`` with the budget and the settings above)."""

    def __post_init__(self) -> None:
        if self.strong is None and not self.playouts:
            raise ValueError("A hard bot that searches needs its playouts per move (make bench).")

    def at(self, level: str, rules: AnyRules) -> Bot:
        """The bot of ``level`` for ``rules`` (this spec's game). An unknown level plays as
        medium: a name stored at a table never stalls its game."""
        if level == "random":
            return RandomBot()
        if level == "hard":
            playouts = self.playouts or 0  # a game's own hard bot (strong) needs none
            if HARD_BUDGET.playouts is not None:
                playouts = min(playouts, HARD_BUDGET.playouts)
            return self.hard(rules, playouts, HARD_BUDGET.seconds)
        if level == "easy":
            return self.greedy(EASY_BLUNDER)
        return self.greedy(0.0)

    def greedy(self, blunder: float) -> Bot:
        if self.medium is not None and not blunder:
            return self.medium()
        return GreedyBot(self.scorer, blunder=blunder)

    def _heuristic_rollout(self) -> Policy:
        if self.greedy_rollouts:
            return greedy_policy(self.scorer, at_random=self.at_random)
        return random_policy

    def hard(self, rules: AnyRules, iterations: int, seconds: float | None) -> Bot:
        if self.strong is not None:
            return self.strong()
        return ISMCTSBot(
            rules,
            iterations=iterations,
            seconds=seconds,
            exploration=self.exploration,
            rollout=self.rollout or self._heuristic_rollout(),
            prior=self.scorer if self.root_width or self.prior_weight else None,
            root_width=self.root_width,
            prior_weight=self.prior_weight,
            evaluate=self.evaluate,
            plausible=self.plausible,
        )
