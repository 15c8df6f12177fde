"""The games the site offers: registered rules that also have their board templates.

A game becomes playable on the site by existing in the registry AND having
``templates/games/<slug>/board.html``; the platform never names a game.
"""

from __future__ import annotations

from functools import cache

from django.template import TemplateDoesNotExist
from django.template.loader import get_template

from games.rules import Rules, all_rules


def board_template(slug: str) -> str:
    return f"games/{slug}/board.html"


@cache
def playable_games() -> tuple[Rules, ...]:
    games = []
    for rules in all_rules():
        try:
            get_template(board_template(rules.slug))
        except TemplateDoesNotExist:
            continue
        games.append(rules)
    return tuple(games)


def playable_rules(slug: str) -> Rules | None:
    return next((rules for rules in playable_games() if rules.slug == slug), None)
