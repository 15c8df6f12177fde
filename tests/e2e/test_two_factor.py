"""Two-factor sign-in and passkeys in Chromium (#28.2, allauth.mfa), as a player turns them on
from their settings: an authenticator app (TOTP codes computed here as the app would, RFC 6238,
with pyotp) with recovery codes; a passkey held by a virtual authenticator (the Chrome DevTools
Protocol's WebAuthn domain), both as the second factor after the password and to sign in with
no password at all."""

from __future__ import annotations

import time

import pyotp
import pytest
from django.urls import reverse
from playwright.sync_api import Page, expect

from tests.e2e.axe import check_page
from tests.e2e.pages import PASSWORD, with_a_virtual_authenticator
from tests.factories import UserFactory

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def password_step(page: Page, base: str, username: str) -> None:
    page.goto(f"{base}/accounts/login/")
    page.fill("input[name=login]", username)
    page.fill("input[name=password]", PASSWORD)
    page.locator("form button[type=submit]", has_text="Sign In").click()


def signed_in_as(page: Page, username: str) -> None:
    expect(page.locator(".site-header")).to_contain_text(username)
    expect(page.get_by_role("button", name="Sign out")).to_be_visible()


def sign_out(page: Page) -> None:
    page.get_by_role("button", name="Sign out").click()
    expect(page.locator(".site-header").get_by_role("link", name="Sign in")).to_be_visible()


def confirm_it_is_me(page: Page, found: list[str]) -> None:
    """allauth asks for the password again before any change to how one signs in."""
    expect(page.locator("main h1")).to_have_text("Confirm Access")
    found += check_page(page, "confirm access")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Confirm").click()


def test_an_authenticator_app_and_recovery_codes_guard_the_sign_in(live_server, browser):
    UserFactory(username="alice")
    base = live_server.url
    found: list[str] = []  # axe-core's findings on each new page, at 390, 768 and 1280 px
    page = browser.new_context().new_page()
    password_step(page, base, "alice")
    signed_in_as(page, "alice")

    page.goto(f"{base}{reverse('profile_edit')}")
    page.get_by_role("link", name="Two-factor sign-in and passkeys").click()
    found += check_page(page, "two-factor")
    page.locator("section, .panel", has_text="Authenticator App").get_by_role(
        "link", name="Activate"
    ).first.click()
    confirm_it_is_me(page, found)
    secret = page.locator("#authenticator_secret").input_value()
    totp = pyotp.TOTP(secret)
    page.get_by_label("Authenticator code").fill("000000" if totp.now() != "000000" else "111111")
    page.get_by_role("button", name="Activate").click()
    expect(page.locator(".errorlist")).to_contain_text("Incorrect code")  # refused, said why
    found += check_page(page, "activate an authenticator app, refused")
    page.get_by_label("Authenticator code").fill(totp.now())
    page.get_by_role("button", name="Activate").click()
    expect(page.locator("#messages")).to_contain_text("Authenticator app activated.")

    page.goto(f"{base}/accounts/2fa/recovery-codes/")
    recovery = page.get_by_label("Unused codes").input_value().split()
    assert len(recovery) == 10 and all(code.isdigit() for code in recovery), recovery
    found += check_page(page, "recovery codes")

    # The password alone no longer signs in: the code of the next period does (the one used
    # to activate is spent).
    sign_out(page)
    password_step(page, base, "alice")
    expect(page).to_have_url(f"{base}/accounts/2fa/authenticate/")
    found += check_page(page, "the second step")
    page.get_by_label("Code").fill(totp.at(time.time() + 30))
    page.get_by_role("button", name="Sign In").click()
    signed_in_as(page, "alice")

    # A recovery code signs in once; the same code again does not.
    sign_out(page)
    password_step(page, base, "alice")
    page.get_by_label("Code").fill(recovery[0])
    page.get_by_role("button", name="Sign In").click()
    signed_in_as(page, "alice")
    sign_out(page)
    password_step(page, base, "alice")
    page.get_by_label("Code").fill(recovery[0])
    page.get_by_role("button", name="Sign In").click()
    expect(page.locator(".errorlist")).to_contain_text("Incorrect code")
    expect(page).to_have_url(f"{base}/accounts/2fa/authenticate/")
    page.context.close()
    assert not found, f"{len(found)} axe violations:\n" + "\n".join(found)


def test_a_passkey_is_a_second_factor_and_signs_in_without_a_password(live_server, browser):
    UserFactory(username="bob")
    base = live_server.url
    found: list[str] = []
    page = browser.new_context().new_page()
    with_a_virtual_authenticator(page)
    password_step(page, base, "bob")
    signed_in_as(page, "bob")

    page.goto(f"{base}/accounts/2fa/")
    page.locator("section, .panel", has_text="Security Keys").get_by_role(
        "link", name="Add"
    ).first.click()
    confirm_it_is_me(page, found)
    found += check_page(page, "add a passkey")
    page.get_by_label("Name").fill("my phone")
    page.get_by_label("Passwordless").check()
    page.get_by_role("button", name="Add").click()
    expect(page.locator("#messages")).to_contain_text("Security key added.")
    page.goto(f"{base}/accounts/2fa/webauthn/")
    expect(page.locator("main")).to_contain_text("my phone")
    found += check_page(page, "passkeys")

    # As the second factor, after the password.
    sign_out(page)
    password_step(page, base, "bob")
    expect(page).to_have_url(f"{base}/accounts/2fa/authenticate/")
    page.get_by_role("button", name="Use a security key").click()
    signed_in_as(page, "bob")

    # Without a password: the passkey alone, from the sign-in page.
    sign_out(page)
    page.goto(f"{base}/accounts/login/")
    found += check_page(page, "sign in, with a passkey")
    page.get_by_role("button", name="Sign in with a passkey").click()
    signed_in_as(page, "bob")

    # "Confirm it is you" by passkey: a credential that is none gets the page again and why
    # (400; allauth sent the player off to the sign-in page), then the key itself confirms.
    page.goto(f"{base}/accounts/2fa/webauthn/reauthenticate/?next=/accounts/2fa/webauthn/")
    found += check_page(page, "confirm access, with a passkey")
    token = page.locator("input[name=csrfmiddlewaretoken]").first.input_value()
    refused = page.request.post(
        page.url, form={"csrfmiddlewaretoken": token, "credential": '{"id": "nope"}'}
    )
    assert refused.status == 400 and "Incorrect code." in refused.text()
    page.reload()  # the refused answer's page holds the new challenge, as a browser's would
    page.get_by_role("button", name="Use a security key").click()
    expect(page).to_have_url(f"{base}/accounts/2fa/webauthn/")
    page.context.close()
    assert not found, f"{len(found)} axe violations:\n" + "\n".join(found)
