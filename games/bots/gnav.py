"""Gnav bots that play from their seat's view alone: a sensible player, and a searcher.

``GnavBot`` (medium) plays as a sensible person would. It keeps high cards and matadors,
passes a Fool on, asks with low cards, never asks a neighbour publicly marked with a Fool
(it would get the Fool), and asks less readily while Cats and Dragoons (a lost life for
the asker) are unseen.

``GnavSearchBot`` (hard) weighs each action over the deals its view allows, with the
others playing like ``GnavBot``: ``plausible`` (what the others' keeps and asks say
about their cards, were they sensible players) and ``match_value`` (a seat's chance to win
the match from the lives left) are its parts. ``scores`` is ``GnavBot`` as a heuristic for
the generic bots (the easy level's occasional random move).
"""

from __future__ import annotations

import random
from typing import Any

from games.bots.base import within_budget
from games.rules.base import Action, Rules, State

FOOL, HOUSE, CAT, DRAGOON, CUCKOO = 1, 17, 19, 20, 21
DANGER = {CAT: 2, DRAGOON: 2}  # copies in the pack
PACK = 42
# Ask with a card of at most this strength (VI is 10) when the risk is ordinary.
ASK_AT_MOST = 9
CAREFUL_ASK_AT_MOST = 6


class GnavBot:
    def choose(
        self, view: dict[str, Any], legal_actions: list[Action], rng: random.Random
    ) -> Action:
        kinds = {action["type"]: action for action in legal_actions}
        card = view.get("card") or {}
        strength = card.get("rank") or 0
        ask = kinds.get("ask") or kinds.get("draw")
        keep = kinds.get("keep")
        if ask is None or keep is None:
            return legal_actions[0]
        if strength >= HOUSE:
            return keep  # a matador: asking would only give it away
        if "ask" in kinds and self._left_is_marked_fool(view) and strength != FOOL:
            return keep
        if strength == FOOL:
            return ask
        limit = CAREFUL_ASK_AT_MOST if self._danger(view, strength) > 0.12 else ASK_AT_MOST
        return ask if strength <= limit else keep

    def _left_is_marked_fool(self, view: dict[str, Any]) -> bool:
        order, me = view.get("order") or [], view.get("seat")
        if me not in order:
            return False
        left = order[(order.index(me) + 1) % len(order)]
        return left in (view.get("fools") or [])

    def _danger(self, view: dict[str, Any], strength: int) -> float:
        """The chance that the card asked for is a Cat or a Dragoon, from what was seen."""
        seen = [card["rank"] for card in view.get("aside") or [] if card]
        if strength in DANGER:
            seen.append(strength)
        left = sum(DANGER.values()) - sum(1 for rank in seen if rank in DANGER)
        unknown = PACK - 1 - len(seen)
        return max(left, 0) / max(unknown, 1)


_GNAV = GnavBot()


def scores(view: dict[str, Any], legal_actions: list[Action]) -> list[float]:
    """The Gnav bot as a scorer: 1 for the action it plays, 0 for the other."""
    chosen = _GNAV.choose(view, legal_actions, random.Random(0))
    return [1.0 if action == chosen else 0.0 for action in legal_actions]


def survival(lives: list[int]) -> list[float]:
    """Each seat's chance to win the match, guessed from the lives left: lives squared, shared."""
    weights = [n * n for n in lives]
    total = sum(weights)
    return [w / total for w in weights] if total else [0.0] * len(lives)


#: How often the search expects a player to do other than ``GnavBot`` would (a person is
#: not a bot): their keeps and asks then weigh worlds by ``1 - SURPRISE`` or ``SURPRISE``.
SURPRISE = 0.05


def plausible(rules: Rules, world: State, view: dict[str, Any]) -> float:
    """How well a drawn world explains what the others did this deal, were they sensible.

    The deal is replayed in the world from its start: every keep, ask or draw of another
    seat is compared with what ``GnavBot`` would have done with the card that seat then
    held (a player who kept probably holds a high card, one who asked a low card or a
    Fool). Each agreement counts ``1 - SURPRISE``, each surprise ``SURPRISE``. Searches
    keep a drawn world with this probability, so their worlds lean the way a careful
    observer's guesses would. The world is read only through the others' views of it.
    """
    log, me = view["log"], view["seat"]
    start = max(i for i, event in enumerate(log) if event["type"] == "deal")
    deal = log[start]
    order = list(deal["order"])
    acting = {
        event["seat"]
        for event in log[start + 1 :]
        if event["type"] in ("keep", "ask") and event["seat"] != me
    }
    if not acting:
        return 1.0
    # The strength of a dealt card, by the seat it was dealt to: the seats that acted (and
    # so hold cards dealt to seats that acted), the searching seat, and knocked Fools.
    rank = {event["seat"]: FOOL for event in log[start + 1 :] if event["type"] == "knock"}
    for seat in acting | ({me} & set(order)):
        seen = view if seat == me else rules.view(world, seat)
        rank[seat] = seen["log"][start]["dealt"][seat]["rank"]
    hold = {seat: seat for seat in order}  # seat -> whose dealt card it holds now
    aside: list[dict[str, int]] = []
    likelihood = 1.0
    for event in log[start + 1 :]:
        kind, who = event["type"], event["seat"]
        if kind in ("keep", "ask") and who != me:
            sensible = _sensible_action(who, order, rank, hold, aside)
            likelihood *= 1 - SURPRISE if (kind == "keep") == (sensible == "keep") else SURPRISE
        elif kind == "trade":
            target = event["target"]
            hold[who], hold[target] = hold[target], hold[who]
        elif kind == "undo":
            hold = {seat: seat for seat in order}
        elif kind == "out":
            order.remove(who)
            del hold[who]
        elif who is None and event.get("card") is not None:
            aside.append(event["card"])  # turned up from the stock
    return likelihood


def _sensible_action(
    seat: int,
    order: list[int],
    rank: dict[int, int],
    hold: dict[int, int],
    aside: list[dict[str, int]],
) -> str:
    """What ``GnavBot`` would have played at ``seat`` in the replayed deal."""
    strength = rank.get(hold[seat], 0)
    fools = [s for s in order if rank.get(hold[s]) == FOOL]
    dealer = seat == order[-1]
    legal = [{"type": "keep"}, {"type": "draw" if dealer else "ask"}]
    seen = {"seat": seat, "order": order, "fools": fools, "aside": aside}
    return _GNAV.choose({**seen, "card": {"rank": strength}}, legal, _NO_RNG)["type"]


_NO_RNG = random.Random(0)  # ``GnavBot`` never draws from it


#: Each seat's chance to win the match from the lives left, measured over 30,000 matches
#: between four ``GnavBot``s (at the start of each deal). The key is the seat's own lives,
#: then the others' from most to fewest (0: out).
_MEASURED_MATCH_VALUE = """
    1100 0.500  1110 0.333  1111 0.250  1200 0.239  1210 0.196  1211 0.162
    1220 0.132  1221 0.115  1222 0.083  1300 0.121  1310 0.105  1311 0.098
    1320 0.077  1321 0.073  1322 0.055  1330 0.048  1331 0.052  1332 0.041
    1333 0.028  2100 0.761  2110 0.609  2111 0.513  2200 0.500  2210 0.434
    2211 0.385  2220 0.333  2221 0.306  2222 0.250  2300 0.310  2310 0.289
    2311 0.265  2320 0.234  2321 0.217  2322 0.187  2330 0.179  2331 0.171
    2332 0.148  2333 0.117  3100 0.879  3110 0.791  3111 0.705  3200 0.690
    3210 0.634  3211 0.589  3220 0.533  3221 0.512  3222 0.440  3300 0.500
    3310 0.476  3311 0.448  3320 0.411  3321 0.394  3322 0.352  3330 0.333
    3331 0.324  3332 0.294  3333 0.250
"""
MATCH_VALUE: dict[tuple[int, ...], float] = {
    tuple(int(digit) for digit in key): float(value)
    for key, value in zip(*[iter(_MEASURED_MATCH_VALUE.split())] * 2, strict=True)
}


def match_value(lives: list[int], seat: int) -> float:
    """``seat``'s chance to win the match from the lives left (``MATCH_VALUE``)."""
    if lives[seat] <= 0:
        return 0.0
    others = sorted((n for s, n in enumerate(lives) if s != seat), reverse=True)
    key = (lives[seat], *others)
    if key in MATCH_VALUE:
        return MATCH_VALUE[key]
    return survival(list(lives))[seat]  # not a four-seat match: a rougher guess


class GnavSearchBot:
    """The hard Gnav bot: each action weighed over the deals its view allows, one deal deep.

    A seat decides once a deal (keep, or ask or draw), and the deals to come are shuffled
    afresh, so a decision matters only through the lives the deal leaves. Each iteration
    draws a world from ``sample_state`` (kept with the ``plausible`` chance, else redrawn
    up to ``MAX_DRAWS`` times), plays every legal action in it, lets the others finish the
    deal as ``GnavBot`` would and scores the lives left with ``match_value`` (or the
    outcome, if the match ended). The action with the best total is played, the
    ``GnavBot``'s choice on a tie. Every action meets the same worlds, so the luck of the
    draw that does not depend on the decision cancels out.

    Budget as ``ISMCTSBot``'s: ``iterations`` worlds, and at most ``seconds`` of wall clock.
    """

    MAX_DRAWS = 10

    def __init__(self, rules: Rules, *, iterations: int = 1000, seconds: float | None = 0.7):
        self.rules = rules
        self.iterations = iterations
        self.seconds = seconds
        self.last_iterations = 0
        """Worlds weighed by the last ``choose`` (for benchmarks)."""

    def choose(
        self, view: dict[str, Any], legal_actions: list[Action], rng: random.Random
    ) -> Action:
        self.last_iterations = 0
        if len(legal_actions) == 1:
            return legal_actions[0]
        first = _GNAV.choose(view, legal_actions, rng)
        actions = [first] + [action for action in legal_actions if action != first]
        # Earlier deals no longer matter; a short log makes every view of a world cheap.
        log = view["log"]
        start = max(i for i, event in enumerate(log) if event["type"] == "deal")
        view = {**view, "log": log[start:]}
        totals = [0.0] * len(actions)
        for iteration in within_budget(self.iterations, self.seconds):
            world = self._draw_world(view, rng)
            for i, action in enumerate(actions):
                totals[i] += self._finish_deal(world, view, action, rng)
            self.last_iterations = iteration + 1
        best = max(range(len(actions)), key=lambda i: (totals[i], -i))
        return actions[best]

    def _draw_world(self, view: dict[str, Any], rng: random.Random) -> State:
        rules, seat = self.rules, view["seat"]
        for _ in range(self.MAX_DRAWS):
            world = rules.sample_state(view, seat, rng)
            if rng.random() < plausible(rules, world, view):
                break
        return world

    def _finish_deal(
        self, world: State, view: dict[str, Any], action: Action, rng: random.Random
    ) -> float:
        """The searching seat's match value once ``action`` and the rest of the deal are played."""
        me = view["seat"]
        return deal_value(self.rules, self.rules.apply(world, me, action), me, view["deal"], rng)


def deal_value(rules: Rules, world: State, seat: int, deal: int, rng: random.Random) -> float:
    """``seat``'s chance to win the match once deal number ``deal`` of ``world`` is played
    out by ``GnavBot`` players: its match value from the lives left, or its share of the
    win if the match ended."""
    while True:
        seats = rules.active_seats(world)
        if not seats:
            outcome = rules.outcome(world)
            assert outcome is not None
            return 1.0 / outcome.ranks.count(0) if outcome.ranks[seat] == 0 else 0.0
        seen = rules.view(world, seats[0])
        if seen["deal"] != deal:
            return match_value(seen["lives"], seat)
        world = rules.apply(world, seats[0], _GNAV.choose(seen, seen["legal_actions"], rng))


def search_bot(iterations: int, seconds: float | None) -> GnavSearchBot:
    """The hard bot the platform plays (``games.bots.games``)."""
    from games.rules import get_rules

    return GnavSearchBot(get_rules("gnav"), iterations=iterations, seconds=seconds)
