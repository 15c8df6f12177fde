"""The games the site offers: registered rules that also have their board templates.

A game becomes playable on the site by existing in the registry AND having its two board
templates: ``templates/games/<slug>/public.html`` (what a spectator sees, rendered once per
version and language) and ``private.html`` (a seat's own cards and moves, inside the move
form). The platform never names a game.
"""

from __future__ import annotations

from functools import cache

from django.contrib.staticfiles import finders
from django.template import TemplateDoesNotExist
from django.template.loader import get_template

from games.rules import Rules, all_rules


def public_template(slug: str) -> str:
    return f"games/{slug}/public.html"


def private_template(slug: str) -> str:
    return f"games/{slug}/private.html"


@cache
def game_script(slug: str) -> str | None:
    """The game's own script for its table page (``static/js/games/<slug>.js``), if it has one.

    Boards arrive by HTMX and websocket swaps: a game's script listens on the document, and
    no board carries an inline script.
    """
    path = f"js/games/{slug}.js"
    return path if finders.find(path) else None


def playable_games() -> tuple[Rules, ...]:
    """The registered games whose board templates exist, in the registry's order."""
    return _playable(tuple(all_rules()))


@cache
def _playable(registered: tuple[Rules, ...]) -> tuple[Rules, ...]:
    """Kept per set of registered games: a game registered later is seen at once."""
    games = []
    for rules in registered:
        try:
            get_template(public_template(rules.slug))
            get_template(private_template(rules.slug))
        except TemplateDoesNotExist:
            continue
        games.append(rules)
    return tuple(games)


def playable_rules(slug: str) -> Rules | None:
    return next((rules for rules in playable_games() if rules.slug == slug), None)
