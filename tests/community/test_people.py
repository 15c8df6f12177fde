"""Follows, friends, blocks and reports of players (#27.2), as players use them over HTTP: follow
in one click from a profile or a finished table (at most 400), friends are mutual follows listed
with who is online now, a block's three switches against every path there is (chat lines, joins,
open tables, rematches, lists), and reporting a player hides their lines from the reporter."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from accounts.models import Block, Follow
from accounts.online import online_mark
from accounts.relations import FOLLOW_CAP, contact_barred
from community.models import ChatLine, PlayerReport, Room
from community.services.chat import chat_line_post
from games.models import Seat, Table
from games.services.tables import table_create, table_join
from tests.conftest import client_for
from tests.games.rated_games import play_to_the_end

pytestmark = pytest.mark.django_db
HTMX = {"HTTP_HX_REQUEST": "true"}


def follow(user, target, value="1", **extra):
    url = reverse("player_follow", args=[target.username])
    return client_for(user).post(url, {"follow": value}, **extra)


def block(user, target, *switches, **extra):
    url = reverse("player_block", args=[target.username])
    return client_for(user).post(url, dict.fromkeys(switches, "on"), **extra)


def report(user, target, reason="abuse", details=""):
    url = reverse("player_report", args=[target.username])
    return client_for(user).post(url, {"reason": reason, "details": details}, **HTMX)


def text_of(user, name, *args) -> str:
    return client_for(user).get(reverse(name, args=args)).content.decode()


def open_table(host):
    return table_create(user=host, game="district-noir", num_seats=2, seconds_per_move=86400)


def finished_table(first, second):
    table = open_table(first)
    table_join(table_id=table.pk, user=second)
    return play_to_the_end(table)


ALL = ("hide_lines", "no_games", "no_contact")


# Follows and friends.


def test_a_player_is_followed_in_one_click_from_their_profile(alice, bob):
    profile = text_of(alice, "player_profile", bob.username)
    assert 'name="follow" value="1"' in profile and "Follow" in profile

    answer = follow(alice, bob, **HTMX)
    assert answer.status_code == 200
    assert "Stop following" in answer.content.decode()  # the controls swapped in place
    assert Follow.objects.filter(follower=alice, followed=bob).exists()
    assert "Follows you" in text_of(bob, "player_profile", alice.username)

    follow(alice, bob, "0")
    assert not Follow.objects.exists()
    assert "player_follow" not in text_of(alice, "player_profile", alice.username)  # not oneself


def test_a_player_is_followed_from_a_finished_table(alice, bob):
    table = running = open_table(alice)
    table_join(table_id=running.pk, user=bob)
    assert "The other players" not in text_of(alice, "table_detail", table.pk)  # still running
    play_to_the_end(table)
    page = text_of(alice, "table_detail", table.pk)
    assert "The other players" in page and f"Follow {bob.public_name}" in page

    answer = client_for(alice).post(
        reverse("player_follow", args=[bob.username]), {"follow": "1", "place": "row"}, **HTMX
    )
    assert answer.status_code == 200
    assert f"Stop following {bob.public_name}" in answer.content.decode()
    assert f'id="follow-{bob.pk}"' in answer.content.decode()
    assert Follow.objects.filter(follower=alice, followed=bob).exists()


def test_following_stops_at_the_cap_with_the_reason(alice, bob, make_user):
    Follow.objects.bulk_create(
        Follow(follower=alice, followed=make_user()) for _ in range(FOLLOW_CAP)
    )
    answer = follow(alice, bob, **HTMX)
    assert answer.status_code == 409
    assert f"You follow {FOLLOW_CAP} players already" in answer.content.decode()
    assert Follow.objects.filter(follower=alice).count() == FOLLOW_CAP
    assert not Follow.objects.filter(followed=bob).exists()


def test_friends_are_mutual_follows_listed_with_who_is_online_now(alice, bob, carol, make_user):
    dave = make_user(username="dave")
    for a, b in ((alice, bob), (bob, alice), (alice, carol), (carol, alice), (alice, dave)):
        Follow.objects.create(follower=a, followed=b)
    erin = make_user(username="erin")
    Follow.objects.create(follower=erin, followed=alice)
    online_mark(bob.pk)

    page = text_of(alice, "people")
    friends = page.split('id="friends-title"')[1].split('id="following-title"')[0]
    assert "bob" in friends and "carol" in friends and "dave" not in friends
    assert "1 online now" in friends
    assert friends.index(">bob<") < friends.index(">carol<")  # who is online first
    assert "online now" in friends.split(">bob<")[1].split("</li>")[0]
    assert "online now" not in friends.split(">carol<")[1].split("</li>")[0]
    following = page.split('id="following-title"')[1].split('id="followers-title"')[0]
    assert "dave" in following and "3 of at most 400" in following
    followers = page.split('id="followers-title"')[1].split('id="blocked-title"')[0]
    assert "erin" in followers and "bob" not in followers
    assert f"Follow {erin.public_name}" in followers  # follow back in one click


def test_the_people_page_costs_the_same_queries_however_many_people(alice, make_user):
    client = client_for(alice)

    def count() -> int:
        with CaptureQueriesContext(connection) as queries:
            assert client.get(reverse("people")).status_code == 200
        return len(queries)

    def add(n):
        for _ in range(n):
            friend, fan, blocked = make_user(), make_user(), make_user()
            Follow.objects.bulk_create(
                [
                    Follow(follower=alice, followed=friend),
                    Follow(follower=friend, followed=alice),
                    Follow(follower=fan, followed=alice),
                    Follow(follower=alice, followed=make_user()),
                ]
            )
            Block.objects.create(blocker=alice, blocked=blocked)

    add(1)
    client.get(reverse("people"))
    few = count()
    add(20)
    assert count() == few <= 6


def test_a_profile_with_follow_and_block_costs_a_fixed_number_of_queries(alice, bob, make_user):
    client = client_for(alice)
    url = reverse("player_profile", args=[bob.username])
    client.get(url)
    with CaptureQueriesContext(connection) as few:
        client.get(url)
    Follow.objects.bulk_create(Follow(follower=make_user(), followed=bob) for _ in range(30))
    Follow.objects.create(follower=alice, followed=bob)
    with CaptureQueriesContext(connection) as many:
        client.get(url)
    assert len(many) == len(few)


# Blocks: each switch against each path.


def test_a_block_keeps_its_switches_ends_the_follows_and_is_not_told(alice, bob):
    Follow.objects.create(follower=alice, followed=bob)
    Follow.objects.create(follower=bob, followed=alice)
    answer = block(alice, bob, "hide_lines", "no_contact", **HTMX)
    assert answer.status_code == 200 and "bob is blocked" in answer.content.decode()
    row = Block.objects.get(blocker=alice, blocked=bob)
    assert (row.hide_lines, row.no_games, row.no_contact) == (True, False, True)
    assert not Follow.objects.exists()
    assert (
        "blocked"
        not in text_of(bob, "player_profile", alice.username).lower().split("block or report")[0]
    )  # bob's view of alice says nothing of it

    refused = follow(bob, alice, **HTMX)
    assert refused.status_code == 403 and "You cannot follow this player." in refused.text
    mine = follow(alice, bob, **HTMX)
    assert mine.status_code == 409 and "unblock them" in mine.text
    assert not Follow.objects.exists()

    block(alice, bob)  # every switch off: the block is lifted
    assert not Block.objects.exists()


def test_hidden_lines_vanish_from_the_blocker_s_page_poll_scroll_replay_and_lobby(
    running_table, alice, bob, make_user
):
    carol = make_user(username="carol")
    chat_line_post(table_id=running_table.pk, user=bob, room="players", text="before the block")
    block(alice, bob, "hide_lines")
    chat_line_post(table_id=running_table.pk, user=bob, room="table", text="you are slow")
    chat_line_post(table_id=running_table.pk, user=carol, room="table", text="hello from carol")

    assert "1 new chat line" in text_of(alice, "lobby")  # carol's, not bob's two
    page = text_of(alice, "table_detail", running_table.pk)
    assert "you are slow" not in page and "before the block" not in page
    assert "hello from carol" in page
    assert "you are slow" in text_of(carol, "table_detail", running_table.pk)  # others read it
    assert "you are slow" in text_of(bob, "table_detail", running_table.pk)
    first = ChatLine.objects.order_by("id").first()
    for query in (f"?after={first.pk - 1}", f"?before={first.pk + 100}"):
        url = reverse("chat_lines", args=[running_table.pk, "table"]) + query
        answer = client_for(alice).get(url).content.decode()
        assert "you are slow" not in answer and "hello from carol" in answer

    play_to_the_end(running_table)
    replay = text_of(alice, "table_replay", running_table.pk)
    assert "hello from carol" in replay and "you are slow" not in replay
    assert "before the block" not in replay


def test_no_games_either_way_round_refuses_joins_and_hides_open_tables(alice, bob, carol):
    block(alice, bob, "no_games")
    hers, his = open_table(alice), open_table(bob)

    refused = client_for(bob).post(reverse("table_join", args=[hers.pk]), **HTMX)
    assert refused.status_code == 403 and "This table is not open to you." in refused.text
    assert "blocked" not in refused.text.lower()  # the blocked player is not told
    mine = client_for(alice).post(reverse("table_join", args=[his.pk]), **HTMX)
    assert mine.status_code == 403 and "You blocked a player at this table" in mine.text
    assert not Seat.objects.filter(table=hers, user=bob).exists()
    assert not Seat.objects.filter(table=his, user=alice).exists()
    client_for(bob).get(reverse("table_invite", args=[hers.invite_code]))
    assert not Seat.objects.filter(table=hers, user=bob).exists()

    assert f"/t/{his.pk}/" not in text_of(alice, "lobby")
    assert f"/t/{hers.pk}/" not in text_of(bob, "lobby")
    carol_lobby = text_of(carol, "lobby")
    assert f"/t/{his.pk}/" in carol_lobby and f"/t/{hers.pk}/" in carol_lobby
    assert client_for(carol).post(reverse("table_join", args=[hers.pk])).status_code == 302


def test_a_block_without_no_games_leaves_the_tables_alone(alice, bob):
    block(alice, bob, "hide_lines", "no_contact")
    table = open_table(alice)
    assert f"/t/{table.pk}/" in text_of(bob, "lobby")
    table_join(table_id=table.pk, user=bob)
    assert Table.objects.get(pk=table.pk).is_running


def test_no_games_refuses_the_rematch_that_would_seat_them_together(alice, bob):
    table = finished_table(alice, bob)
    block(bob, alice, "no_games")
    rematch = reverse("table_rematch", args=[table.pk])
    refused = client_for(alice).post(rematch, **HTMX)  # no offer to the player who blocked her
    assert refused.status_code == 403 and "This table is not open to you." in refused.text
    mine = client_for(bob).post(rematch, **HTMX)
    assert mine.status_code == 403 and "You blocked a player at this table" in mine.text
    assert Table.objects.get(pk=table.pk).next_table is None


def test_no_contact_is_the_switch_challenges_and_notifications_ask(alice, bob):
    block(alice, bob, "hide_lines")
    assert not contact_barred(sender_id=bob.pk, receiver_id=alice.pk)
    block(alice, bob, "no_contact")
    assert contact_barred(sender_id=bob.pk, receiver_id=alice.pk)
    assert not contact_barred(sender_id=alice.pk, receiver_id=bob.pk)


def test_a_blocked_player_vanishes_from_the_blocker_s_lists(alice, bob, carol):
    table = finished_table(alice, bob)
    Follow.objects.create(follower=bob, followed=alice)
    block(alice, bob, "hide_lines")
    assert f"Follow {bob.public_name}" not in text_of(alice, "table_detail", table.pk)
    people = text_of(alice, "people")
    listed = people.split('id="blocked-title"')[0]
    assert ">bob<" not in listed  # neither friend, followed nor follower
    assert ">bob<" in people.split('id="blocked-title"')[1]  # listed apart, to unblock
    # Blocked from games by alice, bob no longer sees her at the table either.
    block(alice, bob, "no_games")
    assert f"Follow {alice.public_name}" not in text_of(bob, "table_detail", table.pk)


def test_unblocking_from_the_people_page(alice, bob):
    block(alice, bob, *ALL)
    url = reverse("player_block", args=[bob.username])
    answer = client_for(alice).post(url, {"unblock": "1", "next": reverse("people")})
    assert answer.status_code == 302 and answer.url == reverse("people")
    assert not Block.objects.exists()


# Reports of players.


def test_reporting_a_player_files_it_and_hides_their_lines_at_once(running_table, alice, bob):
    chat_line_post(table_id=running_table.pk, user=bob, room=Room.PLAYERS, text="loser")
    answer = report(alice, bob, "abuse", "  insults   in the chat ")
    assert answer.status_code == 200 and "moderators" in answer.text
    filed = PlayerReport.objects.get()
    assert (filed.reporter, filed.reported, filed.details) == (alice, bob, "insults in the chat")
    row = Block.objects.get(blocker=alice, blocked=bob)
    assert (row.hide_lines, row.no_games, row.no_contact) == (True, False, False)
    assert "loser" not in text_of(alice, "table_detail", running_table.pk)

    block(alice, bob, "no_games")  # a block with lines shown ...
    report(alice, bob, "spam")
    row.refresh_from_db()
    assert (row.hide_lines, row.no_games) == (True, True)  # ... gets them hidden, games kept


def test_a_report_with_a_bad_reason_too_long_oneself_or_too_many_is_refused(alice, bob):
    assert report(alice, bob, "ugly").status_code == 400
    assert report(alice, bob, "abuse", "x" * 501).status_code == 400
    assert report(alice, alice).status_code == 400
    assert not PlayerReport.objects.exists() and not Block.objects.exists()
    for _ in range(10):
        assert report(alice, bob).status_code == 200
    refused = report(alice, bob)
    assert refused.status_code == 409 and "many reports today" in refused.text
    assert PlayerReport.objects.count() == 10


def test_bad_requests_to_follow_and_block_get_a_4xx_and_change_nothing(alice, bob):
    assert follow(alice, bob, "maybe").status_code == 302  # a plain post: back with the message
    assert follow(alice, bob, "maybe", **HTMX).status_code == 400
    assert follow(alice, alice, **HTMX).status_code == 400
    assert block(alice, alice, *ALL, **HTMX).status_code == 400
    missing = reverse("player_follow", args=["nobody-here"])
    assert client_for(alice).post(missing, {"follow": "1"}).status_code == 404
    assert client_for(alice).get(reverse("player_follow", args=[bob.username])).status_code == 405
    anonymous = client_for(None).post(reverse("player_block", args=[bob.username]), {})
    assert anonymous.status_code == 302 and "login" in anonymous.url
    assert client_for(None).get(reverse("people")).status_code == 302
    assert not Follow.objects.exists() and not Block.objects.exists()
