"""Moderation (#27.7), as a moderator works in Django's admin: the reports wait in a queue (a
reported line with the lines around it), each action asks why, and is logged with who and why;
a hidden line leaves every page; a muted player reads why and until when; a disabled account's
open tables close, a bot takes its seats in running games, it leaves the leaderboards and cannot
sign in again."""

from __future__ import annotations

import datetime as dt
from importlib import import_module

import pytest
from django.contrib.auth.models import Group, Permission
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from community.models import ChatLine, ChatReport, ModerationAction, PlayerReport
from community.services.chat import chat_line_post, chat_line_report
from community.services.people import player_report
from games.models import Seat, Table
from games.services.tables import table_create, table_join
from tests.conftest import client_for
from tests.games.rated_games import finished_game

PERMISSIONS = import_module("community.migrations.0007_moderators_group").PERMISSIONS

# Real commits: a bot takes a disabled player's seat after them.
pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def moderator(make_user) -> User:
    """A member of the group the migration makes (a transactional test's flush empties the
    tables, so it is made again as the migration makes it)."""
    group, _ = Group.objects.get_or_create(name="moderators")
    group.permissions.add(
        *Permission.objects.filter(content_type__app_label="community", codename__in=PERMISSIONS)
    )
    user = make_user(username="mo", is_staff=True)
    user.groups.add(group)
    return user


def act(moderator: User, model: str, kind: str, reports: list, reason: str | None):
    """The admin's action on these reports: first the page that asks why, then (with a reason)
    the action itself."""
    url = reverse(f"admin:community_{model}_changelist")
    fields = {"action": f"moderate_{kind}", "_selected_action": [r.pk for r in reports]}
    if reason is not None:
        fields |= {"apply": "1", "reason": reason}
    return client_for(moderator).post(url, fields)


def chat_page(user, table) -> str:
    return client_for(user).get(reverse("table_detail", args=[table.pk])).text


def test_a_reported_line_is_read_in_its_place_then_hidden_with_a_reason(
    running_table, moderator, alice, bob, carol
):
    for n in range(3):
        chat_line_post(table_id=running_table.pk, user=alice, room="table", text=f"before {n}")
    bad = chat_line_post(table_id=running_table.pk, user=bob, room="table", text="@alice you fool")
    chat_line_post(table_id=running_table.pk, user=alice, room="table", text="after")
    report = chat_line_report(line_id=bad.pk, user=carol)
    queue = client_for(moderator).get(reverse("admin:community_chatreport_changelist"))
    assert queue.status_code == 200 and "you fool" in queue.text
    detail = (
        client_for(moderator)
        .get(reverse("admin:community_chatreport_change", args=[report.pk]))
        .text
    )
    assert all(text in detail for text in ("before 0", "before 2", "you fool", "after"))

    asked = act(moderator, "chatreport", "hide_line", [report], None)
    assert asked.status_code == 200 and 'name="reason"' in asked.text
    refused = act(moderator, "chatreport", "hide_line", [report], "   ")
    assert "Say why" in refused.text
    assert (
        ChatLine.objects.get(pk=bad.pk).hidden_at is None and not ModerationAction.objects.exists()
    )

    done = act(moderator, "chatreport", "hide_line", [report], "an insult")
    assert done.status_code == 302
    # The mention that quoted it no longer does.
    assert "you fool" not in client_for(alice).get(reverse("notifications")).text
    assert ChatLine.objects.get(pk=bad.pk).hidden_at is not None
    assert "you fool" not in chat_page(alice, running_table) and "after" in chat_page(
        alice, running_table
    )
    report.refresh_from_db()
    assert report.handled_at is not None
    (logged,) = ModerationAction.objects.all()
    assert (logged.moderator, logged.kind, logged.player, logged.line_id, logged.reason) == (
        moderator,
        "hide_line",
        bob,
        bad.pk,
        "an insult",
    )


def test_a_muted_player_reads_why_and_until_when(running_table, moderator, alice, bob):
    report = player_report(user=alice, target=bob, reason="abuse", details="")
    act(moderator, "playerreport", "mute_15m", [report], "calm down")
    bob.refresh_from_db()
    assert bob.muted_until > timezone.now() + dt.timedelta(minutes=14)
    answer = client_for(bob).post(
        reverse("chat_post", args=[running_table.pk]), {"room": "table", "chat_text": "hey"}
    )
    assert answer.status_code == 403
    assert "A moderator muted you until" in answer.text and "calm down" in answer.text
    assert not ChatLine.objects.filter(author=bob).exists()
    User.objects.filter(pk=bob.pk).update(muted_until=timezone.now() - dt.timedelta(seconds=1))
    ok = client_for(bob).post(
        reverse("chat_post", args=[running_table.pk]), {"room": "table", "chat_text": "sorry"}
    )
    assert ok.status_code == 302 and ChatLine.objects.filter(author=bob).count() == 1

    report = player_report(user=alice, target=bob, reason="abuse", details="again")
    act(moderator, "playerreport", "mute_forever", [report], "enough")
    answer = client_for(bob).post(
        reverse("chat_post", args=[running_table.pk]), {"room": "table", "chat_text": "hey"}
    )
    assert "A moderator muted you for good: enough" in answer.text
    assert list(ModerationAction.objects.order_by("id").values_list("kind", flat=True)) == [
        "mute_15m",
        "mute_forever",
    ]


def test_a_disabled_account_leaves_its_tables_to_bots_and_cannot_sign_in(
    moderator, alice, bob, carol
):
    finished_game(bob, alice)  # bob has a rating
    running = table_create(user=alice, game="district-noir", num_seats=2, seconds_per_move=86400)
    table_join(table_id=running.pk, user=bob)
    own = table_create(user=bob, game="slide", num_seats=3, seconds_per_move=86400)
    theirs = table_create(user=carol, game="slide", num_seats=3, seconds_per_move=86400)
    table_join(table_id=theirs.pk, user=bob)
    bob_browser = client_for(bob)
    report = player_report(user=alice, target=bob, reason="cheating", details="")

    act(moderator, "playerreport", "disable", [report], "a second account")
    bob.refresh_from_db()
    assert not bob.is_active
    assert Table.objects.get(pk=own.pk).status == Table.Status.ABORTED
    assert not Seat.objects.filter(table=theirs, user=bob).exists()
    seat = Seat.objects.get(table=running, user=bob)
    assert seat.replaced_by_bot
    # The bot plays bob's turns now (at once if it was his): the game waits for alice alone.
    assert not Seat.objects.get(table=running, user=bob).is_waiting
    board = client_for(None).get(reverse("leaderboard", args=["district-noir"])).text
    assert ">bob<" not in board and "alice" in board
    assert not client_for(None).login(username="bob", password="correct horse battery staple")
    assert bob_browser.get(reverse("notifications")).status_code == 302  # signed out
    assert PlayerReport.objects.get(pk=report.pk).handled_at is not None
    assert ModerationAction.objects.get().reason == "a second account"


def test_only_a_moderator_can_act_and_a_report_can_be_dismissed(make_user, moderator, alice, bob):
    staff = make_user(username="staff", is_staff=True)
    report = player_report(user=alice, target=bob, reason="abuse", details="")
    act(staff, "playerreport", "mute_day", [report], "no")
    bob.refresh_from_db()
    assert bob.muted_until is None and not ModerationAction.objects.exists()
    act(moderator, "playerreport", "dismiss", [report], "nothing wrong")
    assert PlayerReport.objects.get(pk=report.pk).handled_at is not None
    assert ModerationAction.objects.get().kind == "dismiss"
    assert ChatReport.objects.count() == 0


def test_a_hidden_line_leaves_the_open_pages_at_once(running_table, moderator, alice, bob):
    from asgiref.sync import async_to_sync
    from channels.db import database_sync_to_async
    from channels.routing import URLRouter
    from channels.testing import WebsocketCommunicator

    from community.services.moderation import line_hide
    from games.live.routing import websocket_urlpatterns

    line = chat_line_post(table_id=running_table.pk, user=bob, room="players", text="rude")

    async def scenario() -> str:
        socket = WebsocketCommunicator(
            URLRouter(websocket_urlpatterns), f"/ws/t/{running_table.pk}/"
        )
        socket.scope["user"] = alice
        assert (await socket.connect())[0]
        await database_sync_to_async(line_hide)(moderator=moderator, line_id=line.pk, reason="rude")
        frame = await socket.receive_from(timeout=5)
        await socket.disconnect()
        return frame

    assert async_to_sync(scenario)() == f'<li id="chat-line-{line.pk}" hx-swap-oob="delete"></li>'
