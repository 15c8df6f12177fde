"""Replays of finished games, step by step, as a spectator saw them.

Step ``n`` is the state after the first ``n`` moves of the log, rebuilt from the
revealed seed (``games.rules.replay``). Every step shows only the spectator's
view. The last one shows the board once, then the game's result, then what each seat
still held hidden from spectators (its own view of the final state), once per seat.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from games.catalog import get_game
from games.models import Move, RatingChange, Seat, Table
from games.rules import View, get_rules
from games.rules.replay import final, replay
from games.selectors.fairness import seed_commitment
from games.selectors.solo import SoloResult, solo_result

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise

# What a seat's view holds beyond a spectator's that is no card: whose view it is, what it may do,
# its log (told from its side).
NOT_HIDDEN_CARDS = frozenset({"seat", "legal_actions", "log"})


def hides_something(seat_view: View, spectator_view: View) -> bool:
    """Whether a seat's view shows anything a spectator's does not (an empty hand is nothing)."""
    for key in (seat_view.keys() | spectator_view.keys()) - NOT_HIDDEN_CARDS:
        mine, public = seat_view.get(key), spectator_view.get(key)
        if mine != public and (mine or public):
            return True
    return False


@dataclass(frozen=True)
class ResultRow:
    """One place at the end of a game: a seat's, or in a solo game the game's own side's."""

    # None for the game's own side in a solo game, which has only a ``name``.
    seat: Seat | None
    rank: int
    score: float | None
    change: RatingChange | None = None  # only in ``table_results``
    name: str = ""

    @property
    def player_name(self) -> str:
        """Who took this place: the seat's player, or the game's own side."""
        return str(self.seat.player_name) if self.seat else self.name

    @property
    def place(self) -> tuple[int, int]:
        """Best first, then by position; the game's own side before a seat it tied with."""
        return (self.rank, self.seat.position if self.seat else -1)


@dataclass
class Replay:
    table: Table
    seats: list[Seat]
    step: int
    total: int
    view: View
    # Who made the move that led to this step: (position, by), None at the start.
    last_move: tuple[int, str] | None
    # Each seat's view of the final state, on the last step only.
    reveal: list[View] = field(default_factory=list)
    # The seats whose final view shows anything the spectator's does not, on the last step.
    hidden_seats: list[int] = field(default_factory=list)

    @property
    def at_start(self) -> bool:
        return self.step == 0

    @property
    def at_end(self) -> bool:
        return self.step == self.total

    @property
    def previous(self) -> int:
        return max(self.step - 1, 0)

    @property
    def next(self) -> int:
        return min(self.step + 1, self.total)

    @property
    def seed_sha256(self) -> str:
        assert self.table.seed is not None  # a replayed game is finished: its seed is set
        return seed_commitment(self.table.seed)

    @property
    def solo(self) -> SoloResult | None:
        """How a solo game ended against the game; None for a game of several seats."""
        return solo_result(self.table)

    @property
    def reveal_template(self) -> str | None:
        """The game's own partial for the revealed hands, if it has one; else each seat that
        held anything hidden is shown its whole board."""
        return get_game(self.table.game).reveal_template

    @property
    def last_move_by(self) -> StrOrPromise:
        """Who made the last move: the player, a bot, or the clock (a timeout)."""
        return Move.By(self.last_move[1]).label if self.last_move else ""

    @property
    def last_mover(self) -> Seat | None:
        if self.last_move is None:
            return None
        return next((s for s in self.seats if s.position == self.last_move[0]), None)


def replay_at(table: Table, step: int) -> Replay:
    """A finished table at ``step`` (clamped to the game): 2 queries, seats and moves."""
    if not table.is_finished or table.seed is None:
        raise ValueError("Only a finished game can be replayed.")
    rules = get_rules(table.game)
    seats = list(table.seats.select_related("user"))
    moves = list(table.moves.order_by("seq").values_list("position", "action", "by"))
    step = min(max(step, 0), len(moves))
    played = [(position, action) for position, action, _by in moves[:step]]
    state = final(replay(rules, table.num_seats, table.seed, table.options, played))
    at_step = Replay(
        table=table,
        seats=seats,
        step=step,
        total=len(moves),
        view=rules.view(state, None),
        last_move=(moves[step - 1][0], moves[step - 1][2]) if step else None,
    )
    if at_step.at_end:
        at_step.reveal = [rules.view(state, seat) for seat in range(table.num_seats)]
        at_step.hidden_seats = [
            seat
            for seat, seat_view in enumerate(at_step.reveal)
            if hides_something(seat_view, at_step.view)
        ]
    return at_step


def state_replay(table: Table) -> Any:
    """The state rebuilt from the seed and the move log (for checks and replays), a running
    table's too: the whole state, hidden cards included, so it is never shown as it is."""
    assert table.seed is not None  # drawn when the table starts
    moves = table.moves.order_by("seq").values_list("position", "action")
    return final(replay(get_rules(table.game), table.num_seats, table.seed, table.options, moves))


def table_ranking(table: Table, seats: list[Seat]) -> list[ResultRow]:
    """Each seat's final place and score, best first: the stored outcome's, forfeits included
    (``services.moves``); none while the game runs. No query: ``seats`` are the table's."""
    outcome = table.outcome
    if not outcome:
        return []
    ranks, scores = outcome.get("ranks", []), outcome.get("scores", [])
    rows = [
        ResultRow(
            seat=seat,
            rank=ranks[seat.position] if seat.position < len(ranks) else 0,
            score=scores[seat.position] if seat.position < len(scores) else None,
        )
        for seat in seats
    ]
    return sorted(rows, key=lambda row: row.place)


def table_results(table: Table, seats: list[Seat]) -> list[ResultRow]:
    """The ``table_ranking`` with each player's rating change: 1 query.

    A solo game lists the game's own side too, with its score: first if the player lost
    (the player's stored place is then 1), second if the player won.
    """
    changes = {c.user_id: c for c in RatingChange.objects.filter(table=table)}
    rows = [
        replace(row, change=changes.get(row.seat.user_id)) if row.seat and row.seat.user_id else row
        for row in table_ranking(table, seats)
    ]
    solo = solo_result(table)
    if solo is not None:
        rows.append(ResultRow(None, 1 if solo.won else 0, solo.opponent_score, name=solo.opponent))
    return sorted(rows, key=lambda row: row.place)
