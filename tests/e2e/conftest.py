"""A real headless Chromium (Debian's, via Playwright's executable_path) against a live server."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator

import pytest

# Playwright's sync API runs an event loop in this thread; the ORM calls the
# tests make between browser steps are still plain synchronous code.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = os.environ.get("CHROMIUM_PATH") or shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    """One Chromium per test module: Playwright's sync API keeps an event loop running in this
    thread while it lives, which would break async_to_sync in the tests that follow."""
    if not os.path.exists(CHROMIUM):
        if os.environ.get("CI"):
            pytest.fail(f"Chromium not found at {CHROMIUM}")
        pytest.skip("Chromium is not installed (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def fast_polling(settings) -> None:
    settings.TABLE_POLL_MS = 250
