"""Bot accounts (issue #30.1): marked as bots everywhere, rated against people only if those opt
in, and bots for good."""

from __future__ import annotations

import pytest
from django.urls import reverse

from games.models import RatingChange
from tests.conftest import client_for
from tests.games.rated_games import finished_game, start_game
from tests.support.api import call, token_for

pytestmark = pytest.mark.django_db


def _made_bot(user) -> None:
    answer = call("post", "/api/account/bot", token_for(user, "play"))
    assert answer.status_code == 200, answer.json()
    assert answer.json()["is_bot"] is True
    user.refresh_from_db()


def test_an_account_that_never_played_becomes_a_bot_and_its_name_says_so(alice, bob):
    _made_bot(alice)
    assert alice.is_bot
    table = start_game(alice, bob)
    page = client_for(bob).get(reverse("table_detail", args=[table.pk])).content.decode()
    assert "alice (bot)" in page
    profile = client_for(bob).get(reverse("player_profile", args=["alice"])).content.decode()
    assert "alice (bot)" in profile
    lobby = client_for(bob).get(reverse("lobby")).content.decode()
    assert "alice (bot)" in lobby
    assert call("get", "/api/account", token_for(alice, "read")).json()["name"] == "alice (bot)"


def test_an_account_that_has_played_cannot_become_a_bot(alice, bob):
    start_game(alice, bob)
    refused = call("post", "/api/account/bot", token_for(alice, "play"))
    assert refused.status_code == 409
    assert refused.json()["error"]
    alice.refresh_from_db()
    assert not alice.is_bot


def test_the_upgrade_needs_the_play_scope(alice):
    refused = call("post", "/api/account/bot", token_for(alice, "read"))
    assert refused.status_code == 403
    alice.refresh_from_db()
    assert not alice.is_bot


def test_a_game_against_a_bot_account_is_not_rated_unless_the_person_opted_in(alice, bob, carol):
    _made_bot(alice)
    finished_game(alice, bob)
    assert not RatingChange.objects.exists()
    client_for(carol).post(reverse("api_rated_against_bots"), {"rated_against_bots": "on"})
    carol.refresh_from_db()
    assert carol.rated_against_bots
    finished_game(alice, carol)
    assert set(RatingChange.objects.values_list("user__username", flat=True)) == {"alice", "carol"}


def test_bot_accounts_among_themselves_are_rated(alice, bob):
    _made_bot(alice)
    _made_bot(bob)
    finished_game(alice, bob)
    assert RatingChange.objects.count() == 2


def test_a_bot_account_stays_one(alice):
    _made_bot(alice)
    again = call("post", "/api/account/bot", token_for(alice, "play"))
    assert again.status_code == 200
    client_for(alice).post(reverse("api_rated_against_bots"), {})
    alice.refresh_from_db()
    assert alice.is_bot
