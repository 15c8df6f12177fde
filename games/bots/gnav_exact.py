"""The hard Gnav bot: the best reply to sensible players, over every deal its view allows.

A seat decides once a deal (keep, or ask or draw), and the deals to come are shuffled
afresh, so a decision matters only through the lives the deal leaves. ``GnavExactBot``
does not sample. It lists every way the cards its view does not show can lie, by rank:
the card dealt to each other seat, and the first card the stock would turn up. It weighs
each way by how many shuffles give it and by how well sensible play (``GnavBot``)
explains what the others did this deal (``SURPRISE`` per action that it does not), plays
each legal action out to the end of the deal with the others playing as ``GnavBot``, and
scores the lives left with ``match_value``. The same view always gets the same answer.

Only the view is read. The play-out below works on ranks, not card ids: ``test_gnav_exact``
checks it against ``Gnav.apply`` on whole matches.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import cast

from games.bots.base import seat_of
from games.bots.games import GameBots
from games.bots.gnav import GnavBot, match_value, scores
from games.rules.base import Action, View
from games.rules.gnav.state import (
    CAT,
    CUCKOO,
    FOOL,
    HIGHEST_ORDINARY,
    NUM_SEATS,
    PACK,
    PASS_ON,
)
from games.rules.gnav.view import SHOWN_WHEN_ASKED, GnavView

STRENGTHS = range(1, max(PACK) + 1)
#: How many cards of each strength the pack holds (index: strength).
PACK_COUNTS = tuple(PACK.count(strength) for strength in range(max(PACK) + 1))
_STOCK_TURNS_UP = tuple(s for s in STRENGTHS if s not in PASS_ON)  # Houses/Horses: drawn again

#: How often the bot expects a player to do other than ``GnavBot`` would (a person is not
#: a bot): each of the others' keeps and asks weighs a world by ``1 - SURPRISE`` if
#: ``GnavBot`` would have played it with that world's cards, else by ``SURPRISE``.
SURPRISE = 0.05


def _sensible_table() -> dict[tuple[int, bool, bool], bool]:
    """Whether ``GnavBot`` asks (or draws), by (strength, is the dealer, left neighbour
    marked with a Fool), as it plays within a deal: no stock card is set aside before a
    decision, since turning one up ends the deal."""
    bot, table = GnavBot(), {}
    for strength in STRENGTHS:
        for dealer in (False, True):
            for left_fool in (False, True):
                view = {
                    "seat": 0,
                    "order": [0, 1],
                    "fools": [1] if left_fool else [],
                    "aside": [],
                    "card": {"rank": strength},
                }
                legal = [{"type": "keep"}, {"type": "draw" if dealer else "ask"}]
                chosen = bot.choose(view, legal, random.Random(0))
                table[(strength, dealer, left_fool)] = chosen["type"] != "keep"
    return table


SENSIBLE = _sensible_table()


@dataclass
class DealSoFar:
    """What one seat knows of the current deal, read from its view.

    A *symbol* is a seat of the deal's start standing for the card dealt to it: trades
    only move dealt cards around, and a Cat gives them back.
    """

    me: int
    dealer: int
    cat_undo: bool
    lives: list[int]
    order: list[int]  # seats still in the deal, dealer last
    symbols: list[int]  # the seats dealt a card this deal
    hold: dict[int, int]  # seat -> the symbol of the card it holds now
    known: dict[int, int]  # symbol -> strength, where the seat saw it or it was shown
    receivers: set[int]  # symbols that were asked for and traded: ordinary cards
    # Each other seat's keep or ask: (its symbol then, it is the dealer, the seat on its
    # left was marked with a Fool, it asked).
    decisions: list[tuple[int, bool, bool, bool]]


def read_deal(view: GnavView) -> DealSoFar:
    """The current deal as ``view`` tells it, replayed from the deal's first event."""
    log, me = view["log"], seat_of(view)
    start = max(i for i, event in enumerate(log) if event["type"] == "deal")
    symbols = list(log[start]["order"])
    in_deal = list(symbols)
    hold = {seat: seat for seat in symbols}
    known = {me: log[start]["dealt"][me]["rank"]}
    receivers: set[int] = set()
    decisions: list[tuple[int, bool, bool, bool]] = []
    for event in log[start + 1 :]:
        kind, who = event["type"], event["seat"]
        if kind == "knock" or (kind in SHOWN_WHEN_ASKED and who is not None):
            known[hold[who]] = event["card"]["rank"]
        elif kind in ("keep", "ask") and who != me:
            dealer = who == log[start]["seat"]
            left = None if dealer else hold[in_deal[in_deal.index(who) + 1]]
            left_fool = left is not None and known.get(left) == FOOL  # Fools always knock
            decisions.append((hold[who], dealer, left_fool, kind == "ask"))
        elif kind == "trade":
            asker, target = who, event["target"]
            receivers.add(hold[target])
            if event["gave"] is not None:
                known[hold[asker]] = event["gave"]["rank"]
                known[hold[target]] = event["got"]["rank"]
            hold[asker], hold[target] = hold[target], hold[asker]
        elif kind == "undo":
            hold = {seat: seat for seat in in_deal}
        elif kind == "out":
            in_deal.remove(who)
            del hold[who]
    return DealSoFar(
        me=me,
        dealer=view["dealer"],
        cat_undo=view["options"]["cat_undoes_trades"],
        lives=list(view["lives"]),
        order=list(view["order"]),
        symbols=symbols,
        hold=hold,
        known=known,
        receivers=receivers,
        decisions=decisions,
    )


def action_values(view: GnavView) -> tuple[float, float, int]:
    """The seat's expected match value if it keeps, and if it asks (or draws); and how
    many worlds that weighed."""
    deal = read_deal(view)
    keep = request = weights = 0.0
    count = 0
    for shuffles, dealt, stock in worlds(deal):
        count += 1
        weight = shuffles * likelihood(deal, dealt)
        keep += weight * play_out(deal, dealt, stock, request=False)
        request += weight * play_out(deal, dealt, stock, request=True)
        weights += weight
    return keep / weights, request / weights, count


def worlds(deal: DealSoFar) -> Iterator[tuple[int, list[int], list[int]]]:
    """Every way the unseen cards of the deal can lie: (how many shuffles give it, the
    strength of each seat's dealt card, how many of each strength the stock holds).

    The lists are reused: read them before asking for the next world. No unseen card is
    a Fool (a Fool always knocks), and one that was traded away when asked is ordinary.
    """
    stock = list(PACK_COUNTS)
    dealt = [0] * NUM_SEATS
    for symbol, strength in deal.known.items():
        stock[strength] -= 1
        dealt[symbol] = strength
    unknown = [symbol for symbol in deal.symbols if symbol not in deal.known]
    highest = [HIGHEST_ORDINARY if symbol in deal.receivers else CUCKOO for symbol in unknown]

    def assign(index: int, weight: int) -> Iterator[tuple[int, list[int], list[int]]]:
        if index == len(unknown):
            yield weight, dealt, stock
            return
        symbol = unknown[index]
        for strength in range(FOOL + 1, highest[index] + 1):
            copies = stock[strength]
            if copies:
                stock[strength] -= 1
                dealt[symbol] = strength
                yield from assign(index + 1, weight * copies)
                stock[strength] += 1

    yield from assign(0, 1)


def likelihood(deal: DealSoFar, dealt: list[int]) -> float:
    """How well sensible play explains the others' keeps and asks, were they dealt ``dealt``."""
    chance = 1.0
    for symbol, dealer, left_fool, asked in deal.decisions:
        chance *= (
            1 - SURPRISE if SENSIBLE[(dealt[symbol], dealer, left_fool)] == asked else SURPRISE
        )
    return chance


def play_out(deal: DealSoFar, dealt: list[int], stock: list[int], request: bool) -> float:
    """The deciding seat's match value once it plays ``request`` (else keeps) and the
    deal is finished by ``GnavBot`` players; ``dealt`` gives each symbol's strength and
    ``stock`` the strengths the stock holds."""
    me, dealer = deal.me, deal.dealer
    hands = [0] * NUM_SEATS
    for seat, symbol in deal.hold.items():
        hands[seat] = dealt[symbol]
    order, lives = list(deal.order), list(deal.lives)
    seat = me
    decide: bool | None = request
    while True:
        place = order.index(seat)
        if decide is None:
            left_fool = seat != dealer and hands[order[place + 1]] == FOOL
            decide = SENSIBLE[(hands[seat], seat == dealer, left_fool)]
        if not decide:
            if seat == dealer:
                return showdown(me, hands, order, lives)
            seat, decide = order[place + 1], None
            continue
        later = order[place + 1 :]
        for position, target in enumerate(later):
            strength = hands[target]
            if strength <= HIGHEST_ORDINARY:
                hands[seat], hands[target] = strength, hands[seat]
                seat, decide = target, None
                break
            if strength in PASS_ON:
                continue
            if strength == CUCKOO:
                return showdown(me, hands, order, lives)
            after = later[position + 1] if position + 1 < len(later) else None
            ended = penalise(deal, seat, strength, dealt, hands, order, lives)
            if ended is not None:
                return ended
            if after is None or len(order) < 2:
                return showdown(me, hands, order, lives)
            seat, decide = after, None
            break
        else:
            return draw_from_stock(deal, seat, dealt, hands, order, lives, stock)


def penalise(
    deal: DealSoFar,
    asker: int,
    strength: int,
    dealt: list[int],
    hands: list[int],
    order: list[int],
    lives: list[int],
) -> float | None:
    """A Dragoon or Cat costs ``asker`` a life (a Cat also gives every card back): the
    deciding seat's value if that ends the match for it, else ``None``."""
    lives[asker] -= 1
    if strength == CAT and deal.cat_undo:
        for seat in order:
            hands[seat] = dealt[seat]
    if lives[asker] > 0:
        return None
    order.remove(asker)
    return ended_for(deal.me, lives, [asker])


def ended_for(me: int, lives: list[int], gone: list[int]) -> float | None:
    """After ``gone`` went out together: the deciding seat's share of the win if the match
    is over or it is out, else ``None``."""
    living = [seat for seat in range(NUM_SEATS) if lives[seat] > 0]
    if not living:
        return 1.0 / len(gone) if me in gone else 0.0  # a draw shared by the last ones out
    if len(living) == 1 or me in gone:
        return 1.0 if living == [me] else 0.0
    return None


def draw_from_stock(
    deal: DealSoFar,
    asker: int,
    dealt: list[int],
    hands: list[int],
    order: list[int],
    lives: list[int],
    stock: list[int],
) -> float:
    """The mean over the first card the stock turns up (Houses and Horses are set aside).

    An ordinary card drawn matters only by how it compares with the lowest other card
    that is not a Fool, so each such class is played out once."""
    me, value, cards = deal.me, 0.0, 0
    others = [hands[seat] for seat in order if seat != asker and hands[seat] != FOOL]
    lowest = min(others, default=CUCKOO + 1)
    by_class: dict[tuple[bool, int], float] = {}
    for strength in _STOCK_TURNS_UP:
        copies = stock[strength]
        if not copies:
            continue
        cards += copies
        if strength <= HIGHEST_ORDINARY:
            kind = (strength == FOOL, (strength > lowest) - (strength < lowest))
            if kind not in by_class:
                drawn = list(hands)
                drawn[asker] = strength
                by_class[kind] = showdown(me, drawn, order, lives)
            value += copies * by_class[kind]
        elif strength == CUCKOO:
            value += copies * showdown(me, hands, order, lives)
        else:
            after_hands, after_order, after_lives = list(hands), list(order), list(lives)
            ended = penalise(deal, asker, strength, dealt, after_hands, after_order, after_lives)
            if ended is None:
                ended = showdown(me, after_hands, after_order, after_lives)
            value += copies * ended
    return value / cards


def showdown(me: int, hands: list[int], order: list[int], lives: list[int]) -> float:
    """The deciding seat's value once the cards of ``order`` are compared (rules 2.7)."""
    if len(order) < 2:
        return lives_value(tuple(lives), me, ())  # void: nobody loses a life
    fools, lowest = 0, CUCKOO + 1
    for seat in order:
        strength = hands[seat]
        if strength == FOOL:
            fools += 1
        elif strength < lowest:
            lowest = strength
    after = list(lives)
    for seat in order:
        strength = hands[seat]
        if strength == FOOL or (fools < 2 and strength == lowest):
            after[seat] -= 1
    gone = tuple(seat for seat in order if after[seat] == 0)
    return lives_value(tuple(after), me, gone)


@functools.cache
def lives_value(lives: tuple[int, ...], me: int, gone: tuple[int, ...]) -> float:
    """The deciding seat's value once a deal leaves ``lives``, ``gone`` having just gone out."""
    ended = ended_for(me, list(lives), list(gone)) if gone else None
    return match_value(list(lives), me) if ended is None else ended


class GnavExactBot:
    """The hard Gnav bot (see the module docstring): plays the action of the higher
    ``action_values``, and ``GnavBot``'s choice when they are equal.

    It needs no budget: a deal has at most 20 x 20 x 20 ways for three unseen cards to
    lie (about 0.4 s of CPU on the benchmark machine, docs/benchmarks.md)."""

    def __init__(self) -> None:
        self.last_iterations = 0
        """Worlds weighed by the last ``choose`` (for benchmarks)."""

    def choose(self, view: View, legal_actions: list[Action], rng: random.Random) -> Action:
        self.last_iterations = 0
        if len(legal_actions) == 1:
            return legal_actions[0]
        keep = next(action for action in legal_actions if action["type"] == "keep")
        request = next(action for action in legal_actions if action["type"] != "keep")
        gnav = cast(GnavView, view)  # a Gnav bot is given Gnav's views
        keep_value, request_value, self.last_iterations = action_values(gnav)
        if abs(keep_value - request_value) < 1e-12:
            return GnavBot().choose(gnav, legal_actions, rng)
        return request if request_value > keep_value else keep


BOTS = GameBots(scores, medium=GnavBot, strong=GnavExactBot)
"""Gnav's bots (here, beside the hard bot, which builds on ``games.bots.gnav``): the sensible
player at medium, this module's exact reply at hard, which needs no budget."""
