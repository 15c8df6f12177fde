"""Information-set Monte Carlo tree search (single observer, SO-ISMCTS), for any game.

The bot only ever knows its seat's view. Each iteration draws a *world*: a full state
consistent with that view, from the game's ``sample_state(view, seat, rng)``; it then
walks one shared tree with that world, choosing among the actions legal in it (UCB,
counting for each child how often it was available), adds one node, plays the world
out with a rollout policy and credits every seat on the path with its reward. The
action played is the root's most visited child.

Seats take turns in the tree as the rules say (``waiting_seats``, else ``active_seats``).
In a simultaneous phase (Slide's pick) the searching seat commits first, so its choice
never depends on hidden choices of others. A turn of several actions (Point City's flip,
then take, then civic tokens) is just several plies by the same seat.

Budget: ``iterations`` playouts, and at most ``seconds`` of wall-clock time (``None``: no
limit). With a time limit the answer depends on the machine's speed; with playouts only
it depends on the view and the random generator alone.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

from games.bots.base import seat_of, within_budget
from games.bots.greedy import Scorer
from games.rules.base import Action, AnyRules, Outcome, State, View

Policy = Callable[[AnyRules, State, int, list[Action], random.Random], Action]
"""Chooses a rollout action: ``policy(rules, world, seat, legal_actions, rng)``."""
Plausibility = Callable[[AnyRules, State, Any], float]
"""``plausible(rules, world, view)``: how likely the others' past actions are in this world
(the chance to keep it), from a model of how players play; draws are retried otherwise. Like
a scorer (``games.bots.greedy``), it is one game's own and reads that game's view type."""
Evaluator = Callable[[AnyRules, State, Any, int], "list[float] | None"]
"""Cuts a rollout short: ``evaluate(rules, world, root_view, plies)`` gives every seat's
reward in [0, 1] when it judges the world well enough after ``plies`` rollout plies, else
None to play on. It may look at the world only through the rules (a spectator's view)."""

MAX_DRAWS = 20  # tries for a plausible world before taking the last one drawn
RANK_SHARE = 0.2  # how much of a reward is the place, beside winning (several seats)


def random_policy(
    rules: AnyRules, world: State, seat: int, legal: list[Action], rng: random.Random
) -> Action:
    return legal[int(rng.random() * len(legal))]


def greedy_policy(scorer: Scorer, blunder: float = 0.1, at_random: tuple[str, ...] = ()) -> Policy:
    """A rollout policy that plays the greedy bot from the world's view of the acting seat,
    but plays actions of the types ``at_random`` (and a ``blunder`` share of all) at random,
    which spares the cost of a view where the heuristic adds little.

    The world is one the searching bot drew itself, so its views leak nothing.
    """

    def policy(
        rules: AnyRules, world: State, seat: int, legal: list[Action], rng: random.Random
    ) -> Action:
        if len(legal) == 1:
            return legal[0]
        if legal[0]["type"] in at_random or rng.random() < blunder:
            return legal[int(rng.random() * len(legal))]
        scores = scorer(rules.view(world, seat), legal)
        top = max(scores)
        best = [a for a, s in zip(legal, scores, strict=True) if s >= top - 1e-9]
        return best[int(rng.random() * len(best))]

    return policy


def rewards(outcome: Outcome) -> list[float]:
    """Per seat, in [0, 1]: winning (shared on a tie) and, with several seats, the place."""
    ranks = outcome.ranks
    n = len(ranks)
    if n == 1:  # a solo game: beating the opponent the rules provide (Point City's Automa)
        return [1.0 if outcome.details.get("won", ranks[0] == 0) else 0.0]
    winners = ranks.count(0)
    return [
        (1 - RANK_SHARE) * (1.0 / winners if rank == 0 else 0.0)
        + RANK_SHARE * (n - 1 - rank) / (n - 1)
        for rank in ranks
    ]


class Node:
    """The statistics of one action in the tree, from the view of the seat that plays it."""

    __slots__ = ("action", "available", "bias", "children", "reward", "seat", "visits")

    def __init__(self, seat: int, action: Action | None, bias: float = 0.0) -> None:
        self.seat = seat
        self.action = action
        self.bias = bias
        self.children: dict[str, Node] = {}
        self.visits = 0
        self.available = 0
        self.reward = 0.0


def action_key(action: Action) -> str:
    """A hashable name for an action. Actions come from one rules module, whose dicts
    always list their keys in the same order, so ``repr`` names equal actions alike."""
    return repr(action)


class ISMCTSBot:
    """The strong bot: see the module docstring.

    ``rollout``: the playout policy. ``prior``: the game's greedy scorer, which narrows the
    root to its ``root_width`` best actions (None: every action) and, with ``prior_weight``,
    biases the root towards them (progressive bias: the bias fades as visits grow, so the
    search departs from the heuristic only on evidence). ``evaluate``, ``plausible``: see
    their types. ``worlds``: how many distinct worlds to draw, reused in turn when the
    budget allows more playouts.
    """

    def __init__(
        self,
        rules: AnyRules,
        *,
        iterations: int = 1000,
        seconds: float | None = 0.8,
        exploration: float = 0.7,
        rollout: Policy = random_policy,
        prior: Scorer | None = None,
        root_width: int | None = None,
        prior_weight: float = 0.0,
        evaluate: Evaluator | None = None,
        plausible: Plausibility | None = None,
        worlds: int = 64,
    ) -> None:
        self.rules = rules
        self.iterations = iterations
        self.seconds = seconds
        self.exploration = exploration
        self.rollout = rollout
        self.prior = prior
        self.root_width = root_width
        self.prior_weight = prior_weight
        self.evaluate = evaluate
        self.plausible = plausible
        self.worlds = worlds
        self.last_iterations = 0
        """Playouts made by the last ``choose`` (for benchmarks)."""

    def choose(self, view: View, legal_actions: list[Action], rng: random.Random) -> Action:
        self.last_iterations = 0
        if len(legal_actions) == 1:
            return legal_actions[0]
        me = seat_of(view)
        root = Node(me, None)
        candidates = self._grow_root(root, view, legal_actions)
        worlds: list[State] = []
        for iteration in within_budget(self.iterations, self.seconds):
            if len(worlds) < self.worlds:
                worlds.append(self._draw_world(view, rng))
            self._iterate(root, worlds[iteration % self.worlds], view, candidates, rng)
            self.last_iterations = iteration + 1
        best = max(root.children.values(), key=lambda child: (child.visits, child.bias))
        return best.action  # type: ignore[return-value]

    def _grow_root(self, root: Node, view: View, legal: list[Action]) -> list[Action]:
        """The root's candidate actions, each a child biased by the prior's liking of it."""
        if self.prior is None:
            return list(legal)
        scores = self.prior(view, legal)
        ranked = sorted(range(len(legal)), key=lambda i: -scores[i])
        if self.root_width is not None:
            ranked = ranked[: self.root_width]
        low, high = min(scores[i] for i in ranked), max(scores[i] for i in ranked)
        spread = high - low or 1.0
        for i in ranked:
            bias = self.prior_weight * (scores[i] - low) / spread
            root.children[action_key(legal[i])] = Node(root.seat, legal[i], bias)
        keep = set(ranked)
        return [action for i, action in enumerate(legal) if i in keep]

    def _draw_world(self, view: View, rng: random.Random) -> State:
        """A world consistent with the view; with ``plausible``, rejection-sampled by it."""
        for _ in range(MAX_DRAWS):
            world = self.rules.sample_state(view, seat_of(view), rng)
            if self.plausible is None or rng.random() < self.plausible(self.rules, world, view):
                break
        return world

    def _acting(self, world: State, me: int) -> int:
        seats = self.rules.waiting_seats(world) or self.rules.active_seats(world)
        return me if me in seats else seats[0]

    def _iterate(
        self,
        root: Node,
        world: State,
        view: View,
        candidates: list[Action],
        rng: random.Random,
    ) -> None:
        rules, node, path = self.rules, root, [root]
        me = seat = seat_of(view)
        legal = candidates
        while True:
            child = self._select(node, seat, legal, rng)
            assert child.action is not None  # only the root stands for no action
            world = rules.apply(world, seat, child.action)
            path.append(child)
            if child.visits == 0 or rules.is_over(world):
                break
            node = child
            seat = self._acting(world, me)
            legal = rules.legal_actions(world, seat)
        reward = self._play_out(world, view, rng)
        for visited in path[1:]:
            visited.visits += 1
            visited.reward += reward[visited.seat]

    def _select(self, node: Node, seat: int, legal: list[Action], rng: random.Random) -> Node:
        """An unvisited legal action if any (at random), else the best by UCB (plus bias)."""
        children = node.children
        available = []
        fresh = []
        for action in legal:
            key = action_key(action)
            child = children.get(key)
            if child is None:
                fresh.append((key, action))
                continue
            child.available += 1
            if child.visits:
                available.append(child)
            else:
                fresh.append((key, action))
        if fresh:
            key, action = fresh[int(rng.random() * len(fresh))]
            child = children.get(key)
            if child is None:
                child = children[key] = Node(seat, action)
                child.available = 1
            return child
        c = self.exploration
        best, best_value = available[0], -math.inf
        for child in available:
            visits = child.visits
            value = (
                child.reward / visits
                + c * math.sqrt(math.log(child.available) / visits)
                + child.bias / (visits + 1)
            )
            if value > best_value:
                best, best_value = child, value
        return best

    def _play_out(self, world: State, view: View, rng: random.Random) -> list[float]:
        """Every seat's reward: at the end of the game, or where ``evaluate`` judges it."""
        rules, policy, evaluate, me = self.rules, self.rollout, self.evaluate, seat_of(view)
        plies = 0
        while (outcome := rules.outcome(world)) is None:
            if evaluate is not None:
                judged = evaluate(rules, world, view, plies)
                if judged is not None:
                    return judged
            seat = self._acting(world, me)
            legal = rules.legal_actions(world, seat)
            world = rules.apply(world, seat, policy(rules, world, seat, legal, rng))
            plies += 1
        return rewards(outcome)
