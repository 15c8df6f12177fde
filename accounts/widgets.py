"""Form widgets of our own."""

from __future__ import annotations

import html
from typing import Any

from django import forms
from django.utils.html import conditional_escape
from django.utils.safestring import SafeString, mark_safe


def _attributes(attrs: dict[str, Any]) -> str:
    """As Django's ``attrs.html``: in their order, True bare, False left out."""
    return "".join(
        f" {name}" if value is True else f' {name}="{conditional_escape(str(value))}"'
        for name, value in attrs.items()
        if value is not False
    )


class ManyOptionsSelect(forms.Select):
    """A select of many plain options (the time zones: about 600), drawn in Python. Django's
    own templates include two templates per option: 25 ms of the profile page's 30. The same
    HTML as Django's but for its line breaks (``tests/accounts/test_widgets.py``); a select
    with groups is left to Django's templates."""

    def render(
        self,
        name: str,
        value: Any,
        attrs: dict[str, Any] | None = None,
        renderer: Any = None,
    ) -> SafeString:
        widget = self.get_context(name, value, attrs)["widget"]
        groups = widget["optgroups"]
        if any(group_name for group_name, _options, _index in groups):
            return super().render(name, value, attrs, renderer)
        options = "".join(
            f'<option value="{html.escape(str(option["value"]))}"{_attributes(option["attrs"])}>'
            f"{conditional_escape(option['label'])}</option>"
            for _group_name, group_options, _index in groups
            for option in group_options
        )
        return mark_safe(
            f'<select name="{html.escape(name)}"{_attributes(widget["attrs"])}>{options}</select>'
        )
