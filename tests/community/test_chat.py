"""The table's chat (#27.1), as players and spectators use it: two rooms, who reads and writes
each, the limits on a line (lichess's), text only, the latest lines with the page and older ones
on scroll, unread lines in the lobby, reports, the creator closing the table's room, and the
replay."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from community.models import ChatLine, ChatReport, Room
from community.services.chat import chat_line_post
from games.errors import GameError
from tests.conftest import client_for
from tests.games.rated_games import play_to_the_end

pytestmark = pytest.mark.django_db


def post(user, table, room, text, htmx=True):
    extra = {"HTTP_HX_REQUEST": "true"} if htmx else {}
    return client_for(user).post(
        reverse("chat_post", args=[table.pk]), {"room": room, "chat_text": text}, **extra
    )


def page(user, table) -> str:
    return client_for(user).get(reverse("table_detail", args=[table.pk])).content.decode()


def test_the_seated_write_in_the_players_room_and_a_spectator_never_reads_it(
    running_table, alice, bob, carol
):
    assert post(alice, running_table, "players", "my plan is secret").status_code == 200

    assert "my plan is secret" in page(bob, running_table)
    assert "my plan is secret" not in page(carol, running_table)
    assert "my plan is secret" not in page(None, running_table)
    lines = reverse("chat_lines", args=[running_table.pk, "players"])
    assert client_for(carol).get(lines).status_code == 403
    assert client_for(None).get(lines).status_code == 403
    view = client_for(carol).get(reverse("table_view_json", args=[running_table.pk]))
    assert "my plan is secret" not in view.content.decode()
    refused = post(carol, running_table, "players", "let me in")
    assert refused.status_code == 403
    assert "Only the players" in refused.content.decode()
    assert not ChatLine.objects.filter(author=carol).exists()


def test_everyone_at_the_table_reads_the_table_s_room_and_the_signed_in_write_there(
    running_table, alice, carol
):
    assert post(carol, running_table, "table", "good luck both").status_code == 200
    assert "good luck both" in page(alice, running_table)
    assert "good luck both" in page(None, running_table)
    anonymous = post(None, running_table, "table", "hello")
    assert anonymous.status_code == 403
    assert "Sign in" in anonymous.content.decode()


def test_the_creator_closes_the_table_s_room_to_spectators(running_table, alice, bob, carol):
    spectators = reverse("chat_spectators", args=[running_table.pk])
    assert client_for(bob).post(spectators, {"closed": "1"}).status_code == 403  # not the creator
    assert post(carol, running_table, "table", "still open").status_code == 200

    assert client_for(alice).post(spectators, {"closed": "1"}).status_code == 302
    refused = post(carol, running_table, "table", "let me talk")
    assert refused.status_code == 403
    assert "closed this room to spectators" in refused.content.decode()
    assert "still open" in page(carol, running_table)  # spectators still read it
    assert post(bob, running_table, "table", "players still write").status_code == 200

    client_for(alice).post(spectators, {"closed": "0"})
    assert post(carol, running_table, "table", "open again").status_code == 200


def test_a_line_has_at_most_500_characters(running_table, alice):
    assert post(alice, running_table, "table", "a" * 500).status_code == 200
    refused = post(alice, running_table, "table", "b" * 501)
    assert refused.status_code == 400
    assert "at most 500 characters" in refused.content.decode()
    assert ChatLine.objects.count() == 1


def test_a_fifth_line_within_ten_seconds_is_refused_and_goes_after_them(running_table, alice):
    for text in ("hello there", "who deals?", "nice cards", "my turn now"):
        assert post(alice, running_table, "table", text).status_code == 200
    refused = post(alice, running_table, "table", "and one more thing")
    assert refused.status_code == 400
    assert "too fast" in refused.content.decode()
    ChatLine.objects.update(
        created_at=ChatLine.objects.first().created_at - dt.timedelta(seconds=11)
    )
    assert post(alice, running_table, "table", "and one more thing").status_code == 200


@pytest.mark.parametrize("again", ["Good game!", "good game", "GOOD  GAME!!", "good gamee"])
def test_a_near_copy_of_one_of_your_last_two_lines_is_refused(running_table, alice, again):
    chat_line_post(table_id=running_table.pk, user=alice, room="table", text="good game")
    chat_line_post(table_id=running_table.pk, user=alice, room="players", text="rematch?")
    refused = post(alice, running_table, "table", again)
    assert refused.status_code == 400
    assert "just written that" in refused.content.decode()


def test_the_third_last_line_may_be_said_again(running_table, alice):
    for text in ("good game", "rematch?", "see you"):
        chat_line_post(table_id=running_table.pk, user=alice, room="table", text=text)
    ChatLine.objects.update(
        created_at=ChatLine.objects.first().created_at - dt.timedelta(seconds=11)
    )
    assert post(alice, running_table, "table", "good game").status_code == 200


def test_a_line_is_text_escaped_everywhere_and_a_link_stays_text(running_table, alice, bob):
    text = '<script>alert("x")</script> <a href="https://evil.example">win</a> https://x.example'
    post(alice, running_table, "players", text)
    html = page(bob, running_table)
    assert "<script>alert" not in html and '<a href="https://evil.example">' not in html
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in html
    assert 'href="https://x.example"' not in html


@pytest.mark.parametrize(
    ("text", "reason"),
    [("", "Write a line"), ("   \n\t ", "Write a line"), ("a\x00b", "NUL")],
)
def test_an_empty_line_or_a_nul_is_refused_with_the_reason(running_table, alice, text, reason):
    refused = post(alice, running_table, "table", text)
    assert refused.status_code == 400
    assert reason in refused.content.decode()
    assert not ChatLine.objects.exists()


def test_a_line_on_another_table_or_in_no_room_is_refused(running_table, alice):
    assert (
        client_for(alice)
        .post(reverse("chat_post", args=[987654]), {"room": "table", "chat_text": "hi"})
        .status_code
        == 404
    )
    assert post(alice, running_table, "kitchen", "hi").status_code == 400
    assert not ChatLine.objects.exists()


def lines_of(table, user, room, count):
    ChatLine.objects.bulk_create(
        ChatLine(table=table, room=room, author=user, text=f"line {n}") for n in range(count)
    )


def test_the_page_brings_the_last_50_lines_and_older_ones_come_50_at_a_time(
    running_table, alice, bob
):
    lines_of(running_table, alice, Room.TABLE, 120)
    html = page(bob, running_table)
    assert "line 119" in html and "line 70" in html and "line 69<" not in html
    older = client_for(bob).get(
        reverse("chat_lines", args=[running_table.pk, "table"]),
        {"before": ChatLine.objects.get(text="line 70").pk},
    )
    body = older.content.decode()
    assert "line 69" in body and "line 20" in body and "line 19<" not in body
    assert "Older lines" in body  # twenty more remain
    oldest = client_for(bob).get(
        reverse("chat_lines", args=[running_table.pk, "table"]),
        {"before": ChatLine.objects.get(text="line 20").pk},
    )
    assert "line 0<" in oldest.content.decode() and "Older lines" not in oldest.content.decode()


def queries_of(call) -> int:
    with CaptureQueriesContext(connection) as queries:
        call()
    return len(queries)


def test_the_chat_costs_the_same_queries_however_long_it_is(running_table, alice, bob):
    lines_of(running_table, alice, Room.TABLE, 5)
    lines_of(running_table, alice, Room.PLAYERS, 5)
    client = client_for(bob)
    url = reverse("table_detail", args=[running_table.pk])
    older = reverse("chat_lines", args=[running_table.pk, "table"])
    client.get(url)  # the first visit writes the seat's presence and the chat's read mark
    short = queries_of(lambda: client.get(url)), queries_of(lambda: client.get(older))
    lines_of(running_table, alice, Room.TABLE, 300)
    lines_of(running_table, alice, Room.PLAYERS, 300)
    long = queries_of(lambda: client.get(url)), queries_of(lambda: client.get(older))
    assert short == long


def test_unread_lines_show_in_the_lobby_until_the_table_is_opened(running_table, alice, bob):
    post(bob, running_table, "players", "your move, friend")
    post(bob, running_table, "table", "hello everyone")
    lobby = client_for(alice).get(reverse("lobby")).content.decode()
    assert "2 new chat lines" in lobby
    assert "new chat line" not in client_for(bob).get(reverse("lobby")).content.decode()
    page(alice, running_table)
    assert "new chat line" not in client_for(alice).get(reverse("lobby")).content.decode()


def test_the_lobby_counts_unread_lines_in_one_query_however_many_tables(
    running_table, alice, bob, make_user
):
    from games.services.tables import table_create, table_join

    def a_table():
        table = table_create(user=alice, game="district-noir", num_seats=2, seconds_per_move=86400)
        table_join(table_id=table.pk, user=make_user())
        return table

    client = client_for(alice)
    post(bob, running_table, "players", "one table")
    client.get(reverse("lobby"))
    few = queries_of(lambda: client.get(reverse("lobby")))
    for text in ("one", "two", "three", "four", "five"):
        post(bob, running_table, "table", text)
        ChatLine.objects.update(
            created_at=ChatLine.objects.first().created_at - dt.timedelta(seconds=11)
        )
        a_table()
    assert queries_of(lambda: client.get(reverse("lobby"))) == few


def test_a_line_can_be_reported_once_but_not_one_s_own(running_table, alice, bob, carol):
    post(alice, running_table, "players", "you play like a bot")
    line = ChatLine.objects.get()
    report = reverse("chat_report", args=[line.pk])
    answer = client_for(bob).post(report, HTTP_HX_REQUEST="true")
    assert answer.status_code == 200 and "moderators" in answer.content.decode()
    client_for(bob).post(report)
    assert ChatReport.objects.filter(line=line, reporter=bob).count() == 1
    assert client_for(alice).post(report).status_code == 400  # one's own line
    assert client_for(carol).post(report).status_code == 404  # a spectator does not read it
    assert client_for(bob).post(reverse("chat_report", args=[987654])).status_code == 404


def test_the_replay_shows_both_rooms_once_the_game_has_ended(running_table, alice, bob, carol):
    chat_line_post(table_id=running_table.pk, user=alice, room="players", text="between us")
    chat_line_post(table_id=running_table.pk, user=carol, room="table", text="nice one")
    table = play_to_the_end(running_table)
    replay = client_for(carol).get(reverse("table_replay", args=[table.pk])).content.decode()
    assert "between us" in replay and "nice one" in replay
    assert "between us" in page(None, table)  # the players' room is everyone's after the end


def test_a_service_refusal_changes_nothing(running_table, carol):
    with pytest.raises(GameError):
        chat_line_post(table_id=running_table.pk, user=carol, room="players", text="hi")
    assert not ChatLine.objects.exists()
