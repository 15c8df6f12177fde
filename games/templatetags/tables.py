"""Template helpers that know actions only as data, never a game by name."""

from __future__ import annotations

import json
import secrets
from typing import Any

from django import template

from games.bots import DEFAULT_BOT_LEVEL
from games.forms.tables import BOT_LEVEL_CHOICES

register = template.Library()


@register.simple_tag
def bot_level_choices() -> dict[str, Any]:
    """The bot levels a page offers: ``choices`` (value, translated name) and ``default``."""
    return {"choices": BOT_LEVEL_CHOICES, "default": DEFAULT_BOT_LEVEL}


@register.simple_tag
def new_page_id() -> str:
    """A random id for one open table page: the changes it makes name it
    (games/services/events.py), so that its own socket is not sent the board its move's
    answer already brought."""
    return secrets.token_urlsafe(12)


@register.filter
def to_json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


INDEX_KEY = "_legal_index"


def _key(values: tuple[Any, ...]) -> str:
    return json.dumps(values, separators=(",", ":"), sort_keys=True)


@register.simple_tag
def legal_action(view: dict[str, Any], type: str, **fields: Any) -> dict[str, Any] | None:
    """The legal action of ``type`` whose fields match, or None: draw a button only for it.

    A board asks this once per card or cell: the view carries an index of its legal actions
    by type and by the fields asked for (built at the first question), so that each answer
    is one lookup instead of a scan of every legal action.
    """
    if not isinstance(view, dict):
        return None
    names = tuple(sorted(fields))
    index = view.setdefault(INDEX_KEY, {})
    table = index.get(f"{type}:{','.join(names)}")
    if table is None:
        table = {}
        for action in view.get("legal_actions", []):
            if action.get("type") == type:
                table.setdefault(_key(tuple(action.get(n) for n in names)), action)
        index[f"{type}:{','.join(names)}"] = table
    return table.get(_key(tuple(fields[n] for n in names)))


@register.filter
def seat_name(position: int | None, names: list[str]) -> str:
    if position is None or not 0 <= position < len(names):
        return ""
    return names[position]


@register.filter
def get_item(mapping: Any, key: Any) -> Any:
    try:
        return mapping[key]
    except (KeyError, IndexError, TypeError):
        try:
            return mapping[str(key)]
        except (KeyError, IndexError, TypeError):
            return None


@register.filter
def minus(value: int, other: int) -> int:
    return int(value) - int(other)


@register.filter
def times(count: int) -> range:
    """``{% for _ in 3|times %}``: draws a number of card backs."""
    return range(int(count or 0))


@register.filter
def pair_with(first: Any, second: Any) -> list[Any]:
    return [first, second]
