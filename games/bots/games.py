"""Which heuristic and which search settings each game's bots use.

Adding a game's bots is one ``GameBots`` line here (and its heuristic module); a game
without one is played by the random bot.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from games.bots import district_noir, gnav, point_city, slide
from games.bots.base import Bot
from games.bots.gnav import GnavBot
from games.bots.gnav_exact import GnavExactBot
from games.bots.greedy import GreedyBot, Scorer
from games.bots.ismcts import (
    Evaluator,
    ISMCTSBot,
    Plausibility,
    Policy,
    greedy_policy,
    random_policy,
)
from games.rules import get_rules


@dataclass(frozen=True)
class GameBots:
    slug: str
    scorer: Scorer
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

    def greedy(self, blunder: float) -> Bot:
        if self.medium is not None and not blunder:
            return self.medium()
        return GreedyBot(self.scorer, blunder=blunder)

    def _heuristic_rollout(self) -> Policy:
        if self.greedy_rollouts:
            return greedy_policy(self.scorer, at_random=self.at_random)
        return random_policy

    def hard(self, iterations: int, seconds: float | None) -> Bot:
        if self.strong is not None:
            return self.strong()
        return ISMCTSBot(
            get_rules(self.slug),
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


SPECS: dict[str, GameBots] = {
    spec.slug: spec
    for spec in (
        GameBots("district-noir", district_noir.scores, prior_weight=1.0),
        GameBots(
            "slide",
            slide.scores,
            greedy_rollouts=True,
            at_random=("pick",),  # blind picks: the heuristic has little to say
            prior_weight=1.0,
            evaluate=slide.evaluate,
        ),
        GameBots("gnav", gnav.scores, medium=GnavBot, strong=GnavExactBot),
        GameBots(
            "point-city",
            point_city.scores,
            rollout=point_city.rollout,
            root_width=8,  # takes differ in payments: the heuristic picks the few worth it
            prior_weight=1.0,
        ),
    )
}
