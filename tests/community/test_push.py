"""Browser push (#27.6), end to end without an outside service: a local push endpoint takes what
the site sends, the test decrypts it (aes128gcm, with the subscription's own keys) and checks the
VAPID token against the site's public key; a subscription the push service forgot is deleted."""

from __future__ import annotations

import datetime as dt
import io

import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from accounts.notify import NoteKind
from community.models import Notification, PushSubscription
from community.services.people import follow_add
from community.services.push import sweep_pushes
from tests.conftest import client_for
from tests.support.push import Browser, PushService, b64, vapid_claims

pytestmark = pytest.mark.django_db


@pytest.fixture
def vapid(settings) -> str:
    """The keys ``manage.py vapid_keys`` makes, as the settings read them."""
    out = io.StringIO()
    call_command("vapid_keys", stdout=out)
    pairs = dict(line.split("=", 1) for line in out.getvalue().split())
    settings.WEBPUSH_VAPID_PRIVATE_KEY = pairs["WEBPUSH_VAPID_PRIVATE_KEY"]
    settings.WEBPUSH_VAPID_PUBLIC_KEY = pairs["WEBPUSH_VAPID_PUBLIC_KEY"]
    settings.WEBPUSH_SUBJECT = "mailto:operator@example.com"
    return pairs["WEBPUSH_VAPID_PUBLIC_KEY"]


@pytest.fixture
def service():
    service = PushService()
    yield service
    service.close()


def subscribe(user, browser: Browser) -> None:
    answer = client_for(user).post(reverse("push_subscribe"), browser.fields)
    assert answer.status_code == 200, answer.content


def test_a_push_arrives_encrypted_for_that_browser_and_signed_by_the_site(
    vapid, service, alice, bob
):
    bob.reminder_delay = 0  # "immediately"
    bob.save()
    phone = Browser(service, "phone")
    subscribe(bob, phone)
    follow_add(user=alice, target=bob)
    assert sweep_pushes() == 1
    ((path, headers, body),) = service.received
    assert path == "/push/phone"
    assert headers["content-encoding"] == "aes128gcm"
    assert headers["ttl"] == "86400"  # a sleeping phone still gets it within the day
    message = phone.read(body)
    assert message["body"] == "alice follows you now"
    assert message["url"].endswith(reverse("player_profile", args=["alice"]))
    claims = vapid_claims(headers, vapid)
    assert claims["aud"] == service.url and claims["sub"] == "mailto:operator@example.com"
    assert claims["exp"] > timezone.now().timestamp()
    assert sweep_pushes(timezone.now() + dt.timedelta(days=1)) == 0  # once


def test_the_push_waits_the_reminder_delay_and_the_quiet_hours_and_never_repeats_a_read_one(
    vapid, service, alice, bob, carol
):
    phone = Browser(service, "phone")
    subscribe(bob, phone)
    follow_add(user=alice, target=bob)  # bob's delay: an hour
    assert sweep_pushes() == 0
    assert sweep_pushes(timezone.now() + dt.timedelta(minutes=61)) == 1

    note = Notification.objects.create(user=bob, kind=NoteKind.FOLLOWER, actor=carol)
    Notification.objects.filter(pk=note.pk).update(push_due_at=timezone.now())
    client_for(bob).get(reverse("notification_open", args=[note.pk]))  # read in the site
    assert sweep_pushes(timezone.now() + dt.timedelta(minutes=1)) == 0

    bob.quiet_hours_start, bob.quiet_hours_end = dt.time(0, 0), dt.time(23, 59)
    bob.reminder_delay = 0
    bob.save()
    follow_add(user=carol, target=bob)
    assert sweep_pushes(timezone.now() + dt.timedelta(minutes=1)) == 0  # postponed
    assert len(service.received) == 1


def test_a_kind_off_for_push_or_a_browser_the_service_forgot(vapid, service, alice, bob, carol):
    bob.reminder_delay = 0
    bob.note_switches = {"follower:push": False}
    bob.save()
    subscribe(bob, Browser(service, "old"))
    follow_add(user=alice, target=bob)
    assert not Notification.objects.filter(user=bob, push_due_at__isnull=False).exists()

    for status in (410, 404):
        subscribe(carol, Browser(service, f"gone-{status}"))
        service.status = status
        client_for(alice).post(reverse("challenge_new", args=["carol"]), _challenge())
        sweep_pushes(timezone.now() + dt.timedelta(minutes=61))
        assert not PushSubscription.objects.filter(user=carol).exists()  # deleted


def _challenge() -> dict[str, str]:
    return {
        "game": "district-noir",
        "district-noir-num_seats": "2",
        "district-noir-seconds_per_move": "86400",
    }


def test_a_browser_belongs_to_the_last_player_who_subscribed_it(vapid, service, alice, bob):
    laptop = Browser(service, "laptop")
    subscribe(alice, laptop)
    subscribe(bob, laptop)
    assert list(PushSubscription.objects.values_list("user__username", flat=True)) == ["bob"]
    client_for(bob).post(reverse("push_unsubscribe"), {"endpoint": laptop.endpoint})
    assert not PushSubscription.objects.exists()


def test_what_is_not_a_subscription_is_refused_and_changes_nothing(vapid, service, settings, alice):
    good = Browser(service, "x").fields
    settings.WEBPUSH_LOCAL_ENDPOINTS = False  # as on the site: https push services only
    odd = [
        {**good},  # http, and a local address
        {**good, "endpoint": "https://127.0.0.1/push"},
        {**good, "endpoint": "https://localhost/push"},
        {**good, "endpoint": "https://[::1]/push"},
        {**good, "endpoint": "https://push.example.com/p", "p256dh": "AAAA"},
        {**good, "endpoint": "https://push.example.com/p", "auth": b64(b"x" * 15)},
        {**good, "endpoint": "https://push.example.com/p", "auth": "%%%"},
        {"endpoint": "https://push.example.com/p"},
        {},
    ]
    for fields in odd:
        answer = client_for(alice).post(reverse("push_subscribe"), fields)
        assert answer.status_code == 400 and b"not a push subscription" in answer.content
    assert not PushSubscription.objects.exists()
    assert client_for(None).post(reverse("push_subscribe"), good).status_code == 302
    settings.WEBPUSH_VAPID_PRIVATE_KEY = ""
    off = client_for(alice).post(
        reverse("push_subscribe"), {**good, "endpoint": "https://push.example.com/p"}
    )
    assert off.status_code == 400 and b"not on at this site" in off.content


def test_the_settings_page_offers_push_only_where_the_site_can_send_it(vapid, settings, alice):
    page = client_for(alice).get(reverse("notification_settings")).text
    assert 'name="challenge:push"' in page and f'data-push-key="{vapid}"' in page
    settings.WEBPUSH_VAPID_PUBLIC_KEY = ""
    page = client_for(alice).get(reverse("notification_settings")).text
    assert "push" not in page.split("<main", 1)[1].lower()
