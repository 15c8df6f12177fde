"""What one seat may know of a Gnav match: its log, and states drawn to agree with it.

Cards in a view are ``{"id": id, "rank": strength}``, or ``None`` when the viewer may
not see them. Private details: each seat sees its own dealt card, the two cards of a
trade it took part in, and its own exchange with the stock; everything else in the log
is public (knocks, keeps, requests, passes, refusals, stock cards set aside, the
showdown, lives).
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from games.rules.base import View
from games.rules.gnav.state import (
    CUCKOO,
    FOOL,
    HIGHEST_ORDINARY,
    NUM_CARDS,
    NUM_SEATS,
    PACK,
    Event,
    GnavState,
    copy_event,
)

#: Events that show the card of the seat asked (a House or Horse passing on, a refusal).
SHOWN_WHEN_ASKED = ("pass", "cat", "dragoon", "cuckoo")


Card = dict[str, int] | None
"""A card as a view shows it: ``{"id", "rank"}``, or None where the viewer may not see it."""


class GnavView(View):
    """The keys beyond ``View``'s, as games/rules/gnav/game.py's docstring tells them."""

    options: dict[str, bool]
    lives: list[int]
    out_order: list[int | None]
    deal: int
    button: int
    dealer: int
    resting: list[int]
    order: list[int]
    turn: int | None
    card: Card
    fools: list[int]
    trades: list[list[int]]
    stock: int
    aside: list[dict[str, int]]  # face up
    discard: int
    removed: int


def face_json(faces: tuple[int, ...], card: int) -> dict[str, int]:
    """A card face up."""
    return {"id": card, "rank": faces[card]}


def card_json(faces: tuple[int, ...], card: int | None) -> Card:
    return None if card is None else face_json(faces, card)


def render_event(event: Event, viewer: int | None, faces: tuple[int, ...]) -> Event:
    """The event as ``viewer`` may see it: hidden cards become ``None``."""
    shown = copy_event(event)
    kind = event["type"]
    if kind == "deal":
        shown["dealt"] = [
            card_json(faces, card) if seat == viewer else None
            for seat, card in enumerate(event["dealt"])
        ]
    elif kind in ("trade", "exchange"):
        sees = viewer is not None and viewer in (event["seat"], event.get("target"))
        shown["gave"] = card_json(faces, event["gave"]) if sees else None
        shown["got"] = card_json(faces, event["got"]) if sees else None
    elif kind == "showdown":
        shown["cards"] = [card_json(faces, card) for card in event["cards"]]
    elif "card" in event:
        shown["card"] = card_json(faces, event["card"])
    return shown


def render_log(state: GnavState, viewer: int | None) -> list[Event]:
    faces = state.faces
    return [render_event(event, viewer, faces) for event in state.log]


def _stored(event: Event) -> Event:
    """The inverse of ``render_event`` for what the viewer saw (hidden cards stay ``None``)."""
    stored = copy_event(event)
    for key in ("card", "gave", "got"):
        if key in stored and stored[key] is not None:
            stored[key] = stored[key]["id"]
    for key in ("dealt", "cards"):
        if key in stored:
            stored[key] = [None if card is None else card["id"] for card in stored[key]]
    return stored


def _known_faces(value: Any, found: dict[int, int]) -> None:
    """Collect ``id -> rank`` from every card anywhere in a view."""
    if isinstance(value, dict):
        if value.keys() == {"id", "rank"}:
            found[value["id"]] = value["rank"]
        else:
            for item in value.values():
                _known_faces(item, found)
    elif isinstance(value, list):
        for item in value:
            _known_faces(item, found)


def sample_state(view: GnavView, seat: int, rng: random.Random) -> GnavState:
    """A state agreeing with ``view``: the viewer's knowledge kept, the rest redrawn.

    The current deal is replayed from its log with symbols ("the card dealt to seat x"),
    since trades only move dealt cards around. Every card the viewer saw pins a symbol;
    the others are drawn from the rest of the pack, never a Fool (a Fool always knocks)
    and an ordinary card for any seat that received a trade. Earlier deals keep only the
    viewer's own details: they no longer affect play. The seed is redrawn, so the deals
    to come are unknown too.
    """
    if view["over"]:
        raise ValueError("A finished match has nothing left to sample.")
    known_faces: dict[int, int] = {}
    _known_faces(view, known_faces)
    unseen = Counter(PACK)
    unseen.subtract(known_faces.values())
    free_faces = list(unseen.elements())
    rng.shuffle(free_faces)
    faces = [0] * NUM_CARDS
    free = iter(free_faces)
    for card in range(NUM_CARDS):
        faces[card] = known_faces[card] if card in known_faces else next(free)

    log = view["log"]
    start = max(i for i, event in enumerate(log) if event["type"] == "deal")
    first_order = log[start]["order"]
    hold = {s: s for s in first_order}  # seat -> whose dealt card it holds now
    in_deal, gone = list(first_order), []
    pinned: dict[int, int] = {}
    receivers: set[int] = set()
    trade_symbols: dict[int, tuple[int, int]] = {}
    trades: list[tuple[int, int]] = []
    if seat in first_order:
        pinned[seat] = log[start]["dealt"][seat]["id"]
    for index in range(start + 1, len(log)):
        event = log[index]
        kind, who = event["type"], event["seat"]
        if kind == "knock" or (kind in SHOWN_WHEN_ASKED and who is not None):
            pinned[hold[who]] = event["card"]["id"]
        elif kind == "trade":
            asker, target = who, event["target"]
            receivers.add(hold[target])
            trade_symbols[index] = (hold[asker], hold[target])
            if event["gave"] is not None:
                pinned[hold[asker]] = event["gave"]["id"]
                pinned[hold[target]] = event["got"]["id"]
            hold[asker], hold[target] = hold[target], hold[asker]
            trades.append((asker, target))
        elif kind == "undo":
            hold = {s: s for s in in_deal}
            gone = [s for s in range(NUM_SEATS) if s in first_order and s not in in_deal]
            trades = []
        elif kind == "out":
            gone.append(hold.pop(who))
            in_deal.remove(who)

    seen = set(pinned.values())
    pool = [card for card in range(NUM_CARDS) if card not in seen]
    rng.shuffle(pool)
    dealt = dict(pinned)
    for symbol in sorted(set(first_order) - set(pinned), key=lambda s: s not in receivers):
        highest = HIGHEST_ORDINARY if symbol in receivers else CUCKOO
        card = next(c for c in pool if FOOL < faces[c] <= highest)
        pool.remove(card)
        dealt[symbol] = card
    rng.shuffle(pool)  # the cards skipped above must not stay on top of the stock

    stored = [_stored(event) for event in log]
    stored[start]["dealt"] = [dealt.get(s) for s in range(NUM_SEATS)]
    for index, (giver, taker) in trade_symbols.items():
        stored[index]["gave"], stored[index]["got"] = dealt[giver], dealt[taker]
    hands = [dealt[hold[s]] if s in hold else None for s in range(NUM_SEATS)]
    return GnavState(
        seed=rng.randrange(2**63),
        cat_undo=view["options"]["cat_undoes_trades"],
        faces=tuple(faces),
        lives=tuple(view["lives"]),
        out_order=tuple(view["out_order"]),
        deal=view["deal"],
        button=view["button"],
        dealer=view["dealer"],
        resting=tuple(view["resting"]),
        order=tuple(view["order"]),
        turn=view["turn"],
        dealt=tuple(dealt.get(s) for s in range(NUM_SEATS)),
        hands=tuple(hands),
        fools=tuple(s in view["fools"] for s in range(NUM_SEATS)),
        trades=tuple(trades),
        stock=tuple(pool),
        aside=tuple(card["id"] for card in view["aside"]),
        discard=(),
        removed=tuple(dealt[symbol] for symbol in gone),
        log=tuple(stored),
    )
