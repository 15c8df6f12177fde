"""Sessions the player controls (#28.3): each device signed in through the sign-in form is listed
with its browser, its place (from a GeoIP file, when the operator has one) and when it was last
seen; "sign out everywhere else" ends the others, whose sessions live in the cache, at their
next request; a password change, a new e-mail address and turning on two-factor each end the
other devices too; the page costs the same queries however many devices."""

from __future__ import annotations

import datetime as dt

import pyotp
import pytest
from allauth.mfa.models import Authenticator
from allauth.usersessions.models import UserSession
from django.core.cache import cache
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from mmdb_writer import MMDBWriter
from netaddr import IPSet

from accounts import sessions
from tests.conftest import forget_boards
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db
PASSWORD = "correct horse battery staple"  # tests.factories.UserFactory's
FIREFOX = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:130.0) Gecko/20100101 Firefox/130.0"
IPHONE = (
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 "
    "(KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1"
)


@pytest.fixture(autouse=True)
def empty_cache():
    forget_boards()
    yield
    forget_boards()


def device(username: str, agent: str, address: str) -> Client:
    client = Client(HTTP_USER_AGENT=agent, REMOTE_ADDR=address)
    answer = client.post(reverse("account_login"), {"login": username, "password": PASSWORD})
    assert answer.status_code == 302, answer.content[:500]
    return client


def signed_in(client: Client) -> bool:
    return client.get(reverse("profile_edit")).status_code == 200


def test_each_device_is_listed_with_its_browser_place_and_last_visit(tmp_path, settings):
    geo = MMDBWriter(ip_version=6, ipv4_compatible=True, database_type="GeoLite2-City")
    geo.insert_network(
        IPSet(["198.51.100.0/24"]),
        {
            "city": {"names": {"en": "Brno", "cs": "Brno"}},
            "country": {"names": {"en": "Czechia", "cs": "Česko"}, "iso_code": "CZ"},
        },
    )
    geo.to_db_file(str(tmp_path / "city.mmdb"))
    settings.GEOIP_CITY_DB = str(tmp_path / "city.mmdb")
    sessions._reader.cache_clear()
    UserFactory(username="alice")
    laptop = device("alice", FIREFOX, "198.51.100.7")
    phone = device("alice", IPHONE, "203.0.113.9")

    page = laptop.get(reverse("usersessions_list")).content.decode()
    assert "Firefox 130 on Windows" in page and "Mobile Safari 17 on iOS" in page
    assert "Brno, Czechia (198.51.100.7)" in page  # the place, where the file knows it
    assert "203.0.113.9" in page  # and the address alone where it does not
    assert page.count("This device") == 1
    assert "Sign out everywhere else" in page

    # A visit stamps "last seen" at most every few minutes: one UPDATE, then none.
    row = UserSession.objects.get(user_agent=IPHONE)
    UserSession.objects.filter(pk=row.pk).update(last_seen_at=timezone.now() - dt.timedelta(days=2))
    cache.delete(sessions._seen_key(row.session_key))
    phone.get(reverse("lobby"), REMOTE_ADDR="203.0.113.10")
    row.refresh_from_db()
    assert timezone.now() - row.last_seen_at < dt.timedelta(minutes=1)
    assert row.ip == "203.0.113.10"
    UserSession.objects.filter(pk=row.pk).update(last_seen_at=timezone.now() - dt.timedelta(days=2))
    phone.get(reverse("lobby"))
    row.refresh_from_db()
    assert timezone.now() - row.last_seen_at > dt.timedelta(days=1)  # not again so soon
    sessions._reader.cache_clear()


def test_sign_out_everywhere_else_ends_the_other_devices_at_once():
    UserFactory(username="alice")
    laptop = device("alice", FIREFOX, "198.51.100.7")
    phone = device("alice", IPHONE, "203.0.113.9")
    tablet = device("alice", IPHONE, "203.0.113.10")
    assert laptop.put(reverse("usersessions_list")).status_code == 405  # changes nothing
    assert signed_in(phone)
    answer = laptop.post(reverse("usersessions_list"), {"action": "logout"})
    assert answer.status_code == 302
    assert signed_in(laptop)
    assert not signed_in(phone) and not signed_in(tablet)  # their cached sessions are gone
    assert UserSession.objects.count() == 1


@pytest.mark.parametrize("change", ["password", "email", "two-factor"])
def test_a_new_way_in_signs_out_every_other_device(change, django_capture_on_commit_callbacks):
    UserFactory(username="alice", email="alice@example.com")
    laptop = device("alice", FIREFOX, "198.51.100.7")
    phone = device("alice", IPHONE, "203.0.113.9")
    if change == "password":
        answer = laptop.post(
            reverse("account_change_password"),
            {
                "oldpassword": PASSWORD,
                "password1": "a new long phrase 42",
                "password2": "a new long phrase 42",
            },
        )
    elif change == "email":
        answer = laptop.post(
            reverse("account_email"), {"action_add": "", "email": "alice@example.org"}
        )
    else:
        laptop.post(reverse("account_reauthenticate"), {"password": PASSWORD})
        laptop.get(reverse("mfa_activate_totp"))
        secret = laptop.session["mfa.totp.secret"]
        with django_capture_on_commit_callbacks(execute=True):  # allauth tells after commit
            answer = laptop.post(reverse("mfa_activate_totp"), {"code": pyotp.TOTP(secret).now()})
        assert Authenticator.objects.filter(type=Authenticator.Type.TOTP).exists()
    assert answer.status_code == 302, answer.content[:800]
    assert signed_in(laptop)
    assert not signed_in(phone)


def test_the_page_costs_the_same_queries_however_many_devices(django_assert_max_num_queries):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    UserFactory(username="alice")
    laptop = device("alice", FIREFOX, "198.51.100.7")
    with CaptureQueriesContext(connection) as few:
        laptop.get(reverse("usersessions_list"))
    for n in range(6):
        device("alice", IPHONE, f"203.0.113.{n + 1}")
    with CaptureQueriesContext(connection) as many:
        laptop.get(reverse("usersessions_list"))
    assert len(many) == len(few), [q["sql"] for q in many.captured_queries]


def cached_seconds_left(key: str) -> float:
    """How long the cache keeps the session under ``key`` (Redis's TTL, or the local memory
    cache's own expiry time)."""
    from django.contrib.sessions.backends.cached_db import KEY_PREFIX

    full = cache.make_key(KEY_PREFIX + key)
    if hasattr(cache, "_expire_info"):  # LocMemCache
        import time

        return cache._expire_info[full] - time.time()
    return float(cache._cache.get_client(full).ttl(full))


@pytest.mark.parametrize("remember", [False, True])
def test_a_session_in_the_cache_expires_with_its_database_row(remember):
    """The page lists a device while its row lives (``accounts.sessions.devices_of``); the
    cached copy the requests read must not outlive it."""
    from django.contrib.sessions.models import Session

    UserFactory(username="alice")
    client = Client(HTTP_USER_AGENT=FIREFOX)
    fields = {"login": "alice", "password": PASSWORD, **({"remember": "on"} if remember else {})}
    assert client.post(reverse("account_login"), fields).status_code == 302
    key = client.session.session_key
    row = Session.objects.get(session_key=key)
    row_left = (row.expire_date - timezone.now()).total_seconds()
    assert row_left > 3600
    assert abs(cached_seconds_left(key) - row_left) < 5


def test_the_sweep_drops_expired_sessions_and_their_devices():
    from django.contrib.sessions.models import Session

    from accounts.jobs import sweep_sessions

    UserFactory(username="alice")
    laptop = device("alice", FIREFOX, "198.51.100.7")
    phone = device("alice", IPHONE, "203.0.113.9")
    old = phone.session.session_key
    Session.objects.filter(session_key=old).update(expire_date=timezone.now())
    assert [row.user_agent for row in sessions.devices_of(UserSession.objects.first().user_id)] == [
        FIREFOX
    ]  # listed no more as soon as it expired
    assert sweep_sessions.delay().get() == 1
    assert not Session.objects.filter(session_key=old).exists()
    assert list(UserSession.objects.values_list("user_agent", flat=True)) == [FIREFOX]
    assert signed_in(laptop)
