"""A player's history in a tournament, built from the finished games.

The caller passes every game of the tournament so far as a ``Game`` (seats in seat order,
the place each seat took) and every bye as a ``Bye``. Timeouts, forfeits and withdrawals
count as losses: the player concerned takes the last place at that table (shared when
several do), which ``Game.forfeited`` builds. A player who withdraws is still passed to
``build_histories`` (their games count for their opponents' tie-breaks) but no longer to
the pairing functions; their games not played in a round robin are passed as forfeited.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

#: A player's id as the site stores it (the account's primary key).
PlayerId = int


@dataclass(frozen=True, slots=True)
class Game:
    """One finished game: ``seats[0]`` played first; ``places[i]`` is where ``seats[i]``
    finished (1 is the best; equal places are a tie; only their order matters)."""

    round: int
    seats: tuple[PlayerId, ...]
    places: tuple[int, ...]

    def __post_init__(self) -> None:
        if len(self.seats) < 2 or len(self.seats) != len(self.places):
            raise ValueError("a game needs two seats or more, each with a place")
        if len(set(self.seats)) != len(self.seats):
            raise ValueError("a player sits once at a table")

    @classmethod
    def two_player(cls, round: int, first: PlayerId, second: PlayerId, first_score: float) -> Game:
        """A two-player game from the first seat's score: 1 a win, 0.5 a draw, 0 a loss."""
        if first_score not in (0, 0.5, 1):
            raise ValueError("a two-player game scores 1, 0.5 or 0")
        places = {1: (1, 2), 0.5: (1, 1), 0: (2, 1)}[first_score]
        return cls(round, (first, second), places)

    @classmethod
    def forfeited(cls, round: int, seats: tuple[PlayerId, ...], losers: Iterable[PlayerId]) -> Game:
        """A game lost by timeout, forfeit or withdrawal: the losers share the last place,
        everyone else the first."""
        lost = set(losers)
        return cls(round, seats, tuple(2 if seat in lost else 1 for seat in seats))


@dataclass(frozen=True, slots=True)
class Bye:
    """A round that a player sat out (their points for it: ``build_histories``' bye_points)."""

    round: int
    player: PlayerId


@dataclass(frozen=True, slots=True)
class PlayedGame:
    """One game as one player saw it (their results for the tie-breaks)."""

    round: int
    seat: int
    #: 1 + the number of players who finished strictly ahead (a tie shares the place).
    place: int
    points: float
    #: Against each opponent at the table: 1 finished ahead, 0.5 level, 0 behind.
    versus: tuple[tuple[PlayerId, float], ...]


@dataclass(frozen=True, slots=True)
class PlayerHistory:
    """Everything the pairings and standings need to know of one player."""

    id: PlayerId
    #: The rating at sign-up: it seeds the first round and breaks ties between equals.
    rating: float = 0.0
    points: float = 0.0
    #: (opponent, games played against them), by opponent.
    met: tuple[tuple[PlayerId, int], ...] = ()
    firsts: int = 0
    byes: int = 0
    games: tuple[PlayedGame, ...] = ()

    def times_met(self, other: PlayerId) -> int:
        return dict(self.met).get(other, 0)

    @property
    def seat_balance(self) -> int:
        """Games played first less games played in another seat."""
        return 2 * self.firsts - len(self.games)

    @property
    def last_first(self) -> bool:
        """Whether the latest game was played in the first seat."""
        return bool(self.games) and max(self.games, key=lambda g: g.round).seat == 0


def points_by_place(
    places: Sequence[int], scale: Sequence[float] | None = None
) -> tuple[float, ...]:
    """The points each seat of a table earns from its place (``Game.places``).

    ``scale[k]`` is the points of the (k+1)-th place; by default a table of n gives n-1,
    n-2, ..., 0 (two players: a win 1, a loss 0). Tied players share the points of the
    places they cover equally (a two-player draw: 0.5 each).
    """
    count = len(places)
    table = list(scale) if scale is not None else [float(count - 1 - k) for k in range(count)]
    if len(table) < count:
        raise ValueError("the scale needs a value for every place")
    order = sorted(range(count), key=lambda seat: places[seat])
    points = [0.0] * count
    start = 0
    while start < count:
        end = start
        while end < count and places[order[end]] == places[order[start]]:
            end += 1
        share = sum(table[start:end]) / (end - start)
        for position in range(start, end):
            points[order[position]] = share
        start = end
    return tuple(points)


def competition_places(places: Sequence[int]) -> tuple[int, ...]:
    """Each seat's place as 1 + the number of seats strictly ahead (1, 1, 3 for a tie)."""
    return tuple(1 + sum(other < mine for other in places) for mine in places)


def build_histories(
    ratings: Mapping[PlayerId, float],
    games: Iterable[Game],
    byes: Iterable[Bye] = (),
    *,
    bye_points: float = 1.0,
    scale: Sequence[float] | None = None,
) -> dict[PlayerId, PlayerHistory]:
    """Every player's history, by id. ``ratings`` names every player of the tournament,
    withdrawn ones included; ``scale`` is ``points_by_place``'s (None: its default)."""
    played: dict[PlayerId, list[PlayedGame]] = defaultdict(list)
    met: dict[PlayerId, Counter[PlayerId]] = defaultdict(Counter)
    bye_count: Counter[PlayerId] = Counter()
    for game in games:
        unknown = set(game.seats) - set(ratings)
        if unknown:
            raise ValueError(f"players not in the tournament: {sorted(unknown)}")
        points = points_by_place(game.places, scale)
        places = competition_places(game.places)
        for seat, player in enumerate(game.seats):
            versus = tuple(
                (other, _versus(game.places[seat], game.places[k]))
                for k, other in enumerate(game.seats)
                if k != seat
            )
            played[player].append(PlayedGame(game.round, seat, places[seat], points[seat], versus))
            met[player].update(other for other, _ in versus)
    for bye in byes:
        if bye.player not in ratings:
            raise ValueError(f"player not in the tournament: {bye.player}")
        bye_count[bye.player] += 1
    return {
        player: PlayerHistory(
            id=player,
            rating=rating,
            points=sum(g.points for g in played[player]) + bye_points * bye_count[player],
            met=tuple(sorted(met[player].items())),
            firsts=sum(g.seat == 0 for g in played[player]),
            byes=bye_count[player],
            games=tuple(sorted(played[player], key=lambda g: g.round)),
        )
        for player, rating in ratings.items()
    }


def by_standing(players: Iterable[PlayerHistory]) -> list[PlayerHistory]:
    """Best first: more points, then the higher rating, then the lower id (deterministic)."""
    return sorted(players, key=lambda p: (-p.points, -p.rating, p.id))


def _versus(mine: int, theirs: int) -> float:
    return 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0
