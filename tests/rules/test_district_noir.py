"""District Noir, tested from its rules reference (docs/rules/district-noir.md).

Rule tests build the exact state they need with ``make_state``; the property tests at
the end play thousands of random games.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.rules import IllegalAction, get_rules
from games.rules.district_noir.cards import DECK, FACES, face_code
from games.rules.district_noir.game import DistrictNoir, DistrictNoirState, turn_of

rules = DistrictNoir()

#: Short names for faces in hand-built states.
CODE = {
    "5": 0,
    "6": 1,
    "7": 2,
    "8": 3,
    "+2": 4,
    "+3": 5,
    "+4": 6,
    "-1": 7,
    "-2": 8,
    "-3": 9,
    "docks": 10,
    "police": 11,
    "cityhall": 12,
}
NAME = {code: name for name, code in CODE.items()}


def make_state(
    *,
    hands: tuple[list[str], list[str]] = ([], []),
    row: list[str] | None = None,
    collections: tuple[list[str], list[str]] = ([], []),
    round: int = 1,
    first: int = 0,
    taken: tuple[bool, bool] = (False, False),
    over: str | None = None,
) -> DistrictNoirState:
    """A state holding exactly the named cards; the rest of the box fills the removed 3 and the
    deck. Ids follow the order of the arguments: hands, row, collections, removed, deck."""
    faces: list[int] = []

    def place(names: list[str]) -> tuple[int, ...]:
        start = len(faces)
        faces.extend(CODE[name] for name in names)
        return tuple(range(start, len(faces)))

    placed = (place(hands[0]), place(hands[1]), place(row or []))
    owned = (place(collections[0]), place(collections[1]))
    rest = Counter(DECK)
    rest.subtract(faces)
    assert min(rest.values()) >= 0, "more copies of a face than the box holds"
    start = len(faces)
    faces.extend(rest.elements())
    return DistrictNoirState(
        faces=tuple(faces),
        removed=tuple(range(start, start + 3)),
        hands=(placed[0], placed[1]),
        row=placed[2],
        deck=tuple(range(start + 3, 45)),
        collections=owned,
        round=round,
        first=first,
        taken=taken,
        over=over,
        log=(("round", first, round),),
    )


def finished(a: list[str], b: list[str]) -> DistrictNoirState:
    """A game over after round 4 with these two collections."""
    return make_state(collections=(a, b), round=4, taken=(True, True), over="score")


def names(cards: list[dict[str, Any]]) -> list[str]:
    """Card dicts of a view back to the short names of ``CODE``."""
    return [NAME[face_code(card)] for card in cards]


def all_cards(state: DistrictNoirState) -> list[int]:
    """Every card id wherever it lies: removed, in a hand, the row, the deck or a collection."""
    places = (state.removed, *state.hands, state.row, state.deck, *state.collections)
    return sorted(card for place in places for card in place)


def random_game(seed: int) -> list[DistrictNoirState]:
    """Every state of one game played at random, from setup to the end."""
    rng = random.Random(seed)
    state = rules.setup(2, seed)
    states = [state]
    while not rules.is_over(state):
        seat = turn_of(state)
        state = rules.apply(state, seat, rng.choice(rules.legal_actions(state, seat)))
        states.append(state)
    return states


def ids_in(view: dict[str, Any]) -> set[int]:
    """Every card id anywhere in a view (cards and actions), read from its JSON."""
    found: set[int] = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            found.update(node[key] for key in ("id", "card") if isinstance(node.get(key), int))
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(json.loads(json.dumps(view)))
    return found


# §1 Components


def test_the_game_is_registered_for_exactly_two_players() -> None:
    registered = get_rules("district-noir")
    assert (registered.slug, registered.name) == ("district-noir", "District Noir")
    assert (registered.min_players, registered.max_players) == (2, 2)


def test_the_box_holds_45_cards_26_support_7_alliance_9_betrayal_and_3_city() -> None:
    kinds = Counter(FACES[code][0] for code in DECK)
    assert len(DECK) == 45
    assert kinds == {"support": 26, "alliance": 7, "betrayal": 9, "city": 3}


def test_there_are_five_5s_six_6s_seven_7s_and_eight_8s() -> None:
    supports = Counter(FACES[code][1] for code in DECK if FACES[code][0] == "support")
    assert supports == {5: 5, 6: 6, 7: 7, 8: 8}


def test_alliance_values_are_2_2_2_2_3_3_4_and_sum_to_18() -> None:
    values = sorted(FACES[code][1] for code in DECK if FACES[code][0] == "alliance")
    assert values == [2, 2, 2, 2, 3, 3, 4]
    assert sum(values) == 18


def test_betrayal_values_are_minus_1_1_1_2_2_2_2_3_3_and_sum_to_minus_17() -> None:
    values = sorted(FACES[code][1] for code in DECK if FACES[code][0] == "betrayal")
    assert values == [-3, -3, -2, -2, -2, -2, -1, -1, -1]
    assert sum(values) == -17


def test_the_city_cards_are_the_docks_the_police_station_and_city_hall() -> None:
    cities = sorted(FACES[code][2] for code in DECK if FACES[code][0] == "city")
    assert cities == ["cityhall", "docks", "police"]


# §2 Setup


def test_setup_removes_3_deals_5_to_each_puts_2_in_the_row_and_leaves_30_in_the_deck() -> None:
    state = rules.setup(2, 7)
    assert len(state.removed) == 3
    assert [len(hand) for hand in state.hands] == [5, 5]
    assert len(state.row) == 2
    assert len(state.deck) == 30
    assert state.collections == ((), ())
    assert all_cards(state) == list(range(45))


def test_setup_shuffles_the_whole_box_and_a_seed_always_gives_the_same_deal() -> None:
    state = rules.setup(2, 7)
    assert sorted(state.faces) == sorted(DECK)
    assert rules.setup(2, 7) == state
    assert rules.setup(2, 8).faces != state.faces


def test_the_round_1_first_player_is_random_and_varies_with_the_seed() -> None:
    firsts = Counter(rules.setup(2, seed).first for seed in range(200))
    assert set(firsts) == {0, 1}
    assert min(firsts.values()) > 60


def test_a_new_game_starts_round_1_with_the_first_player_to_act_and_nobody_having_taken() -> None:
    state = rules.setup(2, 3)
    view = rules.view(state, state.first)
    assert (view["round"], view["first_player"], view["turn"]) == (1, state.first, state.first)
    assert view["taken"] == [False, False]
    assert view["log"] == [{"type": "round", "seat": state.first, "round": 1, "first": state.first}]


def test_setup_refuses_any_number_of_players_but_two() -> None:
    for count in (1, 3):
        with pytest.raises(ValueError):
            rules.setup(count, 1)


# §3 The row


def test_playing_a_card_puts_it_at_the_right_hand_end_of_the_row() -> None:
    state = make_state(hands=(["8", "5"], ["6", "7"]), row=["-1", "+2"])
    card = state.hands[0][1]
    after = rules.apply(state, 0, {"type": "play", "card": card})
    assert after.row == state.row + (card,)
    assert after.hands[0] == state.hands[0][:1]
    assert names(rules.view(after, 1)["row"]) == ["-1", "+2", "5"]
    assert rules.view(after, 1)["log"][-1] == {
        "type": "play",
        "seat": 0,
        "card": {"id": card, "kind": "support", "value": 5},
    }


def test_taking_removes_exactly_the_5_right_most_cards_when_more_are_present() -> None:
    row = ["5", "6", "7", "8", "+2", "-1", "docks"]
    state = make_state(hands=(["8"], ["7"]), row=row)
    after = rules.apply(state, 0, {"type": "take"})
    assert after.row == state.row[:2]
    assert after.collections[0] == state.row[2:]
    assert rules.view(after, 1)["log"][-1] == {
        "type": "take",
        "seat": 0,
        "cards": rules.view(state, 1)["row"][2:],
    }


@pytest.mark.parametrize("size", [1, 2, 3, 4, 5])
def test_taking_removes_the_whole_row_when_it_holds_5_cards_or_fewer(size: int) -> None:
    state = make_state(hands=(["8"], ["7"]), row=["6"] * size)
    after = rules.apply(state, 0, {"type": "take"})
    assert after.row == ()
    assert after.collections[0] == state.row


def test_taking_from_an_empty_row_is_neither_offered_nor_allowed() -> None:
    state = make_state(hands=(["5"] * 5, ["6"] * 5), round=2)
    assert {"type": "take"} not in rules.legal_actions(state, 0)
    with pytest.raises(IllegalAction, match="nothing to take"):
        rules.apply(state, 0, {"type": "take"})


def test_taken_cards_stay_face_up_in_the_takers_public_collection() -> None:
    state = make_state(hands=(["8"], ["7"]), row=["-3", "+4"], collections=(["5"], []))
    after = rules.apply(state, 0, {"type": "take"})
    for seat in (None, 0, 1):
        view = rules.view(after, seat)
        assert names(view["collections"][0]) == ["5", "+4", "-3"]
        assert view["summaries"][0] == {
            "support": {"5": 1, "6": 0, "7": 0, "8": 0},
            "cities": 0,
            "alliance": 4,
            "betrayal": -3,
        }


# §4 Round structure and forced moves


def test_a_player_may_take_only_once_per_round() -> None:
    state = make_state(hands=(["8", "8"], ["7", "7", "7"]), row=["5"], taken=(True, False))
    assert turn_of(state) == 0
    assert {"type": "take"} not in rules.legal_actions(state, 0)
    with pytest.raises(IllegalAction, match="already taken"):
        rules.apply(state, 0, {"type": "take"})


def test_a_player_with_an_empty_hand_who_has_not_taken_must_take() -> None:
    state = make_state(hands=([], ["7"]), row=["5", "6", "8", "8"], taken=(False, True))
    assert rules.active_seats(state) == [0]
    assert rules.legal_actions(state, 0) == [{"type": "take"}]


def test_a_player_who_has_taken_must_play() -> None:
    state = make_state(hands=(["5", "6"], ["7", "8", "8"]), row=["+2"], taken=(True, False))
    assert rules.active_seats(state) == [0]
    assert rules.legal_actions(state, 0) == [
        {"type": "play", "card": card} for card in state.hands[0]
    ]


@pytest.mark.parametrize(
    "action",
    [
        {"type": "play", "card": True},
        {"type": "play", "card": "0"},
        {"type": "play", "card": 0, "from": "hand"},
        {"type": "take", "card": 0},
        {"type": "pass"},
        ["take"],
    ],
)
def test_malformed_actions_are_refused_with_a_sentence(action: Any) -> None:
    state = make_state(hands=(["5"], ["6"]), row=["8"])
    with pytest.raises(IllegalAction, match="not allowed now"):
        rules.apply(state, 0, action)


def test_playing_a_card_that_is_not_in_your_hand_is_refused() -> None:
    state = make_state(hands=(["5"], ["6"]), row=["8"])
    with pytest.raises(IllegalAction, match="not in your hand"):
        rules.apply(state, 0, {"type": "play", "card": state.hands[1][0]})


def test_each_round_is_12_alternating_turns_with_5_plays_and_1_take_per_player() -> None:
    for seed in range(40):
        log = random_game(seed)[-1].log
        rounds = [i for i, event in enumerate(log) if event[0] == "round"]
        for start, end in zip(rounds, rounds[1:] + [len(log) - 1]):
            turns = log[start + 1 : end]
            if log[end][0] == "end" and log[end][2] == "city":
                continue  # an instant win cuts its round short
            first = log[start][1]
            assert [event[1] for event in turns] == [first, 1 - first] * 6
            for seat in (0, 1):
                kinds = Counter(event[0] for event in turns if event[1] == seat)
                assert kinds == {"play": 5, "take": 1}


def test_the_first_player_alternates_from_round_to_round() -> None:
    for seed in range(20):
        state = random_game(seed)[-1]
        firsts = [event[1] for event in state.log if event[0] == "round"]
        assert firsts == [firsts[0], 1 - firsts[0]] * 2 or state.over == "city"
        assert [event[2] for event in state.log if event[0] == "round"] == [1, 2, 3, 4][
            : len(firsts)
        ]


def test_the_row_carries_over_and_the_next_round_is_dealt_from_the_top_of_the_deck() -> None:
    state = make_state(hands=(["8"], []), row=["5", "6"], first=1, taken=(True, True))
    assert rules.active_seats(state) == [0]
    card = state.hands[0][0]
    after = rules.apply(state, 0, {"type": "play", "card": card})
    assert after.row == state.row + (card,)
    assert (after.round, after.first, after.taken) == (2, 0, (False, False))
    assert after.hands == (state.deck[:5], state.deck[5:10])
    assert after.deck == state.deck[10:]
    assert after.log[-1] == ("round", 0, 2)


def test_the_deck_holds_30_20_10_then_0_cards_and_runs_out_exactly_at_the_round_4_deal() -> None:
    for seed in range(40):
        states = random_game(seed)
        if states[-1].over == "city":
            continue
        sizes = {state.round: len(state.deck) for state in states}
        assert sizes == {1: 30, 2: 20, 3: 10, 4: 0}
        end = states[-1]
        assert end.hands == ((), ()) and end.taken == (True, True)
        assert len(end.row) + len(end.collections[0]) + len(end.collections[1]) == 42


def test_the_game_ends_after_the_12th_turn_of_round_4_with_a_score_outcome() -> None:
    state = make_state(
        hands=(["8"], []), collections=(["7"], ["6"]), round=4, first=1, taken=(True, True)
    )
    after = rules.apply(state, 0, {"type": "play", "card": state.hands[0][0]})
    assert rules.active_seats(after) == []
    assert rules.outcome(after).reason == "score"
    assert rules.view(after, None)["log"][-1] == {
        "type": "end",
        "seat": 0,
        "winner": 0,
        "reason": "score",
    }


# §5 Instant win


def test_taking_the_third_city_card_wins_at_once_and_ends_the_game_mid_round() -> None:
    state = make_state(
        hands=(["5", "6", "7"], ["8", "7", "6"]),
        row=["-1", "cityhall", "5", "6", "7", "8"],
        collections=(["docks", "police"], ["8"] * 4),
    )
    after = rules.apply(state, 0, {"type": "take"})
    outcome = rules.outcome(after)
    assert outcome is not None
    assert (outcome.reason, outcome.ranks) == ("city", [0, 1])
    assert rules.active_seats(after) == [] and after.hands[1]
    assert after.log[-1] == ("end", 0, "city")
    with pytest.raises(IllegalAction, match="over"):
        rules.apply(after, 1, {"type": "play", "card": after.hands[1][0]})


def test_a_third_city_card_left_in_the_row_beyond_the_5_taken_does_not_win() -> None:
    state = make_state(
        hands=(["5"], ["8"]),
        row=["cityhall", "5", "6", "7", "8", "+2"],
        collections=(["docks", "police"], []),
    )
    after = rules.apply(state, 0, {"type": "take"})
    assert rules.outcome(after) is None


def test_the_city_cards_win_only_when_taken_not_when_played() -> None:
    state = make_state(hands=(["cityhall"], ["8"]), collections=(["docks", "police"], []))
    after = rules.apply(state, 0, {"type": "play", "card": state.hands[0][0]})
    assert rules.outcome(after) is None


# §6 Scoring


def breakdowns(a: list[str], b: list[str]) -> list[dict[str, Any]]:
    return rules.outcome(finished(a, b)).details["breakdown"]


def test_a_majority_needs_strictly_more_cards_and_a_tie_scores_nobody() -> None:
    a, b = breakdowns(["5", "5", "6"], ["5", "5", "7"])
    assert a["majorities"] == {"5": 0, "6": 6, "7": 0, "8": 0}
    assert b["majorities"] == {"5": 0, "6": 0, "7": 7, "8": 0}


def test_nobody_scores_a_value_that_neither_player_holds() -> None:
    a, b = breakdowns(["+2"], ["-1"])
    assert a["majorities"] == b["majorities"] == {"5": 0, "6": 0, "7": 0, "8": 0}
    assert rules.view(finished(["+2"], ["-1"]), None)["majorities"] == dict.fromkeys("5678")


def test_sets_count_the_smallest_support_pile_whether_or_not_the_majorities_are_won() -> None:
    a, b = breakdowns(["5", "6", "7", "8"] * 2, ["5", "6", "7", "8"] * 3)
    assert (a["sets"], a["set_points"], a["total"]) == (2, 10, 10)
    assert (b["sets"], b["set_points"], b["total"]) == (3, 15, 5 + 6 + 7 + 8 + 15)


def test_alliance_and_betrayal_add_their_values_and_city_cards_score_nothing() -> None:
    a, _ = breakdowns(["+2", "+3", "+4", "-1", "-3", "docks"], [])
    assert (a["alliance"], a["betrayal"], a["cities"], a["total"]) == (9, -4, 1, 5)


def test_the_worked_example_scores_24_to_15() -> None:
    state = finished(
        ["5", "5", "6", "7", "7", "8", "8", "8", "+2", "-3"],
        ["5", "6", "6", "7", "8", "+4", "+3", "-1", "-2"],
    )
    outcome = rules.outcome(state)
    a, b = outcome.details["breakdown"]
    assert a["majorities"] == {"5": 5, "6": 0, "7": 7, "8": 8}
    assert b["majorities"] == {"5": 0, "6": 6, "7": 0, "8": 0}
    assert (a["sets"], b["sets"]) == (1, 1)
    assert (a["alliance"] + a["betrayal"], b["alliance"] + b["betrayal"]) == (-1, 4)
    assert outcome.scores == [24, 15]
    assert outcome.ranks == [0, 1]
    assert (outcome.reason, outcome.details["tiebreak"]) == ("score", None)


@pytest.mark.parametrize(
    ("winner", "loser", "tiebreak"),
    [
        (["8", "8"], ["8", "+4", "+2", "+2"], "support-8"),
        (["7", "7"], ["7", "+4", "+3"], "support-7"),
        (["6", "6"], ["6", "+4", "+2"], "support-6"),
        (["5", "5"], ["5", "+3", "+2"], "support-5"),
        (["docks", "+2"], ["+2"], "cities"),
        (["8"], ["7", "7", "+3", "-2"], "support-8"),  # an earlier step outranks a later one
    ],
)
def test_equal_scores_are_broken_by_8s_then_7s_6s_5s_and_city_cards(
    winner: list[str], loser: list[str], tiebreak: str
) -> None:
    for seat, pair in ((0, (winner, loser)), (1, (loser, winner))):
        outcome = rules.outcome(finished(*pair))
        assert outcome.scores[0] == outcome.scores[1]
        assert outcome.ranks == ([0, 1] if seat == 0 else [1, 0])
        assert (outcome.details["tiebreak"], outcome.details["winner"]) == (tiebreak, seat)


def test_players_equal_on_score_and_every_tie_break_share_the_victory() -> None:
    outcome = rules.outcome(finished(["5", "6", "+2", "docks"], ["5", "6", "+2", "police"]))
    assert outcome.ranks == [0, 0]
    assert (outcome.details["tiebreak"], outcome.details["winner"]) == ("shared", None)


def test_there_is_no_outcome_while_the_game_runs() -> None:
    assert rules.outcome(rules.setup(2, 1)) is None


@settings(max_examples=150, deadline=None)
@given(st.permutations(DECK), st.integers(0, 21), st.integers(0, 21))
def test_scoring_is_fair_to_both_seats(box: list[int], size_a: int, size_b: int) -> None:
    a = [NAME[c] for c in box[:size_a]]
    b = [NAME[c] for c in box[size_a : size_a + size_b]]
    outcome, swapped = rules.outcome(finished(a, b)), rules.outcome(finished(b, a))
    assert swapped.ranks == outcome.ranks[::-1] and swapped.scores == outcome.scores[::-1]
    for mine, theirs in (outcome.details["breakdown"], outcome.details["breakdown"][::-1]):
        for value, points in mine["majorities"].items():
            more = mine["support_counts"][value] > theirs["support_counts"][value]
            assert points == (int(value) if more else 0)
        assert mine["sets"] == min(mine["support_counts"].values())
        parts = sum(mine["majorities"].values()) + mine["set_points"]
        assert mine["total"] == parts + mine["alliance"] + mine["betrayal"]
    if outcome.scores[0] != outcome.scores[1]:
        assert outcome.ranks == ([0, 1] if outcome.scores[0] > outcome.scores[1] else [1, 0])


# §7 Information


def test_a_view_carries_the_whole_public_board_and_the_seats_own_hand() -> None:
    view = rules.view(rules.setup(2, 9), 0)
    assert set(view) == {
        "seat", "num_players", "active_seats", "legal_actions", "over", "hand", "hand_sizes",
        "row", "collections", "summaries", "majorities", "deck_size", "round", "rounds",
        "first_player", "turn", "taken", "log",
    }  # fmt: skip
    assert (view["deck_size"], view["rounds"], view["hand_sizes"]) == (30, 4, [5, 5])
    over = rules.view(finished(["5"], []), None)
    assert over["over"] and over["outcome"] == rules.outcome(finished(["5"], [])).to_json()


def test_a_player_sees_their_own_hand_and_only_the_size_of_the_other() -> None:
    state = make_state(hands=(["5", "docks"], ["8", "+4", "-3"]), row=["6"])
    view = rules.view(state, 0)
    assert names(view["hand"]) == ["5", "docks"]
    assert view["hand"][1] == {"id": state.hands[0][1], "kind": "city", "value": 0, "name": "docks"}
    assert view["hand_sizes"] == [2, 3]
    assert rules.view(state, None)["hand"] is None


def test_views_never_show_the_other_hand_the_deck_or_the_removed_cards() -> None:
    for seed in range(100):
        for state in random_game(seed)[::3]:
            hidden = set(state.removed + state.deck)
            for seat in (None, 0, 1):
                secret = hidden | set(state.hands[0] + state.hands[1])
                if seat is not None:
                    secret -= set(state.hands[seat])
                assert not ids_in(rules.view(state, seat)) & secret


def test_a_view_does_not_change_when_the_cards_it_cannot_see_change() -> None:
    rng = random.Random(5)
    for seed in range(60):
        for state in random_game(seed)[::4]:
            for seat in (None, 0, 1):
                hidden = list(state.removed + state.deck)
                hidden += [c for s in (0, 1) if s != seat for c in state.hands[s]]
                shuffled = [state.faces[c] for c in hidden]
                rng.shuffle(shuffled)
                faces = list(state.faces)
                for card, code in zip(hidden, shuffled):
                    faces[card] = code
                other = state._replace(faces=tuple(faces))
                assert rules.view(other, seat) == rules.view(state, seat)


def test_sample_state_agrees_with_the_view_and_redraws_only_the_hidden_faces() -> None:
    rng = random.Random(11)
    redrawn = 0
    for seed in range(60):
        for state in random_game(seed)[:-1:5]:
            seat = rng.randrange(2)
            view = rules.view(state, seat)
            sample = rules.sample_state(view, seat, rng)
            assert rules.view(sample, seat) == view
            # the view shows collections sorted by face, so only their order may differ
            assert sorted(sample.collections[0]) == sorted(state.collections[0])
            assert sorted(sample.collections[1]) == sorted(state.collections[1])
            same = {"faces": state.faces, "collections": state.collections}
            assert sample._replace(**same) == state
            assert sorted(sample.faces) == sorted(DECK)
            other = [state.faces[c] for c in state.hands[1 - seat]]
            redrawn += [sample.faces[c] for c in state.hands[1 - seat]] != other
    assert redrawn > 100


def test_a_sampled_state_plays_on_to_the_end() -> None:
    rng = random.Random(2)
    state = random_game(4)[20]
    sample = rules.sample_state(rules.view(state, 1), 1, rng)
    while not rules.is_over(sample):
        seat = turn_of(sample)
        sample = rules.apply(sample, seat, rng.choice(rules.legal_actions(sample, seat)))
    assert all_cards(sample) == list(range(45))


# Properties over many random games


def refuses(state: DistrictNoirState, seat: int, action: Any) -> str | None:
    """The reason ``apply`` gives for refusing, or None if it accepts (pytest.raises is slow)."""
    try:
        rules.apply(state, seat, action)
    except IllegalAction as refusal:
        return refusal.message
    return None


def test_thousands_of_random_games_keep_every_rule() -> None:
    for seed in range(2000):
        rng = random.Random(seed)
        state = rules.setup(2, seed)
        history: list[tuple[int, dict[str, Any]]] = []
        while not rules.is_over(state):
            assert len(history) < 48, "a game lasts at most 4 rounds of 12 turns"
            assert all_cards(state) == list(range(45))
            assert rules.from_json(rules.to_json(state)) == state
            seat = turn_of(state)
            hand = state.hands[seat]
            offered = rules.legal_actions(state, seat)
            may_take = not state.taken[seat] and bool(state.row)
            assert offered == [{"type": "play", "card": c} for c in hand] + (
                [{"type": "take"}] if may_take else []
            )
            assert offered and rules.legal_actions(state, 1 - seat) == []
            assert all(refuses(state, seat, action) is None for action in offered)
            stranger = rng.choice([c for c in range(45) if c not in hand])
            refused = [{"type": "play", "card": stranger}, {"type": "play", "card": str(stranger)}]
            refused += [] if may_take else [{"type": "take"}]
            assert all(refuses(state, seat, action) for action in refused)
            assert refuses(state, 1 - seat, offered[0]) == "It is not your turn."
            action = rng.choice(offered)
            history.append((seat, action))
            state = rules.apply(state, seat, action)
        assert all_cards(state) == list(range(45))
        assert rules.from_json(json.loads(json.dumps(rules.to_json(state)))) == state
        replayed = rules.setup(2, seed)
        for seat, action in history:
            replayed = rules.apply(replayed, seat, action)
        assert replayed == state
