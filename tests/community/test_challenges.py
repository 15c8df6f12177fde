"""Challenges (#27.3), as players send and answer them over HTTP: a game with chosen options,
time per move and rated or not; two to five invited to a multiplayer table, the open seats given
to bots; who may challenge whom [lichess]; 14 days to answer; accept (everyone seated, the game
starts) or decline with a reason; at most 20 a day from one sender; and every refusal a 4xx that
changes nothing."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from accounts.models import Block, ChallengesFrom, Follow
from community.models import Challenge, ChallengeInvite
from community.services.challenges import CHALLENGES_PER_DAY, challenge_create
from games.models import Rating, Table
from tests.conftest import client_for

pytestmark = pytest.mark.django_db


def send(sender, receiver, game="district-noir", seats=2, seconds=86400, rated=True, **extra):
    fields = {
        "game": game,
        f"{game}-num_seats": str(seats),
        f"{game}-seconds_per_move": str(seconds),
        **({f"{game}-rated": "on"} if rated else {}),
        **{f"{game}-{name}": value for name, value in extra.items()},
    }
    return client_for(sender).post(reverse("challenge_new", args=[receiver.username]), fields)


def answer(user, challenge, verb, **fields):
    return client_for(user).post(reverse(f"challenge_{verb}", args=[challenge.pk]), fields)


def state() -> tuple:
    return (
        list(Challenge.objects.values_list("pk", "status", "table_id")),
        list(ChallengeInvite.objects.values_list("pk", "answer", "reason")),
        Table.objects.count(),
    )


def test_a_challenge_sent_from_the_profile_and_accepted_starts_the_game(alice, bob):
    profile = client_for(alice).get(reverse("player_profile", args=[bob.username])).text
    assert reverse("challenge_new", args=[bob.username]) in profile
    page = client_for(alice).get(reverse("challenge_new", args=[bob.username]))
    assert page.status_code == 200 and "District Noir" in page.text

    sent = send(alice, bob, seconds=600, rated=False)
    assert sent.status_code == 302 and sent.url == reverse("challenges")
    challenge = Challenge.objects.get()
    assert (challenge.game, challenge.seconds_per_move, challenge.rated) == (
        "district-noir",
        600,
        False,
    )
    assert challenge.expires_at - timezone.now() > dt.timedelta(days=13, hours=23)
    listed = client_for(bob).get(reverse("challenges")).text
    assert "For you to answer" in listed and f"challenge-{challenge.pk}" in listed
    assert "Withdraw" in client_for(alice).get(reverse("challenges")).text

    accepted = answer(bob, challenge, "accept")
    challenge.refresh_from_db()
    assert challenge.status == Challenge.Status.STARTED
    table = challenge.table
    assert accepted.status_code == 302 and accepted.url == reverse("table_detail", args=[table.pk])
    assert table.is_running and table.seconds_per_move == 600 and not table.rated
    assert list(table.seats.order_by("position").values_list("user_id", flat=True)) == [
        alice.pk,
        bob.pk,
    ]


@pytest.mark.parametrize("named", ["carol, dave, erin", "erin dave carol", "dave;erin,carol"])
def test_the_invited_take_their_seats_in_the_order_they_were_named(alice, bob, make_user, named):
    """The seats after the challenger's go to the players in the order the challenger typed
    them, whatever order the database finds their accounts in (it found them in its own)."""
    players = {name: make_user(username=name) for name in ("carol", "dave", "erin")}
    sent = send(alice, bob, game="slide", seats=5, others=named, bot_level="easy")
    assert sent.status_code == 302
    challenge = Challenge.objects.get()
    invited = list(challenge.invites.order_by("position").values_list("receiver_id", flat=True))
    typed = [players[name].pk for name in re.split(r"[\s,;]+", named)]
    assert invited == [bob.pk, *typed]


def test_a_multiplayer_table_starts_when_all_invited_accept_with_bots_in_the_open_seats(
    alice, bob, carol, make_user
):
    dave = make_user(username="dave")
    sent = send(alice, bob, game="slide", seats=5, others="carol, dave", bot_level="easy")
    assert sent.status_code == 302
    challenge = Challenge.objects.get()
    invited = list(challenge.invites.order_by("position").values_list("receiver_id", flat=True))
    assert invited == [bob.pk, carol.pk, dave.pk]
    assert not challenge.rated  # a game with a bot is never rated

    assert answer(bob, challenge, "accept").status_code == 302
    assert answer(carol, challenge, "accept").status_code == 302
    assert Table.objects.count() == 0  # dave has not answered
    assert answer(dave, challenge, "accept").status_code == 302
    table = Challenge.objects.get().table
    assert table.is_running and table.num_seats == 5
    seats = list(table.seats.order_by("position").values_list("user_id", "bot_level"))
    assert seats == [
        (alice.pk, ""),
        (bob.pk, ""),
        (carol.pk, ""),
        (dave.pk, ""),
        (None, "easy"),
    ]


def test_a_decline_says_its_reason_and_ends_the_challenge_for_everyone(alice, bob, carol):
    send(alice, bob, game="slide", seats=3, others="carol")
    challenge = Challenge.objects.get()
    assert answer(bob, challenge, "accept").status_code == 302
    assert answer(carol, challenge, "decline", reason="too_slow").status_code == 302
    challenge.refresh_from_db()
    assert challenge.status == Challenge.Status.DECLINED and challenge.table is None
    recent = client_for(alice).get(reverse("challenges")).text
    assert "The time per move is too long for me" in recent
    before = state()
    late = answer(bob, challenge, "decline", reason="later")
    assert late.status_code == 409 and "declined" in late.text
    assert state() == before


def test_who_may_challenge_me_everyone_rated_near_friends_nobody(alice, bob):
    settings = reverse("challenge_settings")
    client_for(bob).post(settings, {"challenges_from": "nobody", "challenge_rating_range": "10"})
    bob.refresh_from_db()
    assert bob.challenges_from == ChallengesFrom.NOBODY
    refused = send(alice, bob)
    assert refused.status_code == 403 and "bob takes no challenges." in refused.text
    assert (
        "takes no challenges"
        in client_for(alice).get(reverse("challenge_new", args=[bob.username])).text
    )  # said before the form, which is not offered

    bob.challenges_from = ChallengesFrom.FRIENDS
    bob.save()
    assert "friends only" in send(alice, bob).text
    Follow.objects.create(follower=alice, followed=bob)
    assert send(alice, bob).status_code == 403  # one follow is not a friendship
    Follow.objects.create(follower=bob, followed=alice)
    assert send(alice, bob).status_code == 302

    bob.challenges_from = ChallengesFrom.RATED_NEAR
    bob.challenge_rating_range = 5
    bob.save()
    Rating.objects.create(user=bob, game="district-noir", mu=40, sigma=3, ordinal=31)
    far = send(alice, bob)  # alice unrated: 0 against 31
    assert far.status_code == 403 and "rated within 5" in far.text
    assert send(alice, bob, game="slide", seats=2).status_code == 302  # unrated both at Slide
    Rating.objects.create(user=alice, game="district-noir", mu=37, sigma=3, ordinal=28)
    assert send(alice, bob).status_code == 302
    assert Challenge.objects.count() == 3


def test_a_block_refuses_the_challenge_either_way_without_telling_why(alice, bob):
    Block.objects.create(blocker=bob, blocked=alice, hide_lines=False, no_games=False)
    refused = send(alice, bob)
    assert refused.status_code == 403 and "does not take challenges from you" in refused.text
    assert "block" not in refused.text.split('id="messages"')[1].split("</div>")[0].lower()
    Block.objects.all().delete()
    Block.objects.create(blocker=alice, blocked=bob, hide_lines=False, no_contact=False)
    mine = send(alice, bob)
    assert mine.status_code == 403 and "unblock them to challenge them" in mine.text
    assert not Challenge.objects.exists()


def test_a_block_made_after_the_challenge_refuses_the_accept_and_hides_it(alice, bob):
    send(alice, bob)
    challenge = Challenge.objects.get()
    Block.objects.create(blocker=bob, blocked=alice)
    assert f"challenge-{challenge.pk}" not in client_for(bob).get(reverse("challenges")).text
    before = state()
    refused = answer(bob, challenge, "accept")
    assert refused.status_code == 403
    assert state() == before


def test_a_challenge_expires_after_14_days(alice, bob):
    send(alice, bob)
    challenge = Challenge.objects.get()
    Challenge.objects.update(expires_at=timezone.now() - dt.timedelta(seconds=1))
    page = client_for(bob).get(reverse("challenges")).text
    assert f'id="challenge-{challenge.pk}"' not in page and "expired" in page
    before = state()
    late = answer(bob, challenge, "accept")
    assert late.status_code == 409 and "expired" in late.text
    assert state() == before


def test_at_most_20_challenges_a_day_from_one_sender(alice, bob, make_user):
    for _ in range(CHALLENGES_PER_DAY):
        challenge_create(
            sender=alice,
            receivers=[make_user()],
            game="district-noir",
            num_seats=2,
            seconds_per_move=86400,
        )
    refused = send(alice, bob)
    assert refused.status_code == 409 and "20 challenges today" in refused.text
    assert Challenge.objects.count() == CHALLENGES_PER_DAY
    Challenge.objects.update(created_at=timezone.now() - dt.timedelta(days=1, seconds=1))
    assert send(alice, bob).status_code == 302


def test_stale_repeated_and_others_answers_are_refused_and_change_nothing(alice, bob, carol):
    send(alice, bob, game="slide", seats=3, others="carol")
    challenge = Challenge.objects.get()
    answer(bob, challenge, "accept")
    before = state()
    again = answer(bob, challenge, "accept")
    assert again.status_code == 409 and "answered this challenge already" in again.text
    assert answer(alice, challenge, "accept").status_code == 404  # not invited
    assert answer(bob, challenge, "withdraw").status_code == 403  # not the sender
    assert answer(carol, challenge, "decline", reason="because").status_code == 400
    missing = client_for(bob).post(reverse("challenge_accept", args=[987654]))
    assert missing.status_code == 404
    assert state() == before
    assert answer(alice, challenge, "withdraw").status_code == 302
    assert answer(carol, challenge, "accept").status_code == 409  # withdrawn
    assert Challenge.objects.get().status == Challenge.Status.WITHDRAWN


def test_impossible_challenges_are_refused_with_the_reason(alice, bob, carol):
    cases = [
        ({"receiver": alice}, 400, "cannot challenge yourself"),
        ({"seats": 3}, 400, "Please choose"),  # District Noir is for two
        ({"seconds": 7}, 400, "Please choose"),
        ({"game": "chess"}, 400, "no such game"),
        ({"game": "slide", "seats": 4, "others": "carol"}, 400, "give the open seats to bots"),
        ({"game": "slide", "seats": 2, "others": "carol"}, 400, "More players are invited"),
        ({"game": "slide", "seats": 3, "others": "nobody-at-all"}, 400, "no player called"),
        ({"game": "slide", "seats": 3, "others": "carol", "bot_level": "god"}, 400, "Please"),
    ]
    for case, status, words in cases:
        receiver = case.pop("receiver", bob)
        game = case.pop("game", "district-noir")
        seats = case.pop("seats", 2)
        seconds = case.pop("seconds", 86400)
        if game == "chess":
            got = client_for(alice).post(
                reverse("challenge_new", args=[receiver.username]), {"game": "chess"}
            )
        else:
            got = send(alice, receiver, game=game, seats=seats, seconds=seconds, **case)
        assert got.status_code == status, (case, got.status_code)
        assert words in got.text, (case, words)
    assert not Challenge.objects.exists()
    assert client_for(None).get(reverse("challenges")).status_code == 302
    missing = client_for(alice).get(reverse("challenge_new", args=["nobody-here"]))
    assert missing.status_code == 404


def test_the_challenges_page_costs_the_same_queries_however_many_challenges(alice, make_user):
    client = client_for(alice)

    def count() -> int:
        with CaptureQueriesContext(connection) as queries:
            assert client.get(reverse("challenges")).status_code == 200
        return len(queries)

    def add(n):
        for _ in range(n):
            other = make_user()
            challenge_create(
                sender=other,
                receivers=[alice],
                game="district-noir",
                num_seats=2,
                seconds_per_move=86400,
            )
            mine = challenge_create(
                sender=alice,
                receivers=[other, make_user()],
                game="slide",
                num_seats=3,
                seconds_per_move=86400,
            )
            Challenge.objects.filter(pk=mine.pk).update(
                created_at=timezone.now() - dt.timedelta(days=2)
            )

    add(1)
    client.get(reverse("challenges"))
    few = count()
    add(8)
    assert count() == few
