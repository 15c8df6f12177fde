"""The lobby's "open a table" forms: an empty one is drawn once per game and language and then
shown to every player (``games.views.lobby.empty_form_fields``), each in their own language; a
form sent back with a mistake is shown as sent, with its error."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.urls import reverse
from django.utils import translation

from games.forms.tables import OpenTableForm
from games.rules import get_rules
from tests.conftest import client_for

pytestmark = pytest.mark.django_db


def test_each_reader_gets_the_empty_forms_in_their_language(alice, bob):
    pages = {}
    for user, language in ((alice, "cs"), (bob, "en"), (alice, "hu"), (bob, "cs")):
        client = client_for(user)
        client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
        pages[(user.username, language)] = client.get(reverse("lobby")).content.decode()
    for (_name, language), html in pages.items():
        with translation.override(language):
            label = str(OpenTableForm(rules=get_rules("slide")).fields["num_seats"].label)
            required = str(
                OpenTableForm(rules=get_rules("slide")).fields["pace_max_timeouts_per_100"].label
            )
        assert label in html and required in html, language
    with translation.override("cs"):
        czech = str(
            OpenTableForm(rules=get_rules("slide")).fields["pace_max_timeouts_per_100"].label
        )
    assert czech not in pages[("bob", "en")]
    assert pages[("alice", "cs")].count(czech) == pages[("bob", "cs")].count(czech) == 4


def test_a_form_sent_with_a_mistake_comes_back_as_sent_with_its_error(alice):
    client = client_for(alice)
    sent = {
        "game": "slide",
        "slide-num_seats": "2",
        "slide-seconds_per_move": "86400",
        "slide-pace_max_timeouts_per_100": "-7",
    }
    response = client.post(reverse("table_create"), sent)
    assert response.status_code == 400
    html = response.content.decode()
    assert 'value="-7"' in html
    assert 'class="errorlist' in html
    # The next empty form is the empty one again.
    assert 'value="-7"' not in client.get(reverse("lobby")).content.decode()
