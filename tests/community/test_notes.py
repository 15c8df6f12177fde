"""Notifications (#27.5), as players meet them: each kind made where it happens, the bell's count
kept with the rows, read at the table or in the list, each kind on or off for the site and
e-mail, one e-mail of what waited unread, and nothing from a player one blocked."""

from __future__ import annotations

import datetime as dt

import pytest
from django.core import mail
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from accounts.notify import NoteKind
from community.models import Notification
from community.services.chat import chat_line_post, chat_read_mark
from community.services.notes import NOTE_MAIL_DELAY, sweep_note_mails
from community.services.people import block_set, follow_add, follow_remove
from games.jobs import sweeps
from games.models import Seat
from games.services.tables import table_create, table_join, table_rematch
from tests.conftest import client_for, play_a_legal_move, user_at
from tests.factories import UserFactory
from tests.games.rated_games import finished_game

# Real commits: the notifications of a turn, a game's end and a rematch follow games' events.
pytestmark = pytest.mark.django_db(transaction=True)


def send(sender: User, receiver: User) -> None:
    """A challenge to District Noir, sent from the receiver's challenge page."""
    fields = {
        "game": "district-noir",
        "district-noir-num_seats": "2",
        "district-noir-seconds_per_move": "86400",
    }
    sent = client_for(sender).post(reverse("challenge_new", args=[receiver.username]), fields)
    assert sent.status_code == 302


def answer(user: User, challenge, verb: str, **fields) -> None:
    client_for(user).post(reverse(f"challenge_{verb}", args=[challenge.pk]), fields)


def kinds(user: User) -> list[str]:
    """What the bell shows the player, but the "your turn" of the games under way."""
    return list(
        Notification.objects.filter(user=user, shown=True)
        .exclude(kind=NoteKind.TURN)
        .order_by("id")
        .values_list("kind", flat=True)
    )


def unread(user: User) -> int:
    user.refresh_from_db()
    count = Notification.objects.filter(user=user, shown=True, read_at__isnull=True).count()
    assert user.notes_unread == count  # the header's count is the rows'
    return count


def bell(user: User) -> str:
    page = client_for(user).get(reverse("lobby")).text
    start = page.index('id="bell"')
    return page[start : page.index("</a>", start)]


def test_a_challenge_accepted_and_one_declined_are_told_to_each_side(alice, bob, carol):
    send(alice, bob)
    assert kinds(bob) == [NoteKind.CHALLENGE] and unread(bob) == 1
    assert "Notifications: 1 unread" in bell(bob) and 'class="bell-count"' in bell(bob)
    assert 'class="bell-count"' not in bell(alice)
    listed = client_for(bob).get(reverse("notifications")).text
    assert "alice challenges you to District Noir" in listed
    challenge = Notification.objects.get(user=bob).challenge
    answer(bob, challenge, "accept")
    challenge.refresh_from_db()
    assert kinds(alice) == [NoteKind.CHALLENGE_ACCEPTED]
    assert not Notification.objects.filter(  # answered: no longer news
        user=bob, kind=NoteKind.CHALLENGE, read_at__isnull=True
    ).exists()
    note = Notification.objects.get(user=alice, kind=NoteKind.CHALLENGE_ACCEPTED)
    opened = client_for(alice).get(reverse("notification_open", args=[note.pk]))
    assert opened.status_code == 302
    assert opened.url == reverse("table_detail", args=[challenge.table_id])
    assert not Notification.objects.filter(user=alice, pk=note.pk, read_at__isnull=True).exists()

    send(alice, carol)
    challenge = Notification.objects.get(user=carol).challenge
    answer(carol, challenge, "decline", reason="later")
    assert kinds(alice)[-1] == NoteKind.CHALLENGE_DECLINED
    listed = client_for(alice).get(reverse("notifications")).text
    assert "carol declined your challenge to District Noir: Not now: ask me later" in listed


def test_a_new_follower_is_told_once_a_day_however_often_they_follow(alice, bob):
    follow_add(user=alice, target=bob)
    follow_remove(user=alice, target=bob)
    follow_add(user=alice, target=bob)
    assert kinds(bob) == [NoteKind.FOLLOWER] and unread(bob) == 1
    note = Notification.objects.get(user=bob)
    opened = client_for(bob).get(reverse("notification_open", args=[note.pk]))
    assert opened.url == reverse("player_profile", args=["alice"])


def test_a_name_in_the_chat_tells_a_seated_player_not_a_stranger(running_table, alice, bob, carol):
    chat_line_post(table_id=running_table.pk, user=alice, room="table", text="@Bob @carol look")
    assert kinds(bob) == [NoteKind.MENTION] and kinds(carol) == []  # carol is not seated here
    assert (
        "alice wrote to you at District Noir" in client_for(bob).get(reverse("notifications")).text
    )
    chat_line_post(table_id=running_table.pk, user=alice, room="players", text="mail@bob.cz")
    assert kinds(bob) == [NoteKind.MENTION]  # an address is not a name
    block_set(user=bob, target=alice, hide_lines=True, no_games=False, no_contact=False)
    assert not Notification.objects.filter(user=bob, actor=alice, read_at__isnull=True).exists()
    unread(bob)  # what the blocked player caused is gone from the bell
    assert "alice" not in client_for(bob).get(reverse("notifications")).text.split("<main", 1)[1]
    chat_line_post(table_id=running_table.pk, user=alice, room="table", text="@bob again")
    assert kinds(bob) == [NoteKind.MENTION]


def test_no_contact_means_no_notification_of_any_kind_from_them(running_table, alice, bob):
    block_set(user=bob, target=alice, hide_lines=False, no_games=False, no_contact=True)
    chat_line_post(table_id=running_table.pk, user=alice, room="table", text="@bob hello")
    assert not Notification.objects.filter(user=bob, actor=alice).exists()


def test_your_turn_is_one_row_per_table_read_when_the_player_moves_or_looks(running_table):
    first = user_at(running_table, 0)
    second = user_at(running_table, 1)
    waiting = Seat.objects.get(table=running_table, is_waiting=True).user
    turn = Notification.objects.filter(user=waiting, kind=NoteKind.TURN)
    assert turn.count() == 1  # the game started: their turn
    play_a_legal_move(running_table)
    play_a_legal_move(running_table)
    for player in (first, second):
        turns = Notification.objects.filter(user=player, kind=NoteKind.TURN, read_at__isnull=True)
        seat = Seat.objects.get(table=running_table, user=player)
        assert turns.count() == (1 if seat.is_waiting else 0)  # the mover's is read
    now_waiting = Seat.objects.get(table=running_table, is_waiting=True).user
    assert unread(now_waiting) == 1
    client_for(now_waiting).get(reverse("table_detail", args=[running_table.pk]))
    assert unread(now_waiting) == 0  # opened the table: read


def test_a_turn_read_in_the_bell_spares_its_email_and_a_player_looking_is_not_told(
    running_table,
):
    seat = Seat.objects.select_related("user").get(table=running_table, is_waiting=True)
    note = Notification.objects.get(user=seat.user, kind=NoteKind.TURN)
    client_for(seat.user).get(reverse("notification_open", args=[note.pk]))
    sweeps.sweep_reminders(timezone.now() + dt.timedelta(days=2))
    assert all("waiting for your move" not in m.subject for m in mail.outbox)

    # The opponent has the table open when their turn comes: the board tells them.
    other = Seat.objects.get(table=running_table, is_waiting=False)
    client_for(other.user).get(reverse("table_detail", args=[running_table.pk]))
    before = Notification.objects.filter(user=other.user).count()
    play_a_legal_move(running_table)
    assert Notification.objects.filter(user=other.user).count() == before


def test_game_end_and_rematch_are_told_to_the_players_away(alice, bob):
    table = finished_game(alice, bob)
    assert NoteKind.GAME_ENDED in kinds(alice) and NoteKind.GAME_ENDED in kinds(bob)
    assert not Notification.objects.filter(kind=NoteKind.TURN, read_at__isnull=True).exists()
    table_rematch(table_id=table.pk, user=alice)
    assert kinds(bob)[-1] == NoteKind.REMATCH and kinds(alice)[-1] != NoteKind.REMATCH
    note = Notification.objects.filter(user=bob).latest("id")
    assert (
        "alice offers a rematch of District Noir"
        in client_for(bob).get(reverse("notifications")).text
    )
    opened = client_for(bob).get(reverse("notification_open", args=[note.pk]))
    assert opened.url == reverse("table_detail", args=[table.pk])


def test_each_kind_on_or_off_for_the_site_and_email(alice, bob, carol):
    page = client_for(bob).get(reverse("notification_settings"))
    assert page.status_code == 200 and 'name="challenge:email"' in page.text
    fields = {"challenge:email": "on", "follower:email": "on"}  # everything else off
    saved = client_for(bob).post(reverse("notification_settings"), fields)
    assert saved.status_code == 302
    bob.refresh_from_db()
    assert not bob.notified(NoteKind.CHALLENGE, "site") and bob.notified(NoteKind.FOLLOWER, "email")
    assert not bob.wants_reminders  # the turn's e-mail switched off: no reminder either
    follow_add(user=alice, target=bob)
    send(carol, bob)
    assert kinds(bob) == [] and unread(bob) == 0  # nothing in the bell
    notes = Notification.objects.filter(user=bob)
    assert notes.count() == 2 and all(n.mail_due_at for n in notes)

    assert sweep_note_mails(timezone.now()) == 0  # not yet: time to see it in the site first
    assert sweep_note_mails(timezone.now() + NOTE_MAIL_DELAY + dt.timedelta(minutes=61)) == 1
    assert sweep_note_mails(timezone.now() + dt.timedelta(days=1)) == 0  # once
    (message,) = mail.outbox
    assert message.to == [bob.email] and "List-Unsubscribe" in message.extra_headers
    assert "alice follows you now" in message.body and "carol challenges you" in message.body


def test_an_email_never_repeats_what_was_read_in_the_site_and_waits_out_quiet_hours(alice, bob):
    send(alice, bob)  # a challenge: e-mailed by default, once its delay passed unread
    note = Notification.objects.get(user=bob)
    client_for(bob).get(reverse("notification_open", args=[note.pk]))
    assert sweep_note_mails(timezone.now() + dt.timedelta(days=1)) == 0 and mail.outbox == []

    carol = UserFactory(username="carol2")
    send(carol, bob)
    due = Notification.objects.get(user=bob, actor=carol).mail_due_at
    # Quiet from an hour before the sweep to an hour after, in Bob's time zone, whatever the
    # hour the test runs at (00:00-23:59 left the minute before midnight out).
    sweep = due + dt.timedelta(minutes=1)
    local = sweep.astimezone(bob.zone).replace(second=0, microsecond=0)
    bob.quiet_hours_start = (local - dt.timedelta(hours=1)).time()
    bob.quiet_hours_end = (local + dt.timedelta(hours=1)).time()
    bob.save()
    assert sweep_note_mails(sweep) == 0  # quiet: postponed
    later = Notification.objects.get(user=bob, actor=carol).mail_due_at
    assert later > due and mail.outbox == []


def test_bad_settings_change_nothing_and_others_notes_stay_theirs(alice, bob):
    send(alice, bob)
    note = Notification.objects.get(user=bob)
    for fields in ({"nonsense:site": "on"}, {"turn:site": "yes"}, {"turn:site": ["on", "on"]}):
        refused = client_for(bob).post(reverse("notification_settings"), fields)
        assert refused.status_code == 400 and "not on this page" in refused.text
    bob.refresh_from_db()
    assert bob.note_switches == {}
    assert client_for(alice).get(reverse("notification_open", args=[note.pk])).status_code == 404
    assert client_for(alice).get(reverse("notification_open", args=[10**9])).status_code == 404
    assert unread(bob) == 1
    assert client_for(None).get(reverse("notifications")).status_code == 302
    assert client_for(bob).get(reverse("notifications") + "?before=x²").status_code == 200
    assert client_for(bob).get(reverse("notifications_read")).status_code == 405
    client_for(bob).post(reverse("notifications_read"))
    assert unread(bob) == 0


def test_the_notifications_page_costs_the_same_however_many(
    alice, bob, django_assert_max_num_queries
):
    others = [UserFactory(username=f"fan{n}") for n in range(12)]
    for other in others[:3]:
        follow_add(user=other, target=bob)
    client = client_for(bob)
    client.get(reverse("notifications"))
    with django_assert_max_num_queries(NOTES_PAGE_QUERIES):
        client.get(reverse("notifications"))
    for other in others[3:]:
        follow_add(user=other, target=bob)
        send(other, bob)
    with django_assert_max_num_queries(NOTES_PAGE_QUERIES):
        page = client.get(reverse("notifications"))
    assert page.text.count('class="note unread"') == 21


# Session and user, then the notifications with who and what they are about, in one query.
NOTES_PAGE_QUERIES = 3


def test_the_reminder_says_how_many_chat_lines_wait_at_each_table(running_table):
    seat = Seat.objects.select_related("user").get(table=running_table, is_waiting=True)
    other = Seat.objects.select_related("user").get(table=running_table, is_waiting=False)
    for text in ("one", "two", "three"):
        chat_line_post(table_id=running_table.pk, user=other.user, room="players", text=text)
    sweeps.sweep_reminders(timezone.now() + dt.timedelta(days=2))
    (message,) = [m for m in mail.outbox if m.to == [seat.user.email]]
    assert "3 unread chat lines" in message.body
    assert "3 unread chat lines" in message.alternatives[0][0]


def test_a_sweeps_reminders_count_each_players_own_unread_lines_in_their_language():
    """The notes of a sweep's players are read at once: each player's lines since they last
    read, without those of a player they hid, said in their own language."""
    ann, bob, mal = UserFactory(), UserFactory(), UserFactory()
    eva = UserFactory(language="cs")

    def waiting_for(player: User, opponent: User) -> int:
        table = table_create(user=player, game="district-noir", num_seats=2, seconds_per_move=86400)
        table_join(table_id=table.pk, user=opponent)
        if Seat.objects.get(table=table, is_waiting=True).user != player:
            play_a_legal_move(table)
        return table.pk

    with_bob, with_mal, eva_with_bob = (
        waiting_for(ann, bob),
        waiting_for(ann, mal),
        waiting_for(eva, bob),
    )
    chat_line_post(table_id=with_bob, user=bob, room="players", text="hello")
    chat_read_mark(table_id=with_bob, user=ann)
    for text in ("your move", "still there?"):
        chat_line_post(table_id=with_bob, user=bob, room="players", text=text)
    block_set(user=ann, target=mal, hide_lines=True, no_games=False, no_contact=False)
    for text in ("spam", "more spam"):
        chat_line_post(table_id=with_mal, user=mal, room="players", text=text)
    chat_line_post(table_id=eva_with_bob, user=bob, room="players", text="ahoj")

    sweeps.sweep_reminders(timezone.now() + dt.timedelta(days=2))
    (to_ann,) = [m for m in mail.outbox if m.to == [ann.email]]
    rows = to_ann.body.split("\n- ")[1:]
    [bob_row] = [row for row in rows if f"/t/{with_bob}/" in row]
    [mal_row] = [row for row in rows if f"/t/{with_mal}/" in row]
    assert "2 unread chat lines" in bob_row
    assert "unread" not in mal_row
    (to_eva,) = [m for m in mail.outbox if m.to == [eva.email]]
    assert "1 nepřečtený řádek chatu" in to_eva.body


# A turn's notifications (community.jobs, a task of their own): the seats; the player who moved
# has read theirs (their row locked, found, marked, counted, the count sent); the player to move
# is told (their row, the turn's one row moved on or made, counted, the count sent).
TURN_NOTES_QUERIES = 14


@pytest.mark.parametrize("moves", [1, 30])
def test_a_turn_s_notifications_cost_the_same_at_any_point_of_the_game(running_table, moves):
    import random

    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from community.jobs import notes_for
    from tests.conftest import play_random_moves

    table = play_random_moves(running_table, moves, random.Random(moves), keep_running=True)
    with CaptureQueriesContext(connection) as captured:
        notes_for([("turn", table.pk, 0)])
    statements = [
        q
        for q in captured.captured_queries
        if q["sql"][:5] not in ("BEGIN", "COMMI", "SAVEP", "RELEA")
    ]
    assert len(statements) <= TURN_NOTES_QUERIES


def test_a_turn_that_would_tell_nobody_queues_no_notes_and_any_other_does(
    running_table, monkeypatch
):
    """Both players have the table open and nothing unread: the move's "your turn" would go to
    nobody and read nothing, so community's notes are not even asked (a Celery task a move in
    production). Away, or with a notification unread, they are, and do their work."""
    from community import jobs

    asked: list[list] = []
    real = jobs.notes_for
    monkeypatch.setattr(jobs, "notes_for", lambda items: (asked.append(items), real(items)))
    for player in (user_at(running_table, 0), user_at(running_table, 1)):
        client_for(player).get(reverse("table_detail", args=[running_table.pk]))  # seen, read
        assert unread(player) == 0
    play_a_legal_move(running_table)
    assert asked == []

    # Both close the table: whoever the next turn waits for is told.
    Seat.objects.filter(table=running_table).update(
        seen_at=timezone.now() - dt.timedelta(minutes=5)
    )
    play_a_legal_move(running_table)
    assert [kind for kind, *_ in asked[-1]] == ["turn"]
    assert unread(Seat.objects.get(table=running_table, is_waiting=True).user) == 1

    # Both look again, but the one to move still has that "your turn" unread: it is read.
    Seat.objects.filter(table=running_table).update(seen_at=timezone.now())
    mover = Seat.objects.get(table=running_table, is_waiting=True).user
    asked.clear()
    play_a_legal_move(running_table)
    assert [kind for kind, *_ in asked[-1]] == ["turn"]
    assert unread(mover) == 0
