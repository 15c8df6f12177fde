"""Bots play any game through the rules protocol, seeing only what their seat sees.

A bot is given ``view(state, seat)``, the legal actions (the same list the view
carries) and a seeded random generator; it never receives a full state. Like
``games/rules/``, this package imports nothing from Django.

- ``base``: the interface, the random bot, the levels and the hard bot's budget;
- ``greedy``: the greedy bot, one look ahead with a game's heuristic (easy, medium);
- ``ismcts``: information-set Monte Carlo tree search over worlds drawn with the
  game's ``sample_state`` (hard);
- ``gnav_exact``: Gnav's hard bot, the best reply to sensible play worked out over
  every deal its view allows (a Gnav seat decides once a deal, so it can list them);
- ``games``: ``GameBots``, how a game's bots play it (heuristic, search settings, budget),
  and the bot of a level made from it;
- ``district_noir``, ``slide``, ``gnav``, ``point_city``: each game's heuristic and its
  ``BOTS`` (Gnav's in ``gnav_exact``, beside its hard bot), named by the game's record in
  the catalog (games/catalog.py), which makes a game's bot: ``get_bot(level, slug)``.
"""

from games.bots.base import BOT_LEVELS, DEFAULT_BOT_LEVEL, Bot, RandomBot

__all__ = ["BOT_LEVELS", "DEFAULT_BOT_LEVEL", "Bot", "RandomBot"]
