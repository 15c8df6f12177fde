"""What a player does in the browser, through Django's test client."""

from __future__ import annotations

import json
import random

import pytest
from django.db.models import F
from django.urls import reverse

from games.models import Move, Table
from games.rules import get_rules
from games.services.tables import table_create
from tests.conftest import client_for, user_at

pytestmark = pytest.mark.django_db

DN = get_rules("district-noir")
HTMX = {"HTTP_HX_REQUEST": "true"}


def _act(client, table, action, version=None, htmx=True):
    data = {"action": action if isinstance(action, str) else json.dumps(action)}
    data["version"] = table.version if version is None else version
    return client.post(reverse("table_act", args=[table.pk]), data, **(HTMX if htmx else {}))


def _turn(table):
    state = DN.from_json(table.state)
    seat = DN.active_seats(state)[0]
    return seat, DN.legal_actions(state, seat)


def test_the_lobby_shows_open_tables_to_visitors_and_your_turn_to_players(running_table, alice):
    open_table = table_create(user=alice, game="district-noir", num_seats=2, seconds_per_move=86400)
    anonymous = client_for(None).get(reverse("lobby"))
    assert anonymous.status_code == 200
    assert reverse("table_detail", args=[open_table.pk]).encode() in anonymous.content
    seat, _ = _turn(running_table)
    mover = client_for(user_at(running_table, seat)).get(reverse("lobby"))
    assert b"Your turn" in mover.content


def test_signed_in_player_opens_a_table_from_the_lobby_form(alice):
    response = client_for(alice).post(
        reverse("table_create"),
        {
            "game": "district-noir",
            "district-noir-num_seats": 2,
            "district-noir-seconds_per_move": 86400,
            "district-noir-rated": "on",
        },
    )
    table = Table.objects.get()
    assert response.status_code == 302
    assert response.url == reverse("table_detail", args=[table.pk])


def test_a_friend_joins_by_the_invite_link_and_the_game_starts(alice, bob):
    table = table_create(user=alice, game="district-noir", num_seats=2, seconds_per_move=86400)
    page = client_for(alice).get(reverse("table_detail", args=[table.pk]))
    invite = reverse("table_invite", args=[table.invite_code])
    assert invite.encode() in page.content
    response = client_for(bob).get(invite)
    assert response.status_code == 302
    table.refresh_from_db()
    assert table.status == Table.Status.RUNNING


def test_the_invite_link_asks_a_visitor_to_sign_in_first(alice):
    table = table_create(user=alice, game="district-noir", num_seats=2, seconds_per_move=86400)
    response = client_for(None).get(reverse("table_invite", args=[table.invite_code]))
    assert response.status_code == 302
    assert reverse("account_login") in response.url


def test_join_leave_and_abort_buttons_work_from_the_table_page(alice, bob):
    table = table_create(user=alice, game="district-noir", num_seats=2, seconds_per_move=86400)
    response = client_for(alice).post(reverse("table_abort", args=[table.pk]))
    assert response.status_code == 302
    table.refresh_from_db()
    assert table.status == Table.Status.ABORTED
    refused = client_for(bob).post(reverse("table_join", args=[table.pk]), **HTMX)
    assert refused.status_code == 409
    assert b"no longer taking players" in refused.content


def test_a_player_sees_their_hand_as_buttons_and_plays_a_card(running_table):
    seat, actions = _turn(running_table)
    client = client_for(user_at(running_table, seat))
    page = client.get(reverse("table_detail", args=[running_table.pk]))
    assert page.status_code == 200
    play = next(a for a in actions if a["type"] == "play")
    assert json.dumps(play, separators=(",", ":"), sort_keys=True).encode() in page.content.replace(
        b"&quot;", b'"'
    )
    response = _act(client, running_table, play)
    assert response.status_code == 200
    assert b'id="board"' in response.content
    assert Move.objects.filter(table=running_table).count() == 1


def test_without_javascript_a_move_redirects_back_to_the_table(running_table):
    seat, actions = _turn(running_table)
    response = _act(client_for(user_at(running_table, seat)), running_table, actions[0], htmx=False)
    assert response.status_code == 302
    assert Move.objects.count() == 1


@pytest.mark.parametrize(
    ("who", "action", "version_delta", "status", "message"),
    [
        ("mover", "{not json", 0, 400, b"could not be read"),
        ("mover", {"type": "play", "card": "seven"}, 0, 400, b"not"),
        ("mover", {"type": "fly"}, 0, 400, b"not"),
        ("mover", None, 3, 409, b"moved on"),
        ("waiter", None, 0, 400, b"not your turn"),
        ("stranger", None, 0, 403, b"not seated"),
        ("anonymous", None, 0, 403, b"Sign in"),
    ],
)
def test_bad_posts_get_a_4xx_with_a_message_and_change_nothing(
    running_table, carol, who, action, version_delta, status, message
):
    seat, actions = _turn(running_table)
    user = {
        "mover": user_at(running_table, seat),
        "waiter": user_at(running_table, 1 - seat),
        "stranger": carol,
        "anonymous": None,
    }[who]
    before = Table.objects.get(pk=running_table.pk)
    response = _act(
        client_for(user),
        running_table,
        actions[0] if action is None else action,
        version=running_table.version + version_delta,
    )
    assert response.status_code == status
    assert message in response.content
    after = Table.objects.get(pk=running_table.pk)
    assert (after.version, after.state) == (before.version, before.state)
    assert not Move.objects.exists()


def test_posting_to_a_table_that_does_not_exist_is_a_404(alice):
    response = client_for(alice).post(reverse("table_act", args=[999999]), {"action": "{}"})
    assert response.status_code == 404


def test_a_long_or_empty_action_field_is_refused(running_table):
    seat, _ = _turn(running_table)
    client = client_for(user_at(running_table, seat))
    for body in ["", "x" * 5000]:
        response = _act(client, running_table, body)
        assert response.status_code == 400
    assert not Move.objects.exists()


def test_an_unchanged_table_answers_the_poll_with_no_content(running_table):
    client = client_for(None)
    url = reverse("table_detail", args=[running_table.pk])
    assert client.get(url, {"v": running_table.version}, **HTMX).status_code == 204
    changed = client.get(url, {"v": running_table.version - 1}, **HTMX)
    assert changed.status_code == 200
    assert b'id="board"' in changed.content


def test_a_spectator_sees_the_table_without_any_hand(running_table, carol):
    response = client_for(carol).get(reverse("table_view_json", args=[running_table.pk]))
    data = response.json()
    assert data["seat"] is None
    assert data["view"]["hand"] is None
    assert data["view"]["legal_actions"] == []
    page = client_for(carol).get(reverse("table_detail", args=[running_table.pk]))
    assert b"Your hand" not in page.content
    assert b'name="action"' not in page.content


def test_profile_page_saves_display_name_and_time_zone(alice):
    client = client_for(alice)
    response = client.post(
        reverse("profile_edit"), {"display_name": "Alice A.", "time_zone": "Europe/Prague"}
    )
    assert response.status_code == 302
    alice.refresh_from_db()
    assert (alice.display_name, alice.time_zone) == ("Alice A.", "Europe/Prague")
    bad = client.post(reverse("profile_edit"), {"display_name": "x", "time_zone": "Mars/Base"})
    assert bad.status_code == 400
    alice.refresh_from_db()
    assert alice.time_zone == "Europe/Prague"


def _finished_game(reason: str):
    """A finished District Noir state that ended for ``reason``, found by random playouts."""
    for seed in range(2000):
        rng = random.Random(seed)
        state = DN.setup(2, seed)
        while DN.outcome(state) is None:
            seat = DN.active_seats(state)[0]
            state = DN.apply(state, seat, rng.choice(DN.legal_actions(state, seat)))
        if DN.outcome(state).reason == reason:
            return state
    raise AssertionError(f"no game ended by {reason}")


def _show_finished(table, state, user):
    Table.objects.filter(pk=table.pk).update(
        state=DN.to_json(state),
        status=Table.Status.FINISHED,
        outcome=DN.outcome(state).to_json(),
        version=F("version") + 1,  # a change, as the move that ended the game would be
    )
    return client_for(user).get(reverse("table_detail", args=[table.pk])).content.decode()


def test_the_end_of_a_scored_game_shows_each_score_broken_down(running_table, alice):
    state = _finished_game("score")
    html = _show_finished(running_table, state, alice)
    outcome = DN.outcome(state)
    assert "Four rounds were played" in html
    assert "Majority 8" in html
    for total in outcome.scores:
        assert f"{int(total)} points" in html


@pytest.mark.parametrize("reason", ["score", "city"])
def test_a_finished_board_highlights_nothing_to_take(running_table, alice, reason):
    """The row's last cards are marked as takeable while the game runs, and not after."""
    running = client_for(alice).get(reverse("table_detail", args=[running_table.pk])).text
    assert "takeable" in running
    html = _show_finished(running_table, _finished_game(reason), alice)
    assert "takeable" not in html[html.index('id="board"') :]


def test_an_instant_city_win_says_why_and_shows_no_points(running_table, alice):
    html = _show_finished(running_table, _finished_game("city"), alice)
    assert "all three City cards" in html
    board = html[html.index('id="board"') :]  # the rules panel before it explains the scoring
    assert " points" not in board


def test_a_table_opens_with_the_games_own_options(alice):
    response = client_for(alice).post(
        reverse("table_create"),
        {
            "game": "gnav",
            "gnav-num_seats": 4,
            "gnav-seconds_per_move": 86400,
            # an unticked box: the Cat does not undo trades at this table
        },
    )
    assert response.status_code == 302
    table = Table.objects.get()
    assert table.options == {"cat_undoes_trades": False}
    assert table.rated is False


@pytest.mark.parametrize(
    "data",
    [
        {"game": "chess", "chess-num_seats": 2},
        {"game": "gnav", "gnav-num_seats": 2, "gnav-seconds_per_move": 86400},
        {
            "game": "district-noir",
            "district-noir-num_seats": 2,
            "district-noir-seconds_per_move": 1,
        },
    ],
)
def test_a_table_that_cannot_be_opened_is_refused_with_a_message(alice, data):
    response = client_for(alice).post(reverse("table_create"), data)
    assert response.status_code == 400
    assert b'class="message error"' in response.content
    assert not Table.objects.exists()
