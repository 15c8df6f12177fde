"""A player's data theirs (#28.4): the download holds everything the site keeps about them and
nothing of anyone else's hidden cards; closing the account leaves nothing of theirs readable or
able to sign in, while the games they played stay whole for everyone else.

The player is Quillon Zed (username ``zqxzed``): after closing, no page, fragment, JSON or
e-mail anyone gets may name them or their address, in any spelling.
"""

from __future__ import annotations

import datetime as dt
import io
import json
import re

import pytest
from allauth.account.models import EmailAddress
from django.core import mail
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from accounts.models import Follow, User
from community.models import Challenge, ChatLine, Notification, Room
from community.services.challenges import challenge_create
from community.services.chat import chat_line_post
from community.services.notes import sweep_note_mails
from community.services.people import follow_add
from games.jobs import sweeps
from games.models import Move, Seat, Table
from games.rules import get_rules
from games.services.tables import table_create, table_join
from tests.conftest import client_for, play_a_legal_move
from tests.games.rated_games import play_to_the_end

pytestmark = pytest.mark.django_db(transaction=True)

NAME, USERNAME, ADDRESS = "Quillon Zed", "zqxzed", "quillon.zed@example.test"
PASSWORD = "correct horse battery staple"
TRACES = re.compile(r"quillon|zqxzed|zed@", re.IGNORECASE)
DN = get_rules("district-noir")
HTMX = {"HTTP_HX_REQUEST": "true"}


def _two(first: User, second: User) -> Table:
    table = table_create(user=first, game="district-noir", num_seats=2, seconds_per_move=86400)
    table_join(table_id=table.pk, user=second)
    table.refresh_from_db()
    return table


def _to_move(table: Table) -> int:
    return DN.active_seats(DN.from_json(Table.objects.get(pk=table.pk).state))[0]


class World:
    """Zed's life on the site: a finished rated game against bob, a running one against carol
    where it is Zed's turn, an open table of Zed's and a seat at dave's, chat lines (one naming
    carol), follows both ways with bob, a challenge to dave."""

    def __init__(self, make_user) -> None:
        self.zed = make_user(username=USERNAME, display_name=NAME, email=ADDRESS)
        EmailAddress.objects.create(user=self.zed, email=ADDRESS, verified=True, primary=True)
        self.bob = make_user(username="bob")
        self.carol = make_user(username="carol")
        self.dave = make_user(username="dave")
        self.finished = play_to_the_end(_two(self.zed, self.bob))
        chat_line_post(
            table_id=self.finished.pk, user=self.zed, room=Room.TABLE, text="gg, Quillon"
        )
        self.running = _two(self.carol, self.zed)
        if _to_move(self.running) != 1:
            play_a_legal_move(self.running)
        chat_line_post(
            table_id=self.running.pk, user=self.zed, room=Room.TABLE, text="hi @carol, Quillon"
        )
        chat_line_post(
            table_id=self.running.pk, user=self.zed, room=Room.PLAYERS, text="zqxzed thinks"
        )
        self.own_open = table_create(
            user=self.zed, game="slide", num_seats=3, seconds_per_move=86400
        )
        self.daves_open = table_create(
            user=self.dave, game="slide", num_seats=3, seconds_per_move=86400
        )
        table_join(table_id=self.daves_open.pk, user=self.zed)
        follow_add(user=self.zed, target=self.bob)
        follow_add(user=self.bob, target=self.zed)
        self.challenge = challenge_create(
            sender=self.zed,
            receivers=[self.dave],
            game="district-noir",
            num_seats=2,
            seconds_per_move=86400,
        )


@pytest.fixture
def world(make_user) -> World:
    return World(make_user)


def _signed_in(user: User, login: str, *, confirmed: bool = True):
    """A browser that signed in through the form, and (``confirmed``) then confirmed who it is
    on allauth's "Confirm access" page, as the download and the closing ask."""
    client = client_for(None)
    client.post(reverse("account_login"), {"login": login, "password": PASSWORD})
    assert client.session.get("_auth_user_id") == str(user.pk)
    if confirmed:
        client.post(reverse("account_reauthenticate"), {"password": PASSWORD})
    return client


# The download.


def test_the_download_holds_everything_the_site_keeps_about_the_player(world):
    response = _signed_in(world.zed, USERNAME).get(reverse("account_data_download"))
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert response["Content-Disposition"].startswith('attachment; filename="card-tables-zqxzed-')
    data = json.loads(response.content)
    account = data["account"]
    assert (account["username"], account["display_name"], account["email"]) == (
        USERNAME,
        NAME,
        ADDRESS,
    )
    assert account["email_addresses"] == [{"email": ADDRESS, "verified": True, "primary": True}]
    assert [f["player"] for f in account["following"]] == ["bob"]
    assert [f["player"] for f in account["followers"]] == ["bob"]
    assert len(account["devices"]) == 1  # this sign-in
    assert "password" not in json.dumps(account)

    tables = {t["table"]: t for t in data["games"]["tables"]}
    assert set(tables) == {
        world.finished.pk,
        world.running.pk,
        world.own_open.pk,
        world.daves_open.pk,
    }
    finished = tables[world.finished.pk]
    assert finished["status"] == "finished" and finished["outcome"]
    assert [m["seq"] for m in finished["moves"]] == list(
        Move.objects.filter(table=world.finished).values_list("seq", flat=True)
    )
    assert {s["player"] for s in finished["seats"]} == {NAME, "bob"}
    # A running game: Zed's own moves and Zed's own view, not one of carol's cards.
    running = tables[world.running.pk]
    my_seat = running["my_seat"]
    assert {m["seat"] for m in running["moves"]} <= {my_seat}
    state = DN.from_json(Table.objects.get(pk=world.running.pk).state)
    assert running["my_view"] == json.loads(json.dumps(DN.view(state, my_seat)))
    assert json.dumps(DN.view(state, 1 - my_seat)["hand"]) not in json.dumps(running)
    assert [r["game"] for r in data["games"]["ratings"]] == ["district-noir"]
    assert [c["table"] for c in data["games"]["rating_changes"]] == [world.finished.pk]

    community = data["community"]
    assert [line["text"] for line in community["chat_lines"]] == [
        "gg, Quillon",
        "hi @carol, Quillon",
        "zqxzed thinks",
    ]
    assert {n["kind"] for n in community["notifications"]} == {"follower", "turn", "game_ended"}
    assert [n["from"] for n in community["notifications"] if n["kind"] == "follower"] == ["bob"]
    assert [c["invited"][0]["player"] for c in community["challenges_sent"]] == ["dave"]


def test_the_download_asks_who_you_are_first(world):
    response = client_for(world.zed).get(reverse("account_data_download"))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("account_reauthenticate"))


def test_the_download_reads_a_fixed_number_of_queries_however_many_games(world, make_user):
    client = _signed_in(world.zed, USERNAME)

    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            assert client.get(reverse("account_data_download")).status_code == 200
        return len(captured)

    before = queries()
    for _ in range(3):
        play_to_the_end(_two(world.zed, make_user()))
    chat_line_post(table_id=world.running.pk, user=world.zed, room=Room.TABLE, text="more")
    assert queries() == before


# Closing.


def test_closing_needs_the_box_ticked_and_changes_nothing_without_it(world):
    client = _signed_in(world.zed, USERNAME)
    for data in ({}, {"understood": ""}, {"understood": "false", "extra": "x" * 5000}):
        response = client.post(reverse("account_close"), data)
        assert response.status_code == 400
        assert "Tick the box to close your account." in response.content.decode()
    zed = User.objects.get(pk=world.zed.pk)
    assert zed.is_active and zed.closed_at is None and zed.username == USERNAME


def test_closing_asks_who_you_are_first(world):
    response = client_for(world.zed).post(reverse("account_close"), {"understood": "on"})
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("account_reauthenticate"))
    assert User.objects.get(pk=world.zed.pk).closed_at is None


def test_pages_to_do_with_the_data_need_a_signed_in_player(world):
    visitor = client_for(None)
    for name in ("account_data", "account_data_download"):
        response = visitor.get(reverse(name))
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    assert visitor.post(reverse("account_close"), {"understood": "on"}).status_code == 302
    assert client_for(world.zed).get(reverse("account_data")).status_code == 200
    assert client_for(world.zed).put(reverse("account_data")).status_code == 405
    assert visitor.get(reverse("account_closed")).status_code == 200


def _close(world: World) -> None:
    """Zed closes the account as a browser does: the form, "Confirm access", then closed."""
    client = _signed_in(world.zed, ADDRESS, confirmed=False)
    response = client.post(reverse("account_close"), {"understood": "on"})
    assert response["Location"].startswith(reverse("account_reauthenticate"))
    assert User.objects.get(pk=world.zed.pk).closed_at is None
    response = client.post(response["Location"], {"password": PASSWORD}, follow=True)
    assert response.redirect_chain[-1][0] == reverse("account_closed")
    assert "_auth_user_id" not in client.session
    assert client.get(reverse("profile_edit")).status_code == 302  # signed out here too
    world.zed.refresh_from_db()


def test_a_closed_account_signs_in_no_more_by_any_way(world):
    other_device = _signed_in(world.zed, USERNAME)
    _close(world)
    zed = world.zed
    assert not zed.is_active and zed.closed_at is not None and not zed.has_usable_password()
    assert zed.email == "" and not EmailAddress.objects.filter(user=zed).exists()
    assert not re.search(TRACES, zed.username)
    assert other_device.get(reverse("profile_edit")).status_code == 302
    for login in (USERNAME, ADDRESS, zed.username):
        browser = client_for(None)
        browser.post(reverse("account_login"), {"login": login, "password": PASSWORD})
        assert "_auth_user_id" not in browser.session
    mail.outbox.clear()
    browser = client_for(None)
    browser.post(reverse("account_request_login_code"), {"email": ADDRESS})
    # No code: the site knows the address no more, and says so as for any stranger's address.
    assert [m.subject for m in mail.outbox] == ["[Card Tables] Unknown Account"]
    assert "we do not have any record of such an account" in mail.outbox[0].body


def test_closing_twice_changes_nothing_more(world):
    from accounts.closing import account_close

    _close(world)
    name = world.zed.username
    account_close(user=world.zed)
    assert User.objects.get(pk=world.zed.pk).username == name


def test_the_games_go_on_and_the_tables_let_go(world):
    _close(world)
    seat = Seat.objects.get(table=world.running, user=world.zed)
    assert seat.replaced_by_bot
    # It was Zed's turn: the bot moved in the seat, and the game waits for carol now.
    assert Move.objects.filter(table=world.running, position=seat.position, by="bot").exists()
    assert _to_move(world.running) != seat.position
    assert Table.objects.get(pk=world.own_open.pk).status == Table.Status.ABORTED
    assert not Seat.objects.filter(table=world.daves_open, user=world.zed).exists()
    assert Challenge.objects.get(pk=world.challenge.pk).status == Challenge.Status.WITHDRAWN
    assert not Follow.objects.filter(follower=world.zed).exists()
    assert not Follow.objects.filter(followed=world.zed).exists()
    assert set(ChatLine.objects.filter(author=world.zed).values_list("text", flat=True)) == {""}
    assert not Notification.objects.filter(user=world.zed).exists()
    # Everyone else's results stay: the finished game, its ratings and replay.
    finished = Table.objects.get(pk=world.finished.pk)
    assert finished.status == Table.Status.FINISHED and finished.outcome


def _pages(world: World) -> list[tuple[str, object, str, dict]]:
    """Every page, fragment and JSON where Zed's name could show, for whom to read it."""
    running, finished = world.running.pk, world.finished.pk
    pages: list[tuple[str, object, str, dict]] = []
    for reader in (None, world.bob, world.carol, world.dave):
        pages += [
            ("lobby", reader, reverse("lobby"), {}),
            ("table", reader, reverse("table_detail", args=[running]), {}),
            ("table poll", reader, reverse("table_detail", args=[running]), HTMX),
            ("table json", reader, reverse("table_view_json", args=[running]), {}),
            ("table log", reader, reverse("table_log", args=[running]), {}),
            ("table chat", reader, reverse("chat_lines", args=[running, "table"]), HTMX),
            ("finished", reader, reverse("table_detail", args=[finished]), {}),
            ("replay", reader, reverse("table_replay", args=[finished]), {}),
            ("replay step", reader, reverse("table_replay", args=[finished]) + "?step=3", HTMX),
            ("record", reader, reverse("table_record", args=[finished]), {}),
            ("bob", reader, reverse("player_profile", args=["bob"]), {}),
            ("carol", reader, reverse("player_profile", args=["carol"]), {}),
            ("leaderboard", reader, reverse("leaderboard", args=["district-noir"]), {}),
            ("game page", reader, reverse("game_page", args=["district-noir"]), {}),
            ("daves table", reader, reverse("table_detail", args=[world.daves_open.pk]), {}),
        ]
    for reader in (world.bob, world.carol, world.dave):
        pages += [
            ("people", reader, reverse("people"), {}),
            ("notifications", reader, reverse("notifications"), {}),
            ("challenges", reader, reverse("challenges"), {}),
        ]
    pages.append(
        ("players chat", world.carol, reverse("chat_lines", args=[running, "players"]), HTMX)
    )
    return pages


def _showing_them(world: World) -> set[str]:
    shown = set()
    for what, reader, url, headers in _pages(world):
        response = client_for(reader).get(url, **headers)
        assert response.status_code == 200, (what, reader, response.status_code)
        if TRACES.search(response.content.decode()):
            shown.add(what)
    return shown


def test_after_closing_no_page_fragment_json_or_e_mail_names_them(world):
    # Before, the pages name them (the search finds what it looks for).
    assert _showing_them(world) >= {"table", "table poll", "table chat", "replay", "bob", "people"}
    _close(world)
    assert _showing_them(world) == set()
    replay = client_for(world.bob).get(reverse("table_replay", args=[world.finished.pk]))
    assert "a former player" in replay.content.decode()
    chat = client_for(world.carol).get(
        reverse("chat_lines", args=[world.running.pk, "table"]), **HTMX
    )
    assert "deleted" in chat.content.decode()
    for username in (USERNAME, world.zed.username):
        assert (
            client_for(world.bob).get(reverse("player_profile", args=[username])).status_code == 404
        )

    # The e-mails the others get from now on: carol's turn, carol's and bob's notifications.
    mail.outbox.clear()
    later = timezone.now() + dt.timedelta(days=1, hours=1)
    sweeps.sweep_reminders(later)
    sweep_note_mails(later)
    assert {m.to[0] for m in mail.outbox} >= {world.carol.email}
    for message in mail.outbox:
        texts = [message.subject, message.body, *(body for body, _ in message.alternatives)]
        assert not any(TRACES.search(text) for text in texts), message.subject
        assert world.zed.email not in message.to and ADDRESS not in message.to


def test_every_bot_turn_queued_by_the_closing_is_played_when_a_worker_runs_it(
    world, make_user, monkeypatch
):
    """With a real worker the queued turn runs after the closing's last commit: it must still
    find the table at the version it was queued for (it was refused as stale before)."""
    from games.jobs import tasks
    from games.services.bot_moves import bot_turn_play

    # A second running game where a bot had already taken Zed's seat (timeouts) and must move.
    taken = _two(make_user(), world.zed)
    if _to_move(taken) != 1:
        play_a_legal_move(taken)
    Seat.objects.filter(table=taken, user=world.zed).update(replaced_by_bot=True)
    queued: dict[int, int] = {}
    monkeypatch.setattr(
        tasks, "bot_turn_schedule", lambda table_id, version: queued.update({table_id: version})
    )
    _close(world)
    assert set(queued) == {world.running.pk, taken.pk}
    for table_id, version in queued.items():
        assert bot_turn_play(table_id=table_id, version=version) is not None
        assert _to_move(Table.objects.get(pk=table_id)) == 0


def test_an_operator_closes_accounts_by_id_and_an_unknown_id_closes_none(world):
    from django.core.management import CommandError, call_command

    with pytest.raises(CommandError, match="No such user: 999999"):
        call_command("accounts_close", str(world.zed.pk), "999999")
    assert User.objects.get(pk=world.zed.pk).closed_at is None
    out = io.StringIO()
    call_command("accounts_close", str(world.zed.pk), stdout=out)
    assert out.getvalue() == f"{world.zed.pk}: closed\n"
    zed = User.objects.get(pk=world.zed.pk)
    assert zed.closed_at is not None and zed.public_name == "a former player"
    assert Seat.objects.get(table=world.running, user=zed).replaced_by_bot
