"""The API while its database is lost (a connection dropped, a pool with no connection to lend):
a JSON refusal with a sentence, a 503 and when to try again, as every other refusal of the API,
not the site's HTML page."""

from __future__ import annotations

import pytest
from django.db import OperationalError

from api import selectors
from tests.support.api import call, token_for

pytestmark = pytest.mark.django_db


def test_a_lost_database_is_a_json_503_with_a_sentence(alice, monkeypatch):
    secret = token_for(alice, "read")

    def lost(*args, **kwargs):
        raise OperationalError("couldn't get a connection after 20.00 sec")

    monkeypatch.setattr(selectors, "account_data", lost)
    answer = call("get", "/api/account", secret)

    assert answer.status_code == 503
    assert answer["Content-Type"] == "application/json"
    assert "nothing was changed" in answer.json()["error"]
    assert int(answer["Retry-After"]) > 0
