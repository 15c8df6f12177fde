"""Bad input at the chat's endpoints (#27.1): never a 5xx; a 4xx says why and stores nothing; a
line accepted is stored once, as text. Floods, 10 KB lines, HTML and script, NUL, other tables,
made-up rooms and line numbers, anonymous visitors and spectators."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from community.models import ChatLine, ChatReport, TableChat
from community.services.chat import clean_line
from games.errors import GameError
from tests.conftest import client_for

pytestmark = pytest.mark.django_db

EXAMPLES = settings(
    max_examples=60,
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
WORD = re.compile(r"[^\W\d_]{3,}")
NO_TABLE = 987654321

odd_text = st.one_of(
    st.text(max_size=60),
    st.sampled_from(
        [
            "",
            "x" * 10_000,
            "<script>alert(1)</script>",
            "<img src=x onerror=alert(1)>",
            "a\x00b",
            "\u202e\u200b",
            "\r\n\t",
            "https://evil.example/",
            "🂡" * 600,
        ]
    ),
)
odd_number = st.one_of(
    st.sampled_from(["", "abc", "-1", "1e9", "²", "٩٩", "%00", "9" * 40, "0x10", " 1"]),
    st.text(max_size=12),
)


def says_why(response) -> bool:
    return WORD.search(re.sub(r"<[^>]*>", " ", response.content.decode())) is not None


def chat_state():
    return (
        list(ChatLine.objects.values_list("pk", "text")),
        ChatReport.objects.count(),
        list(TableChat.objects.values_list("table_id", "spectators_closed")),
    )


def who(name, alice, bob, carol):
    return {"anonymous": None, "seat": alice, "other seat": bob, "spectator": carol}[name]


@EXAMPLES
@given(
    role=st.sampled_from(["anonymous", "seat", "spectator"]),
    room=st.one_of(st.sampled_from(["players", "table"]), st.text(max_size=10)),
    text=odd_text,
    htmx=st.booleans(),
    where=st.sampled_from(["running", "missing"]),
)
def test_any_line_to_any_room(running_table, alice, bob, carol, role, room, text, htmx, where):
    ChatLine.objects.all().delete()  # no flood or repeat from an earlier example
    table_id = running_table.pk if where == "running" else NO_TABLE
    client = client_for(who(role, alice, bob, carol))
    extra = {"HTTP_HX_REQUEST": "true"} if htmx else {}
    before = chat_state()
    response = client.post(
        reverse("chat_post", args=[table_id]), {"room": room, "chat_text": text}, **extra
    )
    assert response.status_code < 500
    if response.status_code >= 400:
        assert says_why(response), response.content[:200]
        assert chat_state() == before
        return
    # Accepted: one line, as the service cleans it, where this writer may write.
    line = ChatLine.objects.get()
    assert line.text == clean_line(text)
    assert (role, room) in {("seat", "players"), ("seat", "table"), ("spectator", "table")}
    assert where == "running"


def test_a_flood_over_http_stores_four_lines_and_refuses_the_rest(running_table, alice):
    client = client_for(alice)
    url = reverse("chat_post", args=[running_table.pk])
    codes = [
        client.post(url, {"room": "table", "chat_text": f"{word} {n}"}).status_code
        for n, word in enumerate(["apple", "pear", "plum", "fig", "kiwi", "lime", "date"])
    ]
    assert codes[:4] == [302] * 4 and set(codes[4:]) == {400}
    assert ChatLine.objects.count() == 4


def test_json_or_a_huge_body_instead_of_a_form(running_table, alice):
    client = client_for(alice)
    url = reverse("chat_post", args=[running_table.pk])
    before = chat_state()
    as_json = client.post(
        url, '{"room": "table", "chat_text": "hi"}', content_type="application/json"
    )
    assert as_json.status_code == 400 and says_why(as_json)
    huge = Client(raise_request_exception=False)
    huge.force_login(alice)
    response = huge.post(url, {"room": "table", "chat_text": "x" * 3_000_000})
    assert 400 <= response.status_code < 500
    assert chat_state() == before


@pytest.mark.parametrize("name", ["before", "after"])
def test_odd_line_numbers_when_reading_a_room(running_table, alice, carol, name):
    url = reverse("chat_lines", args=[running_table.pk, "table"])
    for value in ["abc", "-1", "1e9", "²", "٩٩", "", "9" * 40, "0x10", " 1", "\x00"]:
        for user in (None, alice, carol):
            response = client_for(user).get(url, {name: value})
            assert response.status_code in (200, 400), (value, response.status_code)
            if response.status_code == 400:
                assert says_why(response)


def test_a_room_or_a_table_that_does_not_exist(running_table, alice):
    client = client_for(alice)
    for url in (
        reverse("chat_lines", args=[running_table.pk, "kitchen"]),
        reverse("chat_lines", args=[NO_TABLE, "table"]),
        reverse("chat_report", args=[NO_TABLE]),
    ):
        response = client.get(url) if "report" not in url else client.post(url)
        assert response.status_code == 404 and says_why(response), url


def test_stale_or_repeated_reports_and_closing_change_nothing_more(running_table, alice, bob):
    client_for(alice).post(
        reverse("chat_post", args=[running_table.pk]), {"room": "table", "chat_text": "hi"}
    )
    line = ChatLine.objects.get()
    report = reverse("chat_report", args=[line.pk])
    for _ in range(3):
        assert client_for(bob).post(report).status_code == 200
    assert ChatReport.objects.count() == 1
    close = reverse("chat_spectators", args=[running_table.pk])
    for _ in range(2):
        client_for(alice).post(close, {"closed": "1"})
    assert list(TableChat.objects.values_list("spectators_closed", flat=True)) == [True]


def test_the_service_refuses_what_is_not_text():
    for value in (None, 3, ["a"], {"a": 1}):
        with pytest.raises(GameError):
            clean_line(value)
