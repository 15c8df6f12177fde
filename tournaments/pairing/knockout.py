"""Single elimination for two players, each match the best of 1, 3 or 5 games.

The bracket has a power of two's places; seed 1 meets the last seed, and when the players
do not fill it the top seeds get the byes (a match with no opponent). Seeds are placed so
that, when the better seed always wins, round r's matches are seed s against seed
(places / 2**(r-1) + 1 - s): 1 and 2 meet only in the final.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tournaments.pairing.history import Game, PlayerId
from tournaments.pairing.rounds import Table

#: The lengths a match may have.
BEST_OF = (1, 3, 5)


@dataclass(frozen=True, slots=True)
class Match:
    """One match of the bracket: ``top`` is the better seed; no ``bottom`` is a bye."""

    top: PlayerId
    bottom: PlayerId | None = None


def bracket_order(places: int) -> list[int]:
    """The seeds (1-based) in bracket order for a bracket of ``places`` (a power of two):
    1, 8, 4, 5, 2, 7, 3, 6 for eight; neighbours meet in the first round."""
    if places < 1 or places & (places - 1):
        raise ValueError("a bracket has a power of two's places")
    order = [1]
    while len(order) < places:
        size = 2 * len(order)
        order = [seed for s in order for seed in (s, size + 1 - s)]
    return order


def first_round(seeds: Sequence[PlayerId]) -> tuple[Match, ...]:
    """The first round in bracket order, ``seeds`` best first (by rating, say)."""
    if len(set(seeds)) != len(seeds) or len(seeds) < 2:
        raise ValueError("a bracket needs two different players or more")
    places = 1 << (len(seeds) - 1).bit_length()
    order = bracket_order(places)
    matches = []
    for k in range(0, places, 2):
        top, bottom = sorted(order[k : k + 2])
        matches.append(Match(seeds[top - 1], seeds[bottom - 1] if bottom <= len(seeds) else None))
    return tuple(matches)


def next_round(matches: Sequence[Match], winners: Sequence[PlayerId]) -> tuple[Match, ...]:
    """The next round: the winners of matches 1 and 2 meet, then of 3 and 4, and so on;
    ``winners`` in the order of ``matches``. An empty tuple once the final is played."""
    if len(winners) != len(matches):
        raise ValueError("one winner a match")
    for match, winner in zip(matches, winners, strict=True):
        if winner not in (match.top, match.bottom):
            raise ValueError(f"{winner} did not play {match}")
    if len(matches) == 1:
        return ()
    if len(matches) % 2:
        raise ValueError("a round of a bracket has an even number of matches")
    return tuple(Match(winners[k], winners[k + 1]) for k in range(0, len(matches), 2))


def game_seats(match: Match, game_number: int) -> Table:
    """Who plays first in game ``game_number`` (0, 1, ...): the better seed in the first
    game, then each in turn."""
    if match.bottom is None:
        raise ValueError("a bye plays no game")
    pair = (match.top, match.bottom)
    return Table(seats=pair if game_number % 2 == 0 else pair[::-1])


def match_winner(match: Match, games: Sequence[Game], best_of: int) -> PlayerId | None:
    """Who won the match, or None while it goes on.

    Each game scores 1, 0.5 (a draw) or 0 (also a timeout or forfeit: ``Game.forfeited``).
    The first to more than ``best_of`` / 2 points wins; when draws leave the two level
    after ``best_of`` games, the games go on one at a time until one of them leads.
    """
    if best_of not in BEST_OF:
        raise ValueError(f"a match is the best of {BEST_OF}")
    if match.bottom is None:
        return match.top
    points = {match.top: 0.0, match.bottom: 0.0}
    for played, game in enumerate(games, start=1):
        if set(game.seats) != set(points):
            raise ValueError("a game of another match")
        first, second = game.seats
        a, b = game.places
        points[first] += 1.0 if a < b else 0.5 if a == b else 0.0
        points[second] += 1.0 if b < a else 0.5 if a == b else 0.0
        leader = max(points, key=lambda p: points[p])
        # Within best_of games, more than half the points is always a lead.
        ahead = points[leader] > min(points.values())
        if ahead and (points[leader] > best_of / 2 or played >= best_of):
            return leader
    return None
