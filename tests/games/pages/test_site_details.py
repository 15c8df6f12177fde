"""What every visitor meets: the lobby's heading, the site's icon, dates in their language."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.conf import settings
from django.urls import reverse
from django.utils import formats, translation

from games.models import RatingChange
from tests.conftest import client_for
from tests.games.rated_games import finished_game

pytestmark = pytest.mark.django_db


def test_an_anonymous_visitor_is_not_told_about_tables_of_their_own(alice):
    html = client_for(None).get(reverse("lobby")).content.decode()
    first_heading = re.search(r"<h1[^>]*>(.*?)</h1>", html, re.S).group(1).strip()
    assert first_heading == "Welcome to Card Tables"
    assert "Your tables" not in html
    signed_in = client_for(alice).get(reverse("lobby")).content.decode()
    assert re.search(r"<h1[^>]*>\s*Your tables\s*</h1>", signed_in)


def test_every_page_names_the_site_icon_and_favicon_ico_leads_to_it():
    client = client_for(None)
    html = client.get(reverse("lobby")).content.decode()
    icon = re.search(r'<link rel="icon" href="([^"]+)" type="image/svg\+xml">', html)
    assert icon, "no <link rel=icon> in base.html"
    response = client.get("/favicon.ico")
    assert response.status_code == 301
    assert response["Location"] == f"{settings.STATIC_URL}favicon.svg"
    svg = client.get(response["Location"])
    assert svg.status_code == 200 and svg["Content-Type"].startswith("image/svg+xml")
    assert b"<svg" in b"".join(svg.streaming_content)
    assert client.get(icon.group(1)).status_code == 200


@pytest.mark.parametrize("language", ["sk", "hu", "cs", "ca", "en"])
def test_the_rating_chart_writes_dates_the_way_the_reader_s_language_does(alice, bob, language):
    finished_game(alice, bob, seed=2)
    when = dt.datetime(2026, 12, 1, 12, 0, tzinfo=dt.UTC)
    RatingChange.objects.filter(user=alice).update(created_at=when)
    client = client_for(None)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    html = client.get(reverse("player_profile", args=[alice.username])).content.decode()
    chart = html[html.index('<figure class="rating-chart">') : html.index("</figure>")]
    with translation.override(language):
        expected = formats.date_format(when.date(), "DATE_FORMAT")
    assert expected in chart
    labels = re.findall(r'<text class="tick"[^>]*>([^<]*)</text>', chart)
    assert labels.count(expected) == 2, labels  # the first and the last game's date
    if language != "en":
        assert "Dec 2026" not in chart and "1 Dec" not in chart
