"""Template helpers for game pages, rules and the reasons a seat cannot act; no game named."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.safestring import mark_safe

register = template.Library()


@register.simple_tag
def record(**fields: Any) -> dict[str, Any]:
    """A small dict from keyword arguments: example data for a card picture in the rules.

    ``{% record kind="support" value=5 as card %}{% include "games/<slug>/card.html" %}``
    """
    return fields


@register.simple_tag
def sequence(*items: Any) -> list[Any]:
    """A small list: ``{% sequence "energy" "ecology" as resources %}``."""
    return list(items)


@register.simple_tag
def action_values(view: dict[str, Any], type: str, field: str) -> list[Any]:
    """Every value of ``field`` in this seat's legal actions of ``type``, lists opened once.

    ``{% action_values view "take" "cells" as offered %}`` lists every cell some take offers.
    """
    values: list[Any] = []
    for action in view.get("legal_actions", []):
        if action.get("type") == type and field in action:
            value = action[field]
            values.extend(value if isinstance(value, list) else [value])
    return values


@register.filter
def index_of(items: Any, item: Any) -> int:
    """The position of ``item`` in ``items``, or -1."""
    try:
        return list(items).index(item)
    except (TypeError, ValueError):
        return -1


class _CaptureNode(template.Node):
    def __init__(self, nodelist: template.NodeList, name: str) -> None:
        self.nodelist, self.name = nodelist, name

    def render(self, context: template.Context) -> str:
        # The block was rendered (and escaped) by the template engine: still safe once stripped.
        context[self.name] = mark_safe(self.nodelist.render(context).strip())
        return ""


@register.tag
def capture(parser: template.base.Parser, token: template.base.Token) -> _CaptureNode:
    """``{% capture as names %}...{% endcapture %}``: the rendered block, stripped, as a variable.

    For a sentence that shows only when a loop found something.
    """
    bits = token.split_contents()
    if len(bits) != 3 or bits[1] != "as":
        raise template.TemplateSyntaxError("Use {% capture as name %}...{% endcapture %}.")
    nodelist = parser.parse(("endcapture",))
    parser.delete_first_token()
    return _CaptureNode(nodelist, bits[2])
