"""The block matrix (#27.8): each of a block's three switches, alone, against every path by which
one player reaches another: chat lines, joining a table (either way round), challenges (either
way round), rematches, notifications and the lists people see each other in.

Alice blocks bob with one switch on. For each path the test asks, over HTTP as the players do,
whether bob still reaches alice (or alice bob); the answer must be "no" exactly for the switches
that path obeys [OGS's three switches; a blocked player vanishes from the blocker's lists, as
lila #20084 and OGS #2935 ask], and "yes" for the others: a switch does no more than it says.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.urls import reverse

from accounts.models import User
from accounts.notify import NoteKind
from community.models import Challenge, Notification, Room
from community.services.chat import chat_line_post
from games.models import Seat, Table
from games.services.tables import table_create, table_join
from tests.conftest import client_for
from tests.games.rated_games import play_to_the_end

pytestmark = pytest.mark.django_db
HTMX = {"HTTP_HX_REQUEST": "true"}
SWITCHES = ("hide_lines", "no_games", "no_contact")


def open_table(host: User) -> Table:
    return table_create(user=host, game="district-noir", num_seats=2, seconds_per_move=86400)


def running_table(first: User, second: User) -> Table:
    table = open_table(first)
    table_join(table_id=table.pk, user=second)
    return table


def page(user: User, name: str, *args: object) -> str:
    return client_for(user).get(reverse(name, args=args)).content.decode()


# Each path: does ``sender`` still reach ``receiver`` by it? Each asks as a player would, and
# calls ``block`` where a block would come: before, or while they share a table.


def chat_line_seen(sender: User, receiver: User, block: Callable[[], None]) -> bool:
    table = running_table(receiver, sender)
    block()
    chat_line_post(table_id=table.pk, user=sender, room=Room.TABLE, text="good luck to you")
    return "good luck to you" in page(receiver, "table_detail", table.pk)


def joins_their_table(sender: User, receiver: User, block: Callable[[], None]) -> bool:
    block()
    table = open_table(receiver)
    listed = f"/t/{table.pk}/" in page(sender, "lobby")
    answer = client_for(sender).post(reverse("table_join", args=[table.pk]), **HTMX)
    seated = Seat.objects.filter(table=table, user=sender).exists()
    assert listed == seated == (answer.status_code < 400), (listed, seated, answer.status_code)
    return seated


def challenges_them(sender: User, receiver: User, block: Callable[[], None]) -> bool:
    fields = {
        "game": "district-noir",
        "district-noir-num_seats": "2",
        "district-noir-seconds_per_move": "86400",
    }
    block()
    url = reverse("challenge_new", args=[receiver.username])
    answer = client_for(sender).post(url, fields, **HTMX)
    sent = Challenge.objects.filter(sender=sender).exists()
    assert sent == (answer.status_code < 400), answer.status_code
    if not sent:
        assert answer.status_code == 403 and "challenge" in answer.text.lower()
    return sent and "challenge-" in page(receiver, "challenges")


def offers_a_rematch(sender: User, receiver: User, block: Callable[[], None]) -> bool:
    table = play_to_the_end(running_table(receiver, sender))
    block()
    answer = client_for(sender).post(reverse("table_rematch", args=[table.pk]), **HTMX)
    offered = Table.objects.get(pk=table.pk).next_table_id is not None
    assert offered == (answer.status_code < 400), answer.status_code
    return offered


def mention_notifies(sender: User, receiver: User, block: Callable[[], None]) -> bool:
    table = running_table(receiver, sender)
    block()
    chat_line_post(
        table_id=table.pk, user=sender, room=Room.PLAYERS, text=f"@{receiver.username} hello"
    )
    made = Notification.objects.filter(user=receiver, kind=NoteKind.MENTION).exists()
    shown = f"@{receiver.username} hello" in page(receiver, "notifications")
    assert shown <= made
    return shown


def in_their_lists(sender: User, receiver: User, block: Callable[[], None]) -> bool:
    """Whether ``receiver`` sees ``sender`` among the people at a finished table they shared, to
    follow in one click (the block ends follows, so the people page has no row for either)."""
    table = play_to_the_end(running_table(receiver, sender))
    block()
    return f"Follow {sender.public_name}" in page(receiver, "table_detail", table.pk)


Path = Callable[[User, User, Callable[[], None]], bool]
# Each path, who tries it (the blocked bob, or alice who blocked him), and the switches that
# stop it. Either way round for games: neither is seated with the other.
MATRIX: list[tuple[str, Path, str, set[str]]] = [
    ("chat", chat_line_seen, "bob", {"hide_lines"}),
    ("chat", chat_line_seen, "alice", set()),
    ("join", joins_their_table, "bob", {"no_games"}),
    ("join", joins_their_table, "alice", {"no_games"}),
    ("challenge", challenges_them, "bob", {"no_games", "no_contact"}),
    ("challenge", challenges_them, "alice", {"no_games"}),
    ("rematch", offers_a_rematch, "bob", {"no_games"}),
    ("rematch", offers_a_rematch, "alice", {"no_games"}),
    ("notification", mention_notifies, "bob", {"hide_lines", "no_contact"}),
    ("notification", mention_notifies, "alice", set()),
    ("lists", in_their_lists, "bob", set(SWITCHES)),
    ("lists", in_their_lists, "alice", {"no_games"}),
]


@pytest.mark.parametrize("switch", SWITCHES)
@pytest.mark.parametrize(
    ("path", "tries", "stopped_by"),
    [(path, tries, stopped) for _name, path, tries, stopped in MATRIX],
    ids=[f"{name}-from-{tries}" for name, _path, tries, _stopped in MATRIX],
)
def test_a_switch_stops_exactly_the_paths_it_names(
    alice, bob, switch: str, path: Path, tries: str, stopped_by: set[str]
):
    def block() -> None:
        url = reverse("player_block", args=[bob.username])
        assert client_for(alice).post(url, {switch: "on"}, **HTMX).status_code == 200

    sender, receiver = (bob, alice) if tries == "bob" else (alice, bob)
    assert path(sender, receiver, block) is (switch not in stopped_by)


@pytest.mark.parametrize(("name", "path", "tries"), [(n, p, t) for n, p, t, _ in MATRIX])
def test_every_path_is_open_without_a_block(alice, bob, name: str, path: Path, tries: str):
    """The matrix's control: with no block every path reaches the other, so a "no" above is
    the block's doing."""
    sender, receiver = (bob, alice) if tries == "bob" else (alice, bob)
    assert path(sender, receiver, lambda: None), name
