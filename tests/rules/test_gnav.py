"""Gnav, tested from its rules reference (docs/rules/gnav.md §2).

Rule tests start from a hand-made deal (``deal(...)``: who holds what, who deals, the top
of the stock) and play the decisions of the seats in turn (``play(state, "ask", ...)``).
Seats A, B, C, D sit clockwise; D deals unless a test says otherwise, so A acts first.
The property tests at the end play hundreds of random matches.
"""

from __future__ import annotations

import copy
import json
import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.rules import IllegalAction, get_rules
from games.rules.gnav.game import Gnav
from games.rules.gnav.state import RANK_NAMES, GnavState

rules = Gnav()
A, B, C, D = 0, 1, 2, 3

#: The rank table of §2.1, lowest first (strength 1..21).
NUMERALS = ["I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII"]
RANKS = ["Fool", "Owl", "Pot", "0", *NUMERALS, "House", "Horse", "Cat", "Dragoon", "Cuckoo"]
STRENGTH = {name: strength for strength, name in enumerate(RANKS, start=1)}
PACK = Counter({strength: 2 for strength in STRENGTH.values()})
MESSAGES = {"The game is over.", "It is not your turn.", "That move is not allowed now."}


def deal(
    hands: dict[int, str],
    *,
    dealer: int = D,
    stock: tuple[str, ...] = (),
    lives: tuple[int, ...] = (3, 3, 3, 3),
    resting: tuple[int, ...] = (),
    cat_undo: bool = True,
    seed: int = 1,
) -> GnavState:
    """A deal just dealt: ``hands`` gives each participant's card, ``stock`` the top of the
    stock (the rest of the pack follows in rank order). Seats at 0 lives went out together."""
    left = PACK.copy()
    faces: list[int] = []

    def take(name: str) -> int:
        assert left[STRENGTH[name]] > 0, f"the pack has only two {name}"
        left[STRENGTH[name]] -= 1
        faces.append(STRENGTH[name])
        return len(faces) - 1

    dealt = [take(hands[seat]) if seat in hands else None for seat in range(4)]
    top = [take(name) for name in stock]
    rest = [take(RANKS[strength - 1]) for strength in sorted(left.elements())]
    order = [(dealer + step) % 4 for step in range(1, 5) if (dealer + step) % 4 in hands]
    fools = [card is not None and faces[card] == 1 for card in dealt]
    log: list[dict[str, Any]] = [
        {
            "type": "deal",
            "seat": dealer,
            "deal": 1,
            "button": dealer,
            "order": order,
            "resting": list(resting),
            "dealt": dealt,
        }
    ]
    log += [{"type": "knock", "seat": s, "card": dealt[s]} for s in order if fools[s]]
    return rules.from_json(
        {
            "seed": seed,
            "cat_undo": cat_undo,
            "faces": faces,
            "lives": list(lives),
            "out_order": [0 if life == 0 else None for life in lives],
            "deal": 1,
            "button": dealer,
            "dealer": dealer,
            "resting": list(resting),
            "order": order,
            "turn": order[0],
            "dealt": dealt,
            "hands": dealt,
            "fools": fools,
            "trades": [],
            "stock": top + rest,
            "aside": [],
            "discard": [],
            "removed": [],
            "log": log,
        }
    )


def play(state: GnavState, *choices: str) -> GnavState:
    """Each choice is the decision of whoever is to act."""
    for choice in choices:
        (seat,) = rules.active_seats(state)
        state = rules.apply(state, seat, {"type": choice})
    return state


def name(card: dict[str, int] | None) -> str | None:
    return None if card is None else RANKS[card["rank"] - 1]


def card_of(state: GnavState, seat: int) -> str | None:
    return name(rules.view(state, seat)["card"])


def lives(state: GnavState) -> list[int]:
    return rules.view(state, None)["lives"]


def log(state: GnavState, viewer: int | None = None, since: int = 0) -> list[dict[str, Any]]:
    return rules.view(state, viewer)["log"][since:]


def story(state: GnavState, since: int = 1) -> list[tuple[str, int | None]]:
    """The public log as (type, seat) pairs, after the hand-made deal and knocks."""
    return [(event["type"], event["seat"]) for event in log(state, None, since)]


def first_showdown(state: GnavState) -> dict[int, str | None]:
    event = next(e for e in log(state) if e["type"] == "showdown")
    return {seat: name(card) for seat, card in enumerate(event["cards"])}


def losses(state: GnavState) -> list[tuple[int, str]]:
    return [(e["seat"], e["reason"]) for e in log(state) if e["type"] == "life"]


def in_deal(state: GnavState) -> dict[str, Any]:
    view = rules.view(state, None)
    return {key: view[key] for key in ("deal", "button", "dealer", "resting", "order", "turn")}


# --- §2.1 Components and ranks -----------------------------------------------------------


def test_the_pack_has_two_cards_of_each_of_21_ranks() -> None:
    data = rules.to_json(rules.setup(4, 5))
    assert Counter(data["faces"]) == PACK
    held = [card for card in data["hands"] if card is not None]
    assert sorted(held + data["stock"]) == list(range(42))


def test_the_ranks_run_from_the_fool_up_to_the_cuckoo() -> None:
    assert list(RANK_NAMES) == RANKS


# --- §2.2 The match ------------------------------------------------------------------------


def test_the_match_has_four_seats_with_three_lives_each() -> None:
    view = rules.view(rules.setup(4, 3), None)
    assert view["num_players"] == 4 and view["lives"] == [3, 3, 3, 3]
    with pytest.raises(ValueError):
        rules.setup(3, 3)


def test_the_first_dealer_is_a_random_seat_fixed_by_the_seed() -> None:  # A2
    dealers = {rules.view(rules.setup(4, seed), None)["dealer"] for seed in range(40)}
    assert dealers == {A, B, C, D}
    assert in_deal(rules.setup(4, 9)) == in_deal(rules.setup(4, 9))


def test_the_cat_undo_is_a_table_option_on_by_default() -> None:  # A7
    assert rules.default_options == {"cat_undoes_trades": True}
    assert rules.view(rules.setup(4, 1), None)["options"] == {"cat_undoes_trades": True}
    off = rules.setup(4, 1, {"cat_undoes_trades": False})
    assert rules.view(off, None)["options"] == {"cat_undoes_trades": False}
    with pytest.raises(ValueError):
        rules.setup(4, 1, {"catUndo": False})


# --- §2.3 Starting a deal ----------------------------------------------------------------


def test_each_participant_gets_one_card_and_play_starts_left_of_the_dealer() -> None:
    view = rules.view(rules.setup(4, 11), None)
    dealer = view["dealer"]
    assert view["order"] == [(dealer + step) % 4 for step in (1, 2, 3, 4)]
    assert view["active_seats"] == [(dealer + 1) % 4]
    assert view["stock"] == 38
    assert all(rules.view(rules.setup(4, 11), seat)["card"] is not None for seat in range(4))


def test_the_seats_holding_a_fool_knock_for_everyone_to_see() -> None:
    for seed in range(60):
        state = rules.setup(4, seed)
        data = rules.to_json(state)
        fools = [s for s in range(4) if data["faces"][data["hands"][s]] == 1]
        knocks = [e for e in log(state, None) if e["type"] == "knock"]
        assert [e["seat"] for e in knocks] == [s for s in data["order"] if s in fools]
        assert all(name(e["card"]) == "Fool" for e in knocks)
        assert rules.view(state, None)["fools"] == fools


def test_every_deal_is_a_new_shuffle_derived_from_the_seed() -> None:
    def next_deal_cards(seed: int) -> list[int]:
        state = rules.setup(4, seed)
        while rules.view(state, None)["deal"] == 1:
            state = play(state, "keep")
        return rules.to_json(state)["hands"]

    assert next_deal_cards(8) == next_deal_cards(8)
    first_deals = [rules.to_json(rules.setup(4, seed))["hands"] for seed in range(10)]
    assert len({tuple(hands) for hands in first_deals}) == 10
    assert next_deal_cards(8) != rules.to_json(rules.setup(4, 8))["hands"]


def test_the_button_moves_to_the_next_living_seat() -> None:
    state = deal({A: "V", C: "VI", D: "VII"}, dealer=A, lives=(3, 0, 3, 3))
    state = play(state, "keep", "keep", "keep")
    assert in_deal(state)["button"] == C and in_deal(state)["dealer"] == C
    assert in_deal(state)["order"] == [D, A, C]


def test_a_resting_button_seat_hands_the_deal_to_the_next_participant() -> None:  # A3
    state = play(deal({A: "Fool", B: "V", C: "VI", D: "VII"}), "keep", "keep", "keep", "keep")
    assert in_deal(state) == {
        "deal": 2,
        "button": A,
        "dealer": B,
        "resting": [A],
        "order": [C, D, B],
        "turn": C,
    }


def test_a_deal_with_fewer_than_two_participants_is_skipped_and_the_button_still_moves() -> None:
    state = deal({A: "Fool", C: "Fool"}, dealer=C, lives=(2, 0, 2, 0))
    state = play(state, "keep", "keep")
    assert lives(state) == [1, 0, 1, 0]
    skips = [e for e in log(state) if e["type"] == "skip"]
    assert [(e["deal"], e["seat"], e["resting"]) for e in skips] == [(2, A, [A, C])]
    assert in_deal(state) == {
        "deal": 3,
        "button": C,
        "dealer": C,
        "resting": [],
        "order": [A, C],
        "turn": A,
    }


# --- §2.4 A turn -----------------------------------------------------------------------------


def test_players_keep_or_ask_and_the_dealer_keeps_or_draws() -> None:
    state = deal({A: "V", B: "VI", C: "VII", D: "VIII"})
    assert rules.legal_actions(state, A) == [{"type": "keep"}, {"type": "ask"}]
    assert rules.legal_actions(state, B) == []
    state = play(state, "keep", "keep", "keep")
    assert rules.legal_actions(state, D) == [{"type": "keep"}, {"type": "draw"}]


def test_keeping_passes_the_turn_to_the_next_participant() -> None:
    state = play(deal({A: "V", B: "VI", C: "VII", D: "VIII"}), "keep")
    assert rules.active_seats(state) == [B] and card_of(state, A) == "V"


def test_the_dealer_keeping_ends_the_deal() -> None:
    state = play(deal({A: "V", B: "VI", C: "VII", D: "VIII"}), "keep", "keep", "keep", "keep")
    assert story(state)[:5] == [("keep", A), ("keep", B), ("keep", C), ("keep", D), ("showdown", D)]
    assert losses(state) == [(A, "lowest")]


def test_a_matador_holder_may_ask_and_give_the_matador_away() -> None:
    state = play(deal({A: "Cuckoo", B: "V", C: "VI", D: "VII"}), "ask")
    assert card_of(state, A) == "V" and card_of(state, B) == "Cuckoo"


# --- §2.5 Resolving a request ------------------------------------------------------------------


def test_an_ordinary_card_must_accept_and_its_holder_acts_next() -> None:
    state = play(deal({A: "V", B: "Fool", C: "VII", D: "VIII"}), "ask")
    assert card_of(state, A) == "Fool" and card_of(state, B) == "V"
    assert rules.active_seats(state) == [B]


def test_worked_example_1_a_horse_passes_the_request_on_and_loses_its_turn() -> None:  # A4
    state = play(deal({A: "IV", B: "Horse", C: "VII", D: "X"}), "ask")
    assert story(state) == [("ask", A), ("pass", B), ("trade", A)]
    assert log(state)[-1]["target"] == C and name(log(state)[-2]["card"]) == "Horse"
    assert card_of(state, A) == "VII" and card_of(state, C) == "IV"
    assert rules.active_seats(state) == [C]
    state = play(state, "keep", "keep")
    assert ("keep", B) not in story(state)


def test_several_houses_and_horses_are_passed_one_after_another() -> None:
    state = play(deal({A: "IV", B: "House", C: "Horse", D: "X"}), "ask")
    assert story(state) == [("ask", A), ("pass", B), ("pass", C), ("trade", A)]
    assert card_of(state, D) == "IV" and rules.active_seats(state) == [D]


def test_resting_and_eliminated_seats_are_never_asked() -> None:  # A13
    state = play(deal({A: "IV", C: "VI", D: "X"}, lives=(3, 0, 3, 3)), "ask")
    assert card_of(state, C) == "IV"
    state = play(deal({A: "IV", C: "VI", D: "X"}, resting=(B,)), "ask")
    assert card_of(state, C) == "IV"


def test_a_dragoon_refuses_and_the_asker_loses_a_life() -> None:
    state = play(deal({A: "IV", B: "Dragoon", C: "VI", D: "X"}), "ask")
    assert story(state) == [("ask", A), ("dragoon", B), ("life", A)]
    assert lives(state) == [2, 3, 3, 3] and card_of(state, A) == "IV"
    assert rules.active_seats(state) == [C]  # the Dragoon takes no turn (A5)


def test_a_dragoon_dealer_ends_the_deal() -> None:
    state = play(deal({A: "IV", B: "V", C: "VI", D: "Dragoon"}), "keep", "keep", "ask")
    assert story(state)[2:6] == [("ask", C), ("dragoon", D), ("life", C), ("showdown", D)]


def test_worked_example_2_a_cat_costs_a_life_and_every_card_goes_back() -> None:
    state = play(deal({A: "II", B: "IX", C: "VI", D: "Cat"}), "ask", "ask", "ask")
    assert story(state)[:8] == [
        ("ask", A),
        ("trade", A),
        ("ask", B),
        ("trade", B),
        ("ask", C),
        ("cat", D),
        ("life", C),
        ("undo", D),
    ]
    assert first_showdown(state) == {A: "II", B: "IX", C: "VI", D: "Cat"}
    assert losses(state) == [(C, "cat"), (A, "lowest")]


def test_a_cat_undoes_trades_made_before_a_player_who_kept() -> None:  # A6
    state = play(deal({A: "II", B: "IX", C: "VI", D: "Cat"}), "ask", "keep", "ask")
    assert [e["trades"] for e in log(state) if e["type"] == "undo"] == [1]
    assert first_showdown(state) == {A: "II", B: "IX", C: "VI", D: "Cat"}


def test_a_cat_not_held_by_the_dealer_lets_play_go_on_to_its_left() -> None:
    state = play(deal({A: "II", B: "IX", C: "Cat", D: "X"}), "ask", "ask")
    assert rules.active_seats(state) == [D]
    assert [card_of(state, s) for s in (A, B, C, D)] == ["II", "IX", "Cat", "X"]
    assert rules.view(state, None)["trades"] == []


def test_a_second_cat_undoes_the_trades_made_since_the_first() -> None:  # A6
    state = deal({A: "V", B: "Cat", C: "II", D: "IX"}, stock=("Cat",))
    state = play(state, "ask", "ask", "draw")
    assert losses(state)[:2] == [(A, "cat"), (D, "cat")]
    assert first_showdown(state) == {A: "V", B: "Cat", C: "II", D: "IX"}


def test_an_asker_knocked_out_by_a_cat_takes_their_own_dealt_card_out_of_play() -> None:  # A6
    state = deal({A: "II", B: "IX", C: "VI", D: "Cat"}, lives=(3, 3, 1, 3))
    state = play(state, "ask", "ask", "ask")
    assert story(state)[7:10] == [("undo", D), ("out", C), ("showdown", D)]
    assert first_showdown(state) == {A: "II", B: "IX", C: None, D: "Cat"}


def test_a_cuckoo_stops_the_deal_at_once_without_a_penalty() -> None:
    state = play(deal({A: "V", B: "Cuckoo", C: "IV", D: "VII"}), "ask")
    assert story(state)[:4] == [("ask", A), ("cuckoo", B), ("showdown", D), ("life", C)]
    assert first_showdown(state) == {A: "V", B: "Cuckoo", C: "IV", D: "VII"}
    assert losses(state) == [(C, "lowest")]


def test_the_dealer_may_trade_with_the_top_of_the_stock() -> None:
    state = play(deal({A: "V", B: "VI", C: "VII", D: "Pot"}, stock=("IX",)), *["keep"] * 3)
    state = play(state, "draw")
    assert story(state)[3:6] == [("ask", D), ("exchange", D), ("showdown", D)]
    assert log(state)[4]["to"] is None
    assert first_showdown(state)[D] == "IX"


def test_houses_and_horses_from_the_stock_are_set_aside_and_the_dealer_draws_again() -> None:
    start = deal({A: "V", B: "VI", C: "VII", D: "Pot"}, stock=("House", "Horse", "Horse", "X"))
    state = play(start, "keep", "keep", "keep", "draw")
    turned = [e for e in log(state) if e["type"] == "pass"]
    assert [(e["seat"], e["asker"], name(e["card"])) for e in turned] == [
        (None, D, "House"),
        (None, D, "Horse"),
        (None, D, "Horse"),
    ]
    assert first_showdown(state)[D] == "X"


def test_a_cuckoo_from_the_stock_stops_the_deal_and_the_dealer_keeps_their_card() -> None:
    state = play(deal({A: "V", B: "VI", C: "VII", D: "Pot"}, stock=("Cuckoo",)), *["keep"] * 3)
    state = play(state, "draw")
    assert story(state)[4:6] == [("cuckoo", None), ("showdown", D)]
    assert first_showdown(state)[D] == "Pot" and losses(state) == [(D, "lowest")]


def test_a_dragoon_from_the_stock_costs_a_life_and_the_dealer_keeps_their_card() -> None:
    state = play(deal({A: "V", B: "VI", C: "VII", D: "X"}, stock=("Dragoon",)), *["keep"] * 3)
    state = play(state, "draw")
    assert story(state)[4:7] == [("dragoon", None), ("life", D), ("showdown", D)]
    assert first_showdown(state)[D] == "X" and losses(state) == [(D, "dragoon"), (A, "lowest")]


def test_a_cat_from_the_stock_costs_a_life_and_undoes_every_trade() -> None:
    state = deal({A: "V", B: "VI", C: "Owl", D: "X"}, stock=("Cat",))
    state = play(state, "keep", "ask", "ask", "draw")
    assert [(e["type"], e["seat"]) for e in log(state) if e["type"] in ("cat", "undo")] == [
        ("cat", None),
        ("undo", None),
    ]
    assert first_showdown(state) == {A: "V", B: "VI", C: "Owl", D: "X"}
    assert losses(state) == [(D, "cat"), (C, "lowest")]


def test_worked_example_3_a_request_through_the_dealers_house_ends_at_the_stock() -> None:
    state = deal({A: "V", B: "VI", C: "0", D: "House"}, stock=("Horse", "X"))
    state = play(state, "keep", "keep", "ask")
    assert story(state)[2:7] == [
        ("ask", C),
        ("pass", D),
        ("pass", None),
        ("exchange", C),
        ("showdown", D),
    ]
    exchange = next(e for e in log(state, C) if e["type"] == "exchange")
    assert (name(exchange["gave"]), name(exchange["got"])) == ("0", "X")
    assert first_showdown(state) == {A: "V", B: "VI", C: "X", D: "House"}


def test_a_cuckoo_drawn_for_a_player_stops_the_deal_and_they_keep_their_card() -> None:  # A12
    state = deal({A: "V", B: "VI", C: "0", D: "Horse"}, stock=("Cuckoo",))
    state = play(state, "keep", "keep", "ask")
    assert first_showdown(state) == {A: "V", B: "VI", C: "0", D: "Horse"}
    assert losses(state) == [(C, "lowest")]


def test_requests_never_wrap_past_the_dealer() -> None:  # A11
    state = deal({A: "Owl", B: "V", C: "VI", D: "Horse"}, stock=("X",))
    state = play(state, "keep", "keep", "ask")
    assert first_showdown(state) == {A: "Owl", B: "V", C: "X", D: "Horse"}


# --- §2.5 Losing lives during a deal -----------------------------------------------------------


def test_an_asker_at_zero_lives_leaves_at_once_and_is_not_compared() -> None:
    state = deal({A: "Owl", B: "Dragoon", C: "V", D: "VI"}, lives=(1, 3, 3, 3))
    state = play(state, "ask", "keep", "keep")
    assert ("out", A) in story(state)
    assert first_showdown(state) == {A: None, B: "Dragoon", C: "V", D: "VI"}
    assert losses(state) == [(A, "dragoon"), (C, "lowest")]


def test_a_dragoon_life_and_a_showdown_life_come_off_the_same_counter() -> None:  # A15
    state = deal({A: "Owl", B: "Dragoon", C: "V", D: "VI"}, lives=(2, 3, 3, 3))
    state = play(state, "ask", "keep", "keep")
    assert lives(state)[A] == 0 and rules.view(state, None)["out_order"][A] == 0


def test_the_match_ends_at_once_when_one_living_seat_is_left() -> None:
    state = deal({A: "Owl", D: "Dragoon"}, lives=(1, 0, 0, 2))
    state = play(state, "ask")
    assert story(state) == [("ask", A), ("dragoon", D), ("life", A), ("out", A), ("end", D)]
    outcome = rules.outcome(state)
    assert outcome.reason == "last_survivor" and outcome.ranks == [1, 2, 2, 0]
    assert outcome.details["winner"] == D
    assert rules.active_seats(state) == []


def test_a_deal_left_with_one_participant_ends_with_a_void_showdown() -> None:  # A9
    state = deal({A: "Owl", C: "Dragoon"}, dealer=C, lives=(1, 2, 2, 0), resting=(B,))
    state = play(state, "ask")
    showdown = next(e for e in log(state) if e["type"] == "showdown")
    assert showdown["void"] is True and showdown["cards"] == [None] * 4
    assert lives(state) == [0, 2, 2, 0] and rules.outcome(state) is None
    assert in_deal(state)["order"] == [C, B] and in_deal(state)["resting"] == []


# --- §2.7 Showdown, §2.8 end of match ----------------------------------------------------------


def test_every_player_tied_for_the_lowest_card_loses_a_life() -> None:
    state = play(deal({A: "Owl", B: "X", C: "Owl", D: "V"}), *["keep"] * 4)
    assert losses(state) == [(A, "lowest"), (C, "lowest")]


def test_worked_example_4_one_fool_and_everyone_tied_next_lowest_lose_a_life() -> None:  # A10
    state = play(deal({A: "Fool", B: "Owl", C: "Owl", D: "V"}), *["keep"] * 4)
    assert losses(state) == [(A, "fool"), (B, "next_lowest"), (C, "next_lowest")]
    assert lives(state) == [2, 2, 2, 3]
    assert in_deal(state)["resting"] == [A] and A not in in_deal(state)["order"]
    assert rules.view(state, A)["card"] is None and rules.legal_actions(state, A) == []


def test_worked_example_5_two_fools_only_their_holders_lose_a_life() -> None:
    state = play(deal({A: "Fool", B: "Pot", C: "Fool", D: "VIII"}), *["keep"] * 4)
    assert losses(state) == [(A, "fool"), (C, "fool")]
    assert in_deal(state)["resting"] == [A, C]


def test_a_resting_seat_comes_back_the_deal_after() -> None:
    state = play(deal({A: "Fool", B: "Owl", C: "V", D: "VI"}), *["keep"] * 4)
    assert in_deal(state)["resting"] == [A]
    while in_deal(state)["deal"] == 2:
        state = play(state, "keep")
    assert A in in_deal(state)["order"]


def test_a_fool_holder_who_goes_out_does_not_rest() -> None:
    state = play(deal({A: "Fool", B: "Owl", C: "V", D: "VI"}, lives=(1, 3, 3, 3)), *["keep"] * 4)
    assert lives(state)[A] == 0 and in_deal(state)["resting"] == []
    assert ("rest", A) not in story(state)


def test_the_last_two_going_out_together_draw_the_match() -> None:
    state = play(deal({A: "Owl", C: "Owl"}, dealer=C, lives=(1, 0, 1, 0)), "keep", "keep")
    outcome = rules.outcome(state)
    assert outcome.reason == "draw" and outcome.details["winner"] is None
    assert outcome.ranks == [0, 2, 0, 2]
    assert story(state)[-1] == ("end", None)


def test_places_follow_the_order_in_which_seats_went_out() -> None:
    state = deal({A: "Owl", B: "V", D: "VI"}, lives=(1, 1, 0, 3))
    state = play(state, "keep", "keep", "keep")
    assert lives(state) == [0, 1, 0, 3]
    while rules.outcome(state) is None:
        state = play(state, "keep")
    outcome = rules.outcome(state)
    assert outcome.ranks[C] == 3 and outcome.ranks[A] == 2 and sorted(outcome.ranks) == [0, 1, 2, 3]
    breakdown = outcome.details["breakdown"]
    assert breakdown[A]["out_by"] == "lowest" and breakdown[A]["out_in_deal"] == 1
    assert rules.view(state, B)["outcome"] == outcome.to_json()


# --- A7, A8: the Cat option and the Fool markers -------------------------------------------------


def test_without_the_undo_option_a_cat_only_costs_the_asker_a_life() -> None:  # A7
    state = deal({A: "II", B: "IX", C: "VI", D: "Cat"}, cat_undo=False)
    state = play(state, "ask", "ask", "ask")
    assert "undo" not in [kind for kind, _ in story(state)]
    assert first_showdown(state) == {A: "IX", B: "VI", C: "II", D: "Cat"}
    assert losses(state) == [(C, "cat"), (C, "lowest")]


def test_fool_markers_follow_public_trades_and_go_back_after_a_cat() -> None:  # A8
    state = deal({A: "Fool", B: "V", C: "VI", D: "X"}, stock=("XII",))
    assert rules.view(state, C)["fools"] == [A]
    state = play(state, "ask")
    assert rules.view(state, C)["fools"] == [B]
    state = deal({A: "Fool", B: "V", C: "Cat", D: "X"})
    state = play(state, "ask", "ask")
    assert rules.view(state, D)["fools"] == [A]


def test_a_fool_from_the_stock_makes_no_knock_but_counts_at_the_showdown() -> None:  # A8
    state = play(deal({A: "V", B: "VI", C: "VII", D: "X"}, stock=("Fool",)), *["keep"] * 3)
    state = play(state, "draw")
    assert [e for e in log(state, None, 1) if e["type"] == "knock" and e["seat"] == D] == []
    assert losses(state) == [(D, "fool"), (A, "next_lowest")]


# --- §2.6 What each seat sees --------------------------------------------------------------------


def test_a_trade_between_two_other_seats_shows_that_it_happened_but_not_the_cards() -> None:
    state = play(deal({A: "II", B: "IX", C: "VI", D: "X"}), "ask")
    for viewer in (C, D, None):
        trade = log(state, viewer)[-1]
        assert (trade["seat"], trade["target"], trade["gave"], trade["got"]) == (A, B, None, None)
    for viewer in (A, B):
        trade = log(state, viewer)[-1]
        assert (name(trade["gave"]), name(trade["got"])) == ("II", "IX")


def test_each_seat_sees_its_own_card_and_no_other() -> None:
    state = deal({A: "II", B: "IX", C: "VI", D: "X"})
    assert [card_of(state, seat) for seat in (A, B, C, D)] == ["II", "IX", "VI", "X"]
    dealt = [log(state, seat)[0]["dealt"] for seat in (A, B, C, D, None)]
    assert [[name(card) for card in row] for row in dealt] == [
        ["II", None, None, None],
        [None, "IX", None, None],
        [None, None, "VI", None],
        [None, None, None, "X"],
        [None] * 4,
    ]
    assert rules.view(state, None)["card"] is None


def test_a_stock_exchange_shows_its_cards_to_the_drawer_only() -> None:
    state = deal({A: "V", B: "VI", C: "VII", D: "Pot"}, stock=("IX",))
    state = play(state, "keep", "keep", "keep", "draw")
    for viewer in (A, B, C, None):
        exchange = next(e for e in log(state, viewer) if e["type"] == "exchange")
        assert exchange["gave"] is None and exchange["got"] is None
    exchange = next(e for e in log(state, D) if e["type"] == "exchange")
    assert (name(exchange["gave"]), name(exchange["got"])) == ("Pot", "IX")


def test_the_showdown_shows_every_compared_card_to_everyone() -> None:
    state = play(deal({A: "V", B: "VI", C: "VII", D: "Pot"}), *["keep"] * 4)
    for viewer in (A, B, C, D, None):
        assert [
            name(c) for c in next(e for e in log(state, viewer) if e["type"] == "showdown")["cards"]
        ] == ["V", "VI", "VII", "Pot"]


def test_the_view_carries_the_conventional_keys_and_the_seat_s_own_data() -> None:
    view = rules.view(rules.setup(4, 2), B)
    assert {"seat", "num_players", "active_seats", "legal_actions", "log", "over"} <= set(view)
    assert {
        "lives",
        "out_order",
        "deal",
        "button",
        "dealer",
        "resting",
        "order",
        "turn",
        "card",
        "fools",
        "trades",
        "stock",
        "aside",
        "discard",
        "removed",
        "options",
    } <= set(view)
    assert view["seat"] == B and view["over"] is False and "outcome" not in view
    assert "seed" not in json.dumps(view)


# --- Refused actions ------------------------------------------------------------------------------


def test_out_of_turn_malformed_and_wrong_role_actions_are_refused_with_a_sentence() -> None:
    state = deal({A: "V", B: "VI", C: "VII", D: "Pot"})
    bad = [
        (B, {"type": "keep"}),
        (A, {"type": "draw"}),
        (A, {"type": "keep", "x": 1}),
        (A, "keep"),
        (A, {"kind": "keep"}),
        (None, {"type": "keep"}),
    ]
    for seat, action in bad:
        with pytest.raises(IllegalAction) as refused:
            rules.apply(state, seat, action)  # type: ignore[arg-type]
        assert refused.value.message in MESSAGES
    dealer_turn = play(state, "keep", "keep", "keep")
    with pytest.raises(IllegalAction):
        rules.apply(dealer_turn, D, {"type": "ask"})
    over = play(deal({A: "Owl", D: "Dragoon"}, lives=(1, 0, 0, 2)), "ask")
    with pytest.raises(IllegalAction, match=r"The game is over\."):
        rules.apply(over, D, {"type": "keep"})


@settings(max_examples=60, deadline=None)
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=5),
        lambda inner: (
            st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
        ),
        max_leaves=6,
    )
)
def test_anything_that_is_not_an_offered_action_is_refused(action: Any) -> None:
    state = rules.setup(4, 4)
    seat = rules.active_seats(state)[0]
    if action in rules.legal_actions(state, seat):
        return
    with pytest.raises(IllegalAction):
        rules.apply(state, seat, action)


def test_the_game_is_registered() -> None:
    assert isinstance(get_rules("gnav"), Gnav) and get_rules("gnav").name == "Gnav"
    assert get_rules("gnav").min_players == get_rules("gnav").max_players == 4


# --- Hidden information ---------------------------------------------------------------------------

CARD_FIELDS = ("card", "gave", "got")
CARD_LISTS = ("dealt", "cards")


def deals(data: dict[str, Any]) -> list[tuple[int, int]]:
    """The log's stretch of each deal: (first index, end index)."""
    starts = [i for i, event in enumerate(data["log"]) if event["type"] in ("deal", "skip")]
    return list(zip(starts, [*starts[1:], len(data["log"])]))


def known_in(events: list[dict[str, Any]], viewer: int | None) -> set[int]:
    """The cards of one deal that ``viewer`` may know, by 2.6: their own dealt card, the
    cards of their own trades and stock exchange, and whatever is shown to everyone."""
    known: set[int] = set()
    for event in events:
        kind = event["type"]
        if kind == "deal":
            mine = [] if viewer is None else [event["dealt"][viewer]]
        elif kind in ("trade", "exchange"):
            party = viewer is not None and viewer in (event["seat"], event.get("target"))
            mine = [event["gave"], event["got"]] if party else []
        elif kind == "showdown":
            mine = event["cards"]
        else:
            mine = [event.get("card")]
        known.update(card for card in mine if card is not None)
    return known


def with_secrets_shuffled(data: dict[str, Any], viewer: int | None, rng: random.Random) -> dict:
    """The same match, except that in every deal, each card that ``viewer`` may not know is
    swapped for another such card, wherever it lies in that deal (faces stay with the ids,
    so the hidden cards change both id and face)."""
    other = copy.deepcopy(data)
    for first, end in deals(data):
        current = end == len(data["log"])
        known = known_in(data["log"][first:end], viewer)
        if current:
            known |= set(data["aside"])
            if viewer is not None and data["hands"][viewer] is not None:
                known.add(data["hands"][viewer])
        secret = [card for card in range(42) if card not in known]
        moved = dict(zip(secret, rng.sample(secret, len(secret))))

        def swap(card: int | None, moved: dict[int, int] = moved) -> int | None:
            return None if card is None else moved.get(card, card)

        for event in other["log"][first:end]:
            for key in CARD_FIELDS:
                if key in event:
                    event[key] = swap(event[key])
            for key in CARD_LISTS:
                if key in event:
                    event[key] = [swap(card) for card in event[key]]
        if current:
            for key in ("hands", "dealt", "stock", "discard", "removed"):
                other[key] = [swap(card) for card in data[key]]
    return other


def leaks(state: GnavState, viewer: int | None, rng: random.Random, view_of: Any = None) -> bool:
    """Would ``viewer`` notice if the cards hidden from them were different?"""
    view_of = view_of or rules.view
    other = rules.from_json(with_secrets_shuffled(rules.to_json(state), viewer, rng))
    return json.dumps(view_of(state, viewer), sort_keys=True) != json.dumps(
        view_of(other, viewer), sort_keys=True
    )


def random_states(matches: int, seed: int) -> list[GnavState]:
    rng = random.Random(seed)
    states = []
    for _ in range(matches):
        state = rules.setup(4, rng.randrange(2**31))
        while rules.outcome(state) is None:
            states.append(state)
            seat = rules.active_seats(state)[0]
            state = rules.apply(state, seat, rng.choice(rules.legal_actions(state, seat)))
        states.append(state)
    return states


def test_no_view_shows_a_card_its_viewer_may_not_know() -> None:
    rng = random.Random(5)
    for state in random_states(30, seed=6):
        for viewer in (A, B, C, D, None):
            assert not leaks(state, viewer, rng), (viewer, rules.to_json(state))


def test_the_leak_check_notices_a_view_that_shows_other_hands() -> None:
    def leaky(state: GnavState, viewer: int | None) -> dict[str, Any]:
        return {**rules.view(state, viewer), "hands": rules.to_json(state)["hands"]}

    rng = random.Random(1)
    state = play(deal({A: "II", B: "IX", C: "VI", D: "X"}), "ask")
    assert leaks(state, C, rng, view_of=leaky) and not leaks(state, C, rng)

    def leaky_log(state: GnavState, viewer: int | None) -> dict[str, Any]:
        return {**rules.view(state, viewer), "log": rules.to_json(state)["log"]}

    assert leaks(state, C, rng, view_of=leaky_log)


# --- sample_state ---------------------------------------------------------------------------------


def test_a_sample_keeps_what_the_viewer_knows() -> None:
    state = deal({A: "Fool", B: "Horse", C: "VI", D: "X"})
    state = play(state, "ask", "ask")  # A-C trade past B's Horse, then C-D
    view = rules.view(state, C)
    for seed in range(20):
        sample = rules.sample_state(view, C, random.Random(seed))
        assert rules.view(sample, C) == view
        data = rules.to_json(sample)
        faces = [RANKS[data["faces"][card] - 1] for card in data["hands"]]
        assert faces[B] == "Horse" and faces[A] == "VI"  # B passed publicly; C gave A its VI
        assert faces[D] == "Fool" and faces[C] not in ("Fool", "Horse", "VI")


def test_a_sample_redraws_the_rest_from_a_pack_with_two_cards_of_each_rank() -> None:
    state = deal({A: "V", B: "VI", C: "VII", D: "X"})
    state = play(state, "ask")  # A and B trade; D's card is unknown to A
    view = rules.view(state, A)
    seen = set()
    for seed in range(30):
        data = rules.to_json(rules.sample_state(view, A, random.Random(seed)))
        assert Counter(data["faces"]) == PACK
        held = [card for card in data["hands"] if card is not None]
        assert sorted(held + data["stock"]) == list(range(42))
        strength_c = data["faces"][data["hands"][C]]
        assert strength_c != STRENGTH["Fool"]  # an unmarked seat never holds a Fool
        seen.add(strength_c)
        assert data["faces"][data["hands"][B]] == STRENGTH["V"]
    assert len(seen) > 5


def test_a_trade_receiver_is_sampled_with_an_ordinary_card() -> None:
    state = play(deal({A: "V", B: "VI", C: "VII", D: "X"}), "ask")
    view = rules.view(state, C)
    for seed in range(40):
        data = rules.to_json(rules.sample_state(view, C, random.Random(seed)))
        assert 2 <= data["faces"][data["hands"][A]] <= 16  # A holds what B was dealt
        assert rules.view(rules.from_json(data), C) == view


# --- §2.12 Invariants, over random matches -------------------------------------------------------


def cards_in_play(data: dict[str, Any]) -> list[int]:
    held = [card for card in data["hands"] if card is not None]
    return sorted(held + data["stock"] + data["aside"] + data["discard"] + data["removed"])


def test_random_matches_keep_the_invariants_and_replay_exactly() -> None:
    for match in range(400):
        rng = random.Random(match)
        seed = rng.randrange(2**31)
        options = {"cat_undoes_trades": match % 4 != 0}
        state = rules.setup(4, seed, options)
        history: list[tuple[int, dict[str, str]]] = []
        turns: Counter[tuple[int, int]] = Counter()
        while rules.outcome(state) is None:
            assert len(history) < 200, "the match did not end"
            data = rules.to_json(state)
            assert cards_in_play(data) == list(range(42))
            assert rules.to_json(rules.from_json(json.loads(json.dumps(data)))) == data
            (seat,) = rules.active_seats(state)
            offered = rules.legal_actions(state, seat)
            for kind in ("keep", "ask", "draw"):
                if {"type": kind} not in offered:
                    with pytest.raises(IllegalAction):
                        rules.apply(state, seat, {"type": kind})
            action = rng.choice(offered)
            turns[(data["deal"], seat)] += 1
            assert turns[(data["deal"], seat)] == 1, "a seat took two turns in one deal"
            after = rules.apply(state, seat, action)
            assert rules.to_json(state) == data, "apply changed its input"
            assert all(new <= old for new, old in zip(lives(after), lives(state)))
            new = rules.to_json(after)
            events = new["log"][len(data["log"]) :]
            kinds = [event["type"] for event in events]
            if "undo" in kinds and "showdown" not in kinds:
                assert all(new["hands"][s] == new["dealt"][s] for s in new["order"])
            if len(history) % 6 == 0:
                viewer = rng.choice([A, B, C, D])
                assert rules.view(
                    rules.sample_state(rules.view(state, viewer), viewer, rng), viewer
                ) == rules.view(state, viewer)
            history.append((seat, action))
            state = after
        assert cards_in_play(rules.to_json(state)) == list(range(42))
        assert sum(1 for life in lives(state) if life > 0) <= 1
        replayed = rules.setup(4, seed, options)
        for seat, action in history:
            replayed = rules.apply(replayed, seat, action)
        assert rules.to_json(replayed) == rules.to_json(state)


def test_bots_can_play_on_from_any_sample() -> None:
    rng = random.Random(3)
    for state in random_states(20, seed=4)[::5]:
        if rules.outcome(state) is not None:
            continue
        viewer = rng.choice([A, B, C, D])
        sample = rules.sample_state(rules.view(state, viewer), viewer, rng)
        while rules.outcome(sample) is None:
            (seat,) = rules.active_seats(sample)
            sample = rules.apply(sample, seat, rng.choice(rules.legal_actions(sample, seat)))
        assert cards_in_play(rules.to_json(sample)) == list(range(42))
