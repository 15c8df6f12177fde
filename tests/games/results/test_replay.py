"""Finished games replay move by move as a spectator saw them; the seed proves the shuffle."""

from __future__ import annotations

import hashlib
import json
import random
import re

import pytest
from django.core.management import CommandError, call_command
from django.template.loader import render_to_string
from django.urls import reverse

from games.catalog import playable_games
from games.models import RatingChange, Table
from games.rules import get_rules
from games.selectors import fairness, replays
from tests.conftest import client_for, play_random_moves
from tests.factories import UserFactory
from tests.games.rated_games import finished_game, play_to_the_end, start_game
from tests.support.page_queries import REPLAY_QUERIES

pytestmark = pytest.mark.django_db

DN = get_rules("district-noir")


@pytest.fixture
def finished(alice, bob) -> Table:
    return finished_game(alice, bob, seed=11)


def replay_url(table: Table, step: int | str | None = None) -> str:
    url = reverse("table_replay", args=[table.pk])
    return url if step is None else f"{url}?step={step}"


def states_of(table: Table) -> list:
    """The state after each number of moves: 0 (the deal) to all of them."""
    state = DN.setup(table.num_seats, table.seed, table.options)
    states = [state]
    for move in table.moves.order_by("seq"):
        state = DN.apply(state, move.position, move.action)
        states.append(state)
    return states


def test_every_step_shows_exactly_the_spectators_view_and_no_hand(finished):
    client = client_for(None)
    states = states_of(finished)
    total = len(states) - 1
    for step, state in enumerate(states[:-1]):
        response = client.get(replay_url(finished, step))
        assert response.status_code == 200
        assert response.context["view"] == DN.view(state, None)
        html = response.content.decode()
        assert f"Move {step} of {total}" in html
        assert response.context["replay"].reveal == []
        assert "Your hand" not in html and "Every hand revealed" not in html
        assert 'name="action"' not in html, "a replay offers no move to play"


def test_the_last_step_reveals_every_hand(finished, alice, bob):
    final = DN.from_json(finished.state)
    total = finished.moves.count()
    response = client_for(None).get(replay_url(finished, total))
    html = response.content.decode()
    replay = response.context["replay"]
    assert replay.at_end and response.context["view"] == DN.view(final, None)
    assert replay.reveal == [DN.view(final, 0), DN.view(final, 1)]
    area = html[html.index('id="replay"') :]
    # The board once, then the game's own result, as the table shows them at the end.
    assert area.count('id="result"') == 1 and 'class="reason"' in area.split('id="result"')[1]
    # No seat's whole board again: only the hands it still held, once each.
    assert "reveal-seat" not in area and "Your hand" not in area
    held = [seat for seat in (0, 1) if DN.view(final, seat)["hand"]]
    assert replay.hidden_seats == held
    if held:
        reveal = area[area.index('id="reveal"') :]
        for user in (alice, bob):
            assert reveal.count(f"{user.public_name}'s hand") == 1
    else:
        assert 'id="reveal"' not in area and "no hand is hidden any more" in html


def test_the_revealed_hands_of_a_game_won_by_the_city_cards_show_each_card_once(alice, bob):
    views = [
        {"seat": 0, "hand": [{"id": 3, "kind": "support", "value": 8}]},
        {"seat": 1, "hand": [{"id": 7, "kind": "betrayal", "value": -2}]},
    ]
    html = render_to_string(
        "games/district-noir/reveal.html", {"views": views, "names": ["alice", "bob"]}
    )
    assert html.count("alice's hand") == 1 and html.count("bob's hand") == 1
    assert html.count('class="card dn-support v8"') == 1
    assert html.count('class="card dn-betrayal v-2"') == 1


def test_only_what_a_seat_saw_beyond_the_spectators_counts_as_hidden():
    spectator = {"seat": None, "hand": None, "legal_actions": [], "log": [1], "row": [1]}
    assert not replays.hides_something({**spectator, "seat": 0, "log": [2]}, spectator)
    assert not replays.hides_something({**spectator, "seat": 0, "hand": []}, spectator)
    assert replays.hides_something({**spectator, "seat": 0, "hand": [{"id": 1}]}, spectator)


def test_district_noir_s_first_step_shows_both_players_hands(finished, alice, bob):
    html = client_for(None).get(replay_url(finished, 0)).content.decode()
    board = html[html.index('class="replay-board"') : html.index('aria-label="Game log"')]
    for user in (alice, bob):
        assert board.count(f"{user.public_name}'s hand") == 1, user.public_name


def test_steps_past_either_end_are_clamped_and_nonsense_is_refused(finished):
    client = client_for(None)
    total = finished.moves.count()
    assert client.get(replay_url(finished, 10_000)).context["replay"].step == total
    assert client.get(replay_url(finished, -3)).context["replay"].step == 0
    assert client.get(replay_url(finished, "two")).status_code == 400


def test_htmx_steps_swap_only_the_replay_area(finished):
    response = client_for(None).get(replay_url(finished, 3), HTTP_HX_REQUEST="true")
    html = response.content.decode()
    assert "<html" not in html and 'id="replay"' in html
    assert f'hx-get="{replay_url(finished, 4)}"' in html
    assert f'href="{replay_url(finished, 2)}"' in html


def test_the_page_shows_the_final_scores_and_each_rating_change(finished, alice, bob):
    html = client_for(None).get(replay_url(finished)).content.decode()
    assert "Final result" in html
    for user in (alice, bob):
        change = RatingChange.objects.get(table=finished, user=user)
        assert f"{change.ordinal_before:.1f} → <strong>{change.ordinal_after:.1f}</strong>" in html
        assert reverse("player_profile", args=[user.username]) in html


def test_a_running_game_has_no_replay_and_keeps_its_seed_secret(running_table):
    table = play_random_moves(running_table, 6)
    client = client_for(None)
    assert client.get(replay_url(table, 1)).status_code == 404
    assert client.get(reverse("table_record", args=[table.pk])).status_code == 404
    html = client.get(reverse("table_detail", args=[table.pk])).content.decode()
    assert hashlib.sha256(str(table.seed).encode()).hexdigest() in html
    assert str(table.seed) not in html


def test_the_seed_is_revealed_when_the_game_ends_and_matches_the_hash_shown_before(
    running_table, alice
):
    client = client_for(alice)
    table = play_random_moves(running_table, 2)
    shown = client.get(reverse("table_detail", args=[table.pk])).content.decode()
    commitment = fairness.seed_commitment(table.seed)
    assert commitment in shown
    table = play_random_moves(table, 500)
    assert table.is_finished
    html = client.get(reverse("table_detail", args=[table.pk])).content.decode()
    assert str(table.seed) in html and commitment in html
    assert reverse("table_replay", args=[table.pk]) in html
    replay_page = client.get(replay_url(table)).content.decode()
    assert str(table.seed) in replay_page and commitment in replay_page


def test_the_revealed_seed_and_the_move_log_replay_to_exactly_the_final_state(finished):
    record = client_for(None).get(reverse("table_record", args=[finished.pk])).json()
    assert record["seed"] == finished.seed
    assert record["seed_sha256"] == hashlib.sha256(str(finished.seed).encode()).hexdigest()
    state = DN.setup(record["num_seats"], record["seed"], record["options"])
    for move in record["moves"]:
        state = DN.apply(state, move["seat"], move["action"])
    assert DN.to_json(state) == record["final_state"] == finished.state
    assert DN.outcome(state).to_json()["ranks"] == finished.outcome["ranks"]


def test_verify_game_confirms_a_finished_game(finished, capsys):
    call_command("verify_game", finished.pk)
    out = capsys.readouterr().out
    assert "OK" in out and str(finished.seed) in out


def test_verify_game_checks_a_downloaded_record(finished, tmp_path, capsys):
    record = client_for(None).get(reverse("table_record", args=[finished.pk])).json()
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    call_command("verify_game", "--file", str(path))
    assert "OK" in capsys.readouterr().out
    record["moves"] = record["moves"][:-1]
    path.write_text(json.dumps(record))
    with pytest.raises(CommandError, match="MISMATCH"):
        call_command("verify_game", "--file", str(path))


def test_verify_game_notices_a_state_that_the_moves_do_not_give(finished):
    Table.objects.filter(pk=finished.pk).update(
        state={**finished.state, "deck": list(reversed(finished.state["deck"])) + [99]}
    )
    with pytest.raises(CommandError, match="MISMATCH"):
        call_command("verify_game", finished.pk)


def test_verify_game_refuses_a_running_game(running_table):
    with pytest.raises(CommandError, match="not finished"):
        call_command("verify_game", running_table.pk)


def test_the_replay_page_costs_a_fixed_number_of_queries(finished, django_assert_max_num_queries):
    client = client_for(None)
    total = finished.moves.count()
    for step in (0, total):
        with django_assert_max_num_queries(REPLAY_QUERIES):
            assert client.get(replay_url(finished, step)).status_code == 200


@pytest.mark.parametrize("rules", playable_games(), ids=lambda rules: rules.slug)
def test_every_game_replays_on_its_own_board_and_rates_every_player(rules):
    users = [UserFactory(password=None) for _ in range(max(rules.min_players, 2))]
    table = play_to_the_end(start_game(*users, game=rules.slug), random.Random(1))
    assert RatingChange.objects.filter(table=table).count() == len(users)
    record = fairness.game_record(table)
    assert fairness.replays_exactly(record)
    state = rules.setup(table.num_seats, table.seed, table.options)
    middle = len(record.moves) // 2
    for move in record.moves[:middle]:
        state = rules.apply(state, move["seat"], move["action"])
    client = client_for(None)
    response = client.get(replay_url(table, middle))
    assert response.status_code == 200
    assert response.context["view"] == rules.view(state, None)
    end = client.get(replay_url(table, len(record.moves)))
    final = rules.from_json(table.state)
    assert end.context["replay"].reveal == [rules.view(final, s) for s in range(len(users))]


@pytest.mark.parametrize("rules", playable_games(), ids=lambda rules: rules.slug)
def test_the_last_step_shows_the_end_once_and_each_hidden_card_once(rules):
    players = max(rules.min_players, min(rules.max_players, 3))  # three where the game allows
    users = [UserFactory(password=None) for _ in range(players)]
    table = play_to_the_end(start_game(*users, game=rules.slug), random.Random(2))
    total = table.moves.count()
    html = client_for(None).get(replay_url(table, total)).content.decode()
    area = html[html.index('id="replay"') :]
    final = rules.from_json(table.state)
    spectator = rules.view(final, None)
    # One board, one result, no seat's whole board repeated (its "game over" line again).
    assert area.count('id="result"') == 1
    assert "reveal-seat" not in area
    hidden = [
        seat
        for seat in range(len(users))
        if replays.hides_something(rules.view(final, seat), spectator)
    ]
    if hidden:
        reveal = area[area.index('id="reveal"') : area.index('aria-label="Game log"')]
        for seat in range(len(users)):
            assert reveal.count(f'data-seat="{seat}"') == 1, seat
    else:
        assert 'id="reveal"' not in area
    if rules.slug == "slide":
        # Every grid face up once, with what it scored; the game is over, said once.
        assert len(re.findall(r'class="sl-final[ "]', area)) == len(users)
        assert html.count("The game is over.") == 1
    if rules.slug == "gnav":
        for seat in hidden:
            card = rules.view(final, seat)["card"]
            assert f"gn-r{card['rank']} " in reveal
