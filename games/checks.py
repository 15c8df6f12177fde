"""What a registered game lacks, named when Django starts (``manage.py check``, ``runserver``,
``migrate``): Django's system checks, tagged ``games``.

At every start, for each game of the catalog (games/catalog.py): each of its templates
exists and compiles (``reveal.html`` too, if it has one), its stylesheet exists (under the
manifest storage of production a missing one is an error at run time), and it has bots
that build at every level. With ``check --deploy`` (CI and every deploy run it), each level's
bot also chooses a legal move of a new game: Gnav's hard bot alone takes half a second.

Translations are not checked here: a sentence just written and not yet translated would stop
``runserver``, and the deploy check runs before ``compilemessages`` (the compiled catalogues
are not in git). tests/games/catalog/test_game_contract.py checks them for every game.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

from django.contrib.staticfiles import finders
from django.core.checks import CheckMessage, Error, register
from django.template import TemplateDoesNotExist, TemplateSyntaxError
from django.template.loader import get_template

from games.bots.base import BOT_LEVELS
from games.catalog import Game, all_games

RECORD = "games/catalog.py"


def _error(game: Game, number: int, message: str, hint: str) -> Error:
    return Error(message, hint=hint, obj=game.slug, id=f"games.E{number:03}")


def _template_errors(game: Game) -> list[Error]:
    names = game.templates.required()
    reveal = game.reveal_template
    errors = []
    for part, name in [*names.items(), *([("reveal", reveal)] if reveal else [])]:
        try:
            get_template(name)
        except TemplateDoesNotExist:
            hint = f"its {part} part, in templates/{game.templates.folder}/"
            if part in ("public", "private"):
                hint += ": without its board the game is not listed"
            errors.append(_error(game, 1, f"template {name} is missing", hint))
        except TemplateSyntaxError as exc:
            errors.append(_error(game, 2, f"template {name} does not compile: {exc}", ""))
    return errors


def _stylesheet_errors(game: Game) -> list[Error]:
    if finders.find(game.stylesheet) is not None:
        return []
    hint = "the table, game, log and replay pages link it"
    return [_error(game, 3, f"stylesheet static/{game.stylesheet} is missing", hint)]


def _bot_errors(game: Game, *, play: bool) -> list[Error]:
    if game.bots is None:
        hint = f"give its record in {RECORD} the game's GameBots (games/bots/games.py)"
        return [_error(game, 4, "no bots: every level would play at random", hint)]
    rules = game.rules
    state = rules.setup(rules.min_players, seed=1)
    view = rules.view(state, rules.active_seats(state)[0])
    legal = list(view["legal_actions"])
    errors = []
    for level in BOT_LEVELS:
        try:
            # The hard bot searches two playouts here: its code is checked, not its budget.
            bot = game.bots.hard(rules, 2, None) if level == "hard" else game.bot(level)
            if not play:
                continue
            action = bot.choose(view, legal, random.Random(1))
        except Exception as exc:  # the check names the failure, whatever it is
            errors.append(_error(game, 5, f"bot {level} fails ({exc!r})", ""))
            continue
        if action not in legal:
            message = f"bot {level} chose {action!r}, not a legal move of a new game"
            errors.append(_error(game, 6, message, ""))
    return errors


def missing_parts(game: Game) -> list[Error]:
    """Everything the platform needs of ``game`` at start-up that it lacks."""
    return [*_template_errors(game), *_stylesheet_errors(game), *_bot_errors(game, play=False)]


@register("games")
def games_are_complete(
    app_configs: Iterable[Any] | None = None, **kwargs: Any
) -> list[CheckMessage]:
    return [error for game in all_games() for error in missing_parts(game)]


@register("games", deploy=True)
def games_bots_play(app_configs: Iterable[Any] | None = None, **kwargs: Any) -> list[CheckMessage]:
    """Each level's bot of each game chooses a legal first move (``check --deploy`` only)."""
    return [
        error
        for game in all_games()
        if game.bots is not None
        for error in _bot_errors(game, play=True)
    ]
