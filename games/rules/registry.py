"""The registry of games. Adding a game is one line in ``_GAMES``.

``registered`` adds a game for a while and takes it away again: a game that lives outside
this tree, such as the one the tests build to prove the platform names no game.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from games.rules.base import AnyRules
from games.rules.district_noir.game import DistrictNoir
from games.rules.gnav.game import Gnav
from games.rules.point_city.game import PointCity
from games.rules.slide.game import Slide

_GAMES: list[AnyRules] = [
    DistrictNoir(),
    Slide(),
    Gnav(),
    PointCity(),
]

_BY_SLUG: dict[str, AnyRules] = {rules.slug: rules for rules in _GAMES}


def get_rules(slug: str) -> AnyRules:
    """The rules of the game ``slug``; ``KeyError`` if there is no such game."""
    return _BY_SLUG[slug]


def all_rules() -> list[AnyRules]:
    """Every registered game, in the order the site lists them."""
    return list(_GAMES)


@contextmanager
def registered(rules: AnyRules) -> Iterator[AnyRules]:
    """``rules`` is a registered game inside the ``with`` block, listed last, and gone after.

    A slug already taken is refused: a game never hides another.
    """
    if rules.slug in _BY_SLUG:
        raise ValueError(f"A game {rules.slug!r} is registered already.")
    _GAMES.append(rules)
    _BY_SLUG[rules.slug] = rules
    try:
        yield rules
    finally:
        _GAMES.remove(rules)
        del _BY_SLUG[rules.slug]
