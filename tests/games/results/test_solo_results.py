"""A solo game is won or lost against the game (issue 25, point 1).

Point City alone against its Automa (rules document, section 9): "the human wins by beating
the Automa", so a lower score or an equal one loses. The profile, the list of finished games,
the leaderboard, the replay and the table's result panel all say the same.
"""

from __future__ import annotations

import importlib
import random
import re
from html.parser import HTMLParser
from typing import Any

import pytest
from django.apps import apps
from django.db import connection, transaction
from django.urls import reverse

from games.catalog import playable_games
from games.models import Move, PlayerRecord, Rating, RatingChange, Seat, Table
from games.rules import get_rules
from games.services.moves import move_apply, move_play
from games.services.table_rows import table_locked
from games.services.tables import table_create
from tests.conftest import client_for
from tests.games.rated_games import finished_game
from tests.support.page_queries import PROFILE_QUERIES, REPLAY_QUERIES, TABLE_PAGE_QUERIES

pytestmark = pytest.mark.django_db

PC = get_rules("point-city")


def _solo_moves(level: int, result: str) -> tuple[int, list[dict[str, Any]]]:
    """A seed and the moves of a solo game at ``level`` that the player wins, loses or ties
    with the Automa (``result``: "won", "lost" or "tie"), found by playing the rules alone: a
    player who prefers the takes that build something, else any legal move."""
    for seed in range(200):
        rng = random.Random(seed)
        state = PC.setup(1, seed, {"automa_difficulty": level})
        moves = []
        while PC.outcome(state) is None:
            legal = PC.legal_actions(state, 0)
            paying = [a for a in legal if a["type"] == "take" and a["pay"]]
            moves.append(rng.choice(paying or legal))
            state = PC.apply(state, 0, moves[-1])
        mine = state_score(state)
        theirs = PC.view(state, None)["automa"]["score"]
        found = "won" if mine > theirs else "tie" if mine == theirs else "lost"
        if found == result:
            return seed, moves
    raise AssertionError(f"no seed below 200 gives a solo game {result} at level {level}")


def state_score(state: Any) -> int:
    return PC.view(state, None)["players"][0]["score"]


def solo_game(user, monkeypatch, *, level: int, result: str, forfeit: bool = False) -> Table:
    """A one-seat Point City table that ``user`` played to its end through the services (a
    table asked to be rated, as the table form offers by default). ``forfeit``: a bot took
    the seat over after too many timeouts before the first move, and played those moves."""
    seed, moves = _solo_moves(level, result)
    monkeypatch.setattr("games.services.tables.secrets.randbits", lambda _bits: seed)
    table = table_create(
        user=user,
        game="point-city",
        num_seats=1,
        seconds_per_move=86400,
        options={"automa_difficulty": level},
    )
    if forfeit:
        table.seats.update(replaced_by_bot=True, timeouts=table.max_timeouts)
    for action in moves:
        table.refresh_from_db()
        if forfeit:
            with transaction.atomic():
                locked = table_locked(table_id=table.pk)
                move_apply(table=locked, seat=locked.seats.get(), action=action, by=Move.By.BOT)
        else:
            move_play(table_id=table.pk, user=user, action=action, version=table.version)
    table.refresh_from_db()
    assert table.is_finished
    return table


def final_state(table: Table) -> Any:
    return PC.from_json(table.state)


class _Tables(HTMLParser):
    """The text of every cell of every ``<table>`` of a page, by the table's classes."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, list[list[str]]] = {}
        self._rows: list[list[str]] | None = None
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self._rows = self.tables.setdefault(dict(attrs).get("class") or "", [])
        elif tag == "tr" and self._rows is not None:
            self._rows.append([])
        elif tag in ("td", "th") and self._rows is not None:
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None and self._rows:
            self._rows[-1].append(" ".join("".join(self._cell).split()))
            self._cell = None
        elif tag == "table":
            self._rows = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def table_rows(html: str, css_class: str) -> list[list[str]]:
    """The rows (header included) of the page's table whose classes include ``css_class``."""
    parser = _Tables()
    parser.feed(html)
    [rows] = [rows for classes, rows in parser.tables.items() if css_class in classes.split()]
    return rows


def text(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def solo_verdict(html: str) -> str:
    """The sentence of Point City's own result panel on who won, in plain text."""
    [found] = re.findall(r'<p class="pc-solo-verdict">(.*?)</p>', html, re.S)
    return text(found)


def profile_url(user) -> str:
    return reverse("player_profile", args=[user.username])


# -- the profile ------------------------------------------------------------------------------


def test_a_lost_solo_game_is_no_win_on_the_profile(alice, monkeypatch):
    """The issue's case: lost to the Automa, and the profile said "Won 1"."""
    solo_game(alice, monkeypatch, level=1, result="lost")
    profile = client_for(None).get(profile_url(alice)).context["profile"]
    assert sum(record.wins + record.draws for record in profile.records) == 0
    assert Seat.objects.get(table__game="point-city", user=alice).rank != 0


# -- the rules and the services ---------------------------------------------------------------


@pytest.mark.parametrize(("result", "rank"), [("won", 0), ("lost", 1), ("tie", 1)])
def test_a_solo_game_is_stored_won_only_when_the_player_beat_the_automa(
    alice, monkeypatch, result, rank
):
    """Section 9: "The human wins by beating the Automa"; equalling it is no win."""
    table = solo_game(alice, monkeypatch, level=2, result=result)
    state = final_state(table)
    mine, theirs = state_score(state), PC.view(state, None)["automa"]["score"]
    assert (mine > theirs) == (result == "won") and (mine == theirs) == (result == "tie")
    seat = table.seats.get()
    assert (seat.rank, seat.score) == (rank, mine)
    assert table.outcome["ranks"] == [rank] and table.outcome["scores"] == [mine]
    solo = table.outcome["details"]["solo"]
    assert solo == {"won": result == "won", "level": 2, "opponent_score": theirs}
    assert table.outcome == PC.outcome(state).to_json()


def test_a_solo_game_is_never_rated_even_when_asked_for(alice, monkeypatch):
    table = solo_game(alice, monkeypatch, level=1, result="won")
    assert not table.rated  # the table form offers "rated" by default; one seat never is
    assert not RatingChange.objects.exists() and not Rating.objects.exists()
    board = client_for(None).get(reverse("leaderboard", args=["point-city"]))
    assert alice.public_name not in board.content.decode()


def test_a_solo_game_lost_by_timeouts_is_lost_even_if_the_bot_beat_the_automa(alice, monkeypatch):
    """Too many timeouts and "the game counts as a loss for that player" (DESIGN.md)."""
    table = solo_game(alice, monkeypatch, level=1, result="won", forfeit=True)
    assert PC.outcome(final_state(table)).details["solo"]["won"]  # the bot's play won
    assert table.seats.get().rank == 1
    assert table.outcome["details"]["solo"]["won"] is False
    html = client_for(alice).get(reverse("table_detail", args=[table.pk])).content.decode()
    assert solo_verdict(html).startswith("Your time ran out too often")
    assert "pc-star-on" not in html


def test_every_game_playable_alone_names_its_opponent_and_its_levels():
    for rules in playable_games():
        if rules.min_players > 1:
            continue
        assert rules.solo_opponent, rules.slug
        assert rules.solo_level_option in rules.default_options, rules.slug
        level = rules.default_options[rules.solo_level_option]
        assert rules.solo_level_name(level), rules.slug


@pytest.mark.parametrize("rules", [r for r in playable_games() if r.min_players == 1])
def test_every_solo_outcome_says_won_or_lost_and_ranks_a_loss_behind_the_game(rules):
    seen = set()
    for seed in range(12):
        rng = random.Random(seed)
        state = rules.setup(1, seed)
        while (outcome := rules.outcome(state)) is None:
            state = rules.apply(state, 0, rng.choice(rules.legal_actions(state, 0)))
        solo = outcome.details["solo"]
        assert outcome.ranks == [0 if solo["won"] else 1]
        assert solo["level"] == rules.default_options[rules.solo_level_option]
        seen.add(solo["won"])
    assert False in seen  # random moves lose to the game at least once


# -- the profile ------------------------------------------------------------------------------


def test_the_profile_counts_solo_games_apart_by_level(alice, bob, monkeypatch):
    finished_game(alice, bob, seed=1)
    solo_game(alice, monkeypatch, level=1, result="won")
    solo_game(alice, monkeypatch, level=1, result="lost")
    solo_game(alice, monkeypatch, level=2, result="lost")
    response = client_for(None).get(profile_url(alice))
    html = response.content.decode()
    [people] = response.context["profile"].records
    assert (people.game, people.played) == ("district-noir", 1)
    assert table_rows(html, "solo-record") == [
        ["Game", "Against", "Level", "Played", "Won", "Lost"],
        ["Point City", "Automa", "easy", "2", "1", "1"],
        ["Point City", "Automa", "medium", "1", "0", "1"],
    ]
    assert "never rated" in html


def test_the_profiles_finished_games_say_won_or_lost_against_the_automa(alice, monkeypatch):
    lost = solo_game(alice, monkeypatch, level=3, result="lost")
    won = solo_game(alice, monkeypatch, level=1, result="won")
    html = client_for(None).get(profile_url(alice)).content.decode()
    rows = table_rows(html, "finished-games")
    assert rows[0][:5] == ["Game", "Finished", "Players", "Place", "Rating"]
    by_table = {row[0]: row[2:5] for row in rows[1:]}
    assert by_table[f"Point City #{won.pk}"] == ["alice against Automa", "won", "solo, easy"]
    assert by_table[f"Point City #{lost.pk}"] == ["alice against Automa", "lost", "solo, hard"]
    assert "No finished game yet." not in html


def test_a_profile_with_solo_games_only_shows_them(alice, monkeypatch):
    solo_game(alice, monkeypatch, level=1, result="lost")
    response = client_for(None).get(profile_url(alice))
    assert response.context["profile"].records == []
    html = response.content.decode()
    assert table_rows(html, "solo-record")[1] == ["Point City", "Automa", "easy", "1", "0", "1"]
    assert "No finished game yet." not in html


@pytest.mark.parametrize("games", [1, 3])
def test_the_profile_costs_the_same_with_few_or_many_solo_games(
    alice, bob, monkeypatch, games, django_assert_max_num_queries
):
    finished_game(alice, bob, seed=2)
    for n in range(games):
        solo_game(alice, monkeypatch, level=1 + n % 2, result="lost")
    client = client_for(bob)
    with django_assert_max_num_queries(PROFILE_QUERIES):
        assert client.get(profile_url(alice)).status_code == 200


# -- the replay and the table page ------------------------------------------------------------


@pytest.mark.parametrize("result", ["won", "lost"])
def test_the_replay_lists_the_automa_with_its_score_and_says_who_won(
    alice, monkeypatch, result, django_assert_max_num_queries
):
    table = solo_game(alice, monkeypatch, level=2, result=result)
    state = final_state(table)
    mine, theirs = state_score(state), PC.view(state, None)["automa"]["score"]
    client = client_for(None)
    with django_assert_max_num_queries(REPLAY_QUERIES):
        response = client.get(reverse("table_replay", args=[table.pk]))
    html = response.content.decode()
    rows = table_rows(html, "results")
    player = ["alice", str(mine), "solo game: not rated"]
    automa = ["Automa", str(theirs), "—"]
    assert rows[0] == ["Place", "Player", "Score", "Rating"]
    if result == "won":
        assert rows[1:] == [["1", *player], ["2", *automa]]
        assert "A solo game against Automa (level: medium): alice won." in text(html)
    else:
        assert rows[1:] == [["1", *automa], ["2", *player]]
        assert "A solo game against Automa (level: medium): alice lost." in text(html)


@pytest.mark.parametrize("result", ["won", "lost", "tie"])
def test_the_table_page_the_profile_and_the_replay_agree(
    alice, monkeypatch, result, django_assert_max_num_queries
):
    table = solo_game(alice, monkeypatch, level=1, result=result)
    state = final_state(table)
    mine, theirs = state_score(state), PC.view(state, None)["automa"]["score"]
    client = client_for(alice)
    with django_assert_max_num_queries(TABLE_PAGE_QUERIES):
        page = client.get(reverse("table_detail", args=[table.pk])).content.decode()
    panel = solo_verdict(page)
    replay = text(client.get(reverse("table_replay", args=[table.pk])).content.decode())
    profile = client.get(profile_url(alice)).content.decode()
    [row] = table_rows(profile, "finished-games")[1:]
    if result == "won":
        assert f"You beat the Automa, {mine} to {theirs}: you earn 1 star." in panel
        assert "alice won." in replay and row[3] == "won"
    else:
        assert f"The Automa wins, {theirs} to {mine}: no stars this time." in panel
        assert "alice lost." in replay and row[3] == "lost"


# -- the records stored before: the data migration --------------------------------------------

MIGRATION = importlib.import_module("games.migrations.0007_solo_results")
RECORDS = importlib.import_module("games.migrations.0017_player_records")


def records_counted_again() -> None:
    """The players' records counted from the seats, as migration games 0017 does."""
    PlayerRecord.objects.all().delete()
    with connection.schema_editor() as editor:
        RECORDS.records_from_seats(apps, editor)


def _stored_as_before(table: Table) -> dict[str, Any]:
    """Makes ``table`` as the code before this change stored it: its one seat ranked first
    whether it won or lost, its outcome without ``details["solo"]``."""
    outcome = dict(table.outcome)
    outcome["details"] = {k: v for k, v in outcome["details"].items() if k != "solo"}
    outcome["ranks"] = [0]
    Table.objects.filter(pk=table.pk).update(outcome=outcome)
    Seat.objects.filter(table=table).update(rank=0)
    return outcome


@pytest.mark.parametrize("result", ["won", "lost"])
def test_the_migration_ranks_a_stored_solo_loss_behind_the_game(alice, monkeypatch, result):
    table = solo_game(alice, monkeypatch, level=2, result=result)
    fixed = table.outcome
    old = _stored_as_before(table)
    assert table.seats.get().rank == 0  # a loss stored as a first place: a win in the record

    MIGRATION.rank_solo_games_against_the_game(apps, None)
    table.refresh_from_db()
    assert table.outcome == fixed
    assert table.seats.get().rank == (0 if result == "won" else 1)
    records_counted_again()  # as the migration that keeps records counts the games before it
    [record] = client_for(None).get(profile_url(alice)).context["profile"].solo_records
    assert (record.level, record.wins, record.played) == (2, int(result == "won"), 1)

    MIGRATION.rank_solo_games_against_the_game(apps, None)  # twice changes nothing more
    table.refresh_from_db()
    assert table.outcome == fixed

    MIGRATION.rank_every_solo_game_first(apps, None)
    table.refresh_from_db()
    assert table.outcome == old and table.seats.get().rank == 0


def test_the_migration_counts_a_stored_solo_game_forfeited_as_lost(alice, monkeypatch):
    table = solo_game(alice, monkeypatch, level=1, result="won", forfeit=True)
    _stored_as_before(table)
    MIGRATION.rank_solo_games_against_the_game(apps, None)
    table.refresh_from_db()
    assert table.seats.get().rank == 1 and table.outcome["details"]["solo"]["won"] is False
    assert table.outcome["forfeited"] == [0]


def test_the_migration_leaves_games_of_several_players_alone(alice, bob):
    table = finished_game(alice, bob, seed=3)
    ranks = list(table.seats.values_list("rank", flat=True))
    MIGRATION.rank_solo_games_against_the_game(apps, None)
    MIGRATION.rank_every_solo_game_first(apps, None)
    assert Table.objects.get(pk=table.pk).outcome == table.outcome
    assert list(table.seats.values_list("rank", flat=True)) == ranks
