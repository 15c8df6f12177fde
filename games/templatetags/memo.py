"""``{% memo_include %}``: an include rendered once per distinct input, then reused.

A board shows the same few card faces, names and log sentences again and again, and
Django's template engine costs tens of microseconds per included node. A card's HTML is a
pure function of the card and the language, so it is rendered once per process and kept.

    {% load memo %}
    {% memo_include "games/gnav/card.html" card=card size="small" %}

The template sees only the values given (as ``{% include ... with ... only %}``), and its
output must depend on nothing else but them and the active language (escaping and number
localization are part of the key too): no request, no clock, no CSRF token. Values that
are not plain JSON (a model, a date) are rendered without the memo, so a wrong reuse
cannot happen, only a missed one.
"""

from __future__ import annotations

import json
from typing import Any

from django import template
from django.template.base import FilterExpression, Parser, Token
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language

register = template.Library()

MEMO_SIZE = 20_000
"""Rendered fragments kept per process; the memo is emptied when full (a few MB at most)."""

_memo: dict[tuple[Any, ...], SafeString] = {}


def _render(context: template.Context, name: str, values: dict[str, Any]) -> SafeString:
    template = context.template
    assert template is not None  # set while a template renders, the only time a tag runs
    fragment = template.engine.get_template(name)
    return mark_safe(fragment.render(context.new(values)))


def memo_render(context: template.Context, name: str, values: dict[str, Any]) -> SafeString:
    """``name`` rendered with ``values`` alone, from the memo when it was rendered before."""
    try:
        # Insertion order is part of the key: a different order is a miss, never a wrong hit.
        args = json.dumps(values, separators=(",", ":"))
    except (TypeError, ValueError):
        return _render(context, name, values)
    key = (name, get_language(), context.autoescape, context.use_l10n, args)
    html = _memo.get(key)
    if html is None:
        html = _render(context, name, values)
        if len(_memo) >= MEMO_SIZE:
            _memo.clear()
        _memo[key] = html
    return html


class MemoIncludeNode(template.Node):
    def __init__(self, name: FilterExpression, values: dict[str, FilterExpression]) -> None:
        self.name, self.values = name, values

    def render(self, context: template.Context) -> str:
        values = {key: value.resolve(context) for key, value in self.values.items()}
        return memo_render(context, self.name.resolve(context), values)


@register.tag
def memo_include(parser: Parser, token: Token) -> MemoIncludeNode:
    bits = token.split_contents()
    if len(bits) < 2:
        raise template.TemplateSyntaxError('Use {% memo_include "name.html" key=value ... %}.')
    values = template.base.token_kwargs(bits[2:], parser, support_legacy=False)
    if len(values) != len(bits) - 2:
        raise template.TemplateSyntaxError(f"memo_include takes key=value pairs: {bits[2:]}")
    return MemoIncludeNode(parser.compile_filter(bits[1]), values)
