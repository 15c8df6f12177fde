"""The rules protocol: the one contract every game module fulfils.

A rules module is plain Python: no Django, no I/O, no global state. The platform,
the bots and the tests only ever talk to a game through a ``Rules`` object.

States are opaque to everybody but their own module. They are never mutated:
``apply`` returns a new state. ``to_json``/``from_json`` round-trip exactly and
are what the database stores.

``Rules`` is generic over the game's state and view: each game names its own state class
and a ``TypedDict`` for its view, which extends ``View``, the keys every view has and all
that the platform reads of one. The platform, which handles any game, holds a game as
``AnyRules`` (``Rules[Any, View]``).
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, NotRequired, TypeAlias, TypedDict, TypeVar

Action = dict[str, Any]
"""A small JSON-serialisable dict, e.g. ``{"type": "play", "card": 17}``."""

State = Any
"""A game's full state as the platform holds it; its shape belongs to its rules module alone."""


class View(TypedDict):
    """What every view holds (docs/rules-conventions.md), and all the platform reads of one;
    ``tests/rules/test_conformance.py`` checks it for every game."""

    seat: int | None  # whose view it is; None: a spectator's
    num_players: int
    active_seats: list[int]  # ``active_seats(state)``
    legal_actions: list[Action]  # ``legal_actions(state, seat)``; empty for a spectator
    log: list[dict[str, Any]]  # events, oldest first, each ``{"type": ..., ...}``
    over: bool  # ``outcome(state) is not None``
    outcome: NotRequired[dict[str, Any]]  # ``outcome(state).to_json()``, once over only


StateT = TypeVar("StateT")
# Covariant, so that every game is an ``AnyRules``: its view is a ``View`` with more keys.
ViewT_co = TypeVar("ViewT_co", bound=View, covariant=True)
# The view ``sample_state`` takes back: one of this game's own (bound through ``self``).
SampledView = TypeVar("SampledView", bound=View)


def gettext_noop(message: str) -> str:
    """Marks a player-facing string for translation without importing Django.

    The platform translates it when it shows it (``gettext(exc.message)``), so
    messages are constant sentences, never formatted.
    """
    return message


GAME_OVER = gettext_noop("The game is over.")
NOT_YOUR_TURN = gettext_noop("It is not your turn.")
NOT_ALLOWED = gettext_noop("That move is not allowed now.")
"""The refusals every game shares, written once: games import them rather than restate them."""


class IllegalAction(Exception):
    """Raised by ``apply`` for anything not legal, with a sentence a player can read."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class Outcome:
    """How a finished game ended.

    ``ranks[i]`` is seat i's place (0 = first; ties share a place), ``scores[i]``
    its score, ``reason`` a short machine-readable code (e.g. ``"score"``,
    ``"city"``), and ``details`` a per-game JSON dict for the score breakdown;
    ``details["scored"] = False`` says the scores are no points to show (an instant win).

    A one-seat game (solo) is won or lost against the game itself, the opponent its rules
    name in ``Rules.solo_opponent``. Its outcome says so in ``details["solo"]``::

        {"won": bool, "level": <the difficulty, a value of the option
         Rules.solo_level_option>, "opponent_score": <the opponent's score, or None>}

    and ranks the seat as if that opponent were a second seat: ``ranks == [0]`` for a win,
    ``[1]`` for a loss (the opponent took the first place). A tie is whatever the game's
    rules say it is: won or lost, never shared. So ``Seat.rank`` (stored from ``ranks``) is 0
    exactly when a solo game was won, and whatever counts first places is right for solo
    games too; the pages that count wins against people leave one-seat tables out.
    """

    ranks: list[int]
    scores: list[float]
    reason: str
    details: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "ranks": list(self.ranks),
            "scores": list(self.scores),
            "reason": self.reason,
            "details": self.details,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Outcome:
        return cls(
            ranks=list(data["ranks"]),
            scores=list(data["scores"]),
            reason=data["reason"],
            details=data.get("details", {}),
        )


def solo_outcome(
    *,
    score: float,
    won: bool,
    level: Any,
    opponent_score: float | None,
    reason: str = "solo",
    details: dict[str, Any] | None = None,
) -> Outcome:
    """A one-seat game's outcome as ``Outcome`` describes it: ranked 0 if won, 1 if lost."""
    solo = {"won": won, "level": level, "opponent_score": opponent_score}
    return Outcome(
        ranks=[0 if won else 1],
        scores=[score],
        reason=reason,
        details={**(details or {}), "solo": solo},
    )


def ranks_from_scores(keys: list[tuple[Any, ...]]) -> list[int]:
    """Places from comparable keys, higher is better; equal keys share a place.

    ``ranks_from_scores([(10,), (12,), (10,)]) == [1, 0, 1]``.
    """
    return [sum(1 for other in keys if other > key) for key in keys]


class Rules(ABC, Generic[StateT, ViewT_co]):
    """One game. Subclasses name their state and view types (``Rules[MyState, MyView]``), set
    the identity attributes and implement the methods."""

    slug: str
    name: str
    min_players: int
    max_players: int
    #: Option names this game accepts at ``setup`` with their defaults.
    default_options: ClassVar[dict[str, Any]] = {}
    #: A label (``gettext_noop``) for each option, for the table-creation form.
    option_labels: ClassVar[dict[str, str]] = {}
    #: For an option that is not a yes/no choice: its values with their labels.
    option_choices: ClassVar[dict[str, list[tuple[Any, str]]]] = {}
    #: The usual length of one game played live, in minutes: (shortest, longest).
    duration_minutes: tuple[int, int] = (0, 0)
    #: How hard the game is to learn and play well, from 1 (simple) to 5 (heavy).
    complexity: int = 0
    #: A game playable alone (``min_players == 1``) is played against the game itself: the
    #: name of that opponent (``gettext_noop``), which the pages show beside the player.
    solo_opponent: str = ""
    #: The option (in ``default_options``) that sets how hard that opponent plays; its
    #: ``option_choices`` name the levels ``Outcome.details["solo"]["level"]`` takes.
    solo_level_option: str = ""

    @abstractmethod
    def setup(self, num_players: int, seed: int, options: dict[str, Any] | None = None) -> StateT:
        """A new game. All randomness comes from ``seed``, so seed + actions replay it."""

    @abstractmethod
    def active_seats(self, state: StateT) -> list[int]:
        """The seats that may act now (several in a simultaneous phase); empty when over."""

    @abstractmethod
    def legal_actions(self, state: StateT, seat: int) -> list[Action]:
        """Every legal action for ``seat`` now, in a stable order; empty if it may not act."""

    @abstractmethod
    def apply(self, state: StateT, seat: int, action: Action) -> StateT:
        """A new state after ``seat`` plays ``action``; never mutates ``state``.

        Raises ``IllegalAction`` for anything not legal, malformed input included.
        Checks run in a fixed order: game over, not your turn, not a legal action.
        """

    @abstractmethod
    def view(self, state: StateT, seat: int | None) -> ViewT_co:
        """All that ``seat`` may know (``None``: a spectator), JSON-serialisable.

        It holds the keys of ``View``: ``legal_actions`` for that seat, ``log`` (the events of
        the game as that seat may know them), ``over`` and ``outcome``; then the game's own.
        This is the only thing that leaves the server.
        """

    @abstractmethod
    def outcome(self, state: StateT) -> Outcome | None:
        """None while the game runs."""

    @abstractmethod
    def to_json(self, state: StateT) -> dict[str, Any]:
        """The state as JSON; ``from_json(to_json(s))`` equals ``s``."""

    @abstractmethod
    def from_json(self, data: dict[str, Any]) -> StateT:
        """The inverse of ``to_json``."""

    @abstractmethod
    def sample_state(
        self: Rules[StateT, SampledView], view: SampledView, seat: int, rng: random.Random
    ) -> StateT:
        """A state consistent with ``view`` (what ``seat`` knows); unknowns drawn by ``rng``."""

    def solo_level_name(self, level: Any) -> str:
        """The name of a solo level (``gettext_noop``), or "" if the game does not name it."""
        choices = self.option_choices.get(self.solo_level_option, [])
        return next((name for value, name in choices if value == level), "")

    def waiting_seats(self, state: StateT) -> list[int]:
        """The seats the game is waiting for: their clocks run and they get reminders.

        Usually ``active_seats``; in a simultaneous phase where a seat may change its
        hidden choice until the last one is in, the seats that have not chosen yet.
        """
        return self.active_seats(state)

    def is_over(self, state: StateT) -> bool:
        return self.outcome(state) is not None

    def check_turn(self, state: StateT, seat: int) -> None:
        """The first two checks every ``apply`` makes: game over, then not your turn."""
        if self.is_over(state):
            raise IllegalAction(GAME_OVER)
        if seat not in self.active_seats(state):
            raise IllegalAction(NOT_YOUR_TURN)

    def check_offered(self, state: StateT, seat: int, action: Action) -> None:
        """Reject anything that is not exactly one of the legal actions."""
        if not isinstance(action, dict) or action not in self.legal_actions(state, seat):
            raise IllegalAction(NOT_ALLOWED)


AnyRules: TypeAlias = Rules[Any, View]
"""Any game, as the platform and the bots hold it: its state opaque, its view a ``View``."""
