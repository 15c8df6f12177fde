"""The "Confirm my moves" setting (#25.5): three choices on the play settings page, "as the
device" by default, and the table page tells its script which one the player made."""

from __future__ import annotations

import pytest
from django.urls import reverse

from accounts.models import User
from tests.conftest import client_for

pytestmark = pytest.mark.django_db


def test_a_new_player_confirms_moves_as_the_device_says(alice):
    assert alice.confirm_moves == "auto"


@pytest.mark.parametrize("choice", ["on", "off", "auto"])
def test_the_choice_is_saved_from_the_settings_page(alice, choice):
    page = client_for(alice).get(reverse("play_settings"))
    assert f'value="{choice}"' in page.content.decode()
    response = client_for(alice).post(reverse("confirm_moves_set"), {"confirm_moves": choice})
    assert response.status_code == 302
    assert response["Location"] == reverse("play_settings") + "#confirm-moves"
    alice.refresh_from_db()
    assert alice.confirm_moves == choice


@pytest.mark.parametrize("body", [{"confirm_moves": "sometimes"}, {}])
def test_an_unknown_choice_is_refused_and_changes_nothing(alice, body):
    User.objects.filter(pk=alice.pk).update(confirm_moves="off")
    response = client_for(alice).post(reverse("confirm_moves_set"), body)
    assert response.status_code == 400
    assert "confirm-moves" in response.content.decode()
    alice.refresh_from_db()
    assert alice.confirm_moves == "off"


def test_only_a_signed_in_player_has_the_setting():
    response = client_for(None).post(reverse("confirm_moves_set"), {"confirm_moves": "on"})
    assert response.status_code == 302
    assert reverse("account_login") in response["Location"]


@pytest.mark.parametrize("choice", ["on", "off"])
def test_the_table_page_carries_the_player_s_choice(running_table, alice, choice):
    User.objects.filter(pk=alice.pk).update(confirm_moves=choice)
    page = client_for(alice).get(reverse("table_detail", args=[running_table.pk])).content.decode()
    assert f'data-confirm="{choice}"' in page


def test_a_visitor_s_table_page_asks_the_device(running_table):
    page = client_for(None).get(reverse("table_detail", args=[running_table.pk])).content.decode()
    assert 'data-confirm="auto"' in page
