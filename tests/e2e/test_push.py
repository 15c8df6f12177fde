"""Browser push in Chromium (#27.6): "Allow push in this browser" on the notification settings
registers the service worker under the site's CSP, subscribes with the site's VAPID key and hands
the subscription to the site, and a notification then reaches it, encrypted for that browser.

Chromium's own push service is Google's, out of reach here: the page's ``PushManager.subscribe``
is replaced by one that answers with a subscription of the test's local push service (its keys
the test's), so that everything else runs as on the site: the page's script, the form post, the
task's encryption and the decryption."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

from community.models import PushSubscription
from community.services.people import follow_add
from community.services.push import sweep_pushes, vapid_pair
from tests.e2e.pages import sign_in
from tests.factories import UserFactory
from tests.support.push import Browser, PushService

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

FAKE_SUBSCRIBE = """subscription => {
  const bytes = text => Uint8Array.from(atob(text.replace(/-/g, "+").replace(/_/g, "/")
    + "===".slice((text.length + 3) % 4)), c => c.charCodeAt(0)).buffer;
  window.subscribedWith = null;
  PushManager.prototype.getSubscription = () => Promise.resolve(window.subscribed || null);
  PushManager.prototype.subscribe = function (options) {
    const key = new Uint8Array(options.applicationServerKey);
    window.subscribedWith = btoa(String.fromCharCode(...key));
    window.subscribed = {
      endpoint: subscription.endpoint,
      getKey: name => bytes(name === "p256dh" ? subscription.p256dh : subscription.auth),
      unsubscribe: () => { window.subscribed = null; return Promise.resolve(true); },
    };
    return Promise.resolve(window.subscribed);
  };
}"""


def test_allowing_push_in_the_page_and_a_notification_reaching_that_browser(
    live_server, browser, settings
):
    settings.WEBPUSH_VAPID_PRIVATE_KEY, settings.WEBPUSH_VAPID_PUBLIC_KEY = vapid_pair()
    bob = UserFactory(username="bob", reminder_delay=0)
    alice = UserFactory(username="alice")
    service = PushService()
    phone = Browser(service, "phone")
    context = browser.new_context()
    context.grant_permissions(["notifications"], origin=live_server.url)
    page = context.new_page()
    errors: list[str] = []
    page.on(
        "console", lambda message: errors.append(message.text) if message.type == "error" else None
    )
    sign_in(page, live_server.url, "bob")
    page.goto(f"{live_server.url}/notifications/settings/")
    page.evaluate(f"({FAKE_SUBSCRIBE})({json.dumps(phone.fields)})")
    panel = page.locator(".push-panel")
    expect(panel).to_be_visible()
    registered = page.evaluate(
        "navigator.serviceWorker.register(document.querySelector('.push-panel').dataset.worker)"
        ".then(r => (r.active || r.installing || r.waiting).scriptURL, e => String(e))"
    )
    assert "/static/js/push-sw" in registered, (registered, errors)
    panel.get_by_role("button", name="Allow push in this browser").click()
    expect(panel.locator(".push-status")).to_have_text("Push is on in this browser.")
    expect(panel.get_by_role("button", name="Stop push in this browser")).to_be_visible()
    assert page.evaluate("window.subscribedWith")  # the site's key went to the push manager
    (stored,) = PushSubscription.objects.all()
    assert (stored.user, stored.endpoint) == (bob, phone.endpoint)

    follow_add(user=alice, target=bob)
    assert sweep_pushes() == 1
    ((_path, _headers, body),) = service.received
    assert phone.read(body)["body"] == "alice follows you now"

    panel.get_by_role("button", name="Stop push in this browser").click()
    expect(panel.locator(".push-status")).to_have_text("Push is off in this browser.")
    assert not PushSubscription.objects.exists()
    assert not [e for e in errors if "Content Security Policy" in e or "Refused" in e], errors
    context.close()
    service.close()
