"""How a solo game (one seat) ended: won or lost against the game, at which level.

The rules say it in ``Outcome.details["solo"]`` (``games/rules/base.py``) and rank a lost
solo game 1, behind the game; the profile, the replay and the table's result read it here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _

from games.models import Table
from games.rules import Rules, get_rules


@dataclass(frozen=True)
class SoloResult:
    won: bool
    level: Any
    # The rules' names, translated into the request's language.
    level_name: str
    opponent: str
    opponent_score: float | None


def solo_level_name(rules: Rules, level: Any) -> str:
    """A solo level's name in the request's language, or the level itself if unnamed."""
    name = rules.solo_level_name(level)
    if name:
        return _(name)
    return "" if level is None else str(level)


def solo_opponent(rules: Rules) -> str:
    """The name the rules give the game's own side, in the request's language."""
    return _(rules.solo_opponent) if rules.solo_opponent else ""


def solo_result(table: Table) -> SoloResult | None:
    """How a finished one-seat table ended; None for a table of several seats or unfinished.

    A record stored before ``details["solo"]`` existed counts as its stored place says.
    """
    outcome = table.outcome
    if table.num_seats != 1 or not outcome:
        return None
    rules = get_rules(table.game)
    solo = outcome.get("details", {}).get("solo", {})
    level = solo.get("level")
    return SoloResult(
        won=bool(solo.get("won", outcome["ranks"][0] == 0)),
        level=level,
        level_name=solo_level_name(rules, level),
        opponent=solo_opponent(rules),
        opponent_score=solo.get("opponent_score"),
    )
