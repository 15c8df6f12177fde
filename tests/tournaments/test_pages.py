"""A tournament's page once it runs (#29.2, #29.4): the standings with the format's tie-breaks
(a table per group or division; a knockout's how far each went; the withdrawn marked), the
winner, each round's tables with links to them and to their replays, the byes; live as games
end (a poll that costs one query while nothing moved); "I'm ready" for a window game and "End
this round" for its creator, each refusal a 4xx with its message that changes nothing; and a
fixed number of queries however many players and rounds."""

from __future__ import annotations

import datetime as dt
import random
import re

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from games.models import Table
from tests.conftest import client_for
from tests.support.page_queries import PROFILE_QUERIES
from tests.support.tournament_pages import (
    game_finish,
    rounds_played,
    running_tables,
    tournament_finish,
    tournament_started,
)
from tournaments.models import Entry, Format, Pairing, PairingSeat, Round, Tournament
from tournaments.services.entries import pairing_ready, tournament_leave

pytestmark = pytest.mark.django_db
DAY = dt.timedelta(days=1)
# A visitor's page once it runs: the tournament, its entries, rounds, pairings and their seats.
PAGE_QUERIES = 5


def _players(make_user, count: int, prefix: str = "player") -> list[User]:
    return [make_user(username=f"{prefix}{k}") for k in range(count)]


def _page(client: Client, tournament: Tournament) -> str:
    response = client.get(reverse("tournament_page", args=[tournament.pk]))
    assert response.status_code == 200
    return response.content.decode()


def _poll(client: Client, tournament: Tournament, version: int):
    return client.get(
        reverse("tournament_page", args=[tournament.pk]), {"v": version}, HTTP_HX_REQUEST="true"
    )


def _section(page: str, css_class: str) -> str:
    """The text of the page's first ``<section class="... css_class ...">`` (to its end)."""
    start = page.index(f'<section class="panel {css_class}"')
    return page[start : page.index("</section>", start)]


def _windows(make_user, count: int = 4) -> tuple[Tournament, list[User]]:
    players = _players(make_user, count)
    tournament = tournament_started(
        creator=players[0],
        players=players,
        format=Format.SWISS_WINDOWS,
        round_window=2 * DAY,
        start_within=DAY,
    )
    return tournament, players


def _pairing_of(tournament: Tournament, user: User) -> Pairing:
    return Pairing.objects.get(
        round__tournament=tournament, is_bye=False, seats__entry__user=user, done=False
    )


# -- what the page shows ----------------------------------------------------------------


def test_a_running_swiss_shows_its_standings_rounds_tables_and_byes(make_user):
    players = _players(make_user, 5)
    tournament = tournament_started(creator=players[0], players=players)
    rounds_played(tournament, 1, random.Random(1))
    page = _page(client_for(None), tournament)
    standings = _section(page, "tournament-standings")
    assert "Buchholz" in standings and "Sonneborn-Berger" in standings
    for entry in Entry.objects.filter(tournament=tournament):
        assert entry.user.public_name in standings
    assert "Winner" not in page  # not before it ends
    # The latest round first; its tables link to the games, the first round's to the replays.
    first = Round.objects.get(tournament=tournament, number=1)
    assert page.index("Round 2") < page.index("Round 1")
    for table in running_tables(tournament):
        assert f'href="{reverse("table_detail", args=[table.pk])}"' in page
    finished = Table.objects.filter(tournament_pairing__round=first)
    assert finished.count() == 2
    for table in finished:
        assert table.status == Table.Status.FINISHED
        assert reverse("table_replay", args=[table.pk]) in page
        assert f'href="{reverse("table_detail", args=[table.pk])}"' not in page
    # Seats in seat order, with each one's result once the game is over.
    pairing = first.pairings.filter(is_bye=False).first()
    assert pairing is not None
    names = [s.entry.user.public_name for s in pairing.seats.order_by("position")]
    replay = reverse("table_replay", args=[pairing.table_id])
    block = next(li for li in page.split('<li class="pairing">') if replay in li)
    assert block.index(f">{names[0]}</a>") < block.index(f">{names[1]}</a>")
    assert "won" in block or "draw" in block
    # Five players: one of them sits each round out.
    assert page.count("Bye:") == 2
    bye = first.pairings.get(is_bye=True).seats.get().entry.user.public_name
    assert re.search(rf"Bye:\s*<a href=\"[^\"]+\">{bye}</a>", page)


def test_a_finished_tournament_shows_its_winner_and_every_round_replayed(make_user):
    players = _players(make_user, 4)
    tournament = tournament_started(creator=players[0], players=players, rounds=2)
    tournament_finish(tournament, random.Random(2))
    assert tournament.status == Tournament.Status.FINISHED and tournament.winner is not None
    page = _page(client_for(players[1]), tournament)
    winner = _section(page, "tournament-winner")
    assert tournament.winner.public_name in winner
    assert reverse("player_profile", args=[tournament.winner.username]) in winner
    for table in Table.objects.filter(tournament_pairing__round__tournament=tournament):
        assert reverse("table_replay", args=[table.pk]) in page
    assert "hx-get" not in page.split('id="tournament-live"')[1].split(">")[0]  # no more polls
    assert "End this round" not in page and "I'm ready" not in page


def test_the_winner_is_on_their_profile(make_user, django_assert_max_num_queries):
    players = _players(make_user, 4)
    tournament = tournament_started(creator=players[0], players=players, rounds=1, name="Cup")
    tournament_finish(tournament, random.Random(3))
    winner = tournament.winner
    assert winner is not None
    with django_assert_max_num_queries(PROFILE_QUERIES):
        profile = client_for(None).get(reverse("player_profile", args=[winner.username]))
    panel = profile.content.decode().split('class="profile-tournaments"')[1]
    assert "Cup" in panel and 'class="badge won"' in panel
    loser = next(p for p in players if p != winner)
    other = client_for(None).get(reverse("player_profile", args=[loser.username])).content
    assert 'class="badge won"' not in other.decode().split('class="profile-tournaments"')[1]


def test_a_withdrawn_player_is_marked_and_a_closed_account_is_not_a_link(make_user):
    players = _players(make_user, 4)
    tournament = tournament_started(creator=players[0], players=players)
    tournament_leave(tournament_id=tournament.pk, user=players[2])
    User.objects.filter(pk=players[3].pk).update(is_active=False)
    standings = _section(_page(client_for(None), tournament), "tournament-standings")
    row = next(r for r in standings.split("<tr") if players[2].public_name in r)
    assert 'class="withdrawn' in row and "(withdrawn)" in row
    assert reverse("player_profile", args=[players[1].username]) in standings
    assert players[3].public_name in standings
    assert reverse("player_profile", args=[players[3].username]) not in standings


@pytest.mark.parametrize(
    ("chosen", "headers"),
    [
        (
            {"format": Format.MULTIPLAYER, "game": "slide", "table_size": 3},
            ("Sum of places", "Head-to-head"),
        ),
        ({"format": Format.ROUND_ROBIN, "rounds": None}, ("Head-to-head", "Sonneborn-Berger")),
    ],
)
def test_each_format_names_its_own_tie_breaks(make_user, chosen, headers):
    players = _players(make_user, 6)
    tournament = tournament_started(creator=players[0], players=players, **chosen)
    rounds_played(tournament, 1, random.Random(4))
    standings = _section(_page(client_for(None), tournament), "tournament-standings")
    for header in headers:
        assert f">{header}</th>" in standings
    assert "Buchholz" not in standings or "Buchholz" in headers


def test_a_round_robin_shows_a_table_for_each_group(make_user):
    players = _players(make_user, 12)
    tournament = tournament_started(
        creator=players[0], players=players, format=Format.ROUND_ROBIN, rounds=1
    )
    standings = _section(_page(client_for(None), tournament), "tournament-standings")
    assert standings.count("<table") == 2
    assert "Group 1" in standings and "Group 2" in standings
    groups = set(Entry.objects.filter(tournament=tournament).values_list("group", flat=True))
    assert groups == {0, 1}


def test_a_league_shows_a_table_for_each_division(make_user):
    players = _players(make_user, 20)
    tournament = tournament_started(
        creator=players[0], players=players, format=Format.LEAGUE, rounds=1
    )
    page = _page(client_for(None), tournament)
    standings = _section(page, "tournament-standings")
    assert standings.count("<table") == 2
    assert "Division 1" in standings and "Division 2" in standings
    assert "Season 1, round 1" in page


def test_a_knockout_shows_how_far_each_went_and_groups_a_matchs_games(make_user):
    players = _players(make_user, 4)
    tournament = tournament_started(
        creator=players[0], players=players, format=Format.KNOCKOUT, rounds=None, match_games=3
    )
    rng = random.Random(5)
    rounds_played(tournament, 1, rng)
    page = _page(client_for(None), tournament)
    standings = _section(page, "tournament-standings")
    assert ">How far</th>" in standings and "Buchholz" not in standings
    assert standings.count("lost in the semi-finals") == 2
    assert standings.count("playing the final") == 2
    assert "The final" in page and "The semi-finals" in page
    assert page.index("The final") < page.index("The semi-finals")
    # Each semi-final's games, two or three of them, in one match.
    assert page.count('class="match"') == 3
    semi = Round.objects.get(tournament=tournament, number=1)
    games = semi.pairings.filter(group=0).count()
    assert games >= 2 and page.count("Game 3") <= 2
    tournament_finish(tournament, rng)
    standings = _section(_page(client_for(None), tournament), "tournament-standings")
    assert standings.count("won the final") == 1 and standings.count("lost in the final") == 1
    assert tournament.winner is not None
    won = standings.index(tournament.winner.public_name)
    assert won < standings.index("lost in the final")


# -- live as games end ------------------------------------------------------------------


def test_the_poll_answers_204_for_one_query_until_a_game_ends(
    make_user, django_assert_max_num_queries
):
    players = _players(make_user, 4)
    tournament = tournament_started(creator=players[0], players=players)
    page = _page(client_for(None), tournament)
    version = tournament.version
    assert f'hx-get="{reverse("tournament_page", args=[tournament.pk])}?v={version}"' in page
    assert 'hx-trigger="every 15s, tournament-poll"' in page
    visitor, player = client_for(None), client_for(players[1])
    _poll(player, tournament, version)  # the session's first request reads a little more
    for client in (visitor, player):
        with django_assert_max_num_queries(1):
            assert _poll(client, tournament, version).status_code == 204
    game_finish(running_tables(tournament)[0], random.Random(6))
    tournament.refresh_from_db()
    assert tournament.version > version
    fresh = _poll(player, tournament, version)
    assert fresh.status_code == 200
    fragment = fresh.content.decode()
    assert fragment.startswith('<div id="tournament-live"')
    assert f"?v={tournament.version}" in fragment and "Standings" in fragment
    assert "<html" not in fragment
    # Shareable: no CSRF token, no relative time.
    assert "csrfmiddlewaretoken" not in fragment and "data-since" not in fragment
    assert _poll(player, tournament, tournament.version).status_code == 204
    # Not a whole number: the whole page.
    whole = player.get(reverse("tournament_page", args=[tournament.pk]), {"v": "x"})
    assert "<html" in whole.content.decode()


def test_the_poll_of_a_missing_tournament_is_a_404(make_user):
    response = _poll(client_for(None), Tournament(pk=999999), 3)
    assert response.status_code == 404


# -- ready for a window game ------------------------------------------------------------


def test_a_window_game_waits_for_both_players_ready(make_user):
    tournament, players = _windows(make_user)
    alice = players[1]
    pairing = _pairing_of(tournament, alice)
    seats = list(pairing.seats.select_related("entry__user").order_by("position"))
    other = next(s.entry.user for s in seats if s.entry.user != alice)
    url = reverse("tournament_ready", args=[tournament.pk, pairing.pk])
    page = _page(client_for(alice), tournament)
    assert f'action="{url}"' in page and "I'm ready" in page
    assert f'<time datetime="{pairing.starts_by.isoformat()}' in page or (
        f'<time datetime="{timezone.localtime(pairing.starts_by).isoformat()}' in page
    )
    assert page.count("I'm ready") == 1  # her game's only
    hers = client_for(alice)
    response = hers.post(url)
    assert response.status_code == 302
    assert PairingSeat.objects.get(pairing=pairing, entry__user=alice).ready_at is not None
    page = hers.get(response["Location"]).content.decode()
    assert "the game starts as soon as your opponent is" in page
    assert f'action="{url}"' not in page
    opponent = client_for(other)
    theirs = _page(opponent, tournament)
    assert theirs.count('class="badge ready"') == 1 and f'action="{url}"' in theirs
    started = opponent.post(url, HTTP_HX_REQUEST="true")
    assert started.status_code == 200 and started["HX-Redirect"].endswith(
        reverse("tournament_page", args=[tournament.pk])
    )
    pairing.refresh_from_db()
    assert pairing.table is not None and pairing.table.status == Table.Status.RUNNING
    page = _page(opponent, tournament)
    assert "You are both ready: your game has started." in page
    assert reverse("table_detail", args=[pairing.table_id]) in page


def _unchanged(tournament: Tournament):
    """What a refused request must leave as it was."""
    return (
        Tournament.objects.filter(pk=tournament.pk).values_list("version", "status").get(),
        list(PairingSeat.objects.order_by("pk").values_list("pk", "ready_at", "place")),
        list(Round.objects.order_by("pk").values_list("pk", "closed_at")),
        Table.objects.count(),
    )


def _refused(client: Client, url: str, tournament: Tournament, status: int, message: str) -> None:
    before = _unchanged(tournament)
    for htmx in (False, True):
        extra = {"HTTP_HX_REQUEST": "true"} if htmx else {}
        response = client.post(url, **extra)
        assert response.status_code == status, (url, htmx, response.status_code)
        assert message in response.content.decode(), (url, htmx)
        if htmx:
            assert response.content.decode().lstrip().startswith('<div id="messages"')
    assert _unchanged(tournament) == before


def test_ready_is_refused_for_anothers_game_a_started_one_and_a_missing_one(make_user):
    tournament, players = _windows(make_user)
    alice = players[1]
    mine = _pairing_of(tournament, alice)
    theirs = Pairing.objects.filter(round__tournament=tournament, is_bye=False).exclude(pk=mine.pk)
    other = theirs.first()
    assert other is not None
    client = client_for(alice)
    ready = lambda pairing_id: reverse("tournament_ready", args=[tournament.pk, pairing_id])  # noqa: E731
    _refused(client, ready(other.pk), tournament, 403, "This game of the tournament is not yours.")
    _refused(client, ready(999999), tournament, 404, "There is no such game in this tournament.")
    stranger = client_for(make_user(username="stranger"))
    _refused(stranger, ready(mine.pk), tournament, 403, "This game of the tournament is not yours.")
    for seat in mine.seats.select_related("entry__user"):
        assert client_for(seat.entry.user).post(ready(mine.pk)).status_code == 302
    mine.refresh_from_db()
    assert mine.table_id is not None
    _refused(client, ready(mine.pk), tournament, 409, "This game has started already.")
    visitor = client_for(None).post(ready(mine.pk))
    assert visitor.status_code == 302 and "/accounts/login/" in visitor["Location"]
    assert client.get(ready(mine.pk)).status_code == 405


# -- ending a stalled round -------------------------------------------------------------


def test_its_creator_ends_a_round_once_its_time_is_up(make_user):
    players = _players(make_user, 4)
    creator = make_user(username="creator")
    tournament = tournament_started(creator=creator, players=players)
    url = reverse("tournament_round_end", args=[tournament.pk])
    page = _page(client_for(creator), tournament)
    assert "End this round" not in page and "you may end this round from" in page
    assert "you may end this round" not in _page(client_for(players[0]), tournament)
    _refused(client_for(creator), url, tournament, 409, "This round may be ended once its window")
    _refused(
        client_for(players[0]),
        url,
        tournament,
        403,
        "Only the player who created a tournament can end its rounds.",
    )
    Round.objects.filter(tournament=tournament).update(closes_at=timezone.now() - DAY)
    page = _page(client_for(creator), tournament)
    assert f'action="{url}"' in page and "End this round" in page
    assert "End this round" not in _page(client_for(players[0]), tournament)
    _refused(
        client_for(players[0]),
        url,
        tournament,
        403,
        "Only the player who created a tournament can end its rounds.",
    )
    theirs = client_for(creator)
    response = theirs.post(url)
    assert response.status_code == 302
    first = Round.objects.get(tournament=tournament, number=1)
    assert first.closed_at is not None
    assert Round.objects.filter(tournament=tournament, number=2, closed_at__isnull=True).exists()
    assert "The round is over." in theirs.get(response["Location"]).content.decode()


def test_no_round_to_end_once_it_is_over(make_user):
    players = _players(make_user, 2)
    tournament = tournament_started(creator=players[0], players=players, rounds=1)
    tournament_finish(tournament, random.Random(7))
    url = reverse("tournament_round_end", args=[tournament.pk])
    _refused(client_for(players[0]), url, tournament, 409, "No round of this tournament")


def test_the_whole_page_has_a_token_in_each_form_for_a_browser_without_javascript(make_user):
    tournament, players = _windows(make_user)
    Round.objects.filter(tournament=tournament).update(closes_at=timezone.now() - DAY)
    page = _page(client_for(players[0]), tournament)
    forms = re.findall(r"<form\b.*?</form>", page, flags=re.S)
    actions = [f for f in forms if "tournament_ready" in f or "/ready/" in f or "/round/end/" in f]
    assert len(actions) == 2  # her "I'm ready", and "End this round": she created it
    assert all("csrfmiddlewaretoken" in form for form in actions)
    fragment = _poll(client_for(players[0]), tournament, tournament.version - 1).content.decode()
    assert "/ready/" in fragment and "/round/end/" in fragment
    assert "csrfmiddlewaretoken" not in fragment


# -- a fixed number of queries ----------------------------------------------------------


def _count(client: Client, url: str, **extra) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url, **extra).status_code == 200
    return len(captured)


def _costs(tournament: Tournament, viewer: User) -> tuple[int, ...]:
    """The page's queries for a visitor and a player in it, and the poll's when it moved."""
    url = reverse("tournament_page", args=[tournament.pk])
    visitor, player = client_for(None), client_for(viewer)
    player.get(url)  # the session's first page reads a little more
    moved = {"data": {"v": tournament.version - 1}, "HTTP_HX_REQUEST": "true"}
    return (_count(visitor, url), _count(player, url), _count(player, url, **moved))


@pytest.mark.parametrize(
    "chosen",
    [
        {"format": Format.SWISS},
        {"format": Format.KNOCKOUT, "rounds": None, "match_games": 3},
        {"format": Format.ROUND_ROBIN, "rounds": None},
    ],
    ids=["swiss", "knockout", "round-robin"],
)
def test_the_page_costs_the_same_with_4_or_16_players_and_1_or_3_rounds(make_user, chosen):
    rng = random.Random(8)
    few = _players(make_user, 4, "few")
    small = tournament_started(creator=few[0], players=few, **chosen)
    many = _players(make_user, 16, "many")
    large = tournament_started(creator=many[0], players=many, **chosen)
    rounds_played(large, 2, rng)
    game_finish(running_tables(large)[0], rng)
    assert Round.objects.filter(tournament=large).count() == 3
    tournament_leave(tournament_id=large.pk, user=many[5])
    large.refresh_from_db()
    small_costs, large_costs = _costs(small, few[1]), _costs(large, many[1])
    assert small_costs == large_costs
    assert small_costs[0] <= PAGE_QUERIES
    # And once it is over.
    tournament_finish(small, rng)
    tournament_finish(large, rng)
    assert _costs(small, few[1]) == _costs(large, many[1])


def test_a_knockout_ranks_a_player_through_to_the_final_above_those_out(make_user):
    """A 3-player bracket: seed 1 has a bye into the final; once the semi-final ends, the
    finalists rank above its loser (before, the bye's winner shared the loser's place until a
    game of the final ended)."""
    players = [make_user(username=f"k{k}") for k in range(3)]
    tournament = tournament_started(
        creator=players[0], players=players, format=Format.KNOCKOUT, rounds=None, min_players=3
    )
    [semi] = running_tables(tournament)
    game_finish(semi, random.Random(5))
    finalists = set(running_tables(tournament)[0].seats.values_list("user_id", flat=True))
    ranks = dict(tournament.entries.values_list("user_id", "rank"))
    [out] = [player.pk for player in players if player.pk not in finalists]
    assert all(ranks[finalist] < ranks[out] for finalist in finalists)


def test_ready_and_withdrawing_move_the_version_the_pages_poll(make_user):
    players = [make_user(username=f"w{k}") for k in range(4)]
    tournament = tournament_started(
        creator=players[0],
        players=players,
        format=Format.SWISS_WINDOWS,
        rounds=2,
        round_window=dt.timedelta(days=3),
    )
    pairing = Pairing.objects.filter(round__tournament=tournament, is_bye=False).first()
    first = pairing.seats.order_by("position").first().entry.user
    before = Tournament.objects.get(pk=tournament.pk).version
    assert pairing_ready(pairing_id=pairing.pk, user=first) is False
    after_ready = Tournament.objects.get(pk=tournament.pk).version
    assert after_ready > before
    tournament_leave(tournament_id=tournament.pk, user=first)
    assert Tournament.objects.get(pk=tournament.pk).version > after_ready
