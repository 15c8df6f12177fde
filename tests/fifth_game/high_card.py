"""High Card: the fifth game, which exists only in the tests, to prove the platform names no game.

Two players. Twelve cards, ranks 1 to 6 twice each, are shuffled from the seed; each player is
dealt one hidden card and the rest form the deck, face down. In turn, seat 0 then seat 1, each
player once either keeps their card or swaps it with the deck's top card (the card given up is
discarded face up). Then both cards are shown: the higher rank wins; equal ranks share first
place.

A card's id is its place in the shuffled deck (0 and 1 are the dealt cards, 2 the deck's top),
so an id says nothing about its face. Plain Python like every rules module: no Django.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import Any

from games.rules.base import (
    Action,
    Outcome,
    Rules,
    View,
    ranks_from_scores,
)

RANKS = tuple(rank for rank in range(1, 7) for _copy in range(2))
NUM_SEATS = 2
KEEP: Action = {"type": "keep"}
SWAP: Action = {"type": "swap"}


@dataclass(frozen=True)
class HighCardState:
    faces: tuple[int, ...]  # the rank of each card id
    hands: tuple[int, ...]  # each seat's card id
    deck: tuple[int, ...]  # card ids, top first
    discard: tuple[int, ...]  # card ids given up, face up, oldest first
    turn: int | None  # the seat to decide; None once both have
    log: tuple[dict[str, Any], ...]


class HighCardView(View):
    turn: int | None
    deck_size: int
    discard: list[dict[str, int]]  # ``{"id", "rank"}``, face up
    decided: list[int]  # the seats that have decided
    cards: list[dict[str, int] | None]  # each seat's card, or None where this viewer cannot see it


def _card(state: HighCardState, card: int) -> dict[str, int]:
    return {"id": card, "rank": state.faces[card]}


class HighCard(Rules[HighCardState, HighCardView]):
    slug = "high-card"
    name = "High Card"
    min_players = NUM_SEATS
    max_players = NUM_SEATS
    duration_minutes = (1, 2)
    complexity = 1

    def setup(
        self, num_players: int, seed: int, options: dict[str, Any] | None = None
    ) -> HighCardState:
        if num_players != NUM_SEATS:
            raise ValueError("High Card is played by exactly 2 players.")
        if options:
            raise ValueError(f"High Card has no options {sorted(options)}.")
        faces = list(RANKS)
        random.Random(seed).shuffle(faces)
        return HighCardState(
            faces=tuple(faces),
            hands=(0, 1),
            deck=tuple(range(NUM_SEATS, len(faces))),
            discard=(),
            turn=0,
            log=(),
        )

    def active_seats(self, state: HighCardState) -> list[int]:
        return [] if state.turn is None else [state.turn]

    def legal_actions(self, state: HighCardState, seat: int) -> list[Action]:
        return [dict(KEEP), dict(SWAP)] if seat == state.turn else []

    def is_over(self, state: HighCardState) -> bool:
        return state.turn is None

    def apply(self, state: HighCardState, seat: int, action: Action) -> HighCardState:
        self.check_turn(state, seat)
        self.check_offered(state, seat, action)
        hands, deck, discard = list(state.hands), state.deck, state.discard
        entry: dict[str, Any] = {"type": action["type"], "seat": seat}
        if action == SWAP:
            given_up, hands[seat] = hands[seat], deck[0]
            deck, discard = deck[1:], (*discard, given_up)
            entry.update(discarded=given_up, drew=hands[seat])
        log = (*state.log, entry)
        turn = seat + 1 if seat + 1 < NUM_SEATS else None
        if turn is None:
            log = (*log, {"type": "showdown", "cards": list(hands)})
        return replace(state, hands=tuple(hands), deck=deck, discard=discard, turn=turn, log=log)

    def view(self, state: HighCardState, seat: int | None) -> HighCardView:
        outcome = self.outcome(state)
        over = outcome is not None
        view: HighCardView = {
            "seat": seat,
            "num_players": NUM_SEATS,
            "active_seats": self.active_seats(state),
            "turn": state.turn,
            "over": over,
            "legal_actions": [] if seat is None else self.legal_actions(state, seat),
            "log": [self._entry(state, entry, seat) for entry in state.log],
            "deck_size": len(state.deck),
            "discard": [_card(state, card) for card in state.discard],
            "decided": [entry["seat"] for entry in state.log if "seat" in entry],
            # Each seat's card: face up at the showdown, else only the seat's own.
            "cards": [
                _card(state, card) if over or who == seat else None
                for who, card in enumerate(state.hands)
            ],
        }
        if outcome is not None:
            view["outcome"] = outcome.to_json()
        return view

    @staticmethod
    def _entry(state: HighCardState, entry: dict[str, Any], seat: int | None) -> dict[str, Any]:
        """A log entry as ``seat`` may know it: the card a swap drew is the swapper's secret
        until the showdown shows it anyway."""
        told = {"type": entry["type"]}
        if "seat" in entry:
            told["seat"] = entry["seat"]
        if "discarded" in entry:
            told["discarded"] = _card(state, entry["discarded"])
            if seat == entry["seat"]:
                told["drew"] = _card(state, entry["drew"])
        if "cards" in entry:
            told["cards"] = [_card(state, card) for card in entry["cards"]]
        return told

    def outcome(self, state: HighCardState) -> Outcome | None:
        if state.turn is not None:
            return None
        ranks = [state.faces[card] for card in state.hands]
        return Outcome(
            ranks=ranks_from_scores([(rank,) for rank in ranks]),
            scores=[float(rank) for rank in ranks],
            reason="tie" if len(set(ranks)) == 1 else "showdown",
        )

    def to_json(self, state: HighCardState) -> dict[str, Any]:
        return {
            "faces": list(state.faces),
            "hands": list(state.hands),
            "deck": list(state.deck),
            "discard": list(state.discard),
            "turn": state.turn,
            "log": [dict(entry) for entry in state.log],
        }

    def from_json(self, data: dict[str, Any]) -> HighCardState:
        return HighCardState(
            faces=tuple(data["faces"]),
            hands=tuple(data["hands"]),
            deck=tuple(data["deck"]),
            discard=tuple(data["discard"]),
            turn=data["turn"],
            log=tuple(dict(entry) for entry in data["log"]),
        )

    def sample_state(self, view: HighCardView, seat: int, rng: random.Random) -> HighCardState:
        """The cards ``seat`` has seen keep their faces; every other face is drawn from the
        ranks left. Ids lie where a real deal puts them: a swap draws the deck's top."""
        seen = [card for card in [*view["discard"], *view["cards"]] if card is not None]
        left = list(RANKS)
        for card in seen:
            left.remove(card["rank"])
        rng.shuffle(left)
        known = {card["id"]: card["rank"] for card in seen}
        faces = tuple(known[card] if card in known else left.pop() for card in range(len(RANKS)))
        hands, top, log = list(range(NUM_SEATS)), NUM_SEATS, []
        for entry in view["log"]:
            if entry["type"] == "keep":
                log.append({"type": "keep", "seat": entry["seat"]})
            elif entry["type"] == "swap":
                who = entry["seat"]
                log.append({"type": "swap", "seat": who, "discarded": hands[who], "drew": top})
                hands[who], top = top, top + 1
        sampled = HighCardState(
            faces=faces,
            hands=tuple(hands),
            deck=tuple(range(top, len(RANKS))),
            discard=tuple(card["id"] for card in view["discard"]),
            turn=view["turn"],
            log=tuple(log),
        )
        return sampled
