"""Slide, tested from its rules reference (docs/rules/slide.md).

Rule tests build the exact state they need with ``build`` (grids written as rows
of numbers); the property tests at the end play hundreds of random games.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import replace
from typing import Any

import pytest

from games.rules import IllegalAction, get_rules
from games.rules.slide.game import Slide
from games.rules.slide.grid import HOLE, score_grid
from games.rules.slide.state import OVER, PICK, SLIDE, SlideState

rules = Slide()

FULL = ["1 2 3 4", "5 6 7 8", "9 10 1 2", "3 4 5 6"]  # no two equal neighbours
DOWN = ["1* 2* 3* 4*", "5* 6* 7* 8*", "9* 10* 1* 2*", "3* 4* 5* 6*"]  # all face down


def build(
    grids: list[list[str]],
    *,
    centre: tuple[int, ...] = (),
    phase: str = SLIDE,
    round: int = 16,
    first: int = 0,
    turn: int | None = None,
    picks: list[int] | None = None,
    allow_zero: bool = False,
) -> SlideState:
    """A state from grids written row by row: a number is a face-up card, ``5*`` a
    face-down 5, ``.`` the hole. Ids follow reading order, seat by seat, then the
    centre; out-of-play cards are filler."""
    values: list[int] = []
    up: list[int] = []
    cells: list[list[int]] = []
    for rows in grids:
        seat_cells = []
        for token in " ".join(rows).split():
            if token == ".":
                seat_cells.append(HOLE)
                continue
            if not token.endswith("*"):
                up.append(len(values))
            seat_cells.append(len(values))
            values.append(int(token.rstrip("*")))
        cells.append(seat_cells)
    for value in centre:
        up.append(len(values))
        values.append(value)
    n = len(grids)
    if turn is None:
        turn = first if phase == SLIDE else -1
    return rules.from_json(
        {
            "num_players": n,
            "seed": 0,
            "options": {"allowZeroShiftEntry": allow_zero},
            "values": values + [1] * (100 - len(values)),
            "grids": cells,
            "up": up,
            "picks": picks or [-1] * n,
            "centre": list(range(len(values) - len(centre), len(values))),
            "round": round,
            "first": first,
            "phase": phase,
            "turn": turn,
            "log": [],
        }
    )


def show(state: SlideState, seat: int) -> list[str]:
    """A grid in ``build``'s notation."""
    tokens = []
    for card in state.grids[seat]:
        if card == HOLE:
            tokens.append(".")
        else:
            tokens.append(str(state.values[card]) + ("" if state.up >> card & 1 else "*"))
    return [" ".join(tokens[r * 4 : r * 4 + 4]) for r in range(4)]


def numbers(text: str) -> list[int]:
    return [int(token) for token in text.split()]


def slide(card: int, edge: str) -> dict[str, Any]:
    return {"type": "slide", "card": card, "edge": edge}


def pick(row: int, col: int) -> dict[str, Any]:
    return {"type": "pick", "row": row, "col": col}


def face_down_count(state: SlideState, seat: int) -> int:
    return sum(1 for card in state.grids[seat] if card != HOLE and not state.up >> card & 1)


def pick_all(state: SlideState, cell: tuple[int, int] = (0, 0)) -> SlideState:
    for seat in range(state.num_players):
        state = rules.apply(state, seat, pick(*cell))
    return state


# -- §1, §2 Components and setup -------------------------------------------------


def test_slide_is_registered_for_two_to_six_players() -> None:
    assert isinstance(get_rules("slide"), Slide)
    assert (rules.name, rules.min_players, rules.max_players) == ("Slide", 2, 6)


def test_the_deck_is_ten_copies_of_each_number_from_1_to_10() -> None:
    state = rules.setup(3, 7)
    assert Counter(state.values) == {value: 10 for value in range(1, 11)}


@pytest.mark.parametrize("n", range(2, 7))
def test_each_player_gets_16_face_down_cards_and_the_rest_stay_out_of_play(n: int) -> None:
    state = rules.setup(n, 99)
    dealt = [card for grid in state.grids for card in grid]
    assert len(state.grids) == n and all(len(grid) == 16 for grid in state.grids)
    assert sorted(dealt) == list(range(16 * n))
    assert state.up == 0
    assert rules.view(state, None)["out_of_play"] == 100 - 16 * n


def test_nobody_sees_a_face_down_card_not_even_its_owner() -> None:
    state = rules.setup(2, 1)
    for seat in (0, 1, None):
        for rows in rules.view(state, seat)["grids"]:
            for row in rows:
                assert row == [{"card": None, "value": None, "picked": False}] * 4


def test_the_first_player_is_drawn_at_random_from_the_seed() -> None:
    firsts = {rules.setup(4, seed).first for seed in range(60)}
    assert firsts == {0, 1, 2, 3}
    assert rules.setup(4, 5).first == rules.setup(4, 5).first


def test_zero_shift_entries_are_off_by_default_and_other_options_are_refused() -> None:
    assert rules.default_options == {"allowZeroShiftEntry": False}
    assert rules.setup(2, 1).allow_zero_shift is False
    assert rules.setup(2, 1, {"allowZeroShiftEntry": True}).allow_zero_shift is True
    with pytest.raises(ValueError):
        rules.setup(2, 1, {"noSuchOption": True})
    with pytest.raises(ValueError):
        rules.setup(7, 1)


# -- §3.1 Step A: everyone picks at once ---------------------------------------------


def test_every_seat_picks_at_the_same_time() -> None:
    state = rules.setup(4, 3)
    assert state.phase == PICK
    assert rules.active_seats(state) == rules.waiting_seats(state) == [0, 1, 2, 3]


def test_only_face_down_cards_can_be_picked() -> None:
    state = build([["1 2* 3* 4*", *DOWN[1:]], DOWN], phase=PICK, round=2)
    offered = rules.legal_actions(state, 0)
    assert pick(0, 0) not in offered and len(offered) == 15
    with pytest.raises(IllegalAction) as refused:
        rules.apply(state, 0, pick(0, 0))
    assert refused.value.message == "Face-up cards can never be picked."


def test_a_seat_may_change_its_pick_until_the_last_pick_is_in() -> None:
    state = rules.setup(3, 4)
    state = rules.apply(state, 1, pick(0, 0))
    assert rules.active_seats(state) == [0, 1, 2]
    assert rules.waiting_seats(state) == [0, 2]
    assert pick(2, 3) in rules.legal_actions(state, 1)
    state = rules.apply(state, 1, pick(2, 3))
    assert rules.view(state, 1)["my_pick"] == [2, 3]
    assert rules.view(state, 1)["grids"][1][2][3]["picked"] is True
    assert rules.view(state, 1)["grids"][1][0][0]["picked"] is False
    assert state.log[-1] == {"type": "pick", "seat": 1, "changed": True}
    assert rules.apply(state, 1, pick(2, 3)) == state  # the same card again changes nothing


def test_the_last_pick_reveals_every_picked_card_into_the_centre_at_once() -> None:
    state = rules.setup(3, 8)
    state = rules.apply(state, 0, pick(1, 1))
    state = rules.apply(state, 2, pick(3, 0))
    assert state.phase == PICK and state.centre == ()
    picked = [state.grids[0][5], state.grids[1][2], state.grids[2][12]]
    state = rules.apply(state, 1, pick(0, 2))
    assert state.phase == SLIDE
    assert state.centre == tuple(picked)
    assert [grid.count(HOLE) for grid in state.grids] == [1, 1, 1]
    assert [grid.index(HOLE) for grid in state.grids] == [5, 2, 12]
    assert all(state.up >> card & 1 for card in picked)
    reveals = [event for event in state.log if event["type"] == "reveal"]
    assert [(e["seat"], e["row"], e["col"], e["card"]) for e in reveals] == [
        (0, 1, 1, picked[0]),
        (1, 0, 2, picked[1]),
        (2, 3, 0, picked[2]),
    ]
    assert [e["value"] for e in reveals] == [state.values[card] for card in picked]


def test_a_pick_is_hidden_from_the_other_seats_until_the_reveal() -> None:
    base = rules.setup(3, 8)
    one = rules.apply(base, 0, pick(0, 0))
    other = rules.apply(base, 0, pick(3, 3))
    for seat in (1, 2, None):
        assert rules.view(one, seat) == rules.view(other, seat)
        assert rules.view(one, seat)["picked"] == [True, False, False]
        assert rules.view(one, seat)["picked_count"] == 1
        assert rules.view(one, seat)["my_pick"] is None
    assert rules.view(one, 0) != rules.view(other, 0)


def test_in_the_last_round_each_seat_has_exactly_one_card_to_pick() -> None:
    grid = ["1 2 3 4", "5 6 7 8", "9 10 1 2", "3 4 5 6*"]
    state = build([grid, grid], phase=PICK, round=16)
    assert rules.legal_actions(state, 0) == [pick(3, 3)]
    state = rules.apply(state, 0, pick(3, 3))
    assert rules.legal_actions(state, 0) == [pick(3, 3)]  # it stays active until all are in


# -- §3.2 Step B: take and slide, in turn order -------------------------------------


def test_the_token_holder_slides_first_then_play_goes_clockwise() -> None:
    state = pick_all(build([DOWN] * 4, phase=PICK, round=1, first=2))
    order = []
    while state.phase == SLIDE:
        (seat,) = rules.active_seats(state)
        order.append(seat)
        state = rules.apply(state, seat, rules.legal_actions(state, seat)[0])
    assert order == [2, 3, 0, 1]


def test_a_player_may_take_any_centre_card_including_their_own() -> None:
    state = pick_all(build([DOWN, DOWN], phase=PICK, round=1, first=0))
    own, others = state.centre
    offered = {action["card"] for action in rules.legal_actions(state, 0)}
    assert offered == {own, others}
    after = rules.apply(state, 0, slide(own, "bottom"))
    assert after.grids[0][12] == own


def test_the_centre_holds_one_card_per_player_and_the_last_player_takes_the_one_left() -> None:
    state = pick_all(build([DOWN] * 3, phase=PICK, round=1, first=1))
    assert len(state.centre) == 3
    state = rules.apply(state, 1, slide(state.centre[0], "right"))
    state = rules.apply(state, 2, slide(state.centre[0], "right"))
    (last,) = state.centre
    assert {action["card"] for action in rules.legal_actions(state, 0)} == {last}
    state = rules.apply(state, 0, slide(last, "right"))
    assert state.centre == () and state.phase == PICK


def test_each_slide_is_public_before_the_next_player_chooses() -> None:
    state = pick_all(build([DOWN, DOWN, DOWN], phase=PICK, round=1, first=0))
    card = state.centre[1]
    state = rules.apply(state, 0, slide(card, "bottom"))
    view = rules.view(state, 1)
    assert view["grids"][0][3][0] == {"card": card, "value": state.values[card]}
    assert view["log"][-1] == {
        "type": "slide",
        "seat": 0,
        "card": card,
        "value": state.values[card],
        "edge": "bottom",
        "row": 0,
        "col": 0,
    }
    assert [c["card"] for c in view["centre"]] == list(state.centre)


def test_a_seat_out_of_turn_cannot_slide() -> None:
    state = pick_all(build([DOWN, DOWN], phase=PICK, round=1, first=1))
    with pytest.raises(IllegalAction) as refused:
        rules.apply(state, 0, slide(state.centre[0], "bottom"))
    assert refused.value.message == "It is not your turn."


# -- §3.3, §3.4 The token, and exactly 16 rounds ---------------------------------------


def test_the_token_moves_one_seat_to_the_left_after_each_round() -> None:
    state = rules.setup(3, 11)
    firsts = []
    while state.phase != OVER:
        if state.phase == PICK and not any(p >= 0 for p in state.picks):
            firsts.append(state.first)
        seat = rules.waiting_seats(state)[0]
        state = rules.apply(state, seat, rules.legal_actions(state, seat)[-1])
    assert firsts == [(firsts[0] + k) % 3 for k in range(16)]


def test_after_round_k_every_grid_has_k_face_up_and_16_minus_k_face_down_cards() -> None:
    state = rules.setup(2, 12)
    rounds_done = 0
    while state.phase != OVER:
        before = state.round
        seat = rules.waiting_seats(state)[0]
        state = rules.apply(state, seat, rules.legal_actions(state, seat)[0])
        if state.phase == OVER or state.round != before:
            rounds_done += 1
            for s in range(2):
                assert face_down_count(state, s) == 16 - rounds_done
                assert HOLE not in state.grids[s]
    assert rounds_done == 16 and state.round == 16


# -- §4 Sliding a card into the grid -------------------------------------------------------

HOLE_1_2 = ["a b c d", "e f . g", "h i j k", "l m n o"]
NUMBERS = {letter: str(value) for value, letter in enumerate("abcdefghijklmno", start=1)}


def _as_numbers(rows: list[str]) -> list[str]:
    """Letters stand for the numbers 1 to 15, ``*`` for the entering card (20)."""
    return [" ".join({".": ".", "*": "20"}.get(t) or NUMBERS[t] for t in r.split()) for r in rows]


@pytest.mark.parametrize(
    ("edge", "expected"),
    [
        ("left", ["a b c d", "* e f g", "h i j k", "l m n o"]),
        ("right", ["a b c d", "e f g *", "h i j k", "l m n o"]),
        ("top", ["a b * d", "e f c g", "h i j k", "l m n o"]),
        ("bottom", ["a b c d", "e f j g", "h i n k", "l m * o"]),
    ],
)
def test_each_entry_pushes_the_cards_between_its_edge_and_the_hole(
    edge: str, expected: list[str]
) -> None:
    state = build([_as_numbers(HOLE_1_2), FULL], centre=(20,))
    after = rules.apply(state, 0, slide(state.centre[0], edge))
    assert show(after, 0) == _as_numbers(expected)
    assert HOLE not in after.grids[0]


def test_the_worked_example_hole_at_1_2_entering_from_the_left() -> None:
    state = build([["1 2 3 4", "5 6 . 7", "8 9 10 1", "2 3 4 5"], FULL], centre=(9,))
    after = rules.apply(state, 0, slide(state.centre[0], "left"))
    assert show(after, 0) == ["1 2 3 4", "9 5 6 7", "8 9 10 1", "2 3 4 5"]


def test_pushed_cards_keep_their_face_state_and_the_new_card_is_face_up() -> None:
    state = build([["1* 2 3* 4", "5* . 6 7*", "8 9 10 1", "2 3 4 5"], FULL], centre=(9,))
    after = rules.apply(state, 0, slide(state.centre[0], "top"))
    assert show(after, 0) == ["1* 9 3* 4", "5* 2 6 7*", "8 9 10 1", "2 3 4 5"]


def test_an_entry_that_shifts_no_card_is_illegal_by_default() -> None:
    state = build([["1 2 3 4", ". 5 6 7", "8 9 10 1", "2 3 4 5"], FULL], centre=(9,))
    card = state.centre[0]
    assert {a["edge"] for a in rules.legal_actions(state, 0)} == {"top", "bottom", "right"}
    with pytest.raises(IllegalAction) as refused:
        rules.apply(state, 0, slide(card, "left"))
    assert "pushes at least one card" in refused.value.message


@pytest.mark.parametrize("hole", range(16))
def test_inner_holes_have_4_entries_edge_holes_3_and_corner_holes_2(hole: int) -> None:
    tokens = " ".join(FULL).split()
    tokens[hole] = "."
    rows = [" ".join(tokens[r * 4 : r * 4 + 4]) for r in range(4)]
    state = build([rows, FULL], centre=(9,))
    row, col = divmod(hole, 4)
    on_edge = (row in (0, 3)) + (col in (0, 3))
    assert len(rules.legal_actions(state, 0)) == 4 - on_edge
    assert len(rules.view(state, 1)["entries"]) == 4 - on_edge


def test_the_table_option_allows_placing_a_card_straight_into_an_edge_hole() -> None:
    state = build(
        [["1 2 3 4", ". 5 6 7", "8 9 10 1", "2 3 4 5"], FULL], centre=(9,), allow_zero=True
    )
    assert [a["edge"] for a in rules.legal_actions(state, 0)] == ["top", "bottom", "left", "right"]
    after = rules.apply(state, 0, slide(state.centre[0], "left"))
    assert show(after, 0) == ["1 2 3 4", "9 5 6 7", "8 9 10 1", "2 3 4 5"]


def test_the_view_shows_where_every_legal_slide_moves_the_cards() -> None:
    state = build([["1 2 3 4", "5 6 . 7", "8 9 10 1", "2 3 4 5"], FULL], centre=(9,))
    card = state.centre[0]
    entries = {entry["edge"]: entry for entry in rules.view(state, None)["entries"]}
    assert {a["edge"] for a in rules.legal_actions(state, 0)} == set(entries)
    assert entries["left"] == {
        "edge": "left",
        "place": [1, 0],
        "shifts": [{"from": [1, 1], "to": [1, 2]}, {"from": [1, 0], "to": [1, 1]}],
    }
    for edge, entry in entries.items():
        after = rules.apply(state, 0, slide(card, edge))
        r, c = entry["place"]
        assert after.grids[0][r * 4 + c] == card
        for shift in entry["shifts"]:
            (fr, fc), (tr, tc) = shift["from"], shift["to"]
            assert after.grids[0][tr * 4 + tc] == state.grids[0][fr * 4 + fc]


# -- §5 End of game and scoring --------------------------------------------------------------


def test_same_number_neighbours_cancel_in_groups_of_any_shape() -> None:
    values = numbers("7 7 7 1  2 3 7 4  5 5 6 6  5 5 6 8")
    result = score_grid(values)
    groups = {(g["value"], tuple(map(tuple, g["cells"]))) for g in result["groups"]}
    assert groups == {
        (7, ((0, 0), (0, 1), (0, 2), (1, 2))),  # an L of four
        (5, ((2, 0), (2, 1), (3, 0), (3, 1))),  # a 2 x 2 block
        (6, ((2, 2), (2, 3), (3, 2))),
    }
    assert result["score"] == 1 + 2 + 3 + 4 + 8 and result["cards_left"] == 5


def test_diagonal_contact_does_not_cancel() -> None:
    values = numbers("3 1 2 4  1 3 4 2  5 6 7 8  9 10 5 6")
    assert score_grid(values)["groups"] == []


def test_cancellation_happens_in_one_pass_and_never_cascades() -> None:
    # After the two 4s vanish, the 9s at (0,0) and (0,3) would not meet anyway: removing
    # cards moves nothing, so the lone 9s and the 2 between the 4s stay.
    values = numbers("9 4 4 9  2 1 3 2  5 6 7 8  10 1 3 5")
    result = score_grid(values)
    assert [g["value"] for g in result["groups"]] == [4]
    assert result["cards_left"] == 14


def test_a_grid_with_no_equal_neighbours_scores_the_sum_of_all_16() -> None:
    values = [int(t) for t in " ".join(FULL).split()]
    assert score_grid(values)["score"] == sum(values)
    assert score_grid(values)["cards_left"] == 16


def test_a_grid_of_16_identical_numbers_scores_0_with_0_cards_left() -> None:
    result = score_grid([8] * 16)
    assert (result["score"], result["cards_left"], result["cancelled"]) == (0, 0, 16)


def _finish(grids: list[list[str]]) -> SlideState:
    """Play the last slide of round 16: the last seat's hole is (0,0), the centre holds a 10."""
    n = len(grids)
    state = build(grids, centre=(10,), first=0, turn=n - 1)
    return rules.apply(state, n - 1, slide(state.centre[0], "bottom"))


def test_the_game_ends_after_the_last_slide_of_round_16_and_the_lowest_score_wins() -> None:
    last = [". 9 9 9", "2 9 9 9", "2 9 9 9", "2 4 4 4"]  # after the slide: a lone 10 at (3,0)
    state = _finish([FULL, last])
    assert show(state, 1) == ["2 9 9 9", "2 9 9 9", "2 9 9 9", "10 4 4 4"]
    assert state.phase == OVER and rules.active_seats(state) == []
    outcome = rules.outcome(state)
    assert outcome is not None
    assert outcome.scores == [sum(int(t) for t in " ".join(FULL).split()), 10]
    assert outcome.ranks == [1, 0]
    assert [e for e in state.log if e["type"] == "score"][1] == {
        "type": "score",
        "seat": 1,
        "score": 10,
        "cards_left": 1,
    }
    view = rules.view(state, 0)
    assert view["over"] is True and view["outcome"] == outcome.to_json()


def test_a_tie_on_score_goes_to_the_player_with_fewer_cards_left() -> None:
    # Both score 10: seat 0 keeps a lone 10, seat 1 a 6 and a 4 (its three 10s cancel).
    state = _finish(
        [
            ["10 2 2 2", "5 5 5 5", "7 7 7 7", "7 7 7 7"],
            [". 3 3 3", "3 3 3 3", "10 8 8 6", "10 8 8 4"],
        ]
    )
    assert show(state, 1) == ["3 3 3 3", "10 3 3 3", "10 8 8 6", "10 8 8 4"]
    outcome = rules.outcome(state)
    assert outcome is not None and outcome.scores == [10, 10]
    assert [b["cards_left"] for b in outcome.details["breakdown"]] == [1, 2]
    assert outcome.ranks == [0, 1]


def test_players_tied_on_score_and_cards_left_share_the_victory() -> None:
    state = _finish([FULL, FULL, [". 2 3 4", "5 6 7 8", "9 10 1 2", "3 4 5 6"]])
    outcome = rules.outcome(state)
    assert outcome is not None
    assert outcome.scores == [76, 76, 85]
    assert outcome.ranks == [0, 0, 2]


def test_the_outcome_details_give_each_seats_cancelled_groups_and_breakdown() -> None:
    state = _finish([FULL, [". 9 9 9", "2 9 9 9", "2 9 9 9", "2 4 4 4"]])
    outcome = rules.outcome(state)
    assert outcome is not None and outcome.details["lowest_wins"] is True
    second = outcome.details["breakdown"][1]
    assert second["score"] == 10 and second["cards_left"] == 1 and second["cancelled"] == 15
    assert second["kept"] == [[3, 0]]
    assert [(g["value"], len(g["cells"])) for g in second["groups"]] == [(2, 3), (9, 9), (4, 3)]
    assert second["groups"][0]["cells"] == [[0, 0], [1, 0], [2, 0]]
    assert second["values"][3] == [10, 4, 4, 4]
    json.dumps(outcome.to_json())


# -- Input checks ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("action", "message"),
    [
        ("pick", "That move is not allowed now."),
        ({"type": "slide", "card": 0, "edge": "left"}, "Pick one of your face-down cards now."),
        ({"type": "pick", "row": 4, "col": 0}, "That move is not allowed now."),
        ({"type": "pick", "row": True, "col": 0}, "That move is not allowed now."),
        ({"type": "pick", "row": 0}, "That move is not allowed now."),
        ({"type": "pick", "row": 0, "col": 0, "x": 1}, "That move is not allowed now."),
    ],
)
def test_malformed_picks_are_refused_with_a_readable_sentence(action: Any, message: str) -> None:
    with pytest.raises(IllegalAction) as refused:
        rules.apply(rules.setup(2, 1), 0, action)
    assert refused.value.message == message


@pytest.mark.parametrize(
    ("action", "message"),
    [
        (pick(0, 0), "Take a card from the centre and slide it into your grid now."),
        ({"type": "slide", "card": 99, "edge": "top"}, "Take one of the cards in the centre."),
        ({"type": "slide", "card": "31", "edge": "top"}, "That move is not allowed now."),
        ({"type": "slide", "card": 31, "edge": "middle"}, "That move is not allowed now."),
    ],
)
def test_malformed_slides_are_refused_with_a_readable_sentence(action: Any, message: str) -> None:
    state = build([["1 2 3 4", "5 6 . 7", "8 9 10 1", "2 3 4 5"], FULL], centre=(9,))
    assert state.centre == (31,)
    with pytest.raises(IllegalAction) as refused:
        rules.apply(state, 0, action)
    assert refused.value.message == message


def test_nothing_is_accepted_once_the_game_is_over() -> None:
    state = _finish([FULL, [". 9 9 9", "2 9 9 9", "2 9 9 9", "2 4 4 4"]])
    with pytest.raises(IllegalAction) as refused:
        rules.apply(state, 0, pick(0, 0))
    assert refused.value.message == "The game is over."


# -- §7 Hidden information ----------------------------------------------------------------------


def _random_states(count: int, seed: int) -> list[SlideState]:
    rng = random.Random(seed)
    states = []
    for _ in range(count):
        state = rules.setup(rng.randint(2, 6), rng.randrange(2**31))
        for _ in range(rng.randrange(200)):
            if state.phase == OVER:
                break
            seat = rng.choice(rules.active_seats(state))
            state = rules.apply(state, seat, rng.choice(rules.legal_actions(state, seat)))
        states.append(state)
    return states


def _scramble(state: SlideState, viewer: int | None, rng: random.Random) -> SlideState:
    """Everything ``viewer`` may not know, redrawn: which id and number sits in each
    face-down cell and out of play, and the other seats' picks."""
    hidden = [c for c in range(100) if not state.up >> c & 1]
    shuffled = hidden[:]
    rng.shuffle(shuffled)
    rename = dict(zip(hidden, shuffled, strict=True))
    values = list(state.values)
    for card in hidden:
        values[card] = rng.randint(1, 10)
    grids = tuple(tuple(rename.get(c, c) if c != HOLE else c for c in g) for g in state.grids)
    picks = list(state.picks)
    for s, p in enumerate(picks):
        if p >= 0 and s != viewer:
            picks[s] = rng.choice([i for i, c in enumerate(grids[s]) if c in rename.values()])
    return replace(state, values=tuple(values), grids=grids, picks=tuple(picks))


def leaks(game: Slide, state: SlideState, viewer: int | None, rng: random.Random) -> list[str]:
    """What ``game.view`` shows ``viewer`` that depends on hidden information.

    The view must be the same whatever the hidden cards and the others' picks are,
    and no ``card`` key may hold a face-down card's id."""
    problems = []
    view = json.dumps(game.view(state, viewer), sort_keys=True)
    for _ in range(3):
        if json.dumps(game.view(_scramble(state, viewer, rng), viewer), sort_keys=True) != view:
            problems.append("the view changes with hidden information")
    face_down = {c for g in state.grids for c in g if c != HOLE and not state.up >> c & 1}

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if node.get("card") in face_down:
                problems.append(f"face-down card {node['card']} shown")
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(json.loads(view))
    return problems


def test_no_view_depends_on_face_down_cards_or_the_other_seats_picks() -> None:
    rng = random.Random(5)
    for state in _random_states(40, 17):
        for viewer in [None, *range(state.num_players)]:
            assert leaks(rules, state, viewer, rng) == []


def test_the_leak_check_catches_views_that_show_hidden_cards_or_picks() -> None:
    class Leaky(Slide):
        def view(self, state: SlideState, seat: int | None) -> dict[str, Any]:
            view = super().view(state, seat)
            view["peek"] = {"card": state.grids[0][15]}  # a face-down card early on
            return view

    class Telltale(Slide):
        def view(self, state: SlideState, seat: int | None) -> dict[str, Any]:
            view = super().view(state, seat)
            view["sum"] = sum(state.values[c] for c in state.grids[1])
            return view

    class ShowsPicks(Slide):
        def view(self, state: SlideState, seat: int | None) -> dict[str, Any]:
            return {**super().view(state, seat), "picks": list(state.picks)}

    state = rules.apply(rules.setup(2, 3), 0, pick(1, 1))
    rng = random.Random(1)
    assert leaks(Leaky(), state, 1, rng)
    assert leaks(Telltale(), state, 0, rng)
    assert leaks(ShowsPicks(), state, 1, rng)
    assert leaks(ShowsPicks(), state, 0, rng) == []  # a seat may see its own pick
    assert leaks(rules, state, 1, rng) == []


def test_sample_state_agrees_with_the_view_and_keeps_a_true_deck() -> None:
    rng = random.Random(8)
    for state in _random_states(30, 23):
        if state.phase == OVER:
            continue
        seat = rng.randrange(state.num_players)
        view = rules.view(state, seat)
        sampled = rules.sample_state(view, seat, rng)
        assert rules.view(sampled, seat) == view
        assert Counter(sampled.values) == {value: 10 for value in range(1, 11)}
        for s in range(state.num_players):
            assert rules.legal_actions(sampled, s) == rules.legal_actions(state, s)


# -- Property loop ---------------------------------------------------------------------------------


def _check_invariants(state: SlideState) -> None:
    n = state.num_players
    cards = [c for g in state.grids for c in g if c != HOLE] + list(state.centre)
    assert sorted(cards) == list(range(16 * n)), "cards are conserved"
    holes = [g.count(HOLE) for g in state.grids]
    if state.phase == SLIDE:
        slid = (state.turn - state.first) % n
        order = [(state.first + k) % n for k in range(n)]
        assert len(state.centre) == n - slid
        assert [holes[s] for s in order] == [0] * slid + [1] * (n - slid)
    else:
        assert holes == [0] * n and state.centre == ()
    for s in range(n):
        up = sum(1 for c in state.grids[s] if c != HOLE and state.up >> c & 1)
        down = 16 - holes[s] - up
        # In round k a grid holds 17 - k face-down cards until the reveal, then 16 - k.
        assert down == (17 - state.round if state.phase == PICK else 16 - state.round)


def _bad_actions(state: SlideState, rng: random.Random) -> list[Any]:
    return [
        pick(rng.randrange(5), rng.randrange(5)),
        slide(rng.randrange(100), rng.choice(["top", "bottom", "left", "right"])),
        {"type": rng.choice(["pick", "slide"])},
    ]


def test_random_games_end_conserve_cards_refuse_unoffered_moves_and_replay() -> None:
    rng = random.Random(2024)
    for game in range(250):
        n = 2 + game % 5
        seed = rng.randrange(2**31)
        state = rules.setup(n, seed, {"allowZeroShiftEntry": game % 3 == 0})
        history = []
        while state.phase != OVER:
            assert len(history) < 2000
            _check_invariants(state)
            seat = rng.choice(rules.active_seats(state))
            offered = rules.legal_actions(state, seat)
            for bad in _bad_actions(state, rng):
                if bad not in offered:
                    with pytest.raises(IllegalAction):
                        rules.apply(state, seat, bad)
            action = rng.choice(offered)
            state = rules.apply(state, seat, action)
            history.append((seat, action))
            if len(history) % 25 == 0:
                assert rules.from_json(json.loads(json.dumps(rules.to_json(state)))) == state
        _check_invariants(state)
        assert rules.waiting_seats(state) == []
        outcome = rules.outcome(state)
        assert outcome is not None and min(outcome.ranks) == 0
        assert all(not face_down_count(state, s) for s in range(n))
        replayed = rules.setup(n, seed, {"allowZeroShiftEntry": game % 3 == 0})
        for seat, action in history:
            replayed = rules.apply(replayed, seat, action)
        assert replayed == state
