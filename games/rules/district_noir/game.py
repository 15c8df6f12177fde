"""District Noir, for two players, as in docs/rules/district-noir.md.

Card ids are positions in the initial shuffle, which is also the deal order: ids 0-2
are removed, 3-7 and 8-12 form the round-1 hands of seats 0 and 1, 13-14 start the
row and the rest is the deck, top first. An id therefore says where a card was dealt,
never what it shows. The state keeps only what cannot be derived: whose turn it is
follows from the hand sizes and the take flags, since every turn empties a hand by one
card or sets a flag.
"""

from __future__ import annotations

import random
from typing import Any, NamedTuple

from games.rules.base import (
    GAME_OVER,
    NOT_ALLOWED,
    NOT_YOUR_TURN,
    Action,
    IllegalAction,
    Outcome,
    Rules,
    View,
    gettext_noop,
)
from games.rules.district_noir.cards import (
    DECK,
    FIRST_CITY,
    card_json,
    cities,
    face_code,
    final_ranking,
    majority_leaders,
    summary,
    tally,
)

ROUNDS = 4
HAND_SIZE = 5
TAKE_SIZE = 5
REMOVED = 3
NUM_CARDS = len(DECK)

Event = tuple[str, Any, Any]
"""A log entry ``(type, seat, payload)``: ``("round", first, round)``, ``("play", seat, id)``,
``("take", seat, ids)``, ``("end", winner or None, reason)``. Every one is public."""

NOT_IN_HAND = gettext_noop("That card is not in your hand.")
ALREADY_TAKEN = gettext_noop("You have already taken cards this round.")
EMPTY_ROW = gettext_noop("The row is empty, so there is nothing to take.")


class DistrictNoirState(NamedTuple):
    """A whole game. Tuples throughout, so copies share everything that did not change."""

    faces: tuple[int, ...]  # the face code of each card id
    removed: tuple[int, ...]
    hands: tuple[tuple[int, ...], tuple[int, ...]]
    row: tuple[int, ...]  # left to right; the right end is the newest card
    deck: tuple[int, ...]  # top first
    collections: tuple[tuple[int, ...], tuple[int, ...]]  # in the order taken
    round: int  # 1..4
    first: int  # the seat that starts this round
    taken: tuple[bool, bool]  # has each seat taken this round
    over: str | None  # None while running, else the outcome's reason: "city" or "score"
    log: tuple[Event, ...]


class DistrictNoirView(View):
    """A seat's view: cards are ``card_json`` dicts (``{"id", "kind", "value"[, "name"]}``)."""

    hand: list[dict[str, Any]] | None  # the viewer's own; None for a spectator
    hand_sizes: list[int]
    row: list[dict[str, Any]]  # left to right; the right end is the newest card
    collections: list[list[dict[str, Any]]]  # per seat, sorted by face
    summaries: list[dict[str, Any]]  # per seat, ``summary``
    majorities: dict[str, int | None]  # per Support value, the seat ahead (None: a tie)
    deck_size: int
    round: int
    rounds: int
    first_player: int
    turn: int | None
    taken: list[bool]


def turn_of(state: DistrictNoirState) -> int:
    """The seat to act: turns alternate from the round's first player."""
    done = 2 * HAND_SIZE - len(state.hands[0]) - len(state.hands[1])
    done += state.taken[0] + state.taken[1]
    return state.first if done % 2 == 0 else 1 - state.first


def _collection_counts(state: DistrictNoirState) -> tuple[list[int], list[int]]:
    faces = state.faces
    return (
        tally(faces[i] for i in state.collections[0]),
        tally(faces[i] for i in state.collections[1]),
    )


def _with(pair: tuple[Any, Any], seat: int, value: Any) -> tuple[Any, Any]:
    return (value, pair[1]) if seat == 0 else (pair[0], value)


class DistrictNoir(Rules[DistrictNoirState, DistrictNoirView]):
    slug = "district-noir"
    name = "District Noir"
    min_players = 2
    max_players = 2
    duration_minutes = (5, 15)
    complexity = 2

    def setup(
        self, num_players: int, seed: int, options: dict[str, Any] | None = None
    ) -> DistrictNoirState:
        if num_players != 2:
            raise ValueError("District Noir is played by exactly 2 players.")
        if options:
            raise ValueError(f"District Noir has no options: {sorted(options)}")
        rng = random.Random(seed)
        faces = list(DECK)
        rng.shuffle(faces)
        first = rng.randrange(2)
        hands_end = REMOVED + 2 * HAND_SIZE
        return DistrictNoirState(
            faces=tuple(faces),
            removed=tuple(range(REMOVED)),
            hands=(
                tuple(range(REMOVED, REMOVED + HAND_SIZE)),
                tuple(range(REMOVED + HAND_SIZE, hands_end)),
            ),
            row=(hands_end, hands_end + 1),
            deck=tuple(range(hands_end + 2, NUM_CARDS)),
            collections=((), ()),
            round=1,
            first=first,
            taken=(False, False),
            over=None,
            log=(("round", first, 1),),
        )

    def active_seats(self, state: DistrictNoirState) -> list[int]:
        return [] if state.over else [turn_of(state)]

    def is_over(self, state: DistrictNoirState) -> bool:
        return state.over is not None

    def legal_actions(self, state: DistrictNoirState, seat: int | None) -> list[Action]:
        """Plays in hand order, then the take; a seat with an empty hand must take."""
        if state.over or seat != turn_of(state):
            return []
        actions: list[Action] = [{"type": "play", "card": card} for card in state.hands[seat]]
        if state.row and not state.taken[seat]:
            actions.append({"type": "take"})
        return actions

    def apply(self, state: DistrictNoirState, seat: int, action: Action) -> DistrictNoirState:
        if state.over:
            raise IllegalAction(GAME_OVER)
        if seat != turn_of(state):
            raise IllegalAction(NOT_YOUR_TURN)
        kind = action.get("type") if isinstance(action, dict) else None
        if kind == "play" and len(action) == 2 and type(action.get("card")) is int:
            if action["card"] not in state.hands[seat]:
                raise IllegalAction(NOT_IN_HAND)
            return self._play(state, seat, action["card"])
        if kind == "take" and len(action) == 1:
            if state.taken[seat]:
                raise IllegalAction(ALREADY_TAKEN)
            if not state.row:
                raise IllegalAction(EMPTY_ROW)
            return self._take(state, seat)
        raise IllegalAction(NOT_ALLOWED)

    def _play(self, state: DistrictNoirState, seat: int, card: int) -> DistrictNoirState:
        hand = state.hands[seat]
        at = hand.index(card)
        state = state._replace(
            hands=_with(state.hands, seat, hand[:at] + hand[at + 1 :]),
            row=state.row + (card,),
            log=state.log + (("play", seat, card),),
        )
        return self._end_of_turn(state)

    def _take(self, state: DistrictNoirState, seat: int) -> DistrictNoirState:
        cards = state.row[-TAKE_SIZE:]
        collection = state.collections[seat] + cards
        log = state.log + (("take", seat, cards),)
        state = state._replace(
            row=state.row[: len(state.row) - len(cards)],
            collections=_with(state.collections, seat, collection),
            taken=_with(state.taken, seat, True),
            log=log,
        )
        faces = state.faces
        new_city = any(faces[c] >= FIRST_CITY for c in cards)
        if new_city and cities(tally(faces[c] for c in collection)) == 3:
            return state._replace(over="city", log=log + (("end", seat, "city"),))
        return self._end_of_turn(state)

    def _end_of_turn(self, state: DistrictNoirState) -> DistrictNoirState:
        """After the 12th turn of a round: deal the next round, or score after round 4."""
        if state.hands[0] or state.hands[1] or not (state.taken[0] and state.taken[1]):
            return state
        if state.round == ROUNDS:
            ranks = final_ranking(_collection_counts(state))[0]
            winner = ranks.index(0) if ranks.count(0) == 1 else None
            return state._replace(over="score", log=state.log + (("end", winner, "score"),))
        deck, first, number = state.deck, 1 - state.first, state.round + 1
        return state._replace(
            hands=(deck[:HAND_SIZE], deck[HAND_SIZE : 2 * HAND_SIZE]),
            deck=deck[2 * HAND_SIZE :],
            round=number,
            first=first,
            taken=(False, False),
            log=state.log + (("round", first, number),),
        )

    def outcome(self, state: DistrictNoirState) -> Outcome | None:
        """Scores are the §6 totals; an instant City win scores 1 to 0, as nothing is counted."""
        if state.over is None:
            return None
        counts = _collection_counts(state)
        if state.over == "city":
            winner: int | None = 0 if cities(counts[0]) == 3 else 1
            breakdowns = final_ranking(counts)[3]
            ranks = [0, 1] if winner == 0 else [1, 0]
            scores = [1.0, 0.0] if winner == 0 else [0.0, 1.0]
            details: dict[str, Any] = {
                "winner": winner,
                "tiebreak": None,
                "breakdown": breakdowns,
                "scored": False,
            }
            return Outcome(ranks=ranks, scores=scores, reason="city", details=details)
        ranks, scores, tiebreak, breakdowns = final_ranking(counts)
        winner = ranks.index(0) if ranks.count(0) == 1 else None
        details = {"winner": winner, "tiebreak": tiebreak, "breakdown": breakdowns}
        return Outcome(ranks=ranks, scores=scores, reason="score", details=details)

    def view(self, state: DistrictNoirState, seat: int | None) -> DistrictNoirView:
        if seat is not None and seat not in (0, 1):
            raise ValueError(f"District Noir has no seat {seat!r}.")
        faces = state.faces
        counts = _collection_counts(state)
        over = state.over is not None
        turn = None if over else turn_of(state)
        view: DistrictNoirView = {
            "seat": seat,
            "num_players": 2,
            "active_seats": [] if turn is None else [turn],
            "legal_actions": [] if seat is None else self.legal_actions(state, seat),
            "over": over,
            "hand": None if seat is None else [card_json(i, faces[i]) for i in state.hands[seat]],
            "hand_sizes": [len(state.hands[0]), len(state.hands[1])],
            "row": [card_json(i, faces[i]) for i in state.row],
            "collections": [
                [card_json(i, faces[i]) for i in sorted(c, key=lambda i: (faces[i], i))]
                for c in state.collections
            ],
            "summaries": [summary(counts[0]), summary(counts[1])],
            "majorities": majority_leaders(counts),
            "deck_size": len(state.deck),
            "round": state.round,
            "rounds": ROUNDS,
            "first_player": state.first,
            "turn": turn,
            "taken": list(state.taken),
            "log": [_event_json(event, faces) for event in state.log],
        }
        outcome = self.outcome(state)
        if outcome is not None:
            view["outcome"] = outcome.to_json()
        return view

    def to_json(self, state: DistrictNoirState) -> dict[str, Any]:
        return {
            "faces": list(state.faces),
            "removed": list(state.removed),
            "hands": [list(hand) for hand in state.hands],
            "row": list(state.row),
            "deck": list(state.deck),
            "collections": [list(c) for c in state.collections],
            "round": state.round,
            "first": state.first,
            "taken": list(state.taken),
            "over": state.over,
            "log": [[kind, who, list(x) if kind == "take" else x] for kind, who, x in state.log],
        }

    def from_json(self, data: dict[str, Any]) -> DistrictNoirState:
        return DistrictNoirState(
            faces=tuple(data["faces"]),
            removed=tuple(data["removed"]),
            hands=(tuple(data["hands"][0]), tuple(data["hands"][1])),
            row=tuple(data["row"]),
            deck=tuple(data["deck"]),
            collections=(tuple(data["collections"][0]), tuple(data["collections"][1])),
            round=data["round"],
            first=data["first"],
            taken=(bool(data["taken"][0]), bool(data["taken"][1])),
            over=data["over"],
            log=tuple(
                (kind, who, tuple(x) if kind == "take" else x) for kind, who, x in data["log"]
            ),
        )

    def sample_state(
        self, view: DistrictNoirView, seat: int, rng: random.Random
    ) -> DistrictNoirState:
        """Copies what ``seat`` sees; the faces of the cards it cannot see are redrawn.

        Unknown ids keep the places that the deal order gives them (the lowest three
        removed, the highest in the deck, the rest in the opponent's hand), so only the
        faces differ from the real state.
        """
        faces = [-1] * NUM_CARDS
        remaining = list(DECK)

        def known(cards: list[dict[str, Any]]) -> tuple[int, ...]:
            for card in cards:
                faces[card["id"]] = code = face_code(card)
                remaining.remove(code)
            return tuple(card["id"] for card in cards)

        assert view["hand"] is not None  # a seat's view, which shows its own hand
        hand = known(view["hand"])
        row = known(view["row"])
        collections = (known(view["collections"][0]), known(view["collections"][1]))
        unknown = [i for i in range(NUM_CARDS) if faces[i] < 0]
        rng.shuffle(remaining)
        for card_id, code in zip(unknown, remaining):
            faces[card_id] = code
        deck_start = len(unknown) - view["deck_size"]
        other = unknown[REMOVED:deck_start]
        if len(other) != view["hand_sizes"][1 - seat]:
            raise ValueError("The view does not account for all 45 cards.")
        outcome = view.get("outcome")
        return DistrictNoirState(
            faces=tuple(faces),
            removed=tuple(unknown[:REMOVED]),
            hands=(hand, tuple(other)) if seat == 0 else (tuple(other), hand),
            row=row,
            deck=tuple(unknown[deck_start:]),
            collections=collections,
            round=view["round"],
            first=view["first_player"],
            taken=(view["taken"][0], view["taken"][1]),
            over=outcome["reason"] if outcome else None,
            log=tuple(_event_from_json(event) for event in view["log"]),
        )


def _event_json(event: Event, faces: tuple[int, ...]) -> dict[str, Any]:
    kind, who, payload = event
    if kind == "play":
        return {"type": "play", "seat": who, "card": card_json(payload, faces[payload])}
    if kind == "take":
        return {"type": "take", "seat": who, "cards": [card_json(i, faces[i]) for i in payload]}
    if kind == "round":
        return {"type": "round", "seat": who, "round": payload, "first": who}
    return {"type": "end", "seat": who, "winner": who, "reason": payload}


def _event_from_json(event: dict[str, Any]) -> Event:
    kind = event["type"]
    if kind == "play":
        return ("play", event["seat"], event["card"]["id"])
    if kind == "take":
        return ("take", event["seat"], tuple(card["id"] for card in event["cards"]))
    if kind == "round":
        return ("round", event["seat"], event["round"])
    return ("end", event["seat"], event["reason"])
