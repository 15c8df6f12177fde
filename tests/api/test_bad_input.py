"""Garbage to every endpoint of the API's schema gets a JSON 4xx with a message, never a 500,
and changes nothing (issue #30.6). The endpoints are read from the schema itself, so a new one
is covered without a word here."""

from __future__ import annotations

import pytest
from django.test import Client

from api.models import AccessToken
from community.models import Challenge
from games.models import Move
from tests.support.api import token_for

pytestmark = pytest.mark.django_db

PATH_GARBAGE = ["abc", "-1", "0", "99999999999999999999", "1.5", "%00", "' or 1=1 --"]
BODY_GARBAGE: list[tuple[bytes, str]] = [
    (b"{not json", "application/json"),
    (b"", "application/json"),
    (b"[]", "application/json"),
    (b'"a string"', "application/json"),
    (b"null", "application/json"),
    (b'{"action": {"a": [1, 2, {"b": null}]}, "version": "seven"}', "application/json"),
    (b'{"players": "bob", "game": 3, "seats": "many", "options": []}', "application/json"),
    (b'{"reason": {"nested": true}}', "application/json"),
    (b'{"version": 1e400}', "application/json"),
    (b"\xff\xfe\x00garbage", "application/json"),
    (b"a=1&b=2", "application/x-www-form-urlencoded"),
    ('{"players": ["' + "x" * 5000 + '"], "game": "slide"}', "application/json"),
]


def _endpoints() -> list[tuple[str, str]]:
    schema = Client().get("/api/openapi.json").json()
    return [
        (method, path)
        for path, operations in schema["paths"].items()
        for method in operations
        if method in ("get", "post", "put", "patch", "delete")
    ]


def _refused(answer) -> None:
    assert 400 <= answer.status_code < 500, (answer.status_code, answer.content[:300])
    assert answer["Content-Type"].startswith("application/json")
    assert answer.json()["error"]


def _filled(path: str, value: str) -> str:
    out = path
    while "{" in out:
        start = out.index("{")
        out = out[:start] + value + out[out.index("}") + 1 :]
    return out


def test_every_endpoint_refuses_a_request_without_a_working_token():
    client = Client()
    for method, path in _endpoints():
        url = _filled(path, "1")
        _refused(getattr(client, method)(url))
        _refused(getattr(client, method)(url, HTTP_AUTHORIZATION="Bearer ctp_nothing"))
        _refused(getattr(client, method)(url, HTTP_AUTHORIZATION="Basic YWxpY2U6eA=="))
        _refused(getattr(client, method)(url, HTTP_AUTHORIZATION="Bearer " + "x" * 5000))


def test_garbage_in_every_path_and_body_is_a_json_4xx_and_changes_nothing(
    running_table, alice, bob
):
    secret = token_for(alice)
    client = Client(HTTP_AUTHORIZATION=f"Bearer {secret}")
    pending = Challenge.objects.count()
    for method, path in _endpoints():
        streams = path.startswith("/api/stream/")
        values = PATH_GARBAGE if "{" in path else []
        for value in values:
            _refused(getattr(client, method)(_filled(path, value)))
        if method != "post":
            continue
        url = _filled(path, str(running_table.pk) if "tables" in path else "999999")
        for body, content_type in BODY_GARBAGE:
            answer = client.post(url, data=body, content_type=content_type)
            if path == "/api/account/bot":
                # It takes no body: the account (which has played) is refused as a bot.
                assert answer.status_code == 409
                continue
            _refused(answer)
        assert not streams
    running_table.refresh_from_db()
    assert running_table.version == 1
    assert not Move.objects.exists()
    assert Challenge.objects.count() == pending
    alice.refresh_from_db()
    assert not alice.is_bot


def test_an_unknown_address_under_the_api_is_a_json_404(alice):
    client = Client(HTTP_AUTHORIZATION=f"Bearer {token_for(alice)}")
    for url in ("/api/nothing", "/api/tables/1/moves/2", "/api/tables/"):
        answer = client.get(url)
        assert answer.status_code == 404
        _refused(answer)
    assert client.get("/api/").json()["docs"] == "/api/docs"
    assert AccessToken.objects.count() == 1
