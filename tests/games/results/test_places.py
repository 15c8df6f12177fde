"""Places on the leaderboards: written by a periodic job, shown on the players' pages.

A place is one more than the number of established ratings of the same game above it; equal
ratings share their place. Provisional ratings have none.
"""

from __future__ import annotations

import datetime as dt

import pytest
from django.urls import reverse
from django.utils import timezone

from games.jobs import sweeps
from games.models import PROVISIONAL_GAMES, Rating
from tests.conftest import client_for
from tests.factories import UserFactory
from tests.games.rated_games import finished_game

pytestmark = pytest.mark.django_db

ESTABLISHED = PROVISIONAL_GAMES


def rated(name: str, ordinal: float, games: int = ESTABLISHED, game: str = "slide") -> Rating:
    user = UserFactory(username=name, password=None)
    return Rating.objects.create(
        user=user,
        game=game,
        mu=ordinal + 6.0,
        sigma=2.0,
        ordinal=ordinal,
        games_played=games,
        last_played=timezone.now() - dt.timedelta(days=1),
    )


def places() -> dict[str, int | None]:
    return {r.user.username: r.place for r in Rating.objects.select_related("user")}


def test_the_job_ranks_each_game_apart_ties_share_a_place_provisional_have_none():
    rated("ann", 30.0)
    rated("ben", 25.0)
    rated("cid", 25.0)
    rated("dot", 20.0)
    rated("eve", 40.0, games=ESTABLISHED - 1)  # provisional: above everyone, not ranked
    rated("fay", 10.0, game="gnav")  # another game's leaderboard
    rated("gus", 12.0, game="gnav", games=50)

    assert sweeps.sweep_places() == 6
    assert places() == {
        "ann": 1,
        "ben": 2,
        "cid": 2,
        "dot": 4,
        "eve": None,
        "fay": 2,
        "gus": 1,
    }
    assert sweeps.sweep_places() == 0, "a second run with nothing changed writes nothing"


def test_the_job_writes_only_the_places_that_changed():
    rated("ann", 30.0)
    rated("ben", 25.0)
    dot = rated("dot", 20.0)
    rated("fay", 10.0, game="gnav")
    newcomer = rated("eve", 40.0, games=ESTABLISHED - 1)
    sweeps.sweep_places()

    Rating.objects.filter(pk=dot.pk).update(ordinal=26.0)  # dot passes ben
    assert sweeps.sweep_places() == 2
    assert places() == {"ann": 1, "dot": 2, "ben": 3, "fay": 1, "eve": None}

    Rating.objects.filter(pk=newcomer.pk).update(games_played=ESTABLISHED)  # eve established
    assert sweeps.sweep_places() == 4  # eve goes first, the other three of slide move down
    assert places() == {"eve": 1, "ann": 2, "dot": 3, "ben": 4, "fay": 1}


def test_a_rating_no_longer_established_loses_its_place():
    ann = rated("ann", 30.0)
    rated("ben", 25.0)
    sweeps.sweep_places()
    Rating.objects.filter(pk=ann.pk).update(games_played=ESTABLISHED - 1)  # a replay, say
    assert sweeps.sweep_places() == 2
    assert places() == {"ann": None, "ben": 1}


def test_the_profile_shows_the_place_the_job_wrote(alice, bob):
    for seed in range(ESTABLISHED):
        finished_game(alice, bob, seed=seed)
    url = reverse("player_profile", args=[alice.username])
    before = client_for(None).get(url)
    [entry] = before.context["profile"].ratings
    assert not entry.provisional and entry.place is None
    assert "Places are counted every few minutes." in before.content.decode()

    sweeps.sweep_places()
    after = client_for(None).get(url)
    [entry] = after.context["profile"].ratings
    bob_rating = Rating.objects.get(user=bob)
    expected = 1 if entry.ordinal >= bob_rating.ordinal else 2
    assert entry.place == expected
    assert "Places are counted every few minutes." not in after.content.decode()
    cell = after.content.decode().split(f"<strong>{entry.ordinal:.1f}</strong></td>")[1]
    assert cell.split("</td>")[0].strip() == f'<td class="num">{expected}'


def test_beat_runs_the_job_every_five_minutes_and_the_embedded_loop_too(settings, monkeypatch):
    from games.jobs import embedded
    from games.jobs.tasks import sweep_places

    assert settings.CELERY_BEAT_SCHEDULE["sweep-places"] == {
        "task": "games.tasks.sweep_places",
        "schedule": 300,
    }
    rated("ann", 30.0)
    assert sweep_places.delay().get() == 1

    clock = [1_000_000.0]
    monkeypatch.setattr(sweeps.time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(sweeps, "_last_places", [])
    runs: list[int] = []
    monkeypatch.setattr(sweeps, "places_refresh", lambda: runs.append(1) or 0)
    embedded.run_once()
    clock[0] += 60
    embedded.run_once()
    assert len(runs) == 1, "not again within five minutes"
    clock[0] += 240
    embedded.run_once()
    assert len(runs) == 2
