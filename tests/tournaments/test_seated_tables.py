"""What tournaments ask of games (#29.3): a table seated for a pairing and started at once; a
game played out when a round's window closes (the seats to move lose on time, the state stays
the replay of its moves); a withdrawn player's seat handed to a bot; and a closed account's way
out of its tournaments, with its tournaments in its data."""

from __future__ import annotations

import datetime as dt
import random

import pytest
from django.urls import reverse
from django.utils import timezone

from accounts.closing import account_close
from accounts.export import account_export
from games.errors import GameError
from games.models import Move, Table
from games.rules import get_rules
from games.selectors.replays import state_replay
from games.services.bot_moves import bot_turn_play, seat_hand_to_bot, table_play_out
from games.services.tables import table_create_seated
from tests.conftest import client_for, play_random_moves
from tests.support.page_queries import TABLE_PAGE_QUERIES
from tournaments.models import Entry, Tournament
from tournaments.services.entries import TournamentSettings, tournament_create, tournament_join
from tournaments.services.rounds import sweep_tournaments

pytestmark = pytest.mark.django_db


def test_a_seated_table_starts_at_once_with_its_players_in_order(make_user):
    players = [make_user(username=name) for name in ("una", "vic", "wes")]
    table = table_create_seated(users=players, game="slide", seconds_per_move=86400, rated=True)
    table.refresh_from_db()
    assert table.status == Table.Status.RUNNING and table.rated
    seats = list(table.seats.order_by("position"))
    assert [s.user_id for s in seats] == [p.pk for p in players]
    assert any(s.is_waiting and s.deadline is not None for s in seats)


def test_a_seated_table_refuses_a_player_twice_and_impossible_settings(make_user):
    una, vic = make_user(username="una"), make_user(username="vic")
    with pytest.raises(GameError) as twice:
        table_create_seated(users=[una, una], game="district-noir", seconds_per_move=86400)
    assert twice.value.status == 400 and twice.value.message
    with pytest.raises(GameError):
        table_create_seated(users=[una, vic], game="gnav", seconds_per_move=86400)
    assert not Table.objects.exists()


def test_playing_out_a_game_makes_the_seat_to_move_lose_and_keeps_the_replay(make_user):
    una, vic = make_user(username="una"), make_user(username="vic")
    table = table_create_seated(users=[una, vic], game="district-noir", seconds_per_move=86400)
    table = play_random_moves(table, 3, random.Random(2), keep_running=True)
    rules = get_rules("district-noir")
    to_move = rules.active_seats(rules.from_json(table.state))[0]
    assert table_play_out(table_id=table.pk) is True
    table.refresh_from_db()
    assert table.status == Table.Status.FINISHED
    ranks = table.outcome["ranks"]
    assert ranks[to_move] == 1 and ranks[1 - to_move] == 0
    loser = table.seats.get(position=to_move)
    assert loser.replaced_by_bot and loser.timeouts == 1
    assert not table.seats.get(position=1 - to_move).replaced_by_bot
    assert rules.to_json(state_replay(table)) == table.state
    bys = set(table.moves.filter(seq__gt=3).values_list("position", "by"))
    assert (to_move, Move.By.TIMEOUT) in bys
    assert table_play_out(table_id=table.pk) is True  # again: nothing more
    assert Table.objects.get(pk=table.pk).moves_played == table.moves_played


def test_a_seat_handed_to_a_bot_loses_the_game_and_the_bot_plays_it(make_user):
    una, vic = make_user(username="una"), make_user(username="vic")
    table = table_create_seated(users=[una, vic], game="district-noir", seconds_per_move=86400)
    assert seat_hand_to_bot(table_id=table.pk, user_id=una.pk) is True
    assert seat_hand_to_bot(table_id=table.pk, user_id=una.pk) is False
    rng = random.Random(3)
    for _move in range(500):
        table.refresh_from_db()
        if not table.is_running:
            break
        if table.seats.get(position=0).is_waiting:
            bot_turn_play(table_id=table.pk, version=table.version)
        else:
            play_random_moves(table, 1, rng)
    assert table.status == Table.Status.FINISHED
    assert table.moves.filter(position=0, by=Move.By.BOT).exists()
    assert table.outcome["ranks"][0] == 1  # una's seat, played by the bot, is last


def _running_swiss(make_user, count: int = 4) -> tuple[Tournament, list]:
    players = [make_user(username=f"entrant{k}") for k in range(count)]
    start = timezone.now() + dt.timedelta(hours=1)
    tournament = tournament_create(
        user=players[0],
        chosen=TournamentSettings(
            name="Winter Swiss",
            game="district-noir",
            format="swiss",
            table_size=2,
            seconds_per_move=86400,
            starts_at=start,
            min_players=count,
            max_players=16,
            rounds=3,
        ),
    )
    for player in players:
        tournament_join(tournament_id=tournament.pk, user=player)
    sweep_tournaments(now=start + dt.timedelta(minutes=1))
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.RUNNING
    return tournament, players


def test_a_closed_account_withdraws_and_its_running_game_goes_to_a_bot(make_user):
    tournament, players = _running_swiss(make_user)
    leaving = players[1]
    table = Table.objects.get(tournament_pairing__round__tournament=tournament, seats__user=leaving)
    account_close(user=leaving)
    entry = Entry.objects.get(tournament=tournament, user=leaving)
    assert entry.withdrawn_at is not None
    assert table.seats.get(user=leaving).replaced_by_bot


def test_a_closed_account_leaves_a_tournament_not_started(make_user):
    una = make_user(username="una")
    start = timezone.now() + dt.timedelta(days=1)
    tournament = tournament_create(
        user=una,
        chosen=TournamentSettings(
            name="Later",
            game="district-noir",
            format="swiss",
            table_size=2,
            seconds_per_move=86400,
            starts_at=start,
            min_players=2,
            max_players=8,
            rounds=2,
        ),
    )
    tournament_join(tournament_id=tournament.pk, user=una)
    account_close(user=una)
    assert not Entry.objects.filter(tournament=tournament).exists()


def test_the_data_export_holds_the_players_tournaments_and_results(
    make_user, django_capture_on_commit_callbacks
):
    tournament, _players = _running_swiss(make_user)
    table = Table.objects.filter(tournament_pairing__round__tournament=tournament).first()
    with django_capture_on_commit_callbacks(execute=True):
        table = play_random_moves(table, 500, random.Random(4))
    assert table.status == Table.Status.FINISHED, table.status
    seated = table.seats.first().user
    data = account_export(user=seated)["tournaments"]
    [entry] = data["entries"]
    assert entry["name"] == "Winter Swiss" and entry["tournament"] == tournament.pk
    [result] = [r for r in entry["results"] if r["table"] == table.pk]
    assert result["place"] in (1, 2) and result["points"] in (0.0, 0.5, 1.0)


def test_a_tournament_table_names_its_tournament_and_round(
    make_user, django_assert_max_num_queries
):
    tournament, players = _running_swiss(make_user)
    table = Table.objects.filter(tournament_pairing__round__tournament=tournament).first()
    seated = table.seats.first().user
    client = client_for(seated)
    client.get(reverse("table_detail", args=[table.pk]))  # the session's first read
    with django_assert_max_num_queries(TABLE_PAGE_QUERIES):
        page = client.get(reverse("table_detail", args=[table.pk]))
    html = page.content.decode()
    assert reverse("tournament_page", args=[tournament.pk]) in html
    assert "Winter Swiss: round 1" in html
    lobby_table = table_create_seated(
        users=players[:2], game="district-noir", seconds_per_move=86400
    )
    assert (
        "Winter Swiss"
        not in client.get(reverse("table_detail", args=[lobby_table.pk])).content.decode()
    )
