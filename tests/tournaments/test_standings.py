"""Standings and tie-breaks (tournaments/pairing/standings.py), worked by hand from the
definitions: Buchholz is the sum of the opponents' final points; Sonneborn-Berger the final
points of every opponent beaten plus half those of every opponent drawn; head-to-head the
points scored against the other tied players alone; the sum of places adds up a player's
places (lower is better)."""

from __future__ import annotations

from tournaments.pairing.history import Bye, Game, build_histories
from tournaments.pairing.standings import (
    buchholz,
    head_to_head,
    multiplayer_standings,
    round_robin_standings,
    sonneborn_berger,
    swiss_standings,
)

A, B, C, D, E, F = range(1, 7)


def two(round_: int, first: int, second: int, first_score: float) -> Game:
    return Game.two_player(round_, first, second, first_score)


def test_swiss_ties_go_to_buchholz_then_sonneborn_berger():
    # Round 1: A beats B, C beats D, E beats F.
    # Round 2: A draws C, E beats B, D draws F.
    # Points: E 2, A 1.5, C 1.5, D 0.5, F 0.5, B 0.
    games = [two(1, A, B, 1), two(1, C, D, 1), two(1, E, F, 1)]
    games += [two(2, A, C, 0.5), two(2, E, B, 1), two(2, D, F, 0.5)]
    histories = build_histories(dict.fromkeys((A, B, C, D, E, F), 0.0), games)
    # Buchholz: A met B (0) and C (1.5): 1.5; C met D (0.5) and A (1.5): 2.
    assert buchholz(A, histories) == 1.5
    assert buchholz(C, histories) == 2.0
    # F met E (2) and D (0.5): 2.5; D met C (1.5) and F (0.5): 2.
    assert buchholz(F, histories) == 2.5
    assert buchholz(D, histories) == 2.0
    # Sonneborn-Berger: A beat B (0) and drew C (1.5 / 2): 0.75; C beat D (0.5), drew A: 1.25.
    assert sonneborn_berger(A, histories) == 0.75
    assert sonneborn_berger(C, histories) == 1.25
    table = swiss_standings(histories)
    assert [s.player for s in table] == [E, C, A, F, D, B]
    assert [s.rank for s in table] == [1, 2, 3, 4, 5, 6]
    assert table[1].tiebreaks == (2.0, 1.25)


def test_swiss_buchholz_level_goes_to_sonneborn_berger_and_a_bye_counts_for_neither():
    # Round 1: A beats C, B draws D, E has the bye. Round 2: A draws E, B beats E, D beats C.
    # Points: A 1.5, B 1.5, C 0, D 1.5, E 1.5 (1 of them the bye).
    games = [two(1, A, C, 1), two(1, B, D, 0.5), two(2, A, E, 0.5), two(2, B, E, 1)]
    games += [two(2, D, C, 1)]
    byes = [Bye(1, E)]
    histories = build_histories(dict.fromkeys((A, B, C, D, E), 0.0), games, byes)
    assert [histories[p].points for p in (A, B, C, D, E)] == [1.5, 1.5, 0.0, 1.5, 1.5]
    # E met A and B (1.5 each), the bye no one: Buchholz 3.
    assert buchholz(E, histories) == 3.0
    # A: C (0) + E (1.5) = 1.5; B: D (1.5) + E (1.5) = 3; D: B (1.5) + C (0) = 1.5.
    assert [buchholz(p, histories) for p in (A, B, D)] == [1.5, 3.0, 1.5]
    # B and E level on Buchholz: B drew D (0.75) and beat E (1.5): 2.25; E drew A: 0.75.
    assert sonneborn_berger(B, histories) == 2.25
    assert sonneborn_berger(E, histories) == 0.75
    # A and D level on Buchholz too: A beat C (0), drew E (0.75); D drew B (0.75), beat C
    # (0): 0.75 each, level on everything, so they share third place.
    table = swiss_standings(histories)
    assert [(s.player, s.rank) for s in table] == [(B, 1), (E, 2), (A, 3), (D, 3), (C, 5)]


def test_round_robin_sonneborn_berger_breaks_a_drawn_head_to_head():
    # A draws B, A beats C, D beats A, B beats D, C beats B, C beats D.
    # A 1.5, B 1.5, C 2, D 1. A and B drew: head-to-head 0.5 each.
    games = [two(1, A, B, 0.5), two(1, C, D, 1), two(2, A, C, 1), two(2, B, D, 1)]
    games += [two(3, D, A, 1), two(3, C, B, 1)]
    histories = build_histories(dict.fromkeys((A, B, C, D), 0.0), games)
    assert head_to_head(A, {A, B}, histories) == head_to_head(B, {A, B}, histories) == 0.5
    # A: drew B (0.75) + beat C (2) = 2.75; B: drew A (0.75) + beat D (1) = 1.75.
    assert sonneborn_berger(A, histories) == 2.75
    assert sonneborn_berger(B, histories) == 1.75
    assert [s.player for s in round_robin_standings(histories)] == [C, A, B, D]


def test_round_robin_head_to_head_comes_before_sonneborn_berger():
    # Five players. B beats A and E; E beats A; so among A, B, E (2 points each) head-to-head
    # gives B 2, E 1, A 0, although A's Sonneborn-Berger (C 3 + D 1 = 4) is not the lowest.
    games = [two(1, B, A, 1), two(1, A, C, 1), two(1, A, D, 1), two(1, E, A, 1)]
    games += [two(2, C, B, 1), two(2, D, B, 1), two(2, B, E, 1)]
    games += [two(3, C, D, 1), two(3, C, E, 1), two(3, E, D, 1)]
    histories = build_histories(dict.fromkeys((A, B, C, D, E), 0.0), games)
    assert [histories[p].points for p in (A, B, C, D, E)] == [2, 2, 3, 1, 2]
    assert [sonneborn_berger(p, histories) for p in (A, B, E)] == [4, 4, 3]
    table = round_robin_standings(histories)
    assert [s.player for s in table] == [C, B, E, A, D]
    assert [s.tiebreaks[0] for s in table[1:4]] == [2, 1, 0]


def test_multiplayer_ties_go_to_the_sum_of_places_then_head_to_head():
    # Tables of three, 2 / 1 / 0 points by place:
    # (A, B, C) finish 1, 2, 3; (B, D, E) finish 1, 2, 3; (A, F, E) finish 2, 1, 3.
    games = [Game(1, (A, B, C), (1, 2, 3)), Game(1, (B, D, E), (1, 2, 3))]
    games += [Game(2, (A, F, E), (2, 1, 3))]
    histories = build_histories(dict.fromkeys((A, B, C, D, E, F), 0.0), games)
    # A 2 + 1 = 3, B 1 + 2 = 3, F 2, D 1, C 0, E 0.
    assert [histories[p].points for p in (A, B, C, D, E, F)] == [3, 3, 0, 1, 0, 2]
    table = multiplayer_standings(histories)
    # A and B: places 1 + 2 and 2 + 1 alike; A finished ahead of B at their one table.
    # C and E: no points; C's places add up to 3, E's to 3 + 3.
    assert [s.player for s in table] == [A, B, F, D, C, E]
    assert table[0].tiebreaks == (3, 1) and table[1].tiebreaks == (3, 0)
    assert table[4].tiebreaks[0] == 3 and table[5].tiebreaks[0] == 6


def test_a_forfeit_or_timeout_is_a_loss():
    games = [Game.forfeited(1, (A, B), losers=[A]), Game.forfeited(1, (C, D, E), losers=[D, E])]
    histories = build_histories(dict.fromkeys((A, B, C, D, E), 0.0), games)
    assert histories[B].points == 1 and histories[A].points == 0
    assert (histories[C].points, histories[D].points) == (2, 0.5)
