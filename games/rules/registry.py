"""The rules of the registered games, by slug: what rules-level code looks a game up in.

The games are registered by the catalog (games/catalog.py), one line per game with its
templates and bots, when it is imported: Django imports it at start-up
(``GamesConfig.ready``); a script without Django imports ``games.catalog`` before it asks.
This module names no game, so no rules package depends on another through it.
"""

from __future__ import annotations

from games.rules.base import AnyRules

_BY_SLUG: dict[str, AnyRules] = {}


def register(rules: AnyRules) -> None:
    """``rules`` is a registered game, listed last. A slug already taken is refused: a game
    never hides another."""
    if rules.slug in _BY_SLUG:
        raise ValueError(f"A game {rules.slug!r} is registered already.")
    _BY_SLUG[rules.slug] = rules


def unregister(rules: AnyRules) -> None:
    """The game ``rules`` is registered no more (the catalog's ``registered`` block ends)."""
    if _BY_SLUG.get(rules.slug) is rules:
        del _BY_SLUG[rules.slug]


def get_rules(slug: str) -> AnyRules:
    """The rules of the game ``slug``; ``KeyError`` if there is no such game."""
    return _BY_SLUG[slug]


def all_rules() -> list[AnyRules]:
    """Every registered game, in the order the site lists them."""
    return list(_BY_SLUG.values())
