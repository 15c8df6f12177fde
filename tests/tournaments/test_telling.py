"""Players told of their tournaments (#29.5), as the site does it: a tournament made and joined
through the services, started by the sweep, its games played to the end through moves. Each
round opens with one notification a player, however many tables it seats (their games, or
their bye), in the bell, by e-mail (listing each game's table) and by push; its end and its
cancel are told too, and a kind switched off tells nothing."""

from __future__ import annotations

import datetime as dt
import random
from collections import Counter

import pytest
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from accounts.notify import NoteKind
from community.models import Notification
from community.services.notes import About, notify, sweep_note_mails
from community.services.push import push_subscribe, sweep_pushes, vapid_pair
from games.models import Table
from games.services.tables import table_create_seated
from tests.conftest import client_for, play_random_moves
from tests.support.mail import to
from tests.support.push import Browser, PushService
from tournaments.models import Pairing, Tournament
from tournaments.services.entries import (
    TournamentSettings,
    tournament_cancel,
    tournament_create,
    tournament_join,
    tournament_leave,
)
from tournaments.services.rounds import sweep_tournaments

# Real commits: a game's end reaches the tournament (and the notes) through games' events.
pytestmark = pytest.mark.django_db(transaction=True)

LATER = dt.timedelta(days=1)  # past every e-mail's and push's delay


def started(
    make_user, count: int, *, format: str = "swiss", name: str = "Winter Swiss", **chosen
) -> tuple[Tournament, list[User]]:
    """A tournament of ``count`` players, entered and started by the sweep."""
    players = [make_user(username=f"{format[:4]}{k}") for k in range(count)]
    start = timezone.now() + dt.timedelta(hours=1)
    fields = {"rounds": 2, "min_players": count, **chosen}
    tournament = tournament_create(
        user=players[0],
        chosen=TournamentSettings(
            name=name,
            game="district-noir",
            format=format,
            table_size=2,
            seconds_per_move=86400,
            starts_at=start,
            max_players=16,
            **fields,
        ),
    )
    for player in players:
        tournament_join(tournament_id=tournament.pk, user=player)
    sweep_tournaments(now=start + dt.timedelta(minutes=1))
    tournament.refresh_from_db()
    return tournament, players


def round_notes(user: User) -> list[Notification]:
    return list(
        Notification.objects.filter(user=user, kind=NoteKind.TOURNAMENT_ROUND).order_by("id")
    )


def tables_of(tournament: Tournament, number: int) -> list[Table]:
    return list(
        Table.objects.filter(
            tournament_pairing__round__tournament=tournament,
            tournament_pairing__round__number=number,
        ).order_by("pk")
    )


def play_round(tournament: Tournament, number: int, seed: int = 0) -> None:
    """Every game of the round played to its end (each end counts at once: inline tasks)."""
    rng = random.Random(seed)
    for table in tables_of(tournament, number):
        assert play_random_moves(table, 2000, rng).status == Table.Status.FINISHED


def bell_text(user: User) -> str:
    """The player's notifications page, as they read it."""
    page = client_for(user).get(reverse("notifications"))
    assert page.status_code == 200
    return " ".join(page.content.decode().split())


def test_each_player_is_told_once_a_round_with_their_game_and_the_odd_one_of_their_bye(
    make_user,
):
    tournament, players = started(make_user, 5)
    assert tournament.status == Tournament.Status.RUNNING
    tables = tables_of(tournament, 1)
    assert len(tables) == 2
    seated = {seat.user_id: table for table in tables for seat in table.seats.all()}
    for player in players:
        (note,) = round_notes(player)  # one, though the round seats two tables
        assert note.detail == "Winter Swiss" and note.data["round"] == 1
        if player.pk in seated:
            table = seated[player.pk]
            assert note.tables == [table.pk] and note.table_id == table.pk
            assert note.mail_due_at is not None  # the e-mail is on by default
        else:
            assert note.data["bye"] == "win" and note.tables == []
            assert note.link == reverse("tournament_page", kwargs={"tournament_id": tournament.pk})
    (odd,) = [p for p in players if p.pk not in seated]
    assert "Round 1 of Winter Swiss has begun: you have a bye, which counts as a win" in (
        bell_text(odd)
    )
    some = next(iter(seated))
    assert "Round 1 of Winter Swiss has begun: 1 game waits for you" in bell_text(
        User.objects.get(pk=some)
    )
    for player in players:
        player.refresh_from_db()
        assert (
            player.notes_unread
            == Notification.objects.filter(user=player, shown=True, read_at__isnull=True).count()
        )

    play_round(tournament, 1)
    tournament.refresh_from_db()
    assert tournament.round_set.count() == 2  # the games' ends opened round two
    for player in players:
        numbers = [note.data["round"] for note in round_notes(player)]
        assert numbers == [1, 2]  # one note a round, never one a game


def test_the_email_lists_the_table_of_each_game_and_says_the_bye(make_user):
    tournament, players = started(make_user, 3)
    (table,) = tables_of(tournament, 1)
    assert sweep_note_mails(timezone.now()) == 0  # time to see it in the site first
    assert sweep_note_mails(timezone.now() + LATER) == 3
    for seat in table.seats.select_related("user"):
        assert seat.user is not None
        (message,) = to(seat.user.email)
        body = str(message.body)
        assert "Round 1 of Winter Swiss has begun: 1 game waits for you" in body
        assert f"District Noir #{table.pk}: http" in body
        assert reverse("table_detail", args=[table.pk]) in body
        html = str(message.alternatives[0][0])
        assert f'{reverse("table_detail", args=[table.pk])}"' in html
    (odd,) = [p for p in players if not table.seats.filter(user=p).exists()]
    (message,) = to(odd.email)
    assert "you have a bye, which counts as a win" in str(message.body)
    page = reverse("tournament_page", kwargs={"tournament_id": tournament.pk})
    assert page in str(message.body)
    assert sweep_note_mails(timezone.now() + 2 * LATER) == 0  # once


def test_a_note_of_several_games_lists_each_table_in_its_email(make_user):
    una, vic, wes = (make_user(username=name) for name in ("una", "vic", "wes"))
    first = table_create_seated(users=[una, vic], game="district-noir", seconds_per_move=86400)
    second = table_create_seated(users=[una, wes], game="district-noir", seconds_per_move=86400)
    data = {"round": 4, "tables": [first.pk, second.pk], "game": "district-noir"}
    notify(
        kind=NoteKind.TOURNAMENT_ROUND,
        user_ids=[una.pk],
        about=About(detail="Spring Cup", link="/tournaments/1/", data=data),
    )
    assert "Round 4 of Spring Cup has begun: 2 games wait for you" in bell_text(una)
    assert sweep_note_mails(timezone.now() + LATER) == 1
    (message,) = to(una.email)
    for table in (first, second):
        assert f"District Noir #{table.pk}: http" in str(message.body)
        assert f'{reverse("table_detail", args=[table.pk])}"' in str(message.alternatives[0][0])


@pytest.mark.parametrize(
    ("format", "bye", "said"),
    [
        ("round_robin", "rest", "you rest this round"),
        ("knockout", "through", "you have a bye into the next round"),
    ],
)
def test_a_bye_is_a_rest_in_a_round_robin_and_a_way_through_in_a_knockout(
    make_user, format, bye, said
):
    rounds = {"rounds": None} if format == "knockout" else {}
    tournament, players = started(make_user, 3, format=format, name="Cup", **rounds)
    byes = Pairing.objects.filter(round__tournament=tournament, is_bye=True)
    (resting,) = [seat.entry.user for seat in byes.get().seats.select_related("entry__user")]
    (note,) = round_notes(resting)
    assert note.data["bye"] == bye and note.tables == []
    assert f"Round 1 of Cup has begun: {said}" in bell_text(resting)
    assert all(len(round_notes(player)) == 1 for player in players)


def test_a_window_game_waits_for_its_players_to_be_ready_by_its_latest_start(make_user):
    tournament, players = started(
        make_user,
        2,
        format="swiss_windows",
        round_window=dt.timedelta(days=4),
        start_within=dt.timedelta(days=1),
    )
    pairing = Pairing.objects.get(round__tournament=tournament)
    assert pairing.table_id is None and pairing.starts_by is not None
    page = reverse("tournament_page", kwargs={"tournament_id": tournament.pk})
    for player in players:
        (note,) = round_notes(player)
        assert note.due_by == pairing.starts_by and note.link == page and note.table_id is None
    when = pairing.starts_by.astimezone(players[0].zone).strftime("%-d %b, %H:%M")
    said = (
        "Round 1 of Winter Swiss has begun: your game starts once you and your opponent are "
        f"ready, at {when} at the latest"
    )
    assert said in bell_text(players[0])
    sweep_note_mails(timezone.now() + dt.timedelta(hours=2))
    (message,) = to(players[1].email)
    assert said in str(message.body) and page in str(message.body)


def test_the_later_games_of_a_knockout_match_need_no_new_note(make_user):
    tournament, players = started(make_user, 2, format="knockout", rounds=None, match_games=3)
    for seed in range(3):
        (table,) = [t for t in tables_of(tournament, 1) if t.status == Table.Status.RUNNING]
        play_random_moves(table, 2000, random.Random(seed))
        tournament.refresh_from_db()
        if tournament.status == Tournament.Status.FINISHED:
            break
    assert Pairing.objects.filter(round__tournament=tournament).count() >= 2
    for player in players:
        assert len(round_notes(player)) == 1


def test_the_end_tells_every_player_still_in_who_won(make_user):
    tournament, players = started(make_user, 3, rounds=1)
    play_round(tournament, 1)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED and tournament.winner is not None
    winner = tournament.winner
    for player in players:
        (note,) = Notification.objects.filter(user=player, kind=NoteKind.TOURNAMENT_ENDED)
        assert note.player_id == winner.pk and note.mail_due_at is not None
        assert note.link == reverse("tournament_page", kwargs={"tournament_id": tournament.pk})
    assert "Winter Swiss has ended: you won it!" in bell_text(winner)
    loser = next(p for p in players if p.pk != winner.pk)
    assert f"Winter Swiss has ended: {winner.public_name} won it" in bell_text(loser)
    sweep_note_mails(timezone.now() + LATER)
    assert any("Winter Swiss has ended" in str(m.body) for m in to(loser.email))


def test_a_withdrawn_player_is_not_told_of_the_end(make_user):
    tournament, players = started(make_user, 3, rounds=2)
    (bye,) = Pairing.objects.filter(round__tournament=tournament, is_bye=True)
    leaving = bye.seats.get().entry.user  # not at a table: the others play theirs out
    tournament_leave(tournament_id=tournament.pk, user=leaving)
    for number in (1, 2):
        play_round(tournament, number, seed=number)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    told = Notification.objects.filter(kind=NoteKind.TOURNAMENT_ENDED)
    assert set(told.values_list("user_id", flat=True)) == {p.pk for p in players} - {leaving.pk}
    assert [note.data["round"] for note in round_notes(leaving)] == [1]  # not round two


def test_a_cancel_for_too_few_players_tells_everyone_who_entered(make_user):
    tournament, players = started(make_user, 2, min_players=3)
    assert tournament.status == Tournament.Status.CANCELLED
    for player in players:
        (note,) = Notification.objects.filter(user=player, kind=NoteKind.TOURNAMENT_ENDED)
        assert note.data["cancelled"] is True
        assert "Winter Swiss was cancelled: too few players entered" in bell_text(player)
    sweep_note_mails(timezone.now() + LATER)
    assert "too few players entered" in str(to(players[1].email)[0].body)


def test_a_player_who_switched_the_kind_off_is_told_nothing_of_it(make_user):
    quiet, mailless = make_user(username="quiet"), make_user(username="mailless")
    quiet.note_switches = {
        f"{kind}:{channel}": False
        for kind in (NoteKind.TOURNAMENT_ROUND, NoteKind.TOURNAMENT_ENDED)
        for channel in ("site", "email", "push")
    }
    quiet.save()
    mailless.note_switches = {"tournament_round:email": False}
    mailless.save()
    start = timezone.now() + dt.timedelta(hours=1)
    tournament = tournament_create(
        user=quiet,
        chosen=TournamentSettings(
            name="Quiet Cup",
            game="district-noir",
            format="swiss",
            table_size=2,
            seconds_per_move=86400,
            starts_at=start,
            min_players=2,
            max_players=4,
            rounds=1,
        ),
    )
    for player in (quiet, mailless):
        tournament_join(tournament_id=tournament.pk, user=player)
    sweep_tournaments(now=start + dt.timedelta(minutes=1))
    assert round_notes(quiet) == []
    (note,) = round_notes(mailless)
    assert note.shown and note.mail_due_at is None
    play_round(tournament, 1)
    kinds = Counter(Notification.objects.filter(user=quiet).values_list("kind", flat=True))
    assert not kinds[NoteKind.TOURNAMENT_ROUND] and not kinds[NoteKind.TOURNAMENT_ENDED]
    assert Notification.objects.filter(user=mailless, kind=NoteKind.TOURNAMENT_ENDED).exists()
    sweep_note_mails(timezone.now() + LATER)
    assert not any("Quiet Cup" in str(m.body) for m in to(quiet.email))
    assert not any("Round 1 of Quiet Cup" in str(m.body) for m in to(mailless.email))
    assert any("Quiet Cup has ended" in str(m.body) for m in to(mailless.email))


@pytest.fixture
def service(settings):
    settings.WEBPUSH_VAPID_PRIVATE_KEY, settings.WEBPUSH_VAPID_PUBLIC_KEY = vapid_pair()
    service = PushService()
    yield service
    service.close()


def test_a_round_is_pushed_to_a_player_who_allowed_push(make_user, service):
    phone = Browser(service, "phone")
    pushed = make_user(username="pushed")
    pushed.reminder_delay = 0  # "immediately"
    pushed.save()
    push_subscribe(user=pushed, **phone.fields)
    start = timezone.now() + dt.timedelta(hours=1)
    tournament = tournament_create(
        user=pushed,
        chosen=TournamentSettings(
            name="Push Cup",
            game="district-noir",
            format="swiss",
            table_size=2,
            seconds_per_move=86400,
            starts_at=start,
            min_players=2,
            max_players=4,
            rounds=1,
        ),
    )
    other = make_user(username="other")
    for player in (pushed, other):
        tournament_join(tournament_id=tournament.pk, user=player)
    sweep_tournaments(now=start + dt.timedelta(minutes=1))
    (note,) = round_notes(pushed)
    assert note.push_due_at is not None
    assert round_notes(other)[0].push_due_at is None  # no browser of theirs
    assert sweep_pushes(timezone.now() + dt.timedelta(minutes=1)) >= 1
    messages = [phone.read(body) for _path, _headers, body in service.received]
    (round_push,) = [m for m in messages if "Push Cup" in m["body"]]
    assert round_push["body"] == "Round 1 of Push Cup has begun: 1 game waits for you"
    assert round_push["url"].endswith(reverse("table_detail", args=[note.table_id]))


def test_a_cancel_by_its_creator_tells_the_others_who_entered(make_user):
    creator, vera, walt = (make_user(username=name) for name in ("creator", "vera", "walt"))
    tournament = tournament_create(
        user=creator,
        chosen=TournamentSettings(
            name="Called Off",
            game="district-noir",
            format="swiss",
            table_size=2,
            seconds_per_move=86400,
            starts_at=timezone.now() + dt.timedelta(days=1),
            min_players=2,
            max_players=8,
            rounds=2,
        ),
    )
    for player in (creator, vera, walt):
        tournament_join(tournament_id=tournament.pk, user=player)
    tournament_cancel(tournament_id=tournament.pk, user=creator)
    assert not Notification.objects.filter(user=creator).exists()
    for player in (vera, walt):
        (note,) = Notification.objects.filter(user=player, kind=NoteKind.TOURNAMENT_ENDED)
        assert note.data["cancelled"] == "creator"
        assert "Called Off was cancelled by its creator" in bell_text(player)
