"""Who may see and do what: every view and action for a visitor, a stranger, a player seated
at another table and the players of this table; CSRF; throttled sign-ins; secure cookies.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.test import Client, override_settings
from django.urls import reverse

from accounts.models import User
from games.models import Move, Seat, Table
from games.rules import get_rules
from games.services.reminders import user_unsubscribe_token
from games.services.tables import table_create, table_join
from tests.conftest import client_for, forget_boards
from tests.games.rated_games import play_to_the_end

pytestmark = pytest.mark.django_db

DN = get_rules("district-noir")
ROOT = Path(__file__).resolve().parents[3]
HTMX = {"HTTP_HX_REQUEST": "true"}
ROLES = ["visitor", "stranger", "elsewhere", "mover", "waiting"]


def _running(host: User, guest: User) -> Table:
    table = table_create(user=host, game="district-noir", num_seats=2, seconds_per_move=86400)
    table_join(table_id=table.pk, user=guest)
    table.refresh_from_db()
    return table


class Cast:
    """This table (alice opened it, bob joined), another running table, a stranger."""

    def __init__(self, make_user) -> None:
        self.alice, self.bob = make_user(username="alice"), make_user(username="bob")
        self.erin, self.frank = make_user(username="erin"), make_user(username="frank")
        self.dave = make_user(username="dave")
        self.table = _running(self.alice, self.bob)
        self.other = _running(self.erin, self.frank)
        state = DN.from_json(self.table.state)
        self.mover_seat = DN.active_seats(state)[0]
        self.action = DN.legal_actions(state, self.mover_seat)[0]

    def user(self, role: str) -> User | None:
        seated = {s.position: s.user for s in self.table.seats.select_related("user")}
        return {
            "visitor": None,
            "stranger": self.dave,
            "elsewhere": self.erin,
            "mover": seated[self.mover_seat],
            "waiting": seated[1 - self.mover_seat],
        }[role]


@pytest.fixture
def cast(make_user) -> Cast:
    return Cast(make_user)


def _state(table: Table) -> tuple:
    table = Table.objects.get(pk=table.pk)
    seats = list(Seat.objects.filter(table=table).values_list("user_id", "position", "is_waiting"))
    return table.status, table.version, table.state, seats, Move.objects.filter(table=table).count()


# Pages anyone may read; a player's own seat shows their hand, nobody else's does.
@pytest.mark.parametrize("role", ROLES)
def test_the_table_page_and_its_json_show_each_their_own_seat_only(cast, role):
    client = client_for(cast.user(role))
    page = client.get(reverse("table_detail", args=[cast.table.pk]))
    data = client.get(reverse("table_view_json", args=[cast.table.pk])).json()
    log = client.get(reverse("table_log", args=[cast.table.pk]))
    assert page.status_code == 200 and log.status_code == 200
    seated = role in ("mover", "waiting")
    assert (b"Your hand" in page.content) is seated
    assert (data["seat"] is not None) is seated
    state = DN.from_json(Table.objects.get(pk=cast.table.pk).state)
    for position in range(2):
        if seated and data["seat"] == position:
            continue
        for card in DN.view(state, position)["hand"]:
            assert f"&quot;card&quot;:{card['id']}," not in page.content.decode()


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize(
    "name",
    [
        "lobby",
        "leaderboard",
        "player_profile",
        "table_replay",
        "table_record",
        "table_detail",
        "table_log",
    ],
)
def test_public_pages_answer_everyone(cast, role, name):
    finished = cast.other
    if name in ("table_replay", "table_record"):
        finished = play_to_the_end(_running(cast.frank, cast.dave))
    args = {
        "lobby": [],
        "leaderboard": ["district-noir"],
        "player_profile": ["alice"],
        "table_replay": [finished.pk],
        "table_record": [finished.pk],
        "table_detail": [cast.other.pk],
        "table_log": [cast.other.pk],
    }[name]
    assert client_for(cast.user(role)).get(reverse(name, args=args)).status_code == 200


@pytest.mark.parametrize("role", ROLES)
def test_a_running_game_has_no_replay_or_record_yet(cast, role):
    client = client_for(cast.user(role))
    assert client.get(reverse("table_replay", args=[cast.table.pk])).status_code == 404
    assert client.get(reverse("table_record", args=[cast.table.pk])).status_code == 404


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("name", ["play_settings", "profile_edit"])
def test_settings_pages_need_a_signed_in_player(cast, role, name):
    response = client_for(cast.user(role)).get(reverse(name))
    if role == "visitor":
        assert response.status_code == 302 and reverse("account_login") in response.url
    else:
        assert response.status_code == 200


# What each role gets when it posts each action at this running table (HTMX, as the board
# posts): only the player to move may move; nobody may join, leave, abort, seat a bot or play
# it again (not over yet).
ACTIONS = {
    "table_act": {"visitor": 403, "stranger": 403, "elsewhere": 403, "mover": 200, "waiting": 400},
    "table_join": {"stranger": 409, "elsewhere": 409, "mover": 200, "waiting": 200},
    "table_leave": {"stranger": 409, "elsewhere": 409, "mover": 409, "waiting": 409},
    "table_abort": {"stranger": 403, "elsewhere": 403},
    "table_seat_bot": {"stranger": 403, "elsewhere": 403},
    "table_rematch": {"stranger": 403, "elsewhere": 403, "mover": 409, "waiting": 409},
}


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("name", sorted(ACTIONS))
def test_each_action_at_a_running_table_for_each_role(cast, role, name):
    creator = cast.alice == cast.user(role)
    expected = ACTIONS[name].get(role)
    if expected is None and role in ("mover", "waiting"):
        expected = 409 if creator else 403  # the creator is told the game started
    before = _state(cast.table)
    data = {"action": json.dumps(cast.action), "version": cast.table.version, "level": "easy"}
    response = client_for(cast.user(role)).post(reverse(name, args=[cast.table.pk]), data, **HTMX)
    if role == "visitor" and name != "table_act":
        assert response.status_code == 302 and reverse("account_login") in response.url
    else:
        assert response.status_code == expected, response.content[:300]
    if response.status_code >= 400:
        assert b'class="message error"' in response.content
    moved = name == "table_act" and role == "mover"
    assert (_state(cast.table) != before) is moved


@pytest.mark.parametrize("role", ["stranger", "elsewhere"])
def test_only_the_creator_manages_an_open_table(cast, role):
    open_table = table_create(
        user=cast.alice, game="district-noir", num_seats=2, seconds_per_move=86400
    )
    client = client_for(cast.user(role))
    before = _state(open_table)
    for name in ["table_abort", "table_seat_bot", "table_leave"]:
        response = client.post(reverse(name, args=[open_table.pk]), {"level": "easy"}, **HTMX)
        assert response.status_code == 403
    assert _state(open_table) == before
    joined = client.post(reverse("table_join", args=[open_table.pk]), **HTMX)
    assert joined.status_code == 200 and joined["HX-Redirect"]
    assert Table.objects.get(pk=open_table.pk).is_running


@pytest.mark.parametrize(
    "name",
    [
        "table_create",
        "play_against_bots",
        "vacation_start",
        "vacation_end",
        "play_settings",
        "usersessions_list",
        "mfa_index",
        "mfa_activate_totp",
        "mfa_add_webauthn",
    ],
)
def test_account_actions_send_a_visitor_to_sign_in(name):
    response = Client().post(reverse(name), {"game": "district-noir", "days": 3})
    assert response.status_code == 302 and reverse("account_login") in response.url
    assert not Table.objects.exists()


def _csrf_client(user: User) -> Client:
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    return client


POSTS = [
    ("table_act", True),
    ("table_join", True),
    ("table_leave", True),
    ("table_abort", True),
    ("table_seat_bot", True),
    ("table_rematch", True),
    ("table_create", False),
    ("play_against_bots", False),
    ("play_settings", False),
    ("vacation_start", False),
    ("vacation_end", False),
    ("profile_edit", False),
    ("language_set", False),
    ("account_logout", False),
]


@pytest.mark.parametrize(("name", "per_table"), POSTS)
def test_every_post_without_a_csrf_token_is_refused(cast, name, per_table):
    mover = cast.user("mover")
    client = _csrf_client(mover)
    args = [cast.table.pk] if per_table else []
    before = _state(cast.table), Table.objects.count(), User.objects.get(pk=mover.pk).language
    data = {"action": json.dumps(cast.action), "version": cast.table.version, "days": 3}
    data.update({"game": "district-noir", "num_seats": 2, "level": "easy", "language": "cs"})
    response = client.post(reverse(name, args=args), data, **HTMX)
    assert response.status_code == 403
    assert "This page is out of date: reload the page and try again." in response.text
    page = client.post(reverse(name, args=args), data)  # without JavaScript: a whole page
    assert page.status_code == 403 and 'role="alert"' in page.text and "site-header" in page.text
    after = _state(cast.table), Table.objects.count(), User.objects.get(pk=mover.pk).language
    assert after == before


def test_a_move_with_the_pages_csrf_token_goes_through(cast):
    client = _csrf_client(cast.user("mover"))
    client.get(reverse("table_detail", args=[cast.table.pk]))
    token = client.cookies["csrftoken"].value
    response = client.post(
        reverse("table_act", args=[cast.table.pk]),
        {"action": json.dumps(cast.action), "version": cast.table.version},
        HTTP_X_CSRFTOKEN=token,
        **HTMX,
    )
    assert response.status_code == 200
    assert Move.objects.filter(table=cast.table).count() == 1


def test_the_one_click_unsubscribe_needs_no_csrf_token_but_the_signed_link(cast):
    client = Client(enforce_csrf_checks=True)
    assert client.post(reverse("unsubscribe", args=["forged"])).status_code == 400
    response = client.post(reverse("unsubscribe", args=[user_unsubscribe_token(user=cast.dave)]))
    assert response.status_code == 200
    assert not User.objects.get(pk=cast.dave.pk).wants_reminders


PASSWORD = "correct horse battery staple"  # the factories' password


def _sign_in(login: str, password: str, address: str = "10.1.1.1"):
    return Client(REMOTE_ADDR=address).post(
        reverse("account_login"), {"login": login, "password": password}
    )


@override_settings(AXES_ENABLED=True)
def test_repeated_failed_sign_ins_lock_that_name_out_for_that_address(make_user):
    from axes.utils import reset

    forget_boards()
    reset()
    make_user(username="victim")
    make_user(username="neighbour")
    try:
        answers = [_sign_in("victim", f"guess {i}") for i in range(5)]
        assert [a.status_code for a in answers[:4]] == [400] * 4  # the form, with its error
        assert answers[4].status_code == 429
        assert b"Too many sign-in attempts" in answers[4].content
        for login in ["victim", "Victim"]:  # names count case-blind
            refused = _sign_in(login, PASSWORD)
            assert refused.status_code != 302 and b"Too many" in refused.content
        # Another player at the same address is not locked out.
        assert _sign_in("neighbour", PASSWORD).status_code == 302
    finally:
        reset()
        forget_boards()


def test_production_settings_use_secure_cookies_and_throttle_sign_ins():
    env = {k: v for k, v in os.environ.items() if k not in ("PYTEST_VERSION", "DJANGO_DEBUG")}
    env.update(DJANGO_SECRET_KEY="x" * 60, DJANGO_ALLOWED_HOSTS="cards.example.org")
    code = (
        "import django, json; django.setup(); from django.conf import settings as s; "
        "print(json.dumps([s.DEBUG, s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, "
        "s.SESSION_COOKIE_HTTPONLY, s.SECURE_SSL_REDIRECT, s.SECURE_HSTS_SECONDS > 0, "
        "s.AXES_ENABLED, s.AUTHENTICATION_BACKENDS[0]]))"
    )
    env["DJANGO_SETTINGS_MODULE"] = "config.settings"
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    ).stdout
    debug, *secure, axes, first_backend = json.loads(out)
    assert debug is False
    assert secure == [True] * 5
    assert axes is True and first_backend == "axes.backends.AxesStandaloneBackend"
