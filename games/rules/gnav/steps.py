"""Everything ``Gnav.apply`` does after a player's decision (docs/rules/gnav.md §2).

A ``WorkingState`` is a mutable working copy of one state: ``apply`` thaws the state once,
runs the decision and every automatic step that follows it (passes, penalties, the
Cat's undo, the showdown, the next deals), and freezes the result into a new state.
"""

from __future__ import annotations

import random

from games.rules.gnav.state import (
    CAT,
    CUCKOO,
    DRAGOON,
    FOOL,
    HIGHEST_ORDINARY,
    NUM_CARDS,
    NUM_SEATS,
    PASS_ON,
    Event,
    GnavState,
)

#: The log event (and life-loss reason) of a matador that refuses, keyed by strength.
REFUSALS = {CAT: "cat", DRAGOON: "dragoon", CUCKOO: "cuckoo"}


def shuffled_pack(seed: int, deal: int) -> list[int]:
    """All card ids in the order of one deal's shuffle, derived from the match's stored seed.

    Sorting by random keys: ``Random.shuffle`` costs several times more, and bots
    shuffle for every deal they simulate.
    """
    draw = random.Random(f"gnav:{seed}:{deal}").random
    keys = [draw() for _ in range(NUM_CARDS)]
    return sorted(range(NUM_CARDS), key=keys.__getitem__)


class WorkingState:
    """One state being changed; see the module docstring."""

    def __init__(self, state: GnavState) -> None:
        self.state = state
        self.faces = state.faces
        self.lives = list(state.lives)
        self.out_order = list(state.out_order)
        self.deal = state.deal
        self.button = state.button
        self.dealer = state.dealer
        self.resting = state.resting
        self.order = list(state.order)
        self.turn = state.turn
        self.dealt = state.dealt
        self.hands = list(state.hands)
        self.fools = list(state.fools)
        self.trades = list(state.trades)
        self.stock = state.stock
        self.aside = list(state.aside)
        self.discard = list(state.discard)
        self.removed = list(state.removed)
        self.events: list[Event] = []

    def freeze(self) -> GnavState:
        return self.state._replace(
            lives=tuple(self.lives),
            out_order=tuple(self.out_order),
            deal=self.deal,
            button=self.button,
            dealer=self.dealer,
            resting=self.resting,
            order=tuple(self.order),
            turn=self.turn,
            dealt=self.dealt,
            hands=tuple(self.hands),
            fools=tuple(self.fools),
            trades=tuple(self.trades),
            stock=self.stock,
            aside=tuple(self.aside),
            discard=tuple(self.discard),
            removed=tuple(self.removed),
            log=self.state.log + tuple(self.events),
        )

    def emit(self, event: Event) -> None:
        self.events.append(event)

    def held(self, seat: int) -> int:
        """The card of a seat in play (``hands`` holds None only for seats gone)."""
        card = self.hands[seat]
        assert card is not None
        return card

    # --- a turn (§2.4) ------------------------------------------------------------------

    def keep(self, seat: int) -> None:
        self.emit({"type": "keep", "seat": seat})
        if seat == self.dealer:
            self.end_deal()
        else:
            self.turn = self.order[self.order.index(seat) + 1]

    def request(self, asker: int) -> None:
        """A request (§2.5): the players after the asker, then the stock."""
        later = self.order[self.order.index(asker) + 1 :]
        self.emit({"type": "ask", "seat": asker, "to": later[0] if later else None})
        for position, target in enumerate(later):
            card = self.held(target)
            strength = self.faces[card]
            if strength <= HIGHEST_ORDINARY:
                self.swap(asker, target)
                return
            self.announce(target, asker, card)
            if strength in PASS_ON:
                continue
            if strength == CUCKOO:
                self.end_deal()
                return
            after = later[position + 1] if position + 1 < len(later) else None
            self.penalise(asker, strength, holder=target)
            if self.turn is None:
                return
            if after is None or len(self.order) < 2:
                self.end_deal()
            else:
                self.turn = after
            return
        self.draw_from_stock(asker)

    def announce(self, holder: int | None, asker: int, card: int) -> None:
        """A House/Horse passing on, or a matador refusing; ``holder`` None: the stock."""
        strength = self.faces[card]
        kind = "pass" if strength in PASS_ON else REFUSALS[strength]
        self.emit({"type": kind, "seat": holder, "asker": asker, "card": card})

    def swap(self, asker: int, target: int) -> None:
        hands, fools = self.hands, self.fools
        hands[asker], hands[target] = hands[target], hands[asker]
        fools[asker], fools[target] = fools[target], fools[asker]
        self.trades.append((asker, target))
        self.emit(
            {
                "type": "trade",
                "seat": asker,
                "target": target,
                "gave": hands[target],
                "got": hands[asker],
            }
        )
        self.turn = target

    def draw_from_stock(self, asker: int) -> None:
        """Turn up stock cards until one that is not a House or Horse; the deal then ends."""
        stock = list(self.stock)
        while True:
            card = stock.pop(0)
            strength = self.faces[card]
            if strength <= HIGHEST_ORDINARY:
                given = self.held(asker)
                self.discard.append(given)
                self.hands[asker] = card
                self.fools[asker] = False  # a Fool from the stock is not marked (A8)
                self.emit({"type": "exchange", "seat": asker, "gave": given, "got": card})
                break
            self.aside.append(card)
            self.announce(None, asker, card)
            if strength in PASS_ON:
                continue
            if strength != CUCKOO:
                self.penalise(asker, strength, holder=None)
            break
        self.stock = tuple(stock)
        if self.turn is not None:
            self.end_deal()

    # --- penalties and elimination ------------------------------------------------------

    def penalise(self, asker: int, strength: int, holder: int | None) -> None:
        """A Dragoon or Cat costs the asker a life; a Cat also undoes every trade (A6)."""
        self.lose_life(asker, REFUSALS[strength])
        if strength == CAT and self.state.cat_undo:
            self.undo_trades(holder)
        self.eliminate([asker] if self.lives[asker] == 0 else [])

    def lose_life(self, seat: int, reason: str) -> None:
        self.lives[seat] -= 1
        self.emit({"type": "life", "seat": seat, "reason": reason, "lives": self.lives[seat]})

    def undo_trades(self, holder: int | None) -> None:
        """Every card goes back to its dealt holder; cards of seats gone stay out of play."""
        faces, dealt = self.faces, self.dealt
        for seat in self.order:
            card = dealt[seat]
            assert card is not None  # every seat in play was dealt a card
            self.hands[seat] = card
            self.fools[seat] = faces[card] == FOOL
        self.removed = [
            card for s, card in enumerate(dealt) if card is not None and s not in self.order
        ]
        self.emit({"type": "undo", "seat": holder, "trades": len(self.trades)})
        self.trades = []

    def eliminate(self, seats: list[int]) -> None:
        """Seats at zero lives leave together (sharing a place); the match may end."""
        already_out = sum(1 for place in self.out_order if place is not None)
        for seat in seats:
            self.out_order[seat] = already_out
            if seat in self.order:
                self.order.remove(seat)
                self.removed.append(self.held(seat))
                self.hands[seat] = None
                self.fools[seat] = False
            self.emit({"type": "out", "seat": seat})
        living = [seat for seat in range(NUM_SEATS) if self.lives[seat] > 0]
        if len(living) <= 1:
            winner = living[0] if living else None
            self.emit(
                {"type": "end", "seat": winner, "reason": "last_survivor" if living else "draw"}
            )
            self.turn = None

    # --- showdown (§2.7) and the next deal (§2.3) ---------------------------------------

    def end_deal(self) -> None:
        showing = list(self.order)
        if len(showing) < 2:
            self.emit(
                {"type": "showdown", "seat": self.dealer, "void": True, "cards": [None] * NUM_SEATS}
            )
            self.start_deal([])
            return
        hands, faces = self.hands, self.faces
        self.emit(
            {
                "type": "showdown",
                "seat": self.dealer,
                "void": False,
                "cards": [hands[s] if s in showing else None for s in range(NUM_SEATS)],
            }
        )
        held = self.held
        fools = [seat for seat in showing if faces[held(seat)] == FOOL]
        losers = [(seat, "fool") for seat in fools]
        if len(fools) < 2:
            others = [seat for seat in showing if seat not in fools]
            lowest = min(faces[held(seat)] for seat in others)
            reason = "next_lowest" if fools else "lowest"
            losers += [(seat, reason) for seat in others if faces[held(seat)] == lowest]
        for seat, reason in losers:
            self.lose_life(seat, reason)
        self.eliminate([seat for seat, _ in losers if self.lives[seat] == 0])
        if self.turn is None:
            return
        rest_next = [seat for seat in fools if self.lives[seat] > 0]
        for seat in rest_next:
            self.emit({"type": "rest", "seat": seat})
        self.start_deal(rest_next)

    def start_deal(self, rest_next: list[int]) -> None:
        """Deal the next deal; a deal with fewer than 2 participants is skipped (§2.3 step 4)."""
        while True:
            self.deal += 1
            living = [seat for seat in range(NUM_SEATS) if self.lives[seat] > 0]
            if self.deal > 1:
                self.button = next_seat(self.button, living)
            self.resting = tuple(sorted(s for s in rest_next if self.lives[s] > 0))
            rest_next = []
            playing = [seat for seat in living if seat not in self.resting]
            self.order, self.trades, self.aside, self.discard, self.removed = [], [], [], [], []
            self.hands, self.fools = [None] * NUM_SEATS, [False] * NUM_SEATS
            self.dealt, self.stock = (None,) * NUM_SEATS, ()
            if len(playing) < 2:
                self.dealer = self.button
                self.emit(
                    {
                        "type": "skip",
                        "seat": self.button,
                        "deal": self.deal,
                        "resting": list(self.resting),
                    }
                )
                continue
            break
        dealer = self.button if self.button in playing else next_seat(self.button, playing)
        order = [(dealer + step) % NUM_SEATS for step in range(1, NUM_SEATS + 1)]
        order = [seat for seat in order if seat in playing]
        deck = shuffled_pack(self.state.seed, self.deal)
        dealt: list[int | None] = [None] * NUM_SEATS
        for position, seat in enumerate(order):
            dealt[seat] = deck[position]
        self.dealer, self.order, self.turn = dealer, order, order[0]
        self.dealt, self.hands = tuple(dealt), list(dealt)
        self.stock = tuple(deck[len(order) :])
        self.fools = [card is not None and self.faces[card] == FOOL for card in dealt]
        self.emit(
            {
                "type": "deal",
                "seat": dealer,
                "deal": self.deal,
                "button": self.button,
                "order": list(order),
                "resting": list(self.resting),
                "dealt": dealt,
            }
        )
        for seat in order:
            if self.fools[seat]:
                self.emit({"type": "knock", "seat": seat, "card": dealt[seat]})


def next_seat(seat: int, among: list[int]) -> int:
    """The first seat of ``among`` clockwise (to the left) after ``seat``."""
    for step in range(1, NUM_SEATS + 1):
        candidate = (seat + step) % NUM_SEATS
        if candidate in among:
            return candidate
    raise ValueError("no seat to move to")
