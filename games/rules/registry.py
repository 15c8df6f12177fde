"""The registry of games. Adding a game is one line in ``_GAMES``."""

from __future__ import annotations

from games.rules.base import Rules
from games.rules.district_noir.game import DistrictNoir
from games.rules.gnav.game import Gnav
from games.rules.point_city.game import PointCity
from games.rules.slide.game import Slide

_GAMES: list[Rules] = [
    DistrictNoir(),
    Slide(),
    Gnav(),
    PointCity(),
]

_BY_SLUG: dict[str, Rules] = {rules.slug: rules for rules in _GAMES}


def get_rules(slug: str) -> Rules:
    """The rules of the game ``slug``; ``KeyError`` if there is no such game."""
    return _BY_SLUG[slug]


def all_rules() -> list[Rules]:
    """Every registered game, in the order the site lists them."""
    return list(_GAMES)
