"""What a seat sees of a Point City game, and states sampled back from such a view.

Every card that has left the draw pile has shown its resource side (the pile lies
resource side up, so each card is seen as its top card), so a view shows the resource
side of every card out of the pile. It shows a building side only where it was shown:
market cards with the building side up, and built cities. Stocks are public (reading P6
of docs/rules/point-city.md), so all seats see the same view apart from their legal actions.
The cards removed at setup and the pile below its top card never appear, not even by id.
"""

from __future__ import annotations

import random
from collections import defaultdict
from typing import TYPE_CHECKING, Any

from games.rules.base import View
from games.rules.point_city.cards import (
    RESOURCE_NAMES,
    RESOURCES,
    Card,
    building_json,
    token_json,
)
from games.rules.point_city.state import (
    CELLS,
    EMPTY,
    OVER,
    SETUP,
    SIZE,
    Player,
    PointCityState,
    copy_json,
)

if TYPE_CHECKING:
    from games.rules.point_city.game import PointCity


class PointCityView(View):
    """The keys beyond ``View``'s, as ``render_view`` tells them; cards are ``card_view``
    dicts, tokens ``token_json`` ones."""

    phase: str
    current: int
    turn: int
    flipped: bool
    tokens_to_choose: int
    market: list[list[dict[str, Any] | None]]
    refill_pending: list[dict[str, Any]]
    deck: dict[str, Any]
    removed: int
    discard: list[dict[str, Any]]
    supply: list[dict[str, Any]]
    players: list[dict[str, Any]]
    automa: dict[str, Any] | None


def card_view(
    rules: PointCity, order: tuple[int, ...], card: int, building: bool
) -> dict[str, Any]:
    """A card as shown: its resource side, and its building side when ``building``.

    ``tier`` 0 is an Ingenuity starting card (it has no building side).
    """
    index = order[card]
    face = rules.catalogue[index]
    shown = None
    if building:
        shown = dict(rules.buildings[index])
        shown["cost"] = dict(shown["cost"])
    return {
        "id": card,
        "tier": face.tier,
        "resource": RESOURCE_NAMES[face.resource],
        "double": face.double,
        "building": shown,
    }


def _event_view(rules: PointCity, order: tuple[int, ...], event: dict[str, Any]) -> dict[str, Any]:
    shown = {
        key: [list(x) if isinstance(x, list) else x for x in value]
        if isinstance(value, list)
        else dict(value)
        if isinstance(value, dict)
        else value
        for key, value in event.items()
    }
    if "card" in event:  # a flip: the building side is now up
        shown["card"] = card_view(rules, order, event["card"], True)
    if "cards" in event:
        sides = event.get("sides", ["resource"] * len(event["cards"]))
        shown["cards"] = [
            card_view(rules, order, card, side == "building")
            for card, side in zip(event["cards"], sides, strict=True)
        ]
    if "token" in event:
        shown["token"] = token_json(event["token"])
    if "tokens" in event:
        shown["tokens"] = [token_json(t) for t in event["tokens"]]
    return shown


def _owner_view(rules: PointCity, order: tuple[int, ...], owner: Player) -> dict[str, Any]:
    return {
        "stock": [card_view(rules, order, c, False) for c in owner.stock],
        "city": [card_view(rules, order, c, True) for c in owner.city],
        "tokens": [token_json(t) for t in owner.tokens],
        "permanent": {RESOURCES[r]: n for r, n in enumerate(owner.perm)},
    }


def render_view(rules: PointCity, state: PointCityState, seat: int | None) -> PointCityView:
    """The conventional keys plus: ``phase`` ("take", "civic": choosing tokens, "over"),
    ``current``, ``turn`` (turns finished), ``flipped``, ``tokens_to_choose``, ``market``
    (4 rows of 4 ``{"side", "card"}`` or None), ``refill_pending``, ``deck`` (count and the
    top card's resource side), ``removed`` (a count), ``discard``, ``supply`` (tokens on
    display, left to right), ``players`` (stock, city, tokens, permanent, score) and
    ``automa`` (solo only: the same plus ``cell`` where its tokens cross and ``difficulty``).
    """
    order = state.order
    over = state.phase == OVER
    market: list[list[dict[str, Any] | None]] = [[None] * SIZE for _ in range(SIZE)]
    for cell in range(CELLS):
        card, up = state.market[cell], state.up[cell]
        if card != EMPTY:
            market[cell // SIZE][cell % SIZE] = {
                "side": "building" if up else "resource",
                "card": card_view(rules, order, card, up),
            }
    top = None
    if state.deck_count:
        top = card_view(rules, order, state.next_card, False)
    scores = rules.scores(state)
    players = []
    for player, breakdown in zip(state.players, scores, strict=True):
        players.append(
            {
                **_owner_view(rules, order, player),
                "score": breakdown["total"],
                "breakdown": breakdown,
            }
        )
    automa = None
    if state.automa is not None:
        automa_score = rules.automa_score(state)
        assert automa_score is not None
        automa = {
            **_owner_view(rules, order, state.automa),
            "score": automa_score["total"],
            "breakdown": automa_score,
            "cell": list(state.automa_at),
            "difficulty": state.difficulty,
        }
    view: PointCityView = {
        "seat": seat,
        "num_players": state.num_players,
        "active_seats": rules.active_seats(state),
        "legal_actions": [] if seat is None else rules.legal_actions(state, seat),
        "log": [_event_view(rules, order, event) for event in state.log],
        "over": over,
        "phase": state.phase,
        "current": state.current,
        "turn": state.turn,
        "flipped": state.flipped,
        "tokens_to_choose": state.pending,
        "market": market,
        "refill_pending": [
            {"cell": [c // SIZE, c % SIZE], "side": "building" if b else "resource"}
            for c, b in state.holes
        ],
        "deck": {"count": state.deck_count, "top": top},
        "removed": len(rules.cards) - state.deck_size,
        "discard": [card_view(rules, order, c, False) for c in state.discard],
        "supply": [token_json(t) for t in state.supply],
        "players": players,
        "automa": automa,
    }
    if over:
        outcome = rules.outcome(state)
        assert outcome is not None
        view["outcome"] = outcome.to_json()
    return view


# -- sampling -------------------------------------------------------------------------------


def _building_key(building: dict[str, Any]) -> tuple[Any, ...]:
    return (
        building["name"],
        building["kind"],
        tuple(sorted(building["cost"].items())),
        building["points"],
        building["produces"],
    )


def _event_back(event: dict[str, Any]) -> dict[str, Any]:
    """A logged event as the state stores it: cards and tokens back to ids.

    Built key by key: deep-copying whole shown cards only to replace them was most of
    the cost of sampling a state.
    """
    state_event: dict[str, Any] = {}
    for key, value in event.items():
        if key == "card" or key == "token":
            state_event[key] = value["id"]
        elif key == "cards" or key == "tokens":
            state_event[key] = [item["id"] for item in value]
        else:
            state_event[key] = copy_json(value)
    return state_event


def _owner_back(data: dict[str, Any]) -> Player:
    return Player(
        stock=tuple(c["id"] for c in data["stock"]),
        city=tuple(c["id"] for c in data["city"]),
        tokens=tuple(t["id"] for t in data["tokens"]),
        perm=tuple(data["permanent"][r] for r in RESOURCES),
    )


FaceIndex = tuple[dict[tuple[Any, ...], list[int]], dict[tuple[Any, ...], list[int]]]


def face_index(cards: tuple[Card, ...]) -> FaceIndex:
    """Catalogue indices by resource side, and by both sides: what ``sample`` matches views to.

    Built once per rules object, since every sample of every bot search needs it.
    """
    by_side: dict[tuple[Any, ...], list[int]] = defaultdict(list)
    by_face: dict[tuple[Any, ...], list[int]] = defaultdict(list)
    for index, card in enumerate(cards):
        side = (card.tier, RESOURCE_NAMES[card.resource], card.double)
        by_side[side].append(index)
        by_face[(*side, _building_key(building_json(card)))].append(index)
    return dict(by_side), dict(by_face)


def sample(rules: PointCity, view: PointCityView, rng: random.Random) -> PointCityState:
    """A state agreeing with ``view``: cards whose faces the view hides are redrawn."""
    num_players = view["num_players"]
    n = len(rules.cards)
    deck_size = sum(SETUP[num_players][0])
    shown: dict[int, dict[str, Any]] = {}
    for row in view["market"]:
        for slot in row:
            if slot is not None:
                shown[slot["card"]["id"]] = slot["card"]
    owners = [*view["players"], *([view["automa"]] if view["automa"] else [])]
    for owner in owners:
        for card in (*owner["stock"], *owner["city"]):
            shown[card["id"]] = card
    for card in view["discard"]:
        shown[card["id"]] = card
    if view["deck"]["top"] is not None:
        shown[view["deck"]["top"]["id"]] = view["deck"]["top"]

    by_side, by_face = rules.face_index
    order = [-1] * n + [n] * num_players
    free = set(range(n))
    partial = []
    for card_id, card in shown.items():
        if card_id >= n:
            continue
        side = (card["tier"], card["resource"], card["double"])
        if card["building"] is None:
            partial.append((card_id, side))
            continue
        index = next(i for i in by_face[(*side, _building_key(card["building"]))] if i in free)
        order[card_id] = index
        free.discard(index)
    for card_id, side in partial:
        index = rng.choice([i for i in by_side[side] if i in free])
        order[card_id] = index
        free.discard(index)
    tiers = rules.tiers[num_players]
    for tier in (1, 2, 3):
        unknown = [i for i in range(n) if order[i] == -1 and tiers[i] == tier]
        pool = sorted(i for i in free if rules.cards[i].tier == tier)
        rng.shuffle(pool)
        for card_id, index in zip(unknown, pool, strict=True):
            order[card_id] = index

    market, up = [EMPTY] * CELLS, [False] * CELLS
    for cell in range(CELLS):
        slot = view["market"][cell // SIZE][cell % SIZE]
        if slot is not None:
            market[cell], up[cell] = slot["card"]["id"], slot["side"] == "building"
    automa = view["automa"]
    return PointCityState(
        num_players=num_players,
        seed=rng.randrange(2**31),
        difficulty=automa["difficulty"] if automa else rules.default_options["automa_difficulty"],
        order=tuple(order),
        deck_size=deck_size,
        next_card=deck_size - view["deck"]["count"],
        market=tuple(market),
        up=tuple(up),
        supply=tuple(t["id"] for t in view["supply"]),
        players=tuple(_owner_back(p) for p in view["players"]),
        discard=tuple(c["id"] for c in view["discard"]),
        current=view["current"],
        phase=view["phase"],
        flipped=view["flipped"],
        pending=view["tokens_to_choose"],
        holes=tuple(
            (h["cell"][0] * SIZE + h["cell"][1], h["side"] == "building")
            for h in view["refill_pending"]
        ),
        turn=view["turn"],
        automa=_owner_back(automa) if automa else None,
        automa_at=(automa["cell"][0], automa["cell"][1]) if automa else (0, 0),
        log=tuple(_event_back(event) for event in view["log"]),
    )
