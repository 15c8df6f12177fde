"""Signing out while Redis hangs (issue 20): the session lives in the cache (cached_db), and
sign-out flushes it there. A paused Redis must cost the player a moment, never a 5xx, and the
session must end for good: in the database at once, and in Redis once it answers again."""

from __future__ import annotations

import time

import pytest
import redis
from django.conf import settings
from django.contrib.sessions.models import Session
from django.test import Client
from django.urls import reverse

from config.redis_guard import breaker_for
from tests.factories import UserFactory
from tests.support.faults import MOVE_BUDGET_S, REAL_SERVICES
from tests.support.processes import wait_for

pytestmark = REAL_SERVICES
PASSWORD = "correct horse battery staple"  # UserFactory's


def _signed_in(username: str) -> Client:
    """Signs in through the form (the session is written to the database and to Redis)."""
    client = Client()
    response = client.post(reverse("account_login"), {"login": username, "password": PASSWORD})
    assert response.status_code == 302, response.status_code
    assert client.get(reverse("profile_edit")).status_code == 200
    return client


@pytest.mark.parametrize("after", ["a request already met the hang", "the first request"])
def test_signing_out_while_redis_hangs_answers_and_ends_the_session(on_private_redis, after):
    UserFactory(username="dora")
    client = _signed_in("dora")
    key = client.session.session_key
    assert Session.objects.filter(session_key=key).exists()

    on_private_redis.pause()
    if after == "a request already met the hang":  # the breaker is open: Redis is skipped
        assert client.get(reverse("profile_edit")).status_code == 200
    started = time.monotonic()
    response = client.post(reverse("account_logout"))
    took = time.monotonic() - started

    assert response.status_code == 302, response.status_code
    assert took < MOVE_BUDGET_S, took
    assert not Session.objects.filter(session_key=key).exists()
    assert client.get(reverse("profile_edit")).status_code == 302  # signed out here...

    on_private_redis.resume()
    cache_breaker = breaker_for(settings.CACHES["default"]["LOCATION"])
    wait_for(lambda: not cache_breaker.is_open, "the cache's breaker to close", 10)
    stale = Client()
    stale.cookies["sessionid"] = key
    assert stale.get(reverse("profile_edit")).status_code == 302  # ...and with the old cookie
    # ...and in every other web process, which read the session from Redis: it is gone there.
    in_redis = redis.Redis.from_url(settings.CACHES["default"]["LOCATION"])
    assert not [k for k in in_redis.keys("*") if key.encode() in k]
