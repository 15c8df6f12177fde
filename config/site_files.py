"""The files every crawler and browser asks the site's root for, whatever the pages link."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_GET

# The lobby, games, tables, replays and players are public to read; sign-in, settings,
# invitations and the forms behind them are nothing for a search engine.
ROBOTS_TXT = """User-agent: *
Disallow: /accounts/
Disallow: /admin/
Disallow: /i18n/
Disallow: /invite/
Disallow: /unsubscribe/
Disallow: /settings/
Disallow: /profile/
Disallow: /language/
Disallow: /display/
"""


@require_GET
@cache_control(max_age=86400, public=True)
def robots_txt(request: HttpRequest) -> HttpResponse:
    """/robots.txt: a 404 there is an error in every crawler's log (and Lighthouse's)."""
    return HttpResponse(ROBOTS_TXT, content_type="text/plain; charset=utf-8")
