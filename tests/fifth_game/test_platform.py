"""High Card, a game the platform has never heard of, played through the whole site.

It is registered for each test by the ``high_card`` fixture (conftest.py) and lives only in
this folder: if any of these fails, the platform knows the four real games by name somewhere.
"""

from __future__ import annotations

import datetime as dt
import json
import random
import re

import pytest
from asgiref.sync import async_to_sync
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import AnonymousUser
from django.core.management import CommandError, call_command
from django.urls import reverse
from django.utils import timezone

from games.bots.base import BOT_LEVELS
from games.bots.greedy import GreedyBot
from games.bots.ismcts import ISMCTSBot
from games.catalog import Game, get_bot, get_game, playable_games, registered
from games.jobs import sweeps
from games.live.routing import websocket_urlpatterns
from games.models import Move, Rating, RatingChange, Table
from games.rules import get_rules
from games.selectors.replays import state_replay
from games.services.tables import table_create_against_bots
from games.time_controls import DEFAULT_TIME_PER_MOVE
from tests.conftest import client_for, user_at
from tests.fifth_game.conftest import HERE, HIGH_CARD
from tests.fifth_game.high_card import KEEP, SWAP, HighCard
from tests.games.game_contract import check_messages, missing_translations
from tests.games.rated_games import play_to_the_end, start_game

pytestmark = pytest.mark.django_db

SLUG = HighCard.slug
# A card face drawn on a board (card.html): its rank is in the class.
FACE = re.compile(r'class="card hc-card hc-r(\d)"')


def faces(html: str) -> list[int]:
    return [int(rank) for rank in FACE.findall(html)]


def board_of(table: Table, user) -> str:
    return client_for(user).get(reverse("table_detail", args=[table.pk])).content.decode()


def test_it_fulfils_the_platforms_contract(high_card):
    assert get_game(SLUG) is HIGH_CARD
    assert check_messages(deploy=True) == []
    assert missing_translations(HIGH_CARD) == []


def test_registering_it_lasts_one_block_and_no_slug_is_taken_twice():
    assert SLUG not in [rules.slug for rules in playable_games()]
    with registered(Game(HighCard())) as game:
        assert get_rules(SLUG) is game.rules and get_game(SLUG) is game
        with pytest.raises(ValueError, match="registered already"), registered(Game(HighCard())):
            pass
        assert get_game(SLUG) is game, "the refused one hid nothing"
    with pytest.raises(KeyError):
        get_rules(SLUG)
    with pytest.raises(KeyError):
        get_game(SLUG)
    assert len(playable_games()) == 4


def test_the_lobby_lists_it_and_a_table_opens_from_its_form(high_card, alice, bob):
    lobby = client_for(alice).get(reverse("lobby")).content.decode()
    assert 'id="game-high-card"' in lobby and "High Card" in lobby
    page = client_for(None).get(reverse("game_page", args=[SLUG]))
    assert page.status_code == 200
    assert "the higher card wins" in page.content.decode()
    response = client_for(alice).post(
        reverse("table_create"),
        {
            "game": SLUG,
            f"{SLUG}-num_seats": 2,
            f"{SLUG}-seconds_per_move": DEFAULT_TIME_PER_MOVE,
            f"{SLUG}-rated": "on",
        },
    )
    table = Table.objects.get()
    assert response.status_code == 302 and response.url == reverse("table_detail", args=[table.pk])
    assert (table.game, table.is_open) == (SLUG, True)
    join = client_for(bob).post(reverse("table_join", args=[table.pk]))
    assert join.status_code == 302
    table.refresh_from_db()
    assert table.is_running
    page = board_of(table, alice)
    assert "css/games/high-card.css" in page
    assert "High Card" in page and "Keep my card" in page


def test_a_page_in_czech_speaks_czech_for_the_games_own_sentences(high_card, alice, bob):
    table = start_game(alice, bob, game=SLUG)
    alice.language = "cs"
    alice.save()
    page = board_of(table, alice)
    assert "Vyměnit ji za horní kartu balíčku" in page  # the game's own catalogue
    assert "Nechat si kartu" in page  # a sentence it shares with Gnav


@pytest.mark.django_db(transaction=True)
def test_a_move_over_http_and_one_over_the_socket_play_the_game_and_hide_each_card(
    high_card, alice, bob, carol
):
    table = start_game(alice, bob, game=SLUG)
    first, second = user_at(table, 0), user_at(table, 1)
    state = high_card.from_json(table.state)
    # Before anyone moves: each seat sees its own card face up and no other; nobody else any.
    assert faces(board_of(table, first)) == [state.faces[0]]
    assert faces(board_of(table, second)) == [state.faces[1]]
    assert faces(board_of(table, carol)) == [] and faces(board_of(table, None)) == []

    answer = client_for(first).post(
        reverse("table_act", args=[table.pk]),
        {"action": json.dumps(SWAP), "version": table.version},
        HTTP_HX_REQUEST="true",
    )
    assert answer.status_code == 200
    table.refresh_from_db()
    state = high_card.from_json(table.state)
    # The card given up lies face up for all; the card drawn is the swapper's alone.
    assert sorted(faces(answer.content.decode())) == sorted([state.faces[0], state.faces[2]])
    assert faces(board_of(table, carol)) == [state.faces[0]]

    async def over_the_socket() -> tuple[str, str]:
        mover = WebsocketCommunicator(URLRouter(websocket_urlpatterns), f"/ws/t/{table.pk}/")
        mover.scope["user"] = second
        watcher = WebsocketCommunicator(URLRouter(websocket_urlpatterns), f"/ws/t/{table.pk}/")
        watcher.scope["user"] = AnonymousUser()
        assert (await mover.connect())[0] and (await watcher.connect())[0]
        message = {"action": json.dumps(KEEP), "version": str(table.version), "HEADERS": {}}
        await mover.send_to(text_data=json.dumps(message))
        answer = await mover.receive_from(timeout=5)
        pushed = await watcher.receive_from(timeout=5)
        await mover.disconnect()
        await watcher.disconnect()
        return answer, pushed

    answer, pushed = async_to_sync(over_the_socket)()
    table.refresh_from_db()
    assert table.status == Table.Status.FINISHED
    assert [move.by for move in table.moves.order_by("seq")] == [Move.By.PLAYER] * 2
    final = high_card.from_json(table.state)
    shown = sorted(final.faces[card] for card in (*final.hands, *final.discard))
    for frame in (answer, pushed):
        assert f'data-version="{table.version}"' in frame
        assert sorted(faces(frame)) == shown, "the showdown shows every card once"
    outcome = high_card.outcome(final)
    reason = "Equal cards" if outcome.reason == "tie" else "The higher card wins."
    assert reason in pushed and "Result" in pushed


def test_bots_play_it_at_every_level(high_card, alice, django_capture_on_commit_callbacks):
    assert isinstance(get_bot("easy", SLUG), GreedyBot)
    assert isinstance(get_bot("medium", SLUG), GreedyBot)
    assert isinstance(get_bot("hard", SLUG), ISMCTSBot)
    for level in BOT_LEVELS:
        with django_capture_on_commit_callbacks(execute=True):
            response = client_for(alice).post(
                reverse("play_against_bots"), {"game": SLUG, "num_seats": 2, "level": level}
            )
        table = Table.objects.latest("pk")
        assert response.status_code == 302, level
        assert [seat.bot_level for seat in table.seats.order_by("position")] == ["", level]
        with django_capture_on_commit_callbacks(execute=True):
            client_for(alice).post(
                reverse("table_act", args=[table.pk]),
                {"action": json.dumps(KEEP), "version": table.version},
            )
        table.refresh_from_db()
        assert table.status == Table.Status.FINISHED, level
        bot_move = table.moves.get(position=1)
        assert bot_move.by == Move.By.BOT and bot_move.action in (KEEP, SWAP)
        assert high_card.to_json(state_replay(table)) == table.state


def test_a_medium_bot_keeps_a_high_card_and_swaps_a_low_one(high_card):
    bot = get_bot("medium", SLUG)
    for seed in range(20):
        state = high_card.setup(2, seed)
        view = high_card.view(state, 0)
        choice = bot.choose(view, view["legal_actions"], random.Random(0))
        assert choice == (KEEP if state.faces[0] >= 4 else SWAP), state.faces[0]


def test_the_deadline_sweep_plays_for_a_seat_out_of_time(high_card, alice, bob):
    table = table_create_against_bots(
        user=alice, game=SLUG, num_seats=2, level="medium", seconds_per_move=DEFAULT_TIME_PER_MOVE
    )
    assert table.is_running and table.seats.get(position=0).is_waiting
    later = timezone.now() + dt.timedelta(seconds=DEFAULT_TIME_PER_MOVE + 1)
    assert sweeps.sweep_deadlines(later) >= 1
    table.refresh_from_db()
    timed_out = table.moves.get(position=0)
    assert timed_out.by == Move.By.TIMEOUT
    assert table.seats.get(position=0).timeouts == 1
    assert high_card.to_json(state_replay(table)) == table.state


def test_a_finished_game_replays_step_by_step_and_its_record_verifies(
    high_card, alice, bob, tmp_path
):
    table = play_to_the_end(start_game(alice, bob, game=SLUG), random.Random(4))
    total = table.moves.count()
    assert total == 2
    client = client_for(None)
    steps = [client.get(reverse("table_replay", args=[table.pk]), {"step": n}) for n in (0, 1, 2)]
    assert [step.status_code for step in steps] == [200, 200, 200]
    final = high_card.from_json(table.state)
    assert faces(steps[0].content.decode()) == [], "a spectator saw no card at the deal"
    end = steps[2].content.decode()
    assert sorted(faces(end[: end.index('id="result"')])) == sorted(
        final.faces[card] for card in (*final.hands, *final.discard)
    )
    record = client.get(reverse("table_record", args=[table.pk]))
    assert record.status_code == 200
    path = tmp_path / "record.json"
    path.write_bytes(record.content)
    call_command("verify_game", "--file", str(path))
    tampered = json.loads(record.content)
    tampered["moves"][0]["action"] = SWAP if tampered["moves"][0]["action"] == KEEP else KEEP
    path.write_text(json.dumps(tampered))
    with pytest.raises(CommandError, match="MISMATCH"):
        call_command("verify_game", "--file", str(path))


def test_a_rated_game_moves_both_ratings_and_the_leaderboard_lists_them(high_card, alice, bob):
    for seed in range(20):  # equal cards share first place: play until one card wins
        table = play_to_the_end(start_game(alice, bob, game=SLUG), random.Random(seed))
        if table.outcome["ranks"] != [0, 0]:
            break
    assert RatingChange.objects.filter(table=table).count() == 2
    winner = user_at(table, table.outcome["ranks"].index(0))
    loser = user_at(table, table.outcome["ranks"].index(1))
    ratings = {r.user_id: r for r in Rating.objects.filter(game=SLUG)}
    assert ratings[winner.pk].mu > ratings[loser.pk].mu
    board = client_for(None).get(reverse("leaderboard", args=[SLUG]))
    assert board.status_code == 200
    listed = [r.user.username for r in board.context["board"].provisional.object_list]
    assert listed == [winner.username, loser.username]


def test_every_sentence_of_its_templates_is_marked_for_translation():
    from tests.support.translations import unmarked_words

    folder = HERE / "templates" / "games" / SLUG
    for path in sorted(folder.glob("*.html")):
        assert unmarked_words(path.read_text()) == [], path.name
