"""A choice of a few on the settings page (how often to remind, confirm my moves) reads as a
list of options on a phone: each round button sits before its words on the same line, not
stretched to the field's width above them (which left a word like "a" hanging beside it)."""

from __future__ import annotations

import pytest

from tests.e2e.pages import signed_in_page
from tests.factories import UserFactory

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_each_round_button_sits_before_its_words_on_a_phone(live_server, browser):
    UserFactory(username="anna")
    page = signed_in_page(browser, live_server.url, "anna")
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(live_server.url + "/settings/play/")
    radios = page.locator(".account label > input[type=radio]")
    assert radios.count() >= 7  # four cadences, three ways to confirm moves
    for index in range(radios.count()):
        radio = radios.nth(index)
        box = radio.bounding_box()
        label = radio.locator("xpath=..").bounding_box()
        assert box is not None and label is not None
        assert box["width"] <= 24, "a round button as wide as a field"
        assert box["x"] - label["x"] <= 4, "the button is not at the start of its line"
        assert box["y"] < label["y"] + label["height"] / 2
    page.context.close()
