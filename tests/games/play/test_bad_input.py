"""Bad input at every endpoint that takes input: never a 5xx, a 4xx says why, no table changes.

Hypothesis throws random JSON, wrong types, unknown actions, stale and absurd versions,
other people's tables, anonymous visitors and oversized bodies at each endpoint; the
inputs are drawn so that none is a valid request that may change a table.
"""

from __future__ import annotations

import contextlib
import json
import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any
from urllib.parse import quote, urlencode, urlsplit

import pytest
from django.test import Client
from django.urls import NoReverseMatch, reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accounts.models import Block, Follow, User, Vacation
from community.models import (
    Challenge,
    ChallengeInvite,
    ChatLine,
    ChatReport,
    ModerationAction,
    Notification,
    PlayerReport,
    PushSubscription,
    TableChat,
)
from games.bots import BOT_LEVELS
from games.catalog import playable_games
from games.models import Move, Reminder, Seat, Table
from games.rules import get_rules
from games.services.tables import table_create, table_join
from games.time_controls import TIME_PER_MOVE_CHOICES
from tests.conftest import client_for
from tests.games.rated_games import play_to_the_end

pytestmark = pytest.mark.django_db

EXAMPLES = settings(
    max_examples=25,  # derandomized, the same each run: 40 took the suite 5-6 minutes of a worker
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
HUGE = "x" * 3_000_000  # over DATA_UPLOAD_MAX_MEMORY_SIZE (2.5 MB)
NO_TABLE = 987654321

text = st.text(st.characters(codec="utf-8"), max_size=40)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(text, inner, max_size=4),
    max_leaves=12,
)
values = st.one_of(
    text,
    st.integers().map(str),
    json_values.map(json.dumps),
    st.sampled_from(["", "0", "-1", "1e9", "null", "[]", "{}", "x" * 5000]),
)
bodies = st.one_of(
    st.dictionaries(text, values, max_size=5),
    st.just({"huge": HUGE}),
    st.just({f"f{i}": "1" for i in range(1200)}),  # over DATA_UPLOAD_MAX_NUMBER_FIELDS
)
who = st.sampled_from(["anonymous", "stranger", "seated", "to_move"])


class World:
    """A running game, someone else's open table, a finished game, and the people around."""

    def __init__(self, make_user) -> None:
        self.alice, self.bob, self.carol, self.dave = (make_user() for _ in range(4))
        self.running = table_create(
            user=self.alice, game="district-noir", num_seats=2, seconds_per_move=86400
        )
        table_join(table_id=self.running.pk, user=self.bob)
        self.open = table_create(
            user=self.carol, game="district-noir", num_seats=2, seconds_per_move=86400
        )
        self.running.refresh_from_db()

    @cached_property
    def finished(self) -> Table:
        """Played to the end on first use: only some tests need a finished game."""
        table = table_create(
            user=self.carol, game="district-noir", num_seats=2, seconds_per_move=86400
        )
        table_join(table_id=table.pk, user=self.dave)
        return play_to_the_end(table)

    def user(self, role: str) -> User | None:
        state = get_rules("district-noir").from_json(self.running.state)
        to_move = get_rules("district-noir").active_seats(state)[0]
        seated = self.running.seats.get(position=1 - to_move).user
        mover = self.running.seats.get(position=to_move).user
        return {"anonymous": None, "stranger": self.dave, "seated": seated, "to_move": mover}[role]

    def legal_anywhere(self) -> list[Any]:
        rules = get_rules("district-noir")
        state = rules.from_json(Table.objects.get(pk=self.running.pk).state)
        return [a for seat in range(2) for a in rules.legal_actions(state, seat)]


@pytest.fixture
def world(make_user) -> World:
    return World(make_user)


def snapshot() -> tuple:
    tables = Table.objects.order_by("pk").values_list(
        "pk", "status", "version", "state", "seed", "outcome", "options", "num_seats"
    )
    seats = Seat.objects.order_by("pk").values_list(
        "pk", "table_id", "position", "user_id", "bot_level", "is_waiting", "deadline",
        "timeouts", "replaced_by_bot", "turn",
    )  # fmt: skip
    return list(tables), list(seats), Move.objects.count()


WORD = re.compile(r"[^\W\d_]{3,}")


def says_why(response) -> bool:
    body = response.content.decode("utf-8", "replace")
    if response.get("Content-Type", "").startswith("application/json"):
        return bool(json.loads(body))
    return WORD.search(re.sub(r"<[^>]*>", " ", body)) is not None


def check(client: Client, method: str, url: str, data: Any = None, **extra: Any):
    before = snapshot()
    response = getattr(client, method)(url, data, **extra)
    assert response.status_code < 500, (url, str(data)[:200])
    if response.status_code >= 400:
        assert says_why(response), (url, response.status_code, response.content[:300])
    assert snapshot() == before, url
    return response


def _htmx(flag: bool) -> dict[str, str]:
    return {"HTTP_HX_REQUEST": "true"} if flag else {}


@EXAMPLES
@given(
    role=who,
    action=st.one_of(json_values.map(json.dumps), text, st.just(HUGE[:5000])),
    version=st.one_of(st.none(), values),
    table=st.sampled_from(["running", "open", "finished", "missing"]),
    htmx=st.booleans(),
    page=st.one_of(st.just(""), text),
)
def test_playing_an_action(world, role, action, version, table, htmx, page):
    try:
        if json.loads(action) in world.legal_anywhere():
            return  # a legal move is not bad input
    except ValueError:
        pass
    table_id = getattr(world, table).pk if table != "missing" else NO_TABLE
    data = {"action": action} if version is None else {"action": action, "version": version}
    url = reverse("table_act", args=[table_id])
    check(client_for(world.user(role)), "post", url, data, HTTP_X_PAGE=page, **_htmx(htmx))


@EXAMPLES
@given(role=who, body=bodies, htmx=st.booleans())
def test_posting_any_body_to_a_move(world, role, body, htmx):
    url = reverse("table_act", args=[world.running.pk])
    check(client_for(world.user(role)), "post", url, body, **_htmx(htmx))


@EXAMPLES
@given(role=who, body=bodies)
def test_posting_json_instead_of_a_form(world, role, body):
    url = reverse("table_act", args=[world.running.pk])
    check(
        client_for(world.user(role)), "post", url, json.dumps(body), content_type="application/json"
    )


invalid_time = values.filter(lambda v: v.strip() not in {str(s) for s, _ in TIME_PER_MOVE_CHOICES})


@EXAMPLES
@given(
    role=who,
    game=st.one_of(text, st.sampled_from([r.slug for r in playable_games()])),
    fields=st.dictionaries(
        st.sampled_from(["num_seats", "rated", "option_x", "seconds_per_move"]), values
    ),
    seconds=invalid_time,
)
def test_opening_a_table(world, role, game, fields, seconds):
    data = {f"{game}-{name}": value for name, value in fields.items()}
    data.update({"game": game, f"{game}-seconds_per_move": seconds})
    tables = Table.objects.count()
    check(client_for(world.user(role)), "post", reverse("table_create"), data)
    assert Table.objects.count() == tables


@EXAMPLES
@given(
    role=who,
    game=st.one_of(text, st.sampled_from([r.slug for r in playable_games()])),
    seats=values,
    level=text.filter(lambda v: v not in BOT_LEVELS),
)
def test_playing_against_bots(world, role, game, seats, level):
    data = {"game": game, "num_seats": seats, "level": level}
    tables = Table.objects.count()
    check(client_for(world.user(role)), "post", reverse("play_against_bots"), data)
    assert Table.objects.count() == tables


# Who may not do what at which table: joining a running, finished or missing table; leaving,
# aborting or seating a bot at a table one did not open or that already started.
REFUSED = {
    "table_join": ["running", "finished", "missing"],
    "table_rematch": ["running", "open", "missing"],  # the finished one: see below
    "table_leave": ["running", "finished", "open", "missing"],
    "table_abort": ["running", "finished", "open", "missing"],
    "table_seat_bot": ["running", "finished", "open", "missing"],
}


@EXAMPLES
@given(
    view=st.sampled_from(sorted(REFUSED)),
    role=st.sampled_from(["anonymous", "stranger", "seated"]),
    table=st.sampled_from(["running", "finished", "open", "missing"]),
    body=st.dictionaries(st.sampled_from(["level", "seat"]) | text, values, max_size=3),
    htmx=st.booleans(),
)
def test_joining_leaving_aborting_and_seating_bots(world, view, role, table, body, htmx):
    if table not in REFUSED[view]:
        return
    table_id = getattr(world, table).pk if table != "missing" else NO_TABLE
    check(client_for(world.user(role)), "post", reverse(view, args=[table_id]), body, **_htmx(htmx))


@EXAMPLES
@given(
    role=st.sampled_from(["anonymous", "seated", "to_move"]),
    body=st.dictionaries(st.sampled_from(["table", "seat"]) | text, values, max_size=3),
    htmx=st.booleans(),
)
def test_playing_again_a_finished_game_one_did_not_play(world, role, body, htmx):
    """Only its players may play a finished game again (carol and dave played this one)."""
    url = reverse("table_rematch", args=[world.finished.pk])
    check(client_for(world.user(role)), "post", url, body, **_htmx(htmx))


def _not_a_vacation(value: str) -> bool:
    try:
        return not 1 <= int(value) <= 30
    except ValueError:
        return True


@EXAMPLES
@given(
    role=who,
    body=st.dictionaries(
        st.sampled_from(
            [
                "reminder_delay",
                "reminder_cadence",
                "reminder_hour",
                "reminder_every_hours",
                "quiet_hours_start",
                "quiet_hours_end",
            ]
        )
        | text,
        values,
    ),
    days=values.filter(_not_a_vacation),
)
def test_settings_and_vacations(world, role, body, days):
    client = client_for(world.user(role))
    check(client, "post", reverse("play_settings"), body)
    check(client, "post", reverse("vacation_start"), {"days": days})


@EXAMPLES
@given(
    token=text.filter(lambda t: "/" not in t and t.strip()), method=st.sampled_from(["get", "post"])
)
def test_unsubscribing_with_a_broken_token(world, token, method):
    check(Client(), method, reverse("unsubscribe", args=[token]))


def _account_urls() -> list[str]:
    urls = []
    for name in ["profile_edit", "language_set", "display_set", "set_language"]:
        with contextlib.suppress(NoReverseMatch):  # a setting this site may not have (yet)
            urls.append(reverse(name))
    return urls


@EXAMPLES
@given(role=who, body=bodies, url=st.sampled_from(_account_urls()))
def test_profile_language_and_display_settings(world, role, body, url):
    check(client_for(world.user(role)), "post", url, body)


PAGES = [
    "table_replay",
    "table_replay_running",
    "leaderboard",
    "player_profile",
    "table_detail",
    "table_log",
]


@EXAMPLES
@given(
    role=who,
    page=st.sampled_from([*PAGES, "lobby"]),
    params=st.dictionaries(st.sampled_from(["step", "page", "provisional", "v"]) | text, values),
    htmx=st.booleans(),
)
def test_query_parameters_of_pages(world, role, page, params, htmx):
    url = {
        "table_replay": lambda: reverse("table_replay", args=[world.finished.pk]),
        "table_replay_running": lambda: reverse("table_replay", args=[world.running.pk]),
        "leaderboard": lambda: reverse("leaderboard", args=["district-noir"]),
        "player_profile": lambda: reverse("player_profile", args=[world.alice.username]),
        "table_detail": lambda: reverse("table_detail", args=[world.running.pk]),
        "table_log": lambda: reverse("table_log", args=[world.running.pk]),
        "lobby": lambda: reverse("lobby"),
    }[page]()
    check(client_for(world.user(role)), "get", url, params, **_htmx(htmx))


# Characters that str.isdigit() accepts but int() refuses, and a number too long to read.
NOT_QUITE_NUMBERS = ["²", "1²", "⁵", "9" * 5000]


@pytest.mark.parametrize("value", NOT_QUITE_NUMBERS)
def test_numbers_that_only_look_like_numbers(world, value):
    """A board poll's ``?v=²`` was a 500: "²".isdigit() is true, int("²") fails."""
    client = client_for(world.user("seated"))
    board = reverse("table_detail", args=[world.running.pk])
    assert check(client, "get", board, {"v": value}, HTTP_HX_REQUEST="true").status_code == 200


@EXAMPLES
@given(role=who, code=text.filter(lambda t: "/" not in t and t.strip()))
def test_a_made_up_invite_code(world, role, code):
    check(client_for(world.user(role)), "get", reverse("table_invite", args=[code]))


def test_a_stale_move_is_refused_with_the_board_and_changes_nothing(world):
    rules = get_rules("district-noir")
    table = Table.objects.get(pk=world.running.pk)
    state = rules.from_json(table.state)
    seat = rules.active_seats(state)[0]
    action = json.dumps(rules.legal_actions(state, seat)[0])
    client = client_for(world.user("to_move"))
    url = reverse("table_act", args=[table.pk])
    first = client.post(url, {"action": action, "version": table.version}, HTTP_HX_REQUEST="true")
    assert first.status_code == 200
    again = check(
        client, "post", url, {"action": action, "version": table.version}, HTTP_HX_REQUEST="true"
    )
    assert again.status_code == 409
    assert b"moved on" in again.content


# Odd values a person or a script sends by hand, as they travel in a form body, a query
# string or a path (already percent-encoded, or deliberately not: "%%", "%zz").
ODD_VALUES = {
    "deep arrays": quote("[" * 999 + "]" * 999),  # RecursionError in json.loads: a 500
    "deep objects": quote('{"a":' * 300 + "1" + "}" * 300),
    "unclosed arrays": quote("[" * 1900),
    "bare word": "abc",  # redirect() took it for a URL name: NoReverseMatch, a 500
    "url name": "lobby",
    "percent signs": quote("%%"),
    "raw percent signs": "%%",
    "broken escape": "%zz",
    "invalid utf-8": "%FF%FE%FD",
    "overlong utf-8": "%C0%AF",
    "nul": "%00",
    "nul inside": "a%00b",
    "control characters": quote("\r\n\t\x1b"),
    "very long": "x" * 5000,
    "very long number": "9" * 5000,
    "superscript digit": quote("²"),
    "arabic-indic digits": quote("٩٩٩٩"),
    "fullwidth digits": quote("\uff11\uff12\uff13\uff14"),
    "negative": "-1",
    "exponent": "1e999",
    "not a number": "NaN",
    "json null": "null",
    "json with a wrong type": quote('{"type": ["play"], "card": {"id": null}}'),
    "empty": "",
    "blank": quote("   "),
    "emoji": quote("🂡🃏"),
    "right-to-left override": quote("\u202e"),
    "protocol-relative url": quote("//evil.example"),
    "absolute url": quote("https://evil.example/"),
    "backslash url": quote("/\\evil.example"),
    "javascript url": quote("javascript:alert(1)"),
}
QUERY_NAMES = ["v", "page", "step", "provisional", "next", "game"]


@dataclass(frozen=True)
class Endpoint:
    """A URL that takes input, who may send it, and a request that may never change anything.

    ``fields`` is the form the page would post: each field in turn gets the odd value while
    the others keep theirs. They are chosen so that no value makes the request valid: either
    the request changes nothing when it succeeds (language, display), or a second field is
    always wrong.
    """

    name: str
    method: str = "post"
    table: str | None = None  # the table in the path: running, open, finished, missing
    path_value: bool = False  # the URL's one string argument takes the odd value
    fields: dict[str, str] = field(default_factory=dict)
    query: bool = False  # every QUERY_NAMES parameter takes the odd value
    roles: tuple[str, ...] = ("anonymous", "to_move")
    htmx: bool = False


ENDPOINTS = [
    Endpoint("table_act", table="running", fields={"action": '{"type": "none"}', "version": "?"}),
    Endpoint("table_act", table="running", fields={"action": "[]", "version": "?"}, htmx=True),
    Endpoint("table_act", table="missing", fields={"action": "[]", "version": "1"}),
    Endpoint(
        "table_create",
        fields={
            "game": "district-noir",
            "district-noir-num_seats": "7",
            "district-noir-seconds_per_move": "1",
            "district-noir-rated": "on",
        },
    ),
    Endpoint("play_against_bots", fields={"game": "slide", "num_seats": "9", "level": "x"}),
    Endpoint("table_join", table="running", fields={"next": "/"}, roles=("stranger",)),
    Endpoint("table_seat_bot", table="open", fields={"level": "medium"}, roles=("owner",)),
    Endpoint("table_leave", table="running", fields={"next": "/"}),
    Endpoint("table_abort", table="running", fields={"next": "/"}),
    Endpoint("table_rematch", table="running", fields={"next": "/"}),
    Endpoint("table_rematch", table="finished", fields={"next": "/"}, htmx=True),
    Endpoint("table_rematch", table="missing", fields={"next": "/"}),
    Endpoint("table_rematch_decline", table="running", fields={"next": "/"}),
    Endpoint("table_rematch_decline", table="finished", fields={"next": "/"}, htmx=True),
    Endpoint("table_invite", method="get", path_value=True),
    Endpoint(
        "play_settings",
        fields={
            "reminder_delay": "-7",
            "reminder_cadence": "daily",
            "reminder_hour": "25",
            "reminder_every_hours": "4",
            "quiet_hours_start": "22:00",
        },
    ),
    Endpoint("confirm_moves_set", fields={"confirm_moves": "sometimes"}),
    Endpoint("vacation_start", fields={"days": "0"}),
    Endpoint("vacation_end", fields={"next": "/"}),
    Endpoint("unsubscribe", method="get", path_value=True),
    Endpoint("unsubscribe", path_value=True),
    Endpoint(
        "profile_edit",
        fields={"display_name": "Al", "time_zone": "No/Such_Zone", "language": "xx"},
    ),
    Endpoint("language_set", fields={"language": "en", "next": "/"}),
    Endpoint("display_set", fields={"contrast": "50", "grain": "25", "warmth": "50", "next": "/"}),
    Endpoint("set_language", fields={"language": "en", "next": "/"}),
    Endpoint(
        "account_login",
        fields={"login": "nobody", "password": "wrong", "next": "/"},
        roles=("anonymous",),
    ),
    Endpoint(
        "account_signup",
        fields={
            "email": "new@example.com",
            "username": "newcomer",
            "password1": "a long pass phrase 42",
            "password2": "another pass phrase 43",
        },
        roles=("anonymous",),
    ),
    Endpoint("account_reset_password", fields={"email": "x"}, roles=("anonymous",)),
    Endpoint("lobby", method="get", query=True),
    Endpoint("table_detail", method="get", table="running", query=True),
    Endpoint("table_detail", method="get", table="running", query=True, htmx=True),
    Endpoint("table_log", method="get", table="running", query=True),
    Endpoint("table_view_json", method="get", table="running", query=True),
    Endpoint("table_replay", method="get", table="finished", query=True),
    Endpoint("table_record", method="get", table="finished", query=True),
    Endpoint("game_page", method="get", path_value=True, query=True),
    Endpoint("leaderboard", method="get", path_value=True, query=True),
    Endpoint("player_profile", method="get", path_value=True, query=True),
    # The chat (#27.1): a room that does not exist, or a line nobody may write there.
    Endpoint("chat_post", table="running", fields={"room": "kitchen", "chat_text": "hi"}),
    Endpoint(
        "chat_post", table="running", fields={"room": "kitchen", "chat_text": "hi"}, htmx=True
    ),
    Endpoint("chat_post", table="missing", fields={"room": "table", "chat_text": "hi"}),
    Endpoint("chat_spectators", table="running", fields={"closed": "maybe"}),
    Endpoint("chat_spectators", table="open", fields={"closed": "1"}, roles=("stranger",)),
    # Follows, blocks and reports (#27.2): a choice that is neither, a player who is not there;
    # a block whose switches are all off (not "on") lifts a block there is not.
    Endpoint("player_follow", path_value=True, fields={"follow": "maybe"}),
    Endpoint("player_follow", path_value=True, fields={"follow": "maybe"}, htmx=True),
    Endpoint("player_block", path_value=True, fields={"hide_lines": "yes", "no_games": "yes"}),
    Endpoint("player_report", path_value=True, fields={"reason": "ugly", "details": "hm"}),
    Endpoint("people", method="get", query=True),
    # Challenges (#27.3): a game that is none, a challenge that is not there, a reason not offered.
    Endpoint(
        "challenge_new",
        path_value=True,
        fields={"game": "slide", "slide-num_seats": "9", "slide-seconds_per_move": "86400"},
    ),
    Endpoint("challenge_accept", table="missing"),
    Endpoint("challenge_decline", table="missing", fields={"reason": "later"}),
    Endpoint("challenge_withdraw", table="missing"),
    Endpoint("challenge_settings", fields={"challenges_from": "aliens"}),
    Endpoint("challenges", method="get", query=True),
    # Notifications (#27.5): a switch that is not on the page, or a value that is not "on"; a
    # notification that is not there.
    Endpoint("notification_settings", fields={"challenge:site": "on", "bogus:site": "on"}),
    Endpoint("notification_open", method="get", table="missing"),
    Endpoint("notifications", method="get", query=True),
    # Browser push (#27.6): keys that are no keys (and push is off in the test settings).
    Endpoint("push_subscribe", fields={"endpoint": "https://push.example.com/1", "auth": "A"}),
    Endpoint("push_unsubscribe", fields={"endpoint": "https://push.example.com/1"}),
]


def _endpoint_id(endpoint: Endpoint) -> str:
    parts = [endpoint.name, endpoint.method, endpoint.table or "", "htmx" if endpoint.htmx else ""]
    return "-".join(part for part in parts if part)


def _everything() -> tuple:
    """Tables, seats and moves, and every stored setting of every player."""
    users = User.objects.order_by("pk").values_list(
        *[f.attname for f in User._meta.concrete_fields if f.name != "last_login"]
    )
    chat = (
        list(ChatLine.objects.values_list("pk", "text", "hidden_at")),
        ModerationAction.objects.count(),
        ChatReport.objects.count(),
        list(TableChat.objects.values_list("table_id", "spectators_closed")),
        list(Follow.objects.values_list("follower_id", "followed_id")),
        list(Block.objects.values_list("blocker_id", "blocked_id", "hide_lines", "no_games")),
        PlayerReport.objects.count(),
        list(Challenge.objects.values_list("pk", "status")),
        list(ChallengeInvite.objects.values_list("pk", "answer")),
        list(Notification.objects.values_list("pk", "read_at", "mail_due_at")),
        list(PushSubscription.objects.values_list("pk", "endpoint")),
    )
    return snapshot(), list(users), Vacation.objects.count(), Reminder.objects.count(), chat


def _off_site(location: str) -> bool:
    parts = urlsplit(location)
    return bool(parts.scheme or parts.netloc) or location[:2] in ("//", "/\\", "\\\\")


def _requests(world: World, endpoint: Endpoint, odd: str) -> list[tuple[str, str]]:
    """(url, form body) for each place the odd value can go in this endpoint's input."""
    if endpoint.table == "missing":
        args: list[Any] = [NO_TABLE]
    elif endpoint.table:
        args = [getattr(world, endpoint.table).pk]
    else:
        args = ["PLACEHOLDER"] if endpoint.path_value else []
    fields = {
        name: str(world.running.version) if value == "?" else value
        for name, value in endpoint.fields.items()
    }
    base = reverse(endpoint.name, args=args)
    plain = {"game_page": "slide", "leaderboard": "slide", "player_profile": "alice"}
    named = ("player_follow", "player_block", "player_report", "challenge_new")
    plain |= dict.fromkeys(named, world.carol.username)
    url = base.replace("PLACEHOLDER", plain.get(endpoint.name, "x"))
    found = [(base.replace("PLACEHOLDER", odd), urlencode(fields))] if endpoint.path_value else []
    if endpoint.query:
        found.append((url + "?" + "&".join(f"{name}={odd}" for name in QUERY_NAMES), ""))
    for spoilt in fields:
        body = "&".join(
            f"{name}={odd if name == spoilt else quote(value)}" for name, value in fields.items()
        )
        found.append((url, body))
    return found


@pytest.mark.parametrize("endpoint", ENDPOINTS, ids=_endpoint_id)
def test_odd_values_in_every_field_of_every_endpoint(world, endpoint):
    """Every input of every endpoint, each odd value in turn: a 4xx that says why (or the
    page), never a 5xx, never a redirect off the site, and nothing stored changes."""
    User.objects.update(language="en")  # so that choosing English again changes nothing
    users = {
        "anonymous": None,
        "owner": world.carol,
        "stranger": world.dave,
        "to_move": world.user("to_move"),
    }
    # Made first: the world seats its tables as the requests name them.
    requests = [
        (label, url, body)
        for label, odd in ODD_VALUES.items()
        for url, body in _requests(world, endpoint, odd)
    ]
    problems = []
    for role in endpoint.roles:
        client = Client(raise_request_exception=False)  # a 500 is one more problem to list
        if users[role] is not None:
            client.force_login(users[role])
        stored = _everything()  # compared after each request, taken again after a change
        for label, url, body in requests:
            extra = _htmx(endpoint.htmx)
            if endpoint.method == "get":
                response = client.get(url, **extra)
            else:
                content_type = "application/x-www-form-urlencoded"
                response = client.post(url, body, content_type=content_type, **extra)
            status, where = response.status_code, f"{role}, {label}: {url} {body[:80]!r}"
            if status >= 500:
                problems.append(f"{status} for {where}")
            elif status >= 400 and not says_why(response):
                problems.append(f"{status} without a reason for {where}")
            elif 300 <= status < 400 and _off_site(response["Location"]):
                problems.append(f"off the site to {response['Location']} for {where}")
            after = _everything()
            if after != stored:
                problems.append(f"a change for {where}")
                stored = after
    assert not problems, "\n".join(problems)
