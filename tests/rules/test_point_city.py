"""Point City, tested from its rules reference (docs/rules/point-city.md).

Rule tests build the position they need with ``arrange`` (named cards placed in the
market, stocks and cities of a fresh game); the property tests at the end play a few
hundred seeded random games.
"""

from __future__ import annotations

import itertools
import json
import random
from collections import Counter
from dataclasses import replace
from typing import Any

import pytest

from games.rules import IllegalAction, get_rules
from games.rules.point_city.cards import (
    CARD_FILE,
    KINDS,
    RESOURCE_NAMES,
    RESOURCES,
    load_cards,
)
from games.rules.point_city.game import PointCity
from games.rules.point_city.pay import payments
from games.rules.point_city.scoring import permanent, token_points
from games.rules.point_city.state import OVER, Player, PointCityState
from games.rules.point_city.view import card_view

rules = PointCity()
CARDS = rules.cards
SHIPPED = json.loads(CARD_FILE.read_text(encoding="utf-8"))
N = len(CARDS)

# Civic token ids (§8 order): T1-T5 resources, T6 Ingenuity, T7-T16 pairs, T17 set, ...
ECONOMY_TOKEN, INGENUITY_TOKEN, COMMUNITY_ENERGY_PAIR = 1, 5, 7
SET_TOKEN, TWO_PLUS, THREE_PLUS, MISSING, FLAT_5, FLAT_7 = 16, 17, 18, 19, 20, 21


# -- helpers --------------------------------------------------------------------------------


def _matches(card: Any, want: dict[str, Any]) -> bool:
    face = {
        "tier": card.tier,
        "kind": KINDS[card.kind],
        "resource": RESOURCE_NAMES[card.resource],
        "double": card.double,
        "points": card.points,
        "cost": {RESOURCES[r]: n for r, n in enumerate(card.cost) if n},
        "produces": RESOURCES[card.produces] if card.produces >= 0 else None,
    }
    return all(face[key] == value for key, value in want.items())


def cards(count: int, **want: Any) -> list[int]:
    """Catalogue indices of ``count`` different shipped cards with these properties."""
    found = [i for i, card in enumerate(CARDS) if _matches(card, want)]
    assert len(found) >= count, f"the card set has fewer than {count} cards like {want}"
    return found[:count]


def card(**want: Any) -> int:
    return cards(1, **want)[0]


SINGLE = {r: cards(4, tier=1, resource=r, kind="producer") for r in RESOURCES}
"""Single-symbol resource cards, four of each type."""
DOUBLE = {r: cards(3, tier=2, resource=r, kind="producer") for r in RESOURCES}
"""Double-symbol resource cards, three of each type."""
INGENIOUS = cards(6, tier=2, resource="ingenuity")
"""Ingenuity-sided cards besides the starting ones."""
STARTER = "starter"


def arrange(
    num_players: int = 2,
    *,
    market: dict[tuple[int, int], tuple[int | None, str]] | None = None,
    stocks: dict[int, list[int | str]] | None = None,
    cities: dict[int, list[int]] | None = None,
    tokens: dict[int, list[int]] | None = None,
    supply: list[int] | None = None,
    current: int = 0,
    deck_count: int | None = None,
    automa: dict[str, list[int]] | None = None,
    seed: int = 11,
    **changes: Any,
) -> PointCityState:
    """A fresh game changed by hand. ``market`` maps cells to (catalogue index or None to
    keep the card, side up); stocks and cities list catalogue indices (``"starter"``: the
    seat's Ingenuity starting card), placed on the ids of cards removed at setup."""
    state = rules.setup(num_players, seed)
    order = list(state.order)
    spare = iter(range(state.deck_size, N))
    placed: set[int] = set()

    def put(card_id: int, index: int) -> int:
        other = order.index(index)
        assert other not in placed, "a card may be placed only once"
        order[card_id], order[other] = order[other], order[card_id]
        placed.add(card_id)
        return card_id

    up = list(state.up)
    for (row, col), (index, side) in (market or {}).items():
        cell = row * 4 + col
        if index is not None:
            put(state.market[cell], index)
        up[cell] = side == "building"
    players = list(state.players)
    for seat in range(num_players):
        stock = players[seat].stock
        if stocks and seat in stocks:
            stock = tuple(
                N + seat if c == STARTER else put(next(spare), int(c)) for c in stocks[seat]
            )
        city = tuple(put(next(spare), c) for c in (cities or {}).get(seat, []))
        players[seat] = Player(
            stock,
            city,
            tuple((tokens or {}).get(seat, [])),
            permanent(CARDS, (order[c] for c in city)),
        )
    if automa is not None:
        city = tuple(put(next(spare), c) for c in automa.get("city", []))
        changes["automa"] = Player(
            tuple(put(next(spare), c) for c in automa.get("stock", [])),
            city,
            tuple(automa.get("tokens", [])),
            permanent(CARDS, (order[c] for c in city)),
        )
    state = replace(
        state,
        order=tuple(order),
        up=tuple(up),
        players=tuple(players),
        current=current,
        supply=state.supply if supply is None else tuple(supply),
        **changes,
    )
    if deck_count is not None:
        state = replace(state, next_card=state.deck_size - deck_count)
    return state


def face(state: PointCityState, card_id: int) -> Any:
    return rules.catalogue[state.order[card_id]]


def take(a: tuple[int, int], b: tuple[int, int], **pay: int) -> dict[str, Any]:
    return {
        "type": "take",
        "cells": [list(a), list(b)],
        "pay": {k.replace("_", "-"): v for k, v in pay.items()},
    }


def takes_of(state: PointCityState, a: tuple[int, int], b: tuple[int, int]) -> list[dict[str, Any]]:
    return [
        action
        for action in rules.legal_actions(state, state.current)
        if action["type"] == "take" and action["cells"] == [list(a), list(b)]
    ]


def play_randomly(num_players: int, seed: int, **options: Any) -> tuple[PointCityState, list]:
    rng = random.Random(seed)
    state = rules.setup(num_players, seed, options or None)
    history = []
    while rules.outcome(state) is None:
        seat = rules.active_seats(state)[0]
        action = rng.choice(rules.legal_actions(state, seat))
        history.append((seat, action))
        state = rules.apply(state, seat, action)
    return state, history


def finished(state: PointCityState) -> PointCityState:
    return replace(state, phase=OVER)


# -- §7 the card set --------------------------------------------------------------------------


def test_the_game_is_registered_for_one_to_four_players() -> None:
    registered = get_rules("point-city")
    assert isinstance(registered, PointCity)
    assert (registered.name, registered.min_players, registered.max_players) == ("Point City", 1, 4)
    assert registered.default_options == {"automa_difficulty": 1}


def test_the_card_file_says_at_its_top_that_it_is_an_original_design() -> None:
    first_key = next(iter(SHIPPED))
    assert first_key == "about"
    assert "ORIGINAL design" in SHIPPED["about"]
    assert "not the publisher's card list" in SHIPPED["about"]


def test_there_are_160_cards_65_in_tier_1_50_in_tier_2_and_45_in_tier_3() -> None:
    assert N == 160
    assert Counter(c.tier for c in CARDS) == {1: 65, 2: 50, 3: 45}


def test_each_tier_mixes_producers_civic_and_points_buildings_as_published() -> None:
    mix = Counter((c.tier, KINDS[c.kind]) for c in CARDS)
    assert [mix[(1, k)] for k in ("producer", "civic", "points")] == [50, 10, 5]
    assert [mix[(2, k)] for k in ("producer", "civic", "points")] == [30, 10, 10]
    assert [mix[(3, k)] for k in ("producer", "civic", "points")] == [20, 10, 15]


def test_tier_1_resource_sides_are_13_single_cards_of_each_basic_type() -> None:
    tier1 = [c for c in CARDS if c.tier == 1]
    assert Counter(RESOURCE_NAMES[c.resource] for c in tier1) == {r: 13 for r in RESOURCES}
    assert not any(c.double for c in tier1)


@pytest.mark.parametrize(("tier", "per_type"), [(2, 6), (3, 5)])
def test_tiers_2_and_3_have_double_basic_sides_and_20_single_ingenuity_sides(
    tier: int, per_type: int
) -> None:
    cards_of_tier = [c for c in CARDS if c.tier == tier]
    doubles = Counter(RESOURCE_NAMES[c.resource] for c in cards_of_tier if c.double)
    assert doubles == {r: per_type for r in RESOURCES}
    ingenuity = [c for c in cards_of_tier if RESOURCE_NAMES[c.resource] == "ingenuity"]
    assert len(ingenuity) == 20 and not any(c.double for c in ingenuity)
    assert all(c.double for c in cards_of_tier if RESOURCE_NAMES[c.resource] != "ingenuity")


def test_ingenuity_sides_are_exactly_the_tier_2_points_and_civic_cards() -> None:
    tier2 = [c for c in CARDS if c.tier == 2]
    assert {c.resource == 5 for c in tier2 if KINDS[c.kind] != "producer"} == {True}
    assert {c.resource == 5 for c in tier2 if KINDS[c.kind] == "producer"} == {False}


def test_in_tier_3_the_20_ingenuity_sides_sit_on_points_and_civic_cards_only() -> None:
    # §7 cannot hold exactly for tier 3 (25 points and civic cards, 20 Ingenuity sides):
    # reading P12 puts Ingenuity on 20 of them and a double on one 7-point card per basic
    # type.
    tier3 = [c for c in CARDS if c.tier == 3]
    assert all(KINDS[c.kind] != "producer" for c in tier3 if c.resource == 5)
    others = [c for c in tier3 if KINDS[c.kind] != "producer" and c.resource != 5]
    assert sorted(RESOURCES[c.resource] for c in others) == sorted(RESOURCES)
    assert {(KINDS[c.kind], c.points) for c in others} == {("points", 7)}


def test_a_producer_makes_the_resource_shown_on_its_resource_side() -> None:
    for c in CARDS:
        if KINDS[c.kind] == "producer":
            assert c.produces == c.resource
        else:
            assert c.produces == -1


def _price(c: Any) -> tuple[str, int, int, str]:
    amounts = sorted((n for n in c.cost if n), reverse=True)
    shape = "+".join(map(str, amounts))
    return (KINDS[c.kind], sum(c.cost), c.points, shape)


def test_prices_follow_the_published_price_value_curves() -> None:
    allowed = {
        1: {
            ("producer", 2, 0, "1+1"),
            ("producer", 2, 1, "2"),
            ("producer", 3, 2, "2+1"),
            ("points", 2, 4, "1+1"),
            ("civic", 3, 0, "3"),
        },
        2: {("producer", 3, 0), ("producer", 4, 1), ("producer", 5, 2), ("points", 3, 4)}
        | {("points", 4, 5), ("civic", 4, 0, "4")},
        3: {("producer", 4, 1), ("producer", 5, 2), ("producer", 6, 3), ("points", 4, 4)}
        | {("points", 5, 5), ("points", 7, 7), ("civic", 5, 0, "5")},
    }
    for c in CARDS:
        price = _price(c)
        assert price in allowed[c.tier] or price[:3] in allowed[c.tier], (c.name, price)


def test_a_cost_never_includes_the_cards_own_resource_side_type() -> None:
    for c in CARDS:
        if c.resource < 5:
            assert c.cost[c.resource] == 0, c.name


def test_each_basic_type_appears_about_equally_often_in_costs_per_tier_and_kind() -> None:
    for tier, kind in itertools.product((1, 2, 3), range(3)):
        totals = [
            sum(c.cost[r] for c in CARDS if (c.tier, c.kind) == (tier, kind)) for r in range(5)
        ]
        assert max(totals) - min(totals) <= 1, (tier, KINDS[kind], totals)


def test_no_two_cards_of_a_tier_are_identical_on_both_sides_more_than_twice() -> None:
    sides = Counter(
        (c.tier, c.resource, c.double, c.kind, c.cost, c.points, c.produces) for c in CARDS
    )
    assert max(sides.values()) <= 2


def test_the_loader_accepts_any_card_list_in_the_same_format() -> None:  # P9
    custom = [
        {"tier": 1, "resource": "energy", "double": False, "name": "Kite Mill", "kind": "producer",
         "produces": "energy", "cost": {"economy": 1, "industry": 1}, "points": 0},
        {"tier": 3, "resource": "ingenuity", "double": False, "name": "Grand Arch",
         "kind": "points", "produces": None, "cost": {"community": 4, "ecology": 3}, "points": 9},
    ]  # fmt: skip
    kite, arch = load_cards(custom)
    assert (kite.name, kite.tier, RESOURCES[kite.resource], kite.produces) == (
        "Kite Mill",
        1,
        "energy",
        2,
    )
    assert kite.cost == (0, 1, 0, 0, 1) and kite.units == 1
    assert (arch.kind, arch.points, arch.cost, arch.resource) == (1, 9, (4, 0, 0, 3, 0), 5)


@pytest.mark.parametrize(
    "broken",
    [
        {"tier": 4},
        {"resource": "gold"},
        {"double": True, "resource": "ingenuity"},
        {"kind": "castle"},
        {"produces": None},
        {"cost": {"ingenuity": 1}},
        {"cost": {"energy": 0}},
        {"points": -1},
    ],
)
def test_the_loader_refuses_malformed_cards(broken: dict[str, Any]) -> None:
    good = {"tier": 1, "resource": "energy", "double": False, "name": "Kite Mill", "points": 1,
            "kind": "producer", "produces": "energy", "cost": {"economy": 2}}  # fmt: skip
    load_cards([good])
    with pytest.raises(ValueError):
        load_cards([{**good, **broken}])
    with pytest.raises(ValueError):
        load_cards([{k: v for k, v in good.items() if k != "cost"}])


def test_a_game_plays_to_the_end_with_a_custom_card_list() -> None:
    renamed = [{**raw, "name": f"Custom {i}"} for i, raw in enumerate(SHIPPED["cards"])]
    custom = PointCity(load_cards(renamed))
    rng = random.Random(5)
    state = custom.setup(3, 5)
    while custom.outcome(state) is None:
        seat = custom.active_seats(state)[0]
        state = custom.apply(state, seat, rng.choice(custom.legal_actions(state, seat)))
    names = json.dumps(custom.view(state, None))
    assert "Custom " in names and "Corner Library" not in names


# -- §2 setup ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("num_players", "used", "tokens"),
    [(1, (40, 24, 18), 10), (2, (40, 24, 18), 10), (3, (52, 36, 28), 12), (4, (64, 48, 38), 14)],
)
def test_setup_uses_per_tier_cards_and_shows_civic_tokens_by_player_count(
    num_players: int, used: tuple[int, int, int], tokens: int
) -> None:
    state = rules.setup(num_players, 3)
    deck = [face(state, i).tier for i in range(state.deck_size)]
    assert Counter(deck) == {1: used[0], 2: used[1], 3: used[2]}
    assert state.deck_size == sum(used) == {1: 82, 2: 82, 3: 116, 4: 150}[num_players]
    assert len(state.supply) == len(set(state.supply)) == tokens


def test_the_cards_removed_at_setup_are_random() -> None:
    decks = {frozenset(rules.setup(2, seed).order[:82]) for seed in range(5)}
    assert len(decks) == 5


def test_the_draw_pile_has_tier_1_on_top_then_tier_2_then_tier_3_at_the_bottom() -> None:
    state = rules.setup(3, 8)
    tiers = [face(state, i).tier for i in range(state.deck_size)]
    assert tiers == sorted(tiers)


def test_the_market_is_the_top_16_cards_resource_side_up_in_reading_order() -> None:
    state = rules.setup(2, 4)
    assert state.market == tuple(range(16)) and not any(state.up)
    view = rules.view(state, 0)
    assert [slot["card"]["id"] for row in view["market"] for slot in row] == list(range(16))
    assert {slot["side"] for row in view["market"] for slot in row} == {"resource"}
    assert view["deck"]["count"] == 66 and view["deck"]["top"]["id"] == 16


def test_every_player_starts_with_one_ingenuity_card_in_stock() -> None:
    for num_players in (1, 2, 3, 4):
        view = rules.view(rules.setup(num_players, 2), None)
        for player in view["players"]:
            assert [(c["resource"], c["tier"]) for c in player["stock"]] == [("ingenuity", 0)]


def test_the_first_player_holds_the_first_player_card_dealt_at_random() -> None:
    firsts = {rules.setup(4, seed).current for seed in range(40)}
    assert firsts == {0, 1, 2, 3}
    state = rules.setup(3, 9)
    assert state.log[0] == {"type": "start", "seat": state.current}


def test_play_runs_clockwise_from_the_first_player() -> None:  # reading P7
    state = rules.setup(4, 1)
    seats = []
    for _ in range(6):
        seats.append(state.current)
        state = rules.apply(state, state.current, {"type": "draw"})
    first = seats[0]
    assert seats == [(first + k) % 4 for k in range(6)]


def test_a_seed_always_gives_the_same_game() -> None:
    assert rules.to_json(rules.setup(3, 77)) == rules.to_json(rules.setup(3, 77))
    assert rules.to_json(rules.setup(3, 77)) != rules.to_json(rules.setup(3, 78))


@pytest.mark.parametrize(
    ("num_players", "options"), [(0, None), (5, None), (2, {"automa_difficulty": 4})]
)
def test_setup_refuses_bad_player_counts_and_options(num_players: int, options: Any) -> None:
    with pytest.raises(ValueError):
        rules.setup(num_players, 1, options)


# -- §3.1 the free flip -----------------------------------------------------------------------


def flips(state: PointCityState) -> list[list[int]]:
    return [a["cell"] for a in rules.legal_actions(state, state.current) if a["type"] == "flip"]


def test_any_card_may_be_flipped_while_every_line_shows_only_resources() -> None:
    assert len(flips(rules.setup(2, 1))) == 16


def test_only_cards_in_a_row_or_column_showing_only_resources_may_be_flipped() -> None:  # P2
    # A building in every row and in every column but column 1.
    state = arrange(market={cell: (None, "building") for cell in [(0, 0), (1, 0), (2, 3), (3, 2)]})
    assert flips(state) == [[0, 1], [1, 1], [2, 1], [3, 1]]
    with pytest.raises(IllegalAction) as refused:
        rules.apply(state, 0, {"type": "flip", "cell": [0, 2]})
    assert "only resources" in refused.value.message


def test_no_card_may_be_flipped_when_every_line_shows_a_building() -> None:
    state = arrange(market={(i, i): (None, "building") for i in range(4)})
    assert flips(state) == []


def test_a_flip_shows_the_building_side_and_the_same_player_then_takes() -> None:
    state = rules.setup(2, 6)
    seat = state.current
    after = rules.apply(state, seat, {"type": "flip", "cell": [2, 1]})
    assert after.up[9] and after.current == seat
    assert rules.view(after, None)["market"][2][1]["card"]["building"] is not None
    assert flips(after) == []  # at most once per turn
    with pytest.raises(IllegalAction):
        rules.apply(after, seat, {"type": "flip", "cell": [0, 0]})
    assert {a["type"] for a in rules.legal_actions(after, seat)} == {"take", "draw"}
    assert after.log[-1]["type"] == "flip" and after.log[-1]["cell"] == [2, 1]


# -- §3.2 taking two cards ----------------------------------------------------------------------

ECONOMY_ENERGY = card(tier=1, kind="producer", cost={"economy": 1, "energy": 1})  # 0 VP
TWO_ECONOMY = card(tier=1, kind="producer", cost={"economy": 2})  # 1 VP
TWO_ENERGY = card(tier=1, kind="producer", cost={"energy": 2})
ECONOMY_MAKER = card(tier=1, kind="producer", produces="economy", cost={"energy": 1, "ecology": 1})
THREE_ECONOMY_CIVIC = card(tier=1, kind="civic", cost={"economy": 3})
THREE_ENERGY_CIVIC = card(tier=1, kind="civic", cost={"energy": 3})


def test_two_orthogonally_adjacent_cards_may_be_taken_from_the_market() -> None:
    state = rules.setup(2, 6)
    pairs = {
        tuple(map(tuple, a["cells"]))
        for a in rules.legal_actions(state, state.current)
        if a["type"] == "take"
    }
    assert len(pairs) == 24
    assert all(abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1 for a, b in pairs)


@pytest.mark.parametrize(
    "cells", [[[0, 0], [1, 1]], [[0, 0], [0, 2]], [[0, 1], [0, 0]], [[3, 3], [3, 4]]]
)
def test_cards_that_are_not_side_by_side_cannot_be_taken(cells: list[list[int]]) -> None:
    state = rules.setup(2, 6)
    with pytest.raises(IllegalAction):
        rules.apply(state, state.current, {"type": "take", "cells": cells, "pay": {}})


def test_taking_two_resource_cards_is_free_and_puts_them_in_the_stock() -> None:
    state = rules.setup(2, 6)
    seat = state.current
    after = rules.apply(state, seat, take((0, 0), (0, 1)))
    assert after.players[seat].stock == (N + seat, 0, 1)
    assert after.players[seat].city == () and after.discard == ()


def test_a_card_taken_building_side_up_is_built_never_kept_as_a_resource() -> None:  # P1
    state = arrange(
        market={(0, 0): (ECONOMY_ENERGY, "building"), (0, 1): (SINGLE["economy"][0], "resource")},
        stocks={0: [STARTER, SINGLE["energy"][0]]},
    )
    offered = takes_of(state, (0, 0), (0, 1))
    assert offered and all(a["pay"] for a in offered)
    after = rules.apply(state, 0, offered[0])
    assert state.market[0] in after.players[0].city
    assert state.market[0] not in after.players[0].stock


def test_a_building_that_cannot_be_paid_cannot_be_taken() -> None:
    state = arrange(market={(0, 0): (THREE_ECONOMY_CIVIC, "building")}, stocks={0: [STARTER]})
    assert takes_of(state, (0, 0), (0, 1)) == takes_of(state, (0, 0), (1, 0)) == []
    with pytest.raises(IllegalAction) as refused:
        rules.apply(state, 0, take((0, 0), (0, 1), ingenuity=1))
    assert refused.value.message == "You cannot pay for that building with that payment."


def test_drawing_takes_the_top_two_cards_of_the_pile_as_resources_without_a_refill() -> None:
    state = rules.setup(2, 6)
    seat = state.current
    after = rules.apply(state, seat, {"type": "draw"})
    assert after.players[seat].stock == (N + seat, 16, 17)
    assert after.market == state.market and after.up == state.up
    assert after.deck_count == state.deck_count - 2
    assert rules.view(after, None)["deck"]["top"]["id"] == 18


def test_a_market_card_and_a_pile_card_cannot_be_taken_together() -> None:
    state = rules.setup(2, 6)
    assert {a["type"] for a in rules.legal_actions(state, state.current)} == {
        "flip",
        "take",
        "draw",
    }
    for mixed in [
        {"type": "take", "cells": [[0, 0], "deck"], "pay": {}},
        {"type": "draw", "cells": [[0, 0]]},
    ]:
        with pytest.raises(IllegalAction):
            rules.apply(state, state.current, mixed)


# -- §3.3 paying ------------------------------------------------------------------------------


def build_one(stock: list[int | str], building: int, **kw: Any) -> PointCityState:
    """Seat 0 to move, ``building`` up at (0, 0) beside a resource card at (0, 1)."""
    market = {(0, 0): (building, "building"), (0, 1): (SINGLE["industry"][3], "resource")}
    return arrange(market=market, stocks={0: stock}, **kw)


def test_resource_cards_spent_are_discarded_from_the_stock() -> None:
    state = build_one([STARTER, SINGLE["economy"][0], SINGLE["energy"][0]], ECONOMY_ENERGY)
    spent = state.players[0].stock[1:]
    after = rules.apply(state, 0, take((0, 0), (0, 1), economy=1, energy=1))
    assert after.discard == spent
    assert after.players[0].stock == (N, state.market[1])


def test_a_double_card_pays_two_units_of_its_type() -> None:
    state = build_one([STARTER, DOUBLE["economy"][0]], TWO_ECONOMY)
    assert [a["pay"] for a in takes_of(state, (0, 0), (0, 1))] == [{"double-economy": 1}]


def test_a_double_card_used_for_one_unit_wastes_the_other_without_change() -> None:  # P8
    state = build_one([STARTER, DOUBLE["economy"][0], SINGLE["energy"][0]], ECONOMY_ENERGY)
    after = rules.apply(state, 0, take((0, 0), (0, 1), double_economy=1, energy=1))
    assert after.players[0].stock == (N, state.market[1])  # no economy unit came back


def test_an_ingenuity_card_pays_one_unit_of_any_type() -> None:
    state = build_one([STARTER, SINGLE["energy"][0]], ECONOMY_ENERGY)
    assert [a["pay"] for a in takes_of(state, (0, 0), (0, 1))] == [{"energy": 1, "ingenuity": 1}]


def test_permanent_resources_pay_without_spending_a_card() -> None:
    makers = [card(tier=1, kind="producer", produces=r, points=2) for r in ("economy", "energy")]
    state = build_one([STARTER], ECONOMY_ENERGY, cities={0: makers})
    assert [a["pay"] for a in takes_of(state, (0, 0), (0, 1))] == [{}]
    after = rules.apply(state, 0, take((0, 0), (0, 1)))
    assert after.players[0].stock == (N, state.market[1])
    assert after.log[-2]["permanent"] == {"economy": 1, "energy": 1}


def test_a_producer_pays_from_the_turn_after_it_was_built() -> None:
    market = {(0, 0): (ECONOMY_MAKER, "building"), (0, 1): (TWO_ECONOMY, "building")}
    stock = [SINGLE["energy"][0], SINGLE["ecology"][0], SINGLE["economy"][1]]
    state = arrange(market=market, stocks={0: stock})
    assert takes_of(state, (0, 0), (0, 1)) == []
    state = rules.apply(state, 0, take((0, 0), (1, 0), energy=1, ecology=1))
    state = rules.apply(state, 1, {"type": "draw"})
    assert state.players[0].perm == (0, 1, 0, 0, 0)
    assert [a["pay"] for a in takes_of(state, (0, 1), (0, 2))] == [{"economy": 1}]


def test_a_permanent_resource_pays_only_once_for_two_buildings_in_one_turn() -> None:  # P3
    makers = [card(tier=1, kind="producer", produces=r, points=2) for r in ("economy", "energy")]
    twins = cards(2, tier=1, kind="producer", cost={"economy": 1, "energy": 1})
    market = {(0, 0): (twins[0], "building"), (0, 1): (twins[1], "building")}
    poor = arrange(market=market, stocks={0: [STARTER]}, cities={0: makers})
    assert takes_of(poor, (0, 0), (0, 1)) == []
    rich = arrange(
        market=market,
        stocks={0: [SINGLE["economy"][0], SINGLE["energy"][0]]},
        cities={0: makers},
    )
    assert [a["pay"] for a in takes_of(rich, (0, 0), (0, 1))] == [{"economy": 1, "energy": 1}]
    after = rules.apply(rich, 0, take((0, 0), (0, 1), economy=1, energy=1))
    assert len(after.players[0].city) == 4  # two buildings built in one turn


def test_a_producer_built_this_turn_does_not_pay_for_the_other_card() -> None:
    market = {(0, 0): (ECONOMY_MAKER, "building"), (0, 1): (TWO_ECONOMY, "building")}
    paid_maker = [SINGLE["energy"][0], SINGLE["ecology"][0]]
    short = arrange(market=market, stocks={0: [*paid_maker, SINGLE["economy"][1]]})
    assert takes_of(short, (0, 0), (0, 1)) == []
    enough = arrange(market=market, stocks={0: [*paid_maker, *SINGLE["economy"][1:3]]})
    assert [a["pay"] for a in takes_of(enough, (0, 0), (0, 1))] == [
        {"economy": 2, "energy": 1, "ecology": 1}
    ]


@pytest.mark.parametrize(("resource_cell", "building_cell"), [((0, 1), (0, 0)), ((0, 0), (0, 1))])
def test_a_resource_taken_in_the_same_action_may_pay_for_the_building_beside_it(
    resource_cell: tuple[int, int], building_cell: tuple[int, int]
) -> None:
    market = {
        building_cell: (ECONOMY_ENERGY, "building"),
        resource_cell: (SINGLE["economy"][0], "resource"),
    }
    state = arrange(market=market, stocks={0: [SINGLE["energy"][0]]})
    offered = takes_of(state, (0, 0), (0, 1))
    assert [a["pay"] for a in offered] == [{"economy": 1, "energy": 1}]
    after = rules.apply(state, 0, offered[0])
    taken_resource = state.market[resource_cell[0] * 4 + resource_cell[1]]
    assert taken_resource in after.discard and after.players[0].stock == ()


def test_the_first_payment_offered_is_the_sensible_default() -> None:
    # Singles of the exact type before doubles, doubles before Ingenuity. (Paying one energy
    # with Ingenuity while a second single energy stays is never offered: see below.)
    state = build_one([STARTER, *SINGLE["energy"][:2], DOUBLE["energy"][0]], TWO_ENERGY)
    assert [a["pay"] for a in takes_of(state, (0, 0), (0, 1))] == [
        {"energy": 2},
        {"double-energy": 1},
    ]
    state = build_one([STARTER, DOUBLE["economy"][0], SINGLE["energy"][0]], ECONOMY_ENERGY)
    assert [a["pay"] for a in takes_of(state, (0, 0), (0, 1))] == [
        {"energy": 1, "double-economy": 1},
        {"energy": 1, "ingenuity": 1},
    ]


def test_no_payment_offered_spends_a_card_that_a_worse_card_could_replace() -> None:
    # A single energy is there, so neither the double nor the Ingenuity card is offered for it.
    state = build_one(
        [STARTER, SINGLE["economy"][0], SINGLE["energy"][0], DOUBLE["energy"][0]], ECONOMY_ENERGY
    )
    assert [a["pay"] for a in takes_of(state, (0, 0), (0, 1))] == [{"economy": 1, "energy": 1}]


def test_a_payment_that_is_not_offered_is_refused() -> None:
    state = build_one([STARTER, SINGLE["economy"][0], SINGLE["energy"][0]], ECONOMY_ENERGY)
    for pay in [
        {"economy": 1},
        {"economy": 1, "energy": 1, "ingenuity": 1},
        {"gold": 1},
        [],
        {"energy": True},
    ]:
        with pytest.raises(IllegalAction):
            rules.apply(state, 0, {"type": "take", "cells": [[0, 0], [0, 1]], "pay": pay})


def _covers(need: list[int], pay: tuple[int, ...]) -> bool:
    owed = sum(max(0, need[t] - pay[t] - 2 * pay[t + 5]) for t in range(5))
    return owed <= pay[10]


def _worth_at_least(better: int, worse: int) -> bool:
    """A card kind is worth at least another: the same, or a double/Ingenuity for a single."""
    return better == worse or (worse < 5 and better in (worse + 5, 10))


def _dominates(kept: list[int], other: list[int]) -> bool:
    """Each card ``other`` keeps matches a distinct card ``kept`` keeps worth as much."""
    match: dict[int, int] = {}

    def assign(i: int, seen: set[int]) -> bool:
        for j, card_kind in enumerate(kept):
            if j not in seen and _worth_at_least(card_kind, other[i]):
                seen.add(j)
                if j not in match or assign(match[j], seen):
                    match[j] = i
                    return True
        return False

    return all(assign(i, set()) for i in range(len(other)))


def test_offered_payments_are_exactly_the_undominated_ones_found_by_brute_force() -> None:
    rng = random.Random(2024)
    for _ in range(250):
        need = [0] * 5
        for _ in range(rng.randrange(1, 6)):
            need[rng.randrange(5)] += 1
        have = [0] * 11
        for _ in range(rng.randrange(0, 8)):
            have[rng.choice([*range(5), *range(5), *range(5, 10), 10])] += 1
        paying = [
            pay for pay in itertools.product(*(range(n + 1) for n in have)) if _covers(need, pay)
        ]
        left = {pay: [k for k in range(11) for _ in range(have[k] - pay[k])] for pay in paying}
        expected = {
            pay
            for pay in paying
            if not any(o != pay and _dominates(left[o], left[pay]) for o in paying)
        }
        offered = payments(need, have)
        assert len(offered) == len(set(offered)), "payments are distinct"
        assert set(offered) == expected, (need, have)


# -- §3.4 civic buildings ---------------------------------------------------------------------


def test_a_civic_building_earns_one_civic_token_of_the_players_choice() -> None:
    state = build_one([*SINGLE["economy"][:3]], THREE_ECONOMY_CIVIC, supply=[3, 9, 20])
    state = rules.apply(state, 0, take((0, 0), (0, 1), economy=3))
    assert rules.active_seats(state) == [0] and state.phase == "civic"
    assert rules.legal_actions(state, 0) == [{"type": "token", "token": t} for t in (3, 9, 20)]
    with pytest.raises(IllegalAction):
        rules.apply(state, 0, {"type": "draw"})
    with pytest.raises(IllegalAction):
        rules.apply(state, 0, {"type": "token", "token": 4})
    state = rules.apply(state, 0, {"type": "token", "token": 9})
    assert state.players[0].tokens == (9,) and state.supply == (3, 20)
    assert state.current == 1 and state.phase == "take"


def test_two_civic_buildings_in_one_turn_earn_two_tokens() -> None:
    market = {(0, 0): (THREE_ECONOMY_CIVIC, "building"), (1, 0): (THREE_ENERGY_CIVIC, "building")}
    stock = [*SINGLE["economy"][:3], *SINGLE["energy"][:3]]
    state = arrange(market=market, stocks={0: stock}, supply=[2, 12])
    state = rules.apply(state, 0, take((0, 0), (1, 0), economy=3, energy=3))
    state = rules.apply(state, 0, {"type": "token", "token": 12})
    assert state.current == 0 and rules.legal_actions(state, 0) == [{"type": "token", "token": 2}]
    state = rules.apply(state, 0, {"type": "token", "token": 2})
    assert state.players[0].tokens == (12, 2) and state.supply == () and state.current == 1


def test_a_civic_building_is_still_built_when_the_supply_is_empty_but_earns_nothing() -> None:  # P4
    state = build_one([*SINGLE["economy"][:3]], THREE_ECONOMY_CIVIC, supply=[])
    after = rules.apply(state, 0, take((0, 0), (0, 1), economy=3))
    assert state.market[0] in after.players[0].city
    assert after.players[0].tokens == () and after.current == 1


# -- §3.5 refill ------------------------------------------------------------------------------


def test_the_refill_puts_each_new_card_opposite_side_up_in_reading_order() -> None:
    state = build_one([STARTER, SINGLE["economy"][0], SINGLE["energy"][0]], ECONOMY_ENERGY)
    top = state.next_card
    after = rules.apply(state, 0, take((0, 0), (0, 1), economy=1, energy=1))
    assert after.market[:2] == (top, top + 1)
    assert after.up[:2] == (False, True)  # the building's space gets a resource, and vice versa
    refill = after.log[-1]
    assert refill == {
        "type": "refill",
        "seat": 0,
        "cells": [[0, 0], [0, 1]],
        "cards": [top, top + 1],
        "sides": ["resource", "building"],
    }


def test_a_vertical_pair_is_refilled_top_space_first() -> None:
    state = rules.setup(2, 6)
    after = rules.apply(state, state.current, take((1, 2), (2, 2)))
    assert (after.market[6], after.market[10]) == (16, 17) and after.up[6] and after.up[10]


def test_a_flipped_card_taken_is_replaced_resource_side_up() -> None:
    state = build_one([SINGLE["economy"][0], SINGLE["energy"][0]], ECONOMY_ENERGY)
    state = replace(state, up=(False,) * 16)
    state = rules.apply(state, 0, {"type": "flip", "cell": [0, 0]})
    after = rules.apply(state, 0, take((0, 0), (0, 1), economy=1, energy=1))
    assert after.up[0] is False and after.up[1] is True


# -- §4 end of the game -----------------------------------------------------------------------


def test_the_pile_cannot_be_drawn_once_it_is_empty() -> None:
    state = arrange(deck_count=0)
    assert {"type": "draw"} not in rules.legal_actions(state, 0)
    with pytest.raises(IllegalAction) as refused:
        rules.apply(state, 0, {"type": "draw"})
    assert refused.value.message == "The draw pile is empty."


def test_the_game_ends_after_the_turn_taken_with_an_empty_pile_with_14_cards_left() -> None:
    state = arrange(deck_count=0)
    after = rules.apply(state, 0, take((0, 0), (0, 1)))
    assert rules.outcome(after) is not None and rules.active_seats(after) == []
    assert sum(1 for c in after.market if c >= 0) == 14
    assert after.log[-1] == {"type": "end", "seat": None}
    with pytest.raises(IllegalAction):
        rules.apply(after, 1, {"type": "draw"})


def test_the_game_goes_on_after_the_last_two_cards_are_drawn() -> None:
    state = arrange(deck_count=2)
    after = rules.apply(state, 0, {"type": "draw"})
    assert rules.outcome(after) is None and after.deck_count == 0 and after.current == 1


def test_a_player_who_cannot_take_anything_on_the_last_turn_passes_and_the_game_ends() -> None:
    # Reading P10: the published rules do not cover a last turn with nothing affordable.
    every_cell = {(r, c): (None, "building") for r in range(4) for c in range(4)}
    state = arrange(market=every_cell, stocks={0: [STARTER]}, deck_count=0)
    assert rules.legal_actions(state, 0) == [{"type": "pass"}]
    after = rules.apply(state, 0, {"type": "pass"})
    assert rules.outcome(after) is not None
    with pytest.raises(IllegalAction):
        rules.apply(rules.setup(2, 1), rules.setup(2, 1).current, {"type": "pass"})


@pytest.mark.parametrize("num_players", [1, 2, 3, 4])
def test_every_player_plays_exactly_17_turns(num_players: int) -> None:
    state, _ = play_randomly(num_players, 40 + num_players)
    turns = Counter(e["seat"] for e in state.log if e["type"] in ("take", "draw", "pass"))
    assert turns == {seat: 17 for seat in range(num_players)}
    if num_players == 1:
        assert sum(1 for e in state.log if e["type"] == "automa") == 17


def test_the_pile_always_holds_an_even_number_of_cards() -> None:  # P5
    _, history = play_randomly(3, 8)
    replay = rules.setup(3, 8)
    for seat, action in history:
        assert replay.deck_count % 2 == 0
        replay = rules.apply(replay, seat, action)


# -- §5 and §8 scoring ------------------------------------------------------------------------

PERM = (2, 4, 2, 3, 0)  # community, economy, energy, ecology, industry


@pytest.mark.parametrize(
    ("token", "points"),
    [
        (0, 4),  # 2 per permanent Community
        (ECONOMY_TOKEN, 8),
        (2, 4),
        (3, 6),
        (4, 0),
        (INGENUITY_TOKEN, 6),  # 2 per unspent Ingenuity card: 3 of them
        (COMMUNITY_ENERGY_PAIR, 6),  # 3 per Community + Energy pair
        (11, 9),  # 3 per Economy + Ecology pair
        (SET_TOKEN, 0),  # 6 per complete set: no Industry
        (TWO_PLUS, 8),  # 2 per type held twice or more: four types
        (THREE_PLUS, 6),  # 3 per type held three times or more: Economy and Ecology
        (MISSING, 4),  # 4 per type not produced: Industry
        (FLAT_5, 5),
        (FLAT_7, 7),
    ],
)
def test_each_civic_token_scores_as_section_8_says(token: int, points: int) -> None:
    assert token_points(token, PERM, ingenuity_cards=3) == points


def test_a_complete_set_scores_6_per_set() -> None:
    assert token_points(SET_TOKEN, (2, 4, 2, 3, 1), ingenuity_cards=0) == 6
    assert token_points(SET_TOKEN, (2, 4, 2, 3, 2), ingenuity_cards=0) == 12


def test_the_rulebook_example_scores_48() -> None:
    producers = (
        cards(3, tier=1, produces="economy", points=2)
        + cards(1, tier=1, produces="economy", points=1)
        + cards(2, tier=1, produces="ecology", points=2)
        + cards(1, tier=1, produces="ecology", points=1)
        + cards(2, tier=1, produces="energy", points=0)
        + cards(2, tier=1, produces="community", points=0)
    )
    monuments = [card(tier=2, kind="points", points=5), card(tier=3, kind="points", points=7)]
    city = producers + monuments
    assert sum(CARDS[c].points for c in city) == 24
    tokens = [ECONOMY_TOKEN, COMMUNITY_ENERGY_PAIR, THREE_PLUS, INGENUITY_TOKEN]
    state = arrange(
        stocks={0: [STARTER, INGENIOUS[0]]},
        cities={0: city},
        tokens={0: tokens},
        phase=OVER,
    )
    outcome = rules.outcome(state)
    assert outcome is not None and outcome.scores[0] == 48
    breakdown = outcome.details["breakdown"][0]
    assert [t["points"] for t in breakdown["tokens"]] == [8, 6, 6, 4]
    assert (breakdown["buildings"], breakdown["token_points"]) == (24, 24)


def test_resource_tokens_count_producers_not_unspent_resource_cards() -> None:
    state = arrange(
        stocks={0: [*SINGLE["economy"], *DOUBLE["economy"]]},
        tokens={0: [ECONOMY_TOKEN]},
        phase=OVER,
    )
    assert rules.outcome(state).scores[0] == 0  # type: ignore[union-attr]


def test_the_highest_score_wins() -> None:
    state = arrange(3, tokens={1: [FLAT_7], 2: [FLAT_5]}, phase=OVER)
    outcome = rules.outcome(state)
    assert outcome is not None
    assert (outcome.scores, outcome.ranks, outcome.reason) == ([0, 7, 5], [2, 0, 1], "score")


def test_a_tie_goes_to_the_player_with_more_unspent_resource_cards() -> None:
    state = arrange(
        stocks={1: [STARTER, SINGLE["energy"][0]]}, tokens={0: [FLAT_5], 1: [FLAT_5]}, phase=OVER
    )
    assert rules.outcome(state).ranks == [1, 0]  # type: ignore[union-attr]


def test_players_still_tied_share_the_victory() -> None:
    state = arrange(tokens={0: [FLAT_5], 1: [FLAT_5]}, phase=OVER)
    assert rules.outcome(state).ranks == [0, 0]  # type: ignore[union-attr]


# -- §9 solo against the Automa ---------------------------------------------------------------


def automa_cells(state: PointCityState) -> list[list[list[int]]]:
    return [e["cells"] for e in state.log if e["type"] == "automa"]


def test_in_solo_the_human_plays_first_and_the_automa_answers_inside_apply() -> None:
    state = rules.setup(1, 5)
    assert state.current == 0 and rules.active_seats(state) == [0]
    after = rules.apply(state, 0, {"type": "draw"})
    assert [e["type"] for e in after.log[1:]] == ["draw", "automa", "refill"]
    assert rules.active_seats(after) == [0] and after.turn == 2


def test_the_automa_takes_the_card_where_its_tokens_cross_and_the_one_below() -> None:
    # Reading P11: the two market tokens start on row 1 and column 1.
    state = rules.apply(rules.setup(1, 5), 0, {"type": "draw"})
    assert automa_cells(state) == [[[0, 0], [1, 0]]]
    assert state.automa is not None and state.automa.stock == (0, 4)
    assert state.log[-1]["cells"] == [[0, 0], [1, 0]] and state.up[0] and state.up[4]


def test_on_the_bottom_row_the_automa_takes_the_top_card_of_that_column() -> None:
    state = arrange(1, automa={}, automa_at=(3, 2))
    state = rules.apply(state, 0, {"type": "draw"})
    assert automa_cells(state) == [[[0, 2], [3, 2]]]


def test_the_automa_tokens_move_one_column_right_and_one_row_down_wrapping() -> None:
    state = rules.setup(1, 5)
    for _ in range(5):
        state = rules.apply(state, 0, {"type": "draw"})
    assert automa_cells(state) == [
        [[0, 0], [1, 0]],
        [[1, 1], [2, 1]],
        [[2, 2], [3, 2]],
        [[0, 3], [3, 3]],
        [[0, 0], [1, 0]],
    ]
    assert state.automa_at == (1, 1)


def test_the_automa_builds_without_paying_and_takes_the_leftmost_civic_token() -> None:
    market = {(0, 0): (THREE_ECONOMY_CIVIC, "building"), (1, 0): (TWO_ECONOMY, "building")}
    state = arrange(1, market=market, supply=[4, 9, 13], automa={})
    state = rules.apply(state, 0, {"type": "draw"})
    automa = state.automa
    assert automa is not None
    assert [CARDS[state.order[c]] for c in automa.city] == [
        CARDS[THREE_ECONOMY_CIVIC],
        CARDS[TWO_ECONOMY],
    ]
    assert automa.tokens == (4,) and state.supply == (9, 13)
    assert (state.up[0], state.up[4]) == (False, False)  # refilled resource side up


def _automa_state(difficulty: int, human_tokens: list[int]) -> PointCityState:
    city = [*SINGLE["energy"][:3], SINGLE["economy"][0], *SINGLE["community"][:2]]
    city.append(card(tier=3, kind="points", points=7))
    return arrange(
        1,
        tokens={0: human_tokens},
        automa={
            "city": city,
            "stock": [INGENIOUS[0], INGENIOUS[1], SINGLE["ecology"][0]],
            "tokens": [0, 1],
        },
        difficulty=difficulty,
        phase=OVER,
    )


@pytest.mark.parametrize(
    ("difficulty", "automa_score"), [(1, 7 + 6 + 6), (2, 7 + 6 + 10), (3, 7 + 10 + 14 + 2)]
)
def test_the_automa_scores_by_difficulty(difficulty: int, automa_score: int) -> None:
    # Buildings 7 VP; permanent Energy 3, Economy 1, Community 2; two tokens; two Ingenuity cards.
    outcome = rules.outcome(_automa_state(difficulty, []))
    assert outcome is not None
    assert outcome.details["automa"]["total"] == automa_score
    # The player scored nothing: lost, ranked behind the Automa (games/rules/base.py: Outcome).
    assert (outcome.ranks, outcome.scores, outcome.reason) == ([1], [0], "solo")
    assert outcome.details["solo"] == {
        "won": False,
        "level": difficulty,
        "opponent_score": automa_score,
    }


def test_beating_the_automa_earns_as_many_stars_as_its_difficulty() -> None:
    won = rules.outcome(_automa_state(2, [FLAT_7, FLAT_7, FLAT_7, FLAT_5]))
    assert won is not None and won.scores == [26] and won.details["automa"]["total"] == 23
    assert (won.details["won"], won.details["stars"]) == (True, 2)
    assert won.ranks == [0]
    assert won.details["solo"] == {"won": True, "level": 2, "opponent_score": 23}


def test_equalling_the_automa_is_not_beating_it() -> None:
    tied = rules.outcome(_automa_state(1, [FLAT_7, FLAT_7, FLAT_5]))
    assert tied is not None and tied.scores == [19]
    assert (tied.details["won"], tied.details["stars"]) == (False, 0)
    assert tied.ranks == [1] and tied.details["solo"]["won"] is False


def test_the_automa_is_the_solo_opponent_and_its_difficulty_the_solo_level() -> None:
    assert rules.solo_opponent == "Automa"
    assert rules.solo_level_option == "automa_difficulty"
    assert [rules.solo_level_name(n) for n in (1, 2, 3)] == ["easy", "medium", "hard"]


@pytest.mark.parametrize("difficulty", [1, 2, 3])
def test_a_solo_game_ends_after_the_automas_17th_turn(difficulty: int) -> None:
    state, _ = play_randomly(1, difficulty, automa_difficulty=difficulty)
    assert state.log[-2]["type"] == "automa" and state.log[-1]["type"] == "end"
    assert rules.outcome(state).details["automa"]["difficulty"] == difficulty  # type: ignore[union-attr]


# -- §11 hidden information -------------------------------------------------------------------


def _card_dicts(value: Any) -> list[dict[str, Any]]:
    if isinstance(value, dict):
        found = [value] if {"id", "resource", "building"} <= value.keys() else []
        return found + [d for item in value.values() for d in _card_dicts(item)]
    if isinstance(value, list):
        return [d for item in value for d in _card_dicts(item)]
    return []


def leaks(state: PointCityState, view: dict[str, Any]) -> list[str]:
    """What ``view`` shows that nobody may know: a removed card or the pile below its top
    (even by id), a building side never shown, or the secret seed and card order."""
    in_play = {c for c in state.market if c >= 0} | set(state.discard)
    owners = [*state.players, *([state.automa] if state.automa else [])]
    for owner in owners:
        in_play |= {*owner.stock, *owner.city}
    unseen = set(range(state.next_card + 1, state.deck_size))
    unseen |= {c for c in range(state.deck_size, N) if c not in in_play}  # removed at setup
    shown = {c for cell, c in enumerate(state.market) if c >= 0 and state.up[cell]}
    shown |= {c for owner in owners for c in owner.city}
    problems = []
    text = json.dumps(view)
    if '"order"' in text or '"seed"' in text or str(state.seed) in text:
        problems.append("the seed or the card order")
    for shown_card in _card_dicts(view):
        card_id, true_face = shown_card["id"], face(state, shown_card["id"])
        if card_id in unseen:
            problems.append(f"hidden card {card_id}")
        if shown_card["resource"] != RESOURCE_NAMES[true_face.resource]:
            problems.append(f"wrong face for {card_id}")
        if shown_card["building"] is not None:
            if card_id not in shown:
                problems.append(f"building side of card {card_id}")
            if shown_card["building"]["name"] != true_face.name:
                problems.append(f"wrong building for {card_id}")
    return problems


def test_views_never_show_removed_cards_the_pile_below_its_top_or_unseen_buildings() -> None:
    for num_players in (1, 2, 3, 4):
        rng = random.Random(num_players)
        state = rules.setup(num_players, 10_000_019 * num_players)
        while rules.outcome(state) is None:
            for seat in [None, *range(num_players)]:
                assert leaks(state, rules.view(state, seat)) == []
            seat = state.current
            state = rules.apply(state, seat, rng.choice(rules.legal_actions(state, seat)))
        assert leaks(state, rules.view(state, None)) == []


def test_the_leak_check_catches_a_leaky_view() -> None:
    state = rules.setup(2, 10_000_019)
    state = rules.apply(state, state.current, {"type": "flip", "cell": [0, 0]})
    honest = rules.view(state, 1)
    assert leaks(state, honest) == [] and honest["market"][0][0]["card"]["building"]
    second = json.loads(json.dumps(honest))
    second["deck"]["next"] = card_view(rules, state.order, state.next_card + 1, False)
    removed = json.loads(json.dumps(honest))
    removed["discard"].append(card_view(rules, state.order, 150, False))
    peeked = json.loads(json.dumps(honest))
    peeked["market"][0][1]["card"] = card_view(rules, state.order, 1, True)
    seeded = {**honest, "seed": state.seed}
    for leaky in (second, removed, peeked, seeded):
        assert leaks(state, leaky) != []


def test_stocks_are_public_so_every_seat_sees_the_same_board() -> None:  # P6
    _, history = play_randomly(3, 12)
    replay = rules.setup(3, 12)
    for seat, action in history[:30]:
        replay = rules.apply(replay, seat, action)
    views = [rules.view(replay, s) for s in (None, 0, 1, 2)]
    for view in views:
        del view["seat"], view["legal_actions"]
    assert views[0] == views[1] == views[2] == views[3]
    assert all(c["resource"] for p in views[0]["players"] for c in p["stock"])


def test_the_view_carries_the_conventional_keys() -> None:
    view = rules.view(rules.setup(2, 3), 1)
    for key in (
        "seat",
        "num_players",
        "active_seats",
        "legal_actions",
        "log",
        "over",
        "market",
        "deck",
    ):
        assert key in view
    assert view["seat"] == 1 and view["over"] is False and "outcome" not in view
    assert rules.view(rules.setup(2, 3), None)["legal_actions"] == []


def test_sample_state_keeps_the_view_and_redraws_what_is_hidden() -> None:
    _, history = play_randomly(2, 31)
    state = rules.setup(2, 31)
    for seat, action in history[:20]:
        state = rules.apply(state, seat, action)
    view = rules.view(state, 0)
    rng = random.Random(1)
    samples = [rules.sample_state(view, 0, rng) for _ in range(5)]
    for sample in samples:
        assert rules.view(sample, 0) == view
        assert sorted(sample.order) == sorted(state.order)
    below_top = slice(state.next_card + 1, state.deck_size)
    assert any(sample.order[below_top] != state.order[below_top] for sample in samples)
    unseen_buildings = [c for cell, c in enumerate(state.market) if not state.up[cell]]
    assert any(
        face(sample, c).name != face(state, c).name for sample in samples for c in unseen_buildings
    )


# -- §10 invariants, over many seeded random games --------------------------------------------

GAMES = 200
DISPLAYED = {1: 10, 2: 10, 3: 12, 4: 14}


def _owners(state: PointCityState) -> list[Player]:
    return [*state.players, *([state.automa] if state.automa else [])]


def _assert_cards_are_conserved(state: PointCityState) -> None:
    places = [c for c in state.market if c >= 0] + list(state.discard)
    for owner in _owners(state):
        places += [*owner.stock, *owner.city]
    places += list(range(state.next_card, N))  # the pile, then the cards removed at setup
    assert sorted(places) == list(range(N + state.num_players))


def _assert_buildings_were_paid(before: PointCityState, after: PointCityState) -> None:
    """Section 3.3: permanent resources from before the turn plus the cards spent cover it."""
    seat = before.current
    built = after.players[seat].city[len(before.players[seat].city) :]
    if not built:
        return
    cost = [sum(face(before, c).cost[r] for c in built) for r in range(5)]
    owed = [max(0, cost[r] - before.players[seat].perm[r]) for r in range(5)]
    spent = [face(before, c) for c in after.discard[len(before.discard) :]]
    for card_face in spent:
        if card_face.resource < 5:
            owed[card_face.resource] = max(0, owed[card_face.resource] - card_face.units)
    wild = sum(1 for card_face in spent if card_face.resource == 5)
    assert sum(owed) <= wild, "a building was built without being paid for"


def _assert_tokens_are_bounded(state: PointCityState) -> None:
    held = [t for owner in _owners(state) for t in owner.tokens]
    civic = sum(1 for owner in _owners(state) for c in owner.city if face(state, c).kind == 2)
    assert len(held) <= civic and len(held) + len(state.supply) == DISPLAYED[state.num_players]
    assert len(set(held) | set(state.supply)) == DISPLAYED[state.num_players]


def _not_offered(action: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    if action["type"] == "take":
        pay = dict(action["pay"])
        pay["ingenuity"] = pay.get("ingenuity", 0) + 1
        return {**action, "pay": pay}
    if action["type"] == "flip":
        return {**action, "cell": [rng.randrange(4), 4]}
    return {**action, "extra": 1}


def test_random_games_keep_every_invariant_and_replay_from_seed_and_actions() -> None:
    rng = random.Random(99)
    for game in range(GAMES):
        num_players = 1 + game % 4
        seed = rng.randrange(2**31)
        state = rules.setup(num_players, seed, {"automa_difficulty": 1 + game % 3})
        assert state.deck_count == {1: 66, 2: 66, 3: 100, 4: 134}[num_players]
        history = []
        while rules.outcome(state) is None:
            assert len(history) < 400, "the game did not end"
            if state.phase == "take" and not state.flipped:
                assert all(c >= 0 for c in state.market), "a turn starts with 16 market cards"
            seat = rules.active_seats(state)[0]
            actions = rules.legal_actions(state, seat)
            action = rng.choice(actions)
            bad = _not_offered(action, rng)
            if bad not in actions:
                with pytest.raises(IllegalAction):
                    rules.apply(state, seat, bad)
            after = rules.apply(state, seat, json.loads(json.dumps(action)))
            _assert_cards_are_conserved(after)
            _assert_buildings_were_paid(state, after)
            _assert_tokens_are_bounded(after)
            if len(history) % 16 == 0:
                data = json.loads(json.dumps(rules.to_json(after)))
                assert rules.to_json(rules.from_json(data)) == rules.to_json(after)
            history.append((seat, action))
            state = after
        last_turn = [e for e in state.log if e["type"] in ("take", "draw", "pass", "automa")][-1]
        left = 16 if last_turn["type"] == "pass" else 14  # a pass takes nothing
        assert sum(1 for c in state.market if c >= 0) == left and state.deck_count == 0
        turns = Counter(e["seat"] for e in state.log if e["type"] in ("take", "draw", "pass"))
        assert set(turns.values()) == {17}
        outcome = rules.outcome(state)
        assert outcome is not None and len(outcome.ranks) == num_players == len(outcome.scores)
        json.dumps(outcome.to_json())
        if game % 10 == 0:
            replay = rules.setup(num_players, seed, {"automa_difficulty": 1 + game % 3})
            for seat, action in history:
                replay = rules.apply(replay, seat, action)
            assert rules.to_json(replay) == rules.to_json(state)
