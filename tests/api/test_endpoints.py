"""The API as a program uses it: its account, the tables waiting, a table's view, a move, and
challenges; each scope, each refusal as JSON (issue #30.1, #30.6)."""

from __future__ import annotations

import json

import pytest
from django.test import Client
from django.urls import reverse

from api.models import AccessToken
from community.models import Challenge
from games.models import Move, Table
from games.rules import get_rules
from tests.conftest import play_random_moves, user_at
from tests.support.api import call, token_for

pytestmark = pytest.mark.django_db


def _view_of(table: Table, seat: int | None) -> dict:
    rules = get_rules(table.game)
    return json.loads(json.dumps(rules.view(rules.from_json(table.state), seat)))


def test_the_account_is_the_tokens_own(alice):
    secret = token_for(alice, "read")
    answer = call("get", "/api/account", secret)
    assert answer.status_code == 200
    assert answer.json() == {
        "id": alice.pk,
        "username": "alice",
        "name": "alice",
        "is_bot": False,
        "scopes": ["read"],
    }


def test_a_table_is_exactly_the_seats_view_and_a_stranger_sees_a_spectators(running_table, carol):
    for position in (0, 1):
        user = user_at(running_table, position)
        answer = call("get", f"/api/tables/{running_table.pk}", token_for(user, "read")).json()
        assert answer["seat"] == position
        assert answer["view"] == _view_of(running_table, position)
        assert answer["version"] == running_table.version
    stranger = call("get", f"/api/tables/{running_table.pk}", token_for(carol, "read")).json()
    assert stranger["seat"] is None
    assert stranger["view"] == _view_of(running_table, None)


def test_the_tables_waiting_list_the_ones_whose_move_it_is(running_table):
    rules = get_rules(running_table.game)
    mover = rules.active_seats(rules.from_json(running_table.state))[0]
    waiting = call("get", "/api/tables/waiting", token_for(user_at(running_table, mover))).json()
    assert [(t["id"], t["seat"], t["version"]) for t in waiting] == [
        (running_table.pk, mover, running_table.version)
    ]
    other = call("get", "/api/tables/waiting", token_for(user_at(running_table, 1 - mover)))
    assert other.json() == []


def _mover_and_action(table: Table):
    rules = get_rules(table.game)
    state = rules.from_json(table.state)
    seat = rules.active_seats(state)[0]
    return seat, json.loads(json.dumps(rules.legal_actions(state, seat)[0]))


def test_a_move_is_played_once_on_its_version_and_a_stale_one_is_refused(running_table):
    seat, action = _mover_and_action(running_table)
    secret = token_for(user_at(running_table, seat), "read", "play")
    body = {"action": action, "version": running_table.version}
    played = call("post", f"/api/tables/{running_table.pk}/moves", secret, body)
    assert played.status_code == 200, played.json()
    assert played.json()["version"] == running_table.version + 1
    assert Move.objects.filter(table=running_table).count() == 1
    again = call("post", f"/api/tables/{running_table.pk}/moves", secret, body)
    assert again.status_code in (400, 409)
    assert again.json()["error"]
    assert Move.objects.filter(table=running_table).count() == 1


def test_a_read_token_cannot_play_and_nothing_changes(running_table):
    seat, action = _mover_and_action(running_table)
    secret = token_for(user_at(running_table, seat), "read")
    body = {"action": action, "version": running_table.version}
    refused = call("post", f"/api/tables/{running_table.pk}/moves", secret, body)
    assert refused.status_code == 403
    assert "play" in refused.json()["error"]
    running_table.refresh_from_db()
    assert running_table.version == 1
    assert not Move.objects.filter(table=running_table).exists()


def test_a_play_token_without_read_cannot_read(running_table):
    secret = token_for(user_at(running_table, 0), "play")
    refused = call("get", f"/api/tables/{running_table.pk}", secret)
    assert refused.status_code == 403
    assert "read" in refused.json()["error"]


def test_an_illegal_move_and_a_move_at_anothers_table_are_refused(running_table, carol):
    seat, _action = _mover_and_action(running_table)
    secret = token_for(user_at(running_table, seat))
    bad = {"action": {"nothing": "like it"}, "version": running_table.version}
    illegal = call("post", f"/api/tables/{running_table.pk}/moves", secret, bad)
    assert illegal.status_code == 400
    assert illegal.json()["error"]
    _seat, action = _mover_and_action(running_table)
    body = {"action": action, "version": running_table.version}
    stranger = call("post", f"/api/tables/{running_table.pk}/moves", token_for(carol), body)
    assert 400 <= stranger.status_code < 500
    assert stranger.json()["error"]
    assert not Move.objects.filter(table=running_table).exists()


def test_a_revoked_token_stops_at_once(alice):
    from api.services import token_revoke

    secret = token_for(alice, "read")
    assert call("get", "/api/account", secret).status_code == 200
    token = AccessToken.objects.get(user=alice)
    assert token_revoke(user=alice, token_id=token.pk)
    refused = call("get", "/api/account", secret)
    assert refused.status_code == 401
    assert refused.json()["error"]
    assert refused["WWW-Authenticate"].startswith("Bearer")


def test_only_the_tokens_fingerprint_is_stored(alice):
    secret = token_for(alice, "read")
    token = AccessToken.objects.get(user=alice)
    stored = " ".join(str(v) for v in AccessToken.objects.values_list().get(pk=token.pk))
    assert secret not in stored
    assert secret[8:] not in stored
    assert token.key_hash != secret and len(token.key_hash) == 64


def test_the_rate_limit_answers_429_with_retry_after(alice, settings):
    settings.API_RATE_PER_MINUTE = 3
    secret = token_for(alice, "read")
    for _ in range(3):
        assert call("get", "/api/account", secret).status_code == 200
    refused = call("get", "/api/account", secret)
    assert refused.status_code == 429
    assert refused.json()["error"]
    assert 1 <= int(refused["Retry-After"]) <= 60
    # Another token of the same player counts on its own.
    assert call("get", "/api/account", token_for(alice, "read")).status_code == 200


def test_challenges_are_sent_listed_accepted_and_declined(alice, bob, carol):
    alices = token_for(alice)
    sent = call("post", "/api/challenges", alices, {"players": ["bob"], "game": "district-noir"})
    assert sent.status_code == 200, sent.json()
    challenge = sent.json()
    assert (challenge["sender"], challenge["to"], challenge["status"]) == (
        "alice",
        ["bob"],
        "pending",
    )
    bobs = token_for(bob)
    listed = call("get", "/api/challenges", bobs).json()
    assert [c["id"] for c in listed["incoming"]] == [challenge["id"]]
    assert call("get", "/api/challenges", alices).json()["outgoing"][0]["id"] == challenge["id"]
    accepted = call("post", f"/api/challenges/{challenge['id']}/accept", bobs)
    assert accepted.status_code == 200
    table = Table.objects.get(pk=accepted.json()["table"])
    assert table.status == Table.Status.RUNNING

    second = call("post", "/api/challenges", alices, {"players": ["carol"], "game": "slide"})
    assert second.status_code == 200, second.json()
    carols = token_for(carol)
    bad = call("post", f"/api/challenges/{second.json()['id']}/decline", carols, {"reason": "x"})
    assert bad.status_code == 400
    assert Challenge.objects.get(pk=second.json()["id"]).status == Challenge.Status.PENDING
    declined = call(
        "post", f"/api/challenges/{second.json()['id']}/decline", carols, {"reason": "later"}
    )
    assert declined.status_code == 200
    assert declined.json()["status"] == "declined"


def test_challenges_need_their_scope_and_a_real_player(alice, bob):
    read_only = token_for(alice, "read")
    body = {"players": ["bob"], "game": "district-noir"}
    refused = call("post", "/api/challenges", read_only, body)
    assert refused.status_code == 403
    nobody = call("post", "/api/challenges", token_for(alice), {**body, "players": ["nobody"]})
    assert nobody.status_code == 404
    assert "nobody" in nobody.json()["error"]
    no_game = call("post", "/api/challenges", token_for(alice), {**body, "game": "chess"})
    assert no_game.status_code == 400
    assert not Challenge.objects.exists()


def test_the_schema_and_its_page_are_served_from_the_site():
    schema = call("get", "/api/openapi.json")
    assert schema.status_code == 200
    paths = schema.json()["paths"]
    for path in (
        "/api/account",
        "/api/tables/waiting",
        "/api/tables/{table_id}",
        "/api/tables/{table_id}/moves",
        "/api/challenges",
        "/api/challenges/{challenge_id}/accept",
        "/api/challenges/{challenge_id}/decline",
        "/api/stream/events",
        "/api/stream/tables/{table_id}",
    ):
        assert path in paths
    page = call("get", "/api/docs")
    assert page.status_code == 200
    assert b"/static/ninja/swagger-ui-bundle.js" in page.content  # no CDN


def test_a_tables_answer_costs_the_same_however_long_the_game(
    running_table, django_assert_max_num_queries
):
    secret = token_for(user_at(running_table, 0), "read")
    with django_assert_max_num_queries(4):  # the token, the table, its seats, the last-used mark
        call("get", f"/api/tables/{running_table.pk}", secret)
    play_random_moves(running_table, 30, keep_running=True)
    call("get", f"/api/tables/{running_table.pk}", secret)  # the last-used mark written
    with django_assert_max_num_queries(3):
        call("get", f"/api/tables/{running_table.pk}", secret)


def test_a_token_opens_no_calendar(alice, bob):
    from accounts.calendar import calendar_token_make

    secret = token_for(alice)
    calendar_token_make(user=bob)
    client = Client(HTTP_AUTHORIZATION=f"Bearer {secret}")
    assert client.get(reverse("calendar_feed", args=[secret])).status_code == 404
    assert client.get(reverse("calendar_feed", args=[secret[4:]])).status_code == 404
