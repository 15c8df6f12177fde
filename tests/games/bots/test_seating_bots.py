"""Bots in seats: added by the table's creator, or every other seat in one click."""

from __future__ import annotations

import random

import pytest
from django.urls import reverse

from games.errors import Conflict, Forbidden, GameError
from games.models import Move, Table
from games.rules import get_rules
from games.selectors.replays import state_replay
from games.services.moves import move_play
from games.services.tables import table_create, table_create_against_bots, table_seat_bot
from tests.conftest import client_for

pytestmark = pytest.mark.django_db


def test_the_creator_fills_a_seat_with_a_bot_and_the_game_starts(alice, bob):
    table = table_create(user=alice, game="district-noir", num_seats=2, seconds_per_move=86400)
    with pytest.raises(Forbidden):
        table_seat_bot(table_id=table.pk, user=bob, level="easy")
    with pytest.raises(GameError):
        table_seat_bot(table_id=table.pk, user=alice, level="genius")
    response = client_for(alice).post(reverse("table_seat_bot", args=[table.pk]), {"level": "hard"})
    assert response.status_code == 302
    table.refresh_from_db()
    assert table.status == Table.Status.RUNNING
    bot = table.seats.get(position=1)
    assert (bot.user, bot.bot_level) == (None, "hard")
    with pytest.raises(Conflict):
        table_seat_bot(table_id=table.pk, user=alice, level="easy")


def _play_human_until_the_end(table: Table, capture, rng: random.Random) -> Table:
    rules = get_rules(table.game)
    human = table.seats.get(position=0)
    for _ in range(2000):
        table.refresh_from_db()
        if not table.is_running:
            return table
        state = rules.from_json(table.state)
        assert rules.waiting_seats(state) == [0], "the bots should have played already"
        action = rng.choice(rules.legal_actions(state, 0))
        with capture(execute=True):
            move_play(table_id=table.pk, user=human.user, action=action, version=None)
    raise AssertionError("the game did not end")


def test_play_gnav_against_three_bots_in_one_click(alice, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = client_for(alice).post(
            reverse("play_against_bots"), {"game": "gnav", "num_seats": 4, "level": "medium"}
        )
    table = Table.objects.get()
    assert response.status_code == 302 and response.url == reverse("table_detail", args=[table.pk])
    assert table.status == Table.Status.RUNNING
    assert [s.bot_level for s in table.seats.all()] == ["", "medium", "medium", "medium"]
    table = _play_human_until_the_end(table, django_capture_on_commit_callbacks, random.Random(2))
    assert table.status == Table.Status.FINISHED
    assert Move.objects.filter(table=table, by=Move.By.BOT).exists()
    rules = get_rules("gnav")
    assert rules.to_json(state_replay(table)) == table.state
    assert table.seats.get(position=0).rank is not None


def test_the_lobby_offers_each_game_against_bots(alice):
    page = client_for(alice).get(reverse("lobby")).content.decode()
    assert reverse("play_against_bots") in page
    assert "Play against 1 bot" in page
    # What each level is, next to the choice of level, in the player's language.
    assert "hard ones think ahead" in page
    czech = client_for(alice).get(reverse("lobby"), HTTP_ACCEPT_LANGUAGE="cs").content.decode()
    assert "těžcí přemýšlejí dopředu" in czech


def test_a_bad_bot_table_request_is_refused_with_a_message(alice):
    response = client_for(alice).post(
        reverse("play_against_bots"), {"game": "district-noir", "num_seats": 5, "level": "easy"}
    )
    assert response.status_code == 400
    assert b"cannot be played with that many players" in response.content
    assert not Table.objects.exists()


def test_a_bot_receives_its_seats_view_and_nothing_else(alice, monkeypatch):
    from games.bots import RandomBot
    from games.services import bot_moves

    received = []

    class RecordingBot(RandomBot):
        def choose(self, view, legal_actions, rng):
            received.append((view, legal_actions))
            return super().choose(view, legal_actions, rng)

    monkeypatch.setattr(bot_moves, "get_bot", lambda level, game=None: RecordingBot())
    table = table_create_against_bots(
        user=alice, game="gnav", num_seats=4, level="medium", seconds_per_move=86400
    )
    rules = get_rules("gnav")
    for _ in range(40):
        table.refresh_from_db()
        if not table.is_running:
            break
        state = rules.from_json(table.state)
        seat = table.seats.get(is_waiting=True)
        if seat.position == 0:
            move_play(table_id=table.pk, user=alice, action={"type": "keep"}, version=None)
            continue
        bot_moves.bot_turn_play(table_id=table.pk, version=table.version)
        view, legal = received[-1]
        assert view == rules.view(state, seat.position)
        assert legal == rules.legal_actions(state, seat.position)
    assert len(received) > 5


def test_a_lost_bot_turn_is_rescued_by_the_deadline_sweep(
    alice, settings, monkeypatch, django_capture_on_commit_callbacks
):
    """With the broker down the bot's turn cannot be queued; the move still lands, and the
    bot's short deadline lets the next sweep play it."""
    import datetime as dt

    from django.utils import timezone

    from games.jobs import sweeps, tasks

    settings.TASKS_MODE = "celery"

    def broker_down(*args, **kwargs):
        raise ConnectionError("Redis is down")

    monkeypatch.setattr(tasks.play_bot_turn, "apply_async", broker_down)
    table = table_create(user=alice, game="district-noir", num_seats=2, seconds_per_move=86400)
    table_seat_bot(table_id=table.pk, user=alice, level="easy")
    table.refresh_from_db()
    rules = get_rules("district-noir")
    if table.seats.get(is_waiting=True).position == 0:
        state = rules.from_json(table.state)
        move_play(
            table_id=table.pk, user=alice, action=rules.legal_actions(state, 0)[0], version=None
        )
    bot = table.seats.get(position=1)
    assert bot.is_waiting
    rescue = dt.timedelta(seconds=settings.BOT_RESCUE_SECONDS)
    assert rescue <= dt.timedelta(seconds=15)  # seconds after the broker answers, not minutes
    assert bot.deadline <= timezone.now() + rescue
    assert sweeps.sweep_deadlines(timezone.now()) == 0  # not yet: its task may only be late
    assert sweeps.sweep_deadlines(timezone.now() + rescue) == 1
    assert Move.objects.filter(table=table, position=1, by=Move.By.BOT).count() == 1
