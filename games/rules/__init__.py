"""Pure rules of every game, behind one registry (filled by games/catalog.py): ``get_rules``."""

from games.rules.base import Action, IllegalAction, Outcome, Rules, State
from games.rules.registry import all_rules, get_rules

__all__ = ["Action", "IllegalAction", "Outcome", "Rules", "State", "all_rules", "get_rules"]
