"""The player's calendar feed: GET /calendar/<token>.ics, no cookie needed (a calendar app has
none), the secret token its only credential (accounts/calendar.py); the feed itself is
games/selectors/calendar.py's.

Caching a calendar app respects: ``Cache-Control: private, max-age=300``, an ETag of the bytes
(the feed is the same until a deadline changes, DTSTAMP included) answered 304 on
``If-None-Match``, and ``Last-Modified`` when it was made.
"""

from __future__ import annotations

import hashlib

from django.http import HttpRequest, HttpResponse, HttpResponseNotFound
from django.utils import timezone
from django.utils.cache import get_conditional_response, patch_cache_control
from django.utils.http import http_date, quote_etag
from django.views.decorators.http import require_safe

from accounts.calendar import user_from_calendar_token
from games.selectors.calendar import calendar_events, calendar_ics

MAX_AGE_SECONDS = 300
CONTENT_TYPE = "text/calendar; charset=utf-8"


@require_safe
def calendar_feed(request: HttpRequest, token: str) -> HttpResponse:
    user = user_from_calendar_token(token=token)
    if user is None:  # unknown, made again, turned off: nothing tells which
        return HttpResponseNotFound(b"", content_type="text/plain; charset=utf-8")
    body = calendar_ics(user=user, events=calendar_events(user))
    etag = quote_etag(hashlib.sha256(body).hexdigest()[:32])
    response = get_conditional_response(request, etag=etag) or HttpResponse(
        body, content_type=CONTENT_TYPE
    )
    response["ETag"] = etag
    response["Last-Modified"] = http_date(timezone.now().timestamp())
    patch_cache_control(response, private=True, max_age=MAX_AGE_SECONDS)
    if response.status_code == 200:
        response["Content-Disposition"] = 'inline; filename="deadlines.ics"'
    return response
