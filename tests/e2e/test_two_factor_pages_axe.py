"""axe-core on the two-factor and device pages that test_two_factor.py does not reach (#28), at
each size and theme of tests/e2e/axe.py (390 and 1280 px among them): the devices page with two
browsers signed in, turning the authenticator app off, new recovery codes, and renaming and
removing a passkey (held by a virtual authenticator)."""

from __future__ import annotations

import pyotp
import pytest
from django.urls import reverse
from playwright.sync_api import expect

from tests.e2e.axe import check_page
from tests.e2e.pages import confirm_access, signed_in_page, with_a_virtual_authenticator
from tests.factories import UserFactory

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_the_devices_app_recovery_codes_and_key_pages_have_no_axe_violations(live_server, browser):
    UserFactory(username="carol")
    base = live_server.url
    found: list[str] = []
    phone = signed_in_page(browser, base, "carol")
    page = signed_in_page(browser, base, "carol")
    with_a_virtual_authenticator(page)

    # Two browsers signed in: the devices page lists both, and offers to sign out the other.
    page.goto(base + reverse("usersessions_list"))
    expect(page.locator("li.device")).to_have_count(2)
    expect(page.get_by_role("button", name="Sign out everywhere else")).to_be_visible()
    found += check_page(page, "signed-in devices, two")
    phone.context.close()

    # The authenticator app on, then the page that turns it off.
    page.goto(base + reverse("mfa_activate_totp"))
    confirm_access(page)
    secret = page.locator("#authenticator_secret").input_value()
    page.get_by_label("Authenticator code").fill(pyotp.TOTP(secret).now())
    page.get_by_role("button", name="Activate").click()
    expect(page.locator("#messages")).to_contain_text("Authenticator app activated.")
    page.goto(base + reverse("mfa_deactivate_totp"))
    expect(page.get_by_role("button", name="Deactivate")).to_be_visible()
    found += check_page(page, "deactivate the authenticator app")

    # New recovery codes: the page that asks before the old ones stop working.
    page.goto(base + reverse("mfa_generate_recovery_codes"))
    expect(page.locator("main h1")).to_have_text("Recovery Codes")
    expect(page.get_by_role("button", name="Generate")).to_be_visible()
    found += check_page(page, "generate recovery codes")

    # A passkey, renamed, then the page that asks before removing it.
    page.goto(base + reverse("mfa_add_webauthn"))
    page.get_by_label("Name").fill("my phone")
    page.get_by_role("button", name="Add").click()
    expect(page.locator("#messages")).to_contain_text("Security key added.")
    page.goto(base + reverse("mfa_list_webauthn"))
    page.get_by_role("link", name="Edit").click()
    expect(page.get_by_label("Name")).to_have_value("my phone")
    found += check_page(page, "rename a passkey")
    page.get_by_label("Name").fill("   ")  # refused: no name (and said so)
    page.get_by_role("button", name="Save").click()
    expect(page.locator(".errorlist")).to_be_visible()
    found += check_page(page, "rename a passkey, refused")
    page.get_by_label("Name").fill("work phone")
    page.get_by_role("button", name="Save").click()
    expect(page.locator("main")).to_contain_text("work phone")
    page.get_by_role("link", name="Remove").click()
    expect(page.locator("main")).to_contain_text("work phone")
    found += check_page(page, "remove a passkey")
    page.get_by_role("button", name="Remove").click()
    expect(page.locator("main")).to_contain_text("No security keys have been added.")
    page.context.close()
    assert not found, f"{len(found)} axe violations:\n" + "\n".join(found)
