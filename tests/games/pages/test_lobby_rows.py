"""The lobby's rows tell tables apart: two tables of one game with the same players differ by
their number, whose turn it is, the clock and when they last moved (issue 25, point 6); and a
list of names reads as a sentence in each language (point 8)."""

from __future__ import annotations

import datetime as dt
import importlib
import re

import pytest
from django.apps import apps
from django.urls import reverse
from django.utils import timezone, translation

from accounts.models import User
from games.models import Move, Table
from games.rules import get_rules
from games.services.moves import move_play
from games.services.tables import table_create, table_join
from games.templatetags.names import and_list
from tests.conftest import client_for, user_at

pytestmark = pytest.mark.django_db

DN = get_rules("district-noir")


def _table(game: str, players: list[User]) -> Table:
    table = table_create(user=players[0], game=game, num_seats=len(players), seconds_per_move=86400)
    for player in players[1:]:
        table_join(table_id=table.pk, user=player)
    table.refresh_from_db()
    return table


def _play_until_waiting_for(table: Table, user: User) -> Table:
    """District Noir moves (the first legal one) until the game waits for ``user``."""
    for _ in range(10):
        table.refresh_from_db()
        waiting = table.seats.get(is_waiting=True)
        if waiting.user_id == user.pk:
            return table
        action = DN.legal_actions(DN.from_json(table.state), waiting.position)[0]
        move_play(table_id=table.pk, user=waiting.user, action=action, version=table.version)
    raise AssertionError(f"{table} never waited for {user}")


def _rows(content: str) -> dict[int, str]:
    """Each table row of a page, by the table's id."""
    rows = re.findall(r'<li class="table-row.*?</li>', content, re.S)
    return {int(re.search(r'href="/t/(\d+)/"', row).group(1)): row for row in rows}


def _local(moment: dt.datetime, user: User) -> str:
    return f"{timezone.localtime(moment, user.zone):%-d %b, %H:%M}"


def test_two_tables_of_the_same_game_and_players_read_apart(alice, bob):
    alice.time_zone = "Asia/Tokyo"
    alice.save()
    mine = _play_until_waiting_for(_table("district-noir", [alice, bob]), alice)
    # The other table a move or two further on, waiting for bob.
    theirs = _play_until_waiting_for(_table("district-noir", [alice, bob]), bob)
    theirs = _play_until_waiting_for(_play_until_waiting_for(theirs, alice), bob)
    rows = _rows(client_for(alice).get(reverse("lobby")).content.decode())
    a, b = rows[mine.pk], rows[theirs.pk]
    assert a != b
    for table, row in ((mine, a), (theirs, b)):
        assert f'<span class="table-number">#{table.pk}</span>' in row
        assert "alice and bob" in row
        deadline = table.seats.get(is_waiting=True).deadline
        assert f'<time datetime="{timezone.localtime(deadline, alice.zone).isoformat()}"' in row
    assert "Your turn" in a and "Waiting for" not in a
    assert "Waiting for bob" in b and "Your turn" not in b
    # When it last moved: the time for the browser to word ("3 hours ago"), and the server's
    # words in the viewer's own time zone.
    assert theirs.last_move_at is not None
    moved = timezone.localtime(theirs.last_move_at, alice.zone)
    assert f'Last move: <time datetime="{moved.isoformat()}" data-since>' in b
    assert f"data-since>{_local(theirs.last_move_at, alice)}</time>" in b


def test_a_table_not_moved_yet_says_when_it_started_or_opened(alice, bob):
    started = _table("district-noir", [alice, bob])
    opened = table_create(user=alice, game="district-noir", num_seats=2, seconds_per_move=86400)
    rows = _rows(client_for(alice).get(reverse("lobby")).content.decode())
    assert started.last_move_at is None
    assert f'Started: <time datetime="{started.started_at.isoformat()}"' in rows[started.pk]
    assert f'Opened: <time datetime="{opened.created_at.isoformat()}"' in rows[opened.pk]
    assert "(1/2)" in rows[opened.pk]


def test_a_row_waiting_for_several_names_them_all_with_the_clock_that_runs_out_first(
    alice, bob, carol
):
    """Slide's pick is simultaneous: after alice's pick the game waits for bob and carol."""
    table = _table("slide", [alice, bob, carol])
    content = client_for(alice).get(reverse("table_detail", args=[table.pk])).content.decode()
    assert "Waiting for alice, bob and carol" in content
    move_play(
        table_id=table.pk,
        user=alice,
        action={"type": "pick", "row": 0, "col": 0},
        version=table.version,
    )
    first = table.seats.get(user=carol)
    first.deadline = timezone.now() + dt.timedelta(hours=1)
    first.save(update_fields=["deadline"])
    row = _rows(client_for(alice).get(reverse("lobby")).content.decode())[table.pk]
    assert "Waiting for bob and carol" in row
    assert row.count("data-deadline") == 1
    assert f'<time datetime="{first.deadline.isoformat()}" data-deadline>' in row


def test_a_move_dates_its_table_and_the_start_does_not(running_table):
    assert running_table.last_move_at is None
    before = timezone.now()
    seat = running_table.seats.get(is_waiting=True)
    action = DN.legal_actions(DN.from_json(running_table.state), seat.position)[0]
    result = move_play(
        table_id=running_table.pk,
        user=user_at(running_table, seat.position),
        action=action,
        version=running_table.version,
    )
    running_table.refresh_from_db()
    assert before <= running_table.last_move_at <= timezone.now()
    assert abs(running_table.last_move_at - result.move.created_at) < dt.timedelta(seconds=1)


def test_the_migration_dates_every_table_by_its_last_move(running_table, alice):
    for _ in range(3):
        running_table = _play_until_waiting_for(running_table, alice)
        running_table = _play_until_waiting_for(
            running_table, running_table.seats.exclude(user=alice).get().user
        )
    unplayed = table_create(user=alice, game="district-noir", num_seats=2, seconds_per_move=86400)
    Table.objects.update(last_move_at=None)
    migration = importlib.import_module("games.migrations.0008_table_last_move_at")
    migration.date_the_last_moves(apps, None)
    last = Move.objects.filter(table=running_table).latest("seq")
    assert Table.objects.get(pk=running_table.pk).last_move_at == last.created_at
    assert Table.objects.get(pk=unplayed.pk).last_move_at is None


def test_the_waiting_line_lists_names_with_commas_and_escapes_them(alice, bob, carol):
    carol.display_name = "<b>carol</b>"
    carol.save()
    table = _table("slide", [alice, bob, carol])
    content = client_for(None).get(reverse("table_detail", args=[table.pk])).content.decode()
    assert "Waiting for alice, bob and &lt;b&gt;carol&lt;/b&gt;" in content
    assert "<b>carol</b>" not in content


@pytest.mark.parametrize(
    ("language", "two", "three"),
    [
        ("en", "alice and bob", "alice, bob and carol"),
        ("cs", "alice a bob", "alice, bob a carol"),
        ("sk", "alice a bob", "alice, bob a carol"),
        ("ca", "alice i bob", "alice, bob i carol"),
        ("hu", "alice és bob", "alice, bob és carol"),
    ],
)
def test_a_list_of_names_reads_as_each_language_writes_one(language, two, three):
    with translation.override(language):
        assert and_list([]) == ""
        assert and_list(["alice"]) == "alice"
        assert and_list(["alice", "bob"]) == two
        assert and_list(["alice", "bob", "carol"]) == three


def test_a_players_own_page_says_your_turn_and_anothers_names_them(alice, bob):
    table = _play_until_waiting_for(_table("district-noir", [alice, bob]), alice)
    profile = reverse("player_profile", args=[alice.username])
    own = _rows(client_for(alice).get(profile).content.decode())[table.pk]
    assert "Your turn" in own and 'class="table-row waiting"' in own
    seen_by_bob = _rows(client_for(bob).get(profile).content.decode())[table.pk]
    assert "Waiting for alice" in seen_by_bob and "Your turn" not in seen_by_bob


def test_the_bot_level_select_has_a_label_people_can_see(alice):
    content = client_for(alice).get(reverse("lobby")).content.decode()
    for rules in ("district-noir", "slide", "gnav", "point-city"):
        assert f'<label for="level-{rules}">Bot level</label>' in content
        assert f'<select name="level" id="level-{rules}">' in content
