"""The headers every answer carries (#19.7-8): an enforced Content-Security-Policy with no inline
script or style left to need an exception, a Permissions-Policy, cookies as locked down as the
session's, and the small things a browser asks for (robots.txt, favicon, a description)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client, override_settings
from django.urls import reverse

from tests.conftest import client_for

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[3]
HTMX = {"HTTP_HX_REQUEST": "true"}
# What the production policy must say, directive by directive.
EXPECTED_CSP = {
    "default-src": "'self'",
    "script-src": "'self'",
    "style-src": "'self'",
    "img-src": "'self' data:",
    "connect-src": "'self'",
    "object-src": "'none'",
    "base-uri": "'self'",
    "form-action": "'self'",
    "frame-ancestors": "'none'",
}
FEATURES_OFF = ("camera", "microphone", "geolocation", "payment", "usb")


def csp_directives(response) -> dict[str, str]:
    assert "Content-Security-Policy" in response, f"no CSP on {response.status_code}"
    assert "Content-Security-Policy-Report-Only" not in response  # enforced, not reported
    directives = {}
    for part in response["Content-Security-Policy"].split(";"):
        name, _, value = part.strip().partition(" ")
        directives[name] = value
    return directives


def assert_locked_down(response) -> None:
    directives = csp_directives(response)
    for name, value in EXPECTED_CSP.items():
        assert directives.get(name) == value, (name, directives.get(name))
    for value in directives.values():
        assert "unsafe" not in value and "nonce" not in value, value
    policy = response["Permissions-Policy"]
    for feature in FEATURES_OFF:
        assert f"{feature}=()" in policy, feature
    assert response["X-Frame-Options"] == "DENY"
    assert response["X-Content-Type-Options"] == "nosniff"


class InlineCode(HTMLParser):
    """Collects what a CSP without 'unsafe-inline' would block: a <script> without src (a
    JSON data block is not run), a style attribute or element, an on* handler attribute."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        names = dict(attrs)
        if tag == "script" and "src" not in names and names.get("type") != "application/json":
            self.found.append(f"<script> without src: {self.get_starttag_text()}")
        if tag == "style":
            self.found.append("<style> element")
        for name, _ in attrs:
            if name == "style" or name.startswith("on"):
                self.found.append(f"{name}= on <{tag}>: {self.get_starttag_text()}")


def inline_code(html: str) -> list[str]:
    parser = InlineCode()
    parser.feed(html)
    return parser.found


def test_a_page_a_fragment_and_error_pages_carry_the_headers_under_production_settings(
    running_table, alice
):
    client = client_for(alice)
    with override_settings(DEBUG=False):
        answers = {
            "lobby": client.get(reverse("lobby")),
            "table page": client.get(reverse("table_detail", args=[running_table.pk])),
            "board fragment": client.get(reverse("table_detail", args=[running_table.pk]), **HTMX),
            "404": client.get("/no-such-page/"),
            "403 CSRF": Client(enforce_csrf_checks=True).post(
                reverse("language_set"), {"language": "cs"}
            ),
            "403 CSRF, HTMX": Client(enforce_csrf_checks=True).post(
                reverse("table_act", args=[running_table.pk]), {"action": "x"}, **HTMX
            ),
        }
    statuses = {name: response.status_code for name, response in answers.items()}
    assert statuses == {
        "lobby": 200,
        "table page": 200,
        "board fragment": 200,
        "404": 404,
        "403 CSRF": 403,
        "403 CSRF, HTMX": 403,
    }
    for name, response in answers.items():
        assert_locked_down(response)
        assert inline_code(response.content.decode()) == [], name
    assert b"<html" in answers["403 CSRF"].content  # the full error page, checked above
    assert b'id="board-public"' in answers["board fragment"].content


def test_the_policy_is_enforced_with_debug_on_too(running_table, alice):
    """Browser tests may run the live server with DEBUG on: the policy holds there as well
    (django-csp leaves out only DEBUG's own 404 and 500 pages, which are inline-styled)."""
    with override_settings(DEBUG=True):
        page = client_for(alice).get(reverse("table_detail", args=[running_table.pk]))
    assert_locked_down(page)
    assert inline_code(page.content.decode()) == []


def test_no_template_or_script_writes_inline_script_style_or_handlers():
    """What the rendered pages above do not reach (other games, messages, account pages):
    the sources. E-mails are not web pages: their inline styles are what mail clients read."""
    offences = []
    for path in sorted((ROOT / "templates").rglob("*.html")):
        if "emails" in path.parts:
            continue
        source = path.read_text(encoding="utf-8")
        for pattern in (r"<script(?![^>]*\bsrc=)[^>]*>", r"<style\b", r"\sstyle=", r"\son[a-z]+="):
            offences += [f"{path.relative_to(ROOT)}: {m}" for m in re.findall(pattern, source)]
    for folder in ("games", "accounts", "config"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            source = path.read_text(encoding="utf-8")
            offences += [
                f"{path.relative_to(ROOT)}" for _ in re.findall(r"\sstyle=|<script>", source)
            ]
    for path in sorted((ROOT / "static" / "js").rglob("*.js")):
        source = path.read_text(encoding="utf-8")
        for pattern in (r"\beval\(", r"new Function\(", r"setAttribute\(\"style", r"style="):
            offences += [f"{path.relative_to(ROOT)}: {m}" for m in re.findall(pattern, source)]
    assert offences == []


def test_htmx_injects_no_style_and_evaluates_nothing():
    html = Client().get(reverse("lobby")).content.decode()
    config = json.loads(re.search(r"<meta name=\"htmx-config\" content='([^']+)'>", html).group(1))
    assert config["includeIndicatorStyles"] is False
    assert config["allowEval"] is False
    css = (ROOT / "static" / "css" / "site.css").read_text(encoding="utf-8")
    assert ".htmx-indicator { opacity: 0; visibility: hidden; }" in css


def test_the_language_and_display_cookies_are_locked_down_like_the_session_s():
    with override_settings(LANGUAGE_COOKIE_SECURE=True):
        answers = [
            Client().post(reverse("language_set"), {"language": "hu"}),
            Client().post(reverse("display_set"), {"contrast": 5, "grain": 5, "warmth": 5}),
            Client().post("/i18n/setlang/", {"language": "sk"}),
        ]
    for response in answers:
        assert response.status_code == 302
        (cookie,) = response.cookies.values()
        assert cookie["secure"] is True and cookie["httponly"] is True
        assert cookie["samesite"] == "Lax"


def test_production_settings_make_the_language_cookie_secure():
    env = {k: v for k, v in os.environ.items() if k not in ("PYTEST_VERSION", "DJANGO_DEBUG")}
    env.update(
        DJANGO_SECRET_KEY="x" * 60,
        DJANGO_ALLOWED_HOSTS="cards.example.org",
        DJANGO_SETTINGS_MODULE="config.settings",
    )
    code = (
        "import django, json; django.setup(); from django.conf import settings as s; "
        "print(json.dumps([s.LANGUAGE_COOKIE_SECURE, s.LANGUAGE_COOKIE_HTTPONLY, "
        "s.SESSION_COOKIE_SECURE, 'csp.middleware.CSPMiddleware' in s.MIDDLEWARE]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    ).stdout
    assert json.loads(out) == [True, True, True, True]


def test_robots_txt_and_the_favicon_answer():
    client = Client()
    robots = client.get("/robots.txt")
    assert robots.status_code == 200
    assert robots["Content-Type"].startswith("text/plain")
    lines = robots.content.decode().splitlines()
    assert "User-agent: *" in lines and "Disallow: /accounts/" in lines
    assert "Disallow: /" not in lines  # the public pages stay open to search engines
    assert client.get("/favicon.ico", follow=True).status_code == 200


def _description(html: str) -> str:
    found = re.findall(r'<meta name="description" content="([^"]*)">', html)
    assert len(found) == 1, found
    return found[0]


def test_every_kind_of_page_has_a_description_of_its_own_in_the_reader_s_language(
    running_table, alice
):
    client = client_for(alice)
    pages = {
        "lobby": reverse("lobby"),
        "game": reverse("game_page", args=["district-noir"]),
        "table": reverse("table_detail", args=[running_table.pk]),
        "log": reverse("table_log", args=[running_table.pk]),
        "player": reverse("player_profile", args=[alice.username]),
        "leaderboard": reverse("leaderboard", args=["district-noir"]),
    }
    descriptions = {
        name: _description(client.get(url).content.decode()) for name, url in pages.items()
    }
    descriptions["sign in"] = _description(Client().get(reverse("account_login")).content.decode())
    assert "District Noir" in descriptions["game"]
    assert f"#{running_table.pk}" in descriptions["table"]
    assert alice.public_name in descriptions["player"]
    assert (
        len(set(descriptions.values()) - {descriptions["lobby"]}) == 5
    )  # the sign-in page shares it
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "cs"
    alice.language = "cs"
    alice.save(update_fields=["language"])
    czech = _description(client.get(pages["table"]).content.decode())
    assert czech.startswith("Stůl District Noir")
