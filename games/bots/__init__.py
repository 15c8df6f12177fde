"""Bots play any game through the rules protocol, seeing only what their seat sees.

A bot is given ``view(state, seat)``, the legal actions (the same list the view
carries) and a seeded random generator; it never receives a full state.
"""

from games.bots.base import BOT_LEVELS, Bot, RandomBot, get_bot

__all__ = ["BOT_LEVELS", "Bot", "RandomBot", "get_bot"]
