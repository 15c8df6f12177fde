"""Pure rules of every game, behind one registry (filled by games/catalog.py): ``get_rules``."""

from games.rules.base import Action, AnyRules, IllegalAction, Outcome, Rules, State, View
from games.rules.registry import all_rules, get_rules

__all__ = [
    "Action",
    "AnyRules",
    "IllegalAction",
    "Outcome",
    "Rules",
    "State",
    "View",
    "all_rules",
    "get_rules",
]
