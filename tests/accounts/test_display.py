"""Display settings (the theme and three levels): on the profile or in a cookie, written on
<html>, at no extra query."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test import Client, RequestFactory
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from accounts.context_processors import display_settings
from accounts.display import COOKIE_NAME, CSS_PATH, DisplaySettings, levels_css
from accounts.models import User
from tests.conftest import client_for
from tests.support.page_queries import TABLE_PAGE_QUERIES

pytestmark = pytest.mark.django_db

DEFAULT_STYLE = b'data-theme="system" data-contrast="50" data-grain="25" data-warmth="50"'


def _html_tag(response) -> bytes:
    content = response.content
    start = content.index(b"<html")
    return content[start : content.index(b">", start) + 1]


def test_a_visitor_without_a_cookie_gets_the_defaults():
    assert DEFAULT_STYLE in _html_tag(Client().get(reverse("lobby")))


def test_a_players_settings_are_written_on_html(alice):
    DisplaySettings(contrast=100, grain=0, warmth=80).save_to(alice)
    tag = _html_tag(client_for(alice).get(reverse("lobby")))
    assert b'data-contrast="100" data-grain="0" data-warmth="80"' in tag


def test_a_visitors_cookie_is_written_on_html():
    client = Client()
    client.cookies[COOKIE_NAME] = "0-60-10"
    tag = _html_tag(client.get(reverse("lobby")))
    assert b'data-contrast="0" data-grain="60" data-warmth="10"' in tag


@pytest.mark.parametrize(
    "cookie",
    [
        "",
        "junk",
        "1-2",
        "50-50-101",
        "-1-5-5",
        "5-5-5-5",
        "a-b-c",
        "²-5-5",
        "5-5-" + "9" * 5000,
        "5-5-5-sepia",
        "5-5-5-dark-dark",
        "5-5-dark",
        "dark",
    ],
)
def test_a_broken_cookie_falls_back_to_the_defaults(cookie):
    client = Client()
    client.cookies[COOKIE_NAME] = cookie
    assert DEFAULT_STYLE in _html_tag(client.get(reverse("lobby")))


def test_the_settings_cost_no_query_beyond_the_user_already_loaded(alice):
    alice = User.objects.get(pk=alice.pk)
    request = RequestFactory().get("/")
    request.user = alice
    with CaptureQueriesContext(connection) as queries:
        context = display_settings(request)
    assert len(queries) == 0
    assert context["display_settings"] == DisplaySettings()


def test_the_table_page_costs_the_same_with_chosen_settings(
    running_table, alice, django_assert_max_num_queries
):
    url = reverse("table_detail", args=[running_table.pk])
    client = client_for(alice)
    with CaptureQueriesContext(connection) as before:
        client.get(url)
    DisplaySettings(contrast=20, grain=90, warmth=0).save_to(alice)
    with django_assert_max_num_queries(min(len(before), TABLE_PAGE_QUERIES)):
        response = client.get(url)
    assert b'data-grain="90"' in _html_tag(response)


def test_a_player_saves_settings_on_the_profile_and_in_a_cookie(alice):
    response = client_for(alice).post(
        reverse("display_set"), {"contrast": 70, "grain": 0, "warmth": 100, "next": "/profile/"}
    )
    assert response.status_code == 302 and response.url == "/profile/"
    alice.refresh_from_db()
    assert (alice.display_contrast, alice.display_grain, alice.display_warmth) == (70, 0, 100)
    assert response.cookies[COOKIE_NAME].value == "70-0-100-system"


def test_a_visitor_saves_settings_in_a_cookie_and_stays_on_the_site():
    response = Client().post(
        reverse("display_set"),
        {"contrast": 30, "grain": 40, "warmth": 20, "next": "https://evil.example/"},
    )
    assert response.status_code == 302 and response.url == "/"
    assert response.cookies[COOKIE_NAME].value == "30-40-20-system"


def test_the_sliders_script_saves_in_the_background(alice):
    response = client_for(alice).post(
        reverse("display_set"),
        {"contrast": 55, "grain": 25, "warmth": 50},
        HTTP_X_REQUESTED_WITH="fetch",
    )
    assert response.status_code == 204
    alice.refresh_from_db()
    assert alice.display_contrast == 55


def test_defaults_restores_every_setting(alice):
    DisplaySettings(contrast=0, grain=100, warmth=0).save_to(alice)
    response = client_for(alice).post(reverse("display_set"), {"reset": "1"})
    assert response.status_code == 302
    alice.refresh_from_db()
    assert DisplaySettings.of_user(alice) == DisplaySettings()


@pytest.mark.parametrize(
    "data",
    [
        {"contrast": 101, "grain": 25, "warmth": 50},
        {"contrast": 50, "grain": -1, "warmth": 50},
        {"contrast": 50, "grain": 25, "warmth": "warm"},
        {"contrast": 50, "grain": 25},
        {"contrast": 50, "grain": 25, "warmth": 50, "theme": "sepia"},
        {"contrast": 50, "grain": 25, "warmth": 50, "theme": "Dark"},
        {},
    ],
)
def test_bad_values_are_refused_with_a_400_and_change_nothing(alice, data):
    DisplaySettings(contrast=10, grain=20, warmth=30).save_to(alice)
    for client in (client_for(alice), Client()):
        response = client.post(reverse("display_set"), data)
        assert response.status_code == 400
        assert COOKIE_NAME not in response.cookies
    alice.refresh_from_db()
    assert DisplaySettings.of_user(alice) == DisplaySettings(10, 20, 30)


def test_settings_are_only_changed_by_post(alice):
    assert client_for(alice).get(reverse("display_set")).status_code == 405


def test_the_header_offers_the_sliders_and_a_skip_link():
    content = Client().get(reverse("lobby")).content.decode()
    assert content.index('class="skip-link" href="#main"') < content.index("<header")
    assert 'id="main"' in content
    for name in ("contrast", "grain", "warmth"):
        assert f'type="range" id="display-{name}" name="{name}"' in content


def test_a_level_between_the_sliders_steps_is_written_as_the_nearest_step(alice):
    DisplaySettings(contrast=37, grain=99, warmth=2).save_to(alice)
    tag = _html_tag(client_for(alice).get(reverse("lobby")))
    assert b'data-contrast="35" data-grain="100" data-warmth="0"' in tag


def test_the_stylesheet_maps_every_level_to_the_css_variables_site_css_reads():
    """static/css/display.css is made by accounts/display.py; run ``python -m accounts.display``
    after changing the mapping."""
    assert CSS_PATH.read_text(encoding="utf-8") == levels_css()
    css = levels_css()
    assert 'html[data-contrast="50"] { --contrast: 1; }' in css
    assert 'html[data-contrast="100"] { --contrast: 1.25; }' in css
    assert 'html[data-grain="25"] { --grain: 0.25; }' in css
    assert 'html[data-warmth="0"] { --warmth: 0; }' in css
    for name in ("contrast", "grain", "warmth"):
        assert css.count(f"[data-{name}=") == 21  # 0 to 100 in steps of 5


# The theme: light, dark, or as the system says (the default).
def test_a_player_chooses_the_theme_and_every_page_is_written_in_it(alice):
    client = client_for(alice)
    response = client.post(
        reverse("display_set"),
        {"contrast": 50, "grain": 25, "warmth": 50, "theme": "dark"},
        HTTP_X_REQUESTED_WITH="fetch",
    )
    assert response.status_code == 204
    alice.refresh_from_db()
    assert alice.display_theme == "dark"
    assert response.cookies[COOKIE_NAME].value == "50-25-50-dark"
    for url in (reverse("lobby"), reverse("profile_edit")):
        assert b'data-theme="dark"' in _html_tag(client.get(url))
    # On another device (no cookie), the profile's choice still holds.
    assert b'data-theme="dark"' in _html_tag(client_for(alice).get(reverse("lobby")))


def test_a_visitor_chooses_the_theme_in_the_cookie():
    client = Client()
    response = client.post(
        reverse("display_set"), {"contrast": 50, "grain": 25, "warmth": 50, "theme": "light"}
    )
    assert response.status_code == 302
    assert response.cookies[COOKIE_NAME].value == "50-25-50-light"
    assert b'data-theme="light"' in _html_tag(client.get(reverse("lobby")))


def test_a_cookie_from_before_the_theme_keeps_its_levels_and_follows_the_system():
    client = Client()
    client.cookies[COOKIE_NAME] = "0-60-10"
    tag = _html_tag(client.get(reverse("lobby")))
    assert b'data-theme="system" data-contrast="0" data-grain="60" data-warmth="10"' in tag


def test_a_post_without_a_theme_keeps_the_one_chosen(alice):
    """A page from before the theme existed posts only the sliders."""
    DisplaySettings(theme="dark").save_to(alice)
    client_for(alice).post(reverse("display_set"), {"contrast": 80, "grain": 25, "warmth": 50})
    alice.refresh_from_db()
    assert (alice.display_contrast, alice.display_theme) == (80, "dark")
    client = Client()
    client.cookies[COOKIE_NAME] = "50-25-50-light"
    response = client.post(reverse("display_set"), {"contrast": 80, "grain": 25, "warmth": 50})
    assert response.cookies[COOKIE_NAME].value == "80-25-50-light"


def test_defaults_restore_the_systems_theme(alice):
    DisplaySettings(theme="light").save_to(alice)
    client_for(alice).post(reverse("display_set"), {"reset": "1"})
    alice.refresh_from_db()
    assert alice.display_theme == "system"


def test_the_menu_offers_the_three_themes_with_the_chosen_one_checked(alice):
    DisplaySettings(theme="dark").save_to(alice)
    content = client_for(alice).get(reverse("lobby")).content.decode()
    menu = content[content.index('class="display-menu"') : content.index("</details>")]
    assert "<legend>Theme</legend>" in menu
    for value, label in (("light", "Light"), ("dark", "Dark"), ("system", "As the system")):
        checked = " checked" if value == "dark" else ""
        assert f'name="theme" value="{value}" data-display="theme"{checked}> {label}' in menu
    assert "follows your system" not in menu
