"""The time zone's select, drawn in Python (``accounts.widgets.ManyOptionsSelect``): what a
browser gets is what Django's own templates draw."""

from __future__ import annotations

import re

import pytest
from django import forms

from accounts.forms import ProfileForm
from accounts.models import TIME_ZONE_CHOICES
from accounts.widgets import ManyOptionsSelect

ODD_CHOICES = [("a&b", "A & B"), ('say "hi"', "<b>bold</b>"), ("plain", "Plain")]


def _between_tags(html: str) -> str:
    """Django's templates put a line break and two spaces before each option."""
    return re.sub(r">\s+<", "><", str(html)).strip()


def _both(choices, data: dict[str, str] | None, attrs: dict | None = None) -> tuple[str, str]:
    class Django(forms.Form):
        choice = forms.ChoiceField(choices=choices, widget=forms.Select(attrs=attrs))

    class Ours(forms.Form):
        choice = forms.ChoiceField(choices=choices, widget=ManyOptionsSelect(attrs=attrs))

    django, ours = Django(data), Ours(data)
    if data is not None:
        django.is_valid(), ours.is_valid()
    return _between_tags(django["choice"]), _between_tags(ours["choice"])


@pytest.mark.parametrize(
    "data",
    [None, {"choice": "Europe/Prague"}, {"choice": "%%"}, {"choice": '"><script>'}],
    ids=["empty", "chosen", "odd value", "markup"],
)
def test_the_time_zones_are_drawn_as_djangos_templates_draw_them(data):
    django, ours = _both(TIME_ZONE_CHOICES, data, attrs={"class": "wide", "required": True})
    assert ours == django
    assert ours.count("<option ") == len(TIME_ZONE_CHOICES)
    if data == {"choice": "Europe/Prague"}:
        assert '<option value="Europe/Prague" selected>' in ours


def test_values_and_labels_are_escaped_as_djangos_templates_escape_them():
    django, ours = _both(ODD_CHOICES, {"choice": "a&b"})
    assert ours == django
    assert '<option value="a&amp;b" selected>A &amp; B</option>' in ours
    assert "&lt;b&gt;bold&lt;/b&gt;" in ours and "<b>" not in ours


def test_a_select_with_groups_is_left_to_djangos_templates():
    grouped = [("Europe", [("Europe/Prague", "Prague")]), ("Asia", [("Asia/Tokyo", "Tokyo")])]
    django, ours = _both(grouped, None)
    assert ours == django
    assert '<optgroup label="Europe">' in ours


@pytest.mark.django_db
def test_the_profile_form_draws_its_time_zones_so(django_user_model):
    user = django_user_model(username="zoned", time_zone="America/Sao_Paulo")
    html = str(ProfileForm(instance=user)["time_zone"])
    assert '<option value="America/Sao_Paulo" selected>America/Sao_Paulo</option>' in html
    assert html.count("<option ") == len(TIME_ZONE_CHOICES)
