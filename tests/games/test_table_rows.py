"""A table's row in a list and a waiting seat's clock, written in Python
(``games.templatetags.table_rows``), say in every language and time zone what the templates
they replaced said: the same elements, attributes and words (whitespace aside)."""

from __future__ import annotations

import datetime as dt
from html.parser import HTMLParser
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.template import Context, Engine, Template
from django.utils import timezone, translation
from django.utils.safestring import mark_safe

from games.models import PlayerPace, Table
from games.services.tables import table_create, table_join
from games.templatetags.table_rows import clock
from tests.factories import UserFactory

# The templates before the row and the clock moved to Python, as they were (tests/games/before/).
BEFORE = Engine(
    dirs=[Path(__file__).parent / "before"],
    libraries={
        "i18n": "django.templatetags.i18n",
        "names": "games.templatetags.names",
        "pace": "games.templatetags.pace",
    },
)
NOW = Template("{% load table_rows %}{% table_row table joinable=joinable %}")


class Parts(HTMLParser):
    """An HTML fragment as its tags with their attributes and its words, whitespace aside."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.parts: list[object] = []
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self.parts.append((tag, sorted(attrs)))

    def handle_endtag(self, tag: str) -> None:
        self.parts.append(f"/{tag}")

    def handle_data(self, data: str) -> None:
        words = " ".join(data.split())
        if words:
            self.parts.append(words)


def the_same(now: str, before: str) -> None:
    assert Parts(now).parts == Parts(before).parts, (now, before)
    assert now.count(" ") >= 1


def tables() -> list[tuple[str, Table]]:
    """An open table with a required pace, a running one, the same with a seat on vacation,
    and a finished one with a note from the apps above: each with its seats prefetched."""
    alice, bob, carol = (UserFactory(username=n) for n in ("alice", "bob", "carol<b>"))
    opened = table_create(
        user=alice, game="slide", num_seats=3, seconds_per_move=86400, pace_max_timeouts_per_100=5
    )
    table_join(table_id=opened.pk, user=carol)
    running = table_create(user=alice, game="district-noir", num_seats=2, seconds_per_move=86400)
    table_join(table_id=running.pk, user=bob)
    found = {t.pk: t for t in Table.objects.prefetch_related("seats__user")}
    opened, running = found[opened.pk], found[running.pk]
    for seat in opened.seats.all():
        seat.pace = PlayerPace(
            median_seconds=50, within_delay_share=0.9, timeouts_per_100=1.5, moves=40, abandoned=1
        )
    vacation = Table.objects.prefetch_related("seats__user").get(pk=running.pk)
    for seat in vacation.seats.all():
        if seat.deadline:
            seat.deadline, seat.paused_remaining = None, dt.timedelta(hours=5)
    finished = Table.objects.prefetch_related("seats__user").get(pk=running.pk)
    finished.status = Table.Status.FINISHED
    finished.last_move_at = finished.started_at + dt.timedelta(days=3, minutes=7)
    finished.row_note = mark_safe('<span class="unread">2 new</span>')
    return [("open", opened), ("running", running), ("vacation", vacation), ("finished", finished)]


@pytest.mark.django_db
@pytest.mark.parametrize("language", [code for code, _name in settings.LANGUAGES])
def test_a_row_says_what_the_template_said(language: str) -> None:
    listed = tables()
    viewers = [AnonymousUser(), *(seat.user for seat in listed[1][1].seats.all())]
    viewers.append(UserFactory(username="dave"))
    with translation.override(language), timezone.override("Europe/Prague"):
        for _name, table in listed:
            for viewer in viewers:
                for joinable in (False, True):
                    context = {
                        "table": table,
                        "user": viewer,
                        "joinable": joinable,
                        "csrf_token": "a-token",
                    }
                    before = BEFORE.get_template("table_row.html").render(Context(context))
                    now = NOW.render(Context(context))
                    the_same(now, before)


@pytest.mark.django_db
@pytest.mark.parametrize("language", [code for code, _name in settings.LANGUAGES])
def test_a_clock_says_what_the_template_said(language: str) -> None:
    seats = [seat for _name, table in tables() for seat in table.seats.all()]
    assert any(seat.deadline for seat in seats)
    assert any(seat.paused_remaining for seat in seats)
    with translation.override(language), timezone.override("America/New_York"):
        for seat in [*seats, None]:
            before = BEFORE.get_template("clock.html").render(Context({"seat": seat}))
            assert Parts(clock(seat)).parts == Parts(before).parts
