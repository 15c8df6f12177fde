"""The games the site offers, each described once: its rules, templates, stylesheet, script, bots.

A game is one line below, ``register(Game(its rules, its bots))``. The rest of what the
platform needs of it lies in its folders, whose names are written here and nowhere else:

- ``templates/games/<slug>/``: the board's ``public.html`` (what a spectator sees, rendered
  once per version and language) and ``private.html`` (a seat's own cards and moves, inside
  the move form), ``log_entry.html``, ``result.html``, ``rules.html``, ``about.html``, and
  optionally ``reveal.html`` (see ``Templates``);
- ``static/css/games/<slug>.css``, and optionally ``static/js/games/<slug>.js``.

Boards, views, replays and the bot turns read these names from the game's record, never by
building them; ``games/checks.py`` names whatever a registered game lacks when Django starts.
Registering a game here also registers its rules (``games.rules.get_rules``).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, fields
from functools import cache

from django.contrib.staticfiles import finders
from django.template import TemplateDoesNotExist
from django.template.loader import get_template

from games.bots import district_noir, gnav_exact, point_city, slide
from games.bots.base import Bot, RandomBot
from games.bots.games import GameBots
from games.rules import Rules, registry
from games.rules.district_noir.game import DistrictNoir
from games.rules.gnav.game import Gnav
from games.rules.point_city.game import PointCity
from games.rules.slide.game import Slide


@dataclass(frozen=True)
class Templates:
    """A game's own templates, by the part of a page each one draws."""

    folder: str
    """Where they all are (with the game's smaller partials): ``games/<slug>``."""
    public: str
    """The board as a spectator sees it: the table, the replay, the end of a game."""
    private: str
    """A seat's own cards and moves, inside the move form; a revealed hand at the end."""
    log_entry: str
    """One entry of the log, as a sentence: the board, the log page, the replay."""
    result: str
    """The game's own details of a finished game: the table's result, the replay's end."""
    rules: str
    """How to play: the game page and the table's rules panel."""
    about: str
    """The game in a few lines: the game page."""
    reveal: str
    """Optional: the hands still hidden from spectators, shown at the end (without it, each
    such seat's whole board is): read it through ``Game.reveal_template``."""

    @classmethod
    def in_folder(cls, folder: str) -> Templates:
        names = {part.name: f"{folder}/{part.name}.html" for part in fields(cls)}
        return cls(**{**names, "folder": folder})

    def required(self) -> dict[str, str]:
        """Each template the platform cannot do without, by its part."""
        return {
            part.name: getattr(self, part.name)
            for part in fields(self)
            if part.name not in ("folder", "reveal")
        }


@dataclass(frozen=True, eq=False)
class Game:
    """One game, as the platform knows it."""

    rules: Rules
    bots: GameBots | None = None
    """How its bots play (``games/bots/<game>.py: BOTS``); without, every level plays at random."""
    templates: Templates = field(init=False)
    stylesheet: str = field(init=False)
    """Linked by the table, game, log and replay pages: a static path."""
    _script: str = field(init=False, repr=False)

    def __post_init__(self) -> None:
        slug = self.rules.slug
        object.__setattr__(self, "templates", Templates.in_folder(f"games/{slug}"))
        object.__setattr__(self, "stylesheet", f"css/games/{slug}.css")
        object.__setattr__(self, "_script", f"js/games/{slug}.js")

    @property
    def slug(self) -> str:
        return self.rules.slug

    @property
    def script(self) -> str | None:
        """The game's own script for its table page, if it has one (a static path).

        Boards arrive by HTMX and websocket swaps: a game's script listens on the document,
        and no board carries an inline script.
        """
        return self._script if _static_exists(self._script) else None

    @property
    def reveal_template(self) -> str | None:
        """``templates.reveal`` if the game has it (``views``: each seat's final view, and
        ``hidden``: the seats that held anything hidden); else None."""
        try:
            get_template(self.templates.reveal)
        except TemplateDoesNotExist:
            return None
        return self.templates.reveal

    def bot(self, level: str) -> Bot:
        """Its bot at ``level``; the random bot for a game without bots."""
        return RandomBot() if self.bots is None else self.bots.at(level, self.rules)


@cache
def _static_exists(path: str) -> bool:
    return finders.find(path) is not None


_GAMES: dict[str, Game] = {}


def register(game: Game) -> None:
    """``game`` is offered by the site, listed last (and its rules are registered)."""
    registry.register(game.rules)
    _GAMES[game.slug] = game


@contextmanager
def registered(game: Game) -> Iterator[Game]:
    """``game`` is a game of the site inside the ``with`` block, and gone after: a game that
    lives outside this tree, such as the one the tests build to prove the platform names no
    game. A slug already taken is refused: a game never hides another."""
    register(game)
    try:
        yield game
    finally:
        del _GAMES[game.slug]
        registry.unregister(game.rules)


# The games of the site, in the order it lists them: a new game is one line here.
register(Game(DistrictNoir(), district_noir.BOTS))
register(Game(Slide(), slide.BOTS))
register(Game(Gnav(), gnav_exact.BOTS))
register(Game(PointCity(), point_city.BOTS))


def all_games() -> tuple[Game, ...]:
    """Every registered game, in the order the site lists them."""
    return tuple(_GAMES.values())


def get_game(slug: str) -> Game:
    """The record of the game ``slug``; ``KeyError`` if there is no such game."""
    return _GAMES[slug]


def get_bot(level: str, slug: str | None = None) -> Bot:
    """The bot for the game ``slug`` at ``level``. Unknown names never stall a game: they
    play at random (an unknown level of a known game plays as medium)."""
    game = _GAMES.get(slug or "")
    return RandomBot() if game is None else game.bot(level)


def playable_games() -> tuple[Rules, ...]:
    """The registered games whose board templates exist, in the registry's order."""
    return tuple(game.rules for game in _playable(all_games()))


@cache
def _playable(registered: tuple[Game, ...]) -> tuple[Game, ...]:
    """Kept per set of registered games: a game registered later is seen at once."""
    games = []
    for game in registered:
        try:
            get_template(game.templates.public)
            get_template(game.templates.private)
        except TemplateDoesNotExist:
            continue
        games.append(game)
    return tuple(games)


def playable_rules(slug: str) -> Rules | None:
    return next((rules for rules in playable_games() if rules.slug == slug), None)
