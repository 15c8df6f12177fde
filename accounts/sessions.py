"""The devices a player is signed in on (#28.3): allauth.usersessions keeps a row for each
session opened through a sign-in; this module says where it is (the browser by its user agent,
the place by its address), stamps when it was last seen (at most every few minutes, not on
every request), and ends the others when the way in changes: a password changed or reset, an
e-mail address added or made primary, a second factor added.

Sessions live in the cache, written through to the database (``cached_db``); ending one
deletes both, so a device signed out here is signed out at its next request.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from functools import lru_cache
from typing import Any

from allauth.usersessions.models import UserSession
from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest
from django.utils import timezone, translation
from django.utils.translation import gettext as _

# A session's "last seen" is stamped at most this often: one UPDATE per device per interval.
SEEN_EVERY = dt.timedelta(minutes=5)
# Set in a session opened by a sign-in, which has its row; others (a test's force_login, a
# session older than the feature) are never stamped, so they cost no query.
TRACKED = "_session_tracked"


def browser_of(user_agent: str) -> str:
    """ "Firefox 130 on Windows", from a user agent string ("" when it says nothing)."""
    from ua_parser import parse

    found = parse(user_agent or "")
    browser = found.user_agent.family if found.user_agent else ""
    if browser and found.user_agent and found.user_agent.major:
        browser = f"{browser} {found.user_agent.major}"
    system = found.os.family if found.os and found.os.family != "Other" else ""
    if browser and system:
        return _("%(browser)s on %(system)s") % {"browser": browser, "system": system}
    return browser or system


@lru_cache(maxsize=1)
def _reader(path: str) -> Any:
    import geoip2.database

    return geoip2.database.Reader(path)


def place_of(address: str) -> str:
    """ "Brno, Czechia" for an address, in the reader's language where the database has it,
    from the GeoLite2 City file the operator set (``GEOIP_CITY_DB``); "" without one, or for an
    address it does not know."""
    path = getattr(settings, "GEOIP_CITY_DB", "")
    if not path or not address:
        return ""
    import geoip2.errors

    try:
        found = _reader(path).city(address)
    except (geoip2.errors.AddressNotFoundError, ValueError, OSError):
        return ""
    languages = [translation.get_language() or "en", "en"]
    city = next((found.city.names[lang] for lang in languages if lang in found.city.names), "")
    country = next(
        (found.country.names[lang] for lang in languages if lang in found.country.names), ""
    )
    return ", ".join(part for part in (city, country) if part)


def signed_in(request: HttpRequest, **kwargs: object) -> None:
    """allauth's sign-in made this session's row: from now on it is stamped as seen."""
    request.session[TRACKED] = True
    cache.set(_seen_key(request.session.session_key or ""), 1, SEEN_EVERY.total_seconds())


def _seen_key(session_key: str) -> str:
    """The stamp's cache key: a digest, so that no other key names a session (whoever reads
    the cache's keys learns no session id; a session signed out leaves none behind)."""
    digest = hashlib.sha256(session_key.encode()).hexdigest()[:32]
    return f"session-seen:{digest}"


def seen(request: HttpRequest) -> None:
    """Stamps this device's "last seen" and address, once in ``SEEN_EVERY`` (one cache add on
    every other request)."""
    key = request.session.session_key
    if not key or not request.session.get(TRACKED):
        return
    if cache.add(_seen_key(key), 1, SEEN_EVERY.total_seconds()):
        from allauth.account.adapter import get_adapter

        UserSession.objects.filter(session_key=key).update(
            last_seen_at=timezone.now(), ip=get_adapter().get_client_ip(request)
        )


def devices_of(user_id: int) -> list[UserSession]:
    """The player's devices whose session has not expired, the first signed in first: one
    query, however many (the rows of expired sessions go with ``clearsessions``' sweep)."""
    from django.contrib.sessions.models import Session

    live = Session.objects.filter(expire_date__gt=timezone.now()).values("session_key")
    return list(
        UserSession.objects.filter(user_id=user_id, session_key__in=live).order_by("created_at")
    )


def others_end(*, user_id: int, current_key: str | None) -> int:
    """Signs the player out on every device but this one; how many it ended."""
    ended = 0
    for session in UserSession.objects.filter(user_id=user_id).exclude(session_key=current_key):
        session.end()
        ended += 1
    return ended


def way_in_changed(request: HttpRequest | None = None, user: Any = None, **kwargs: object) -> None:
    """A receiver: the password, an e-mail address or a second factor changed, so every other
    device signs in again."""
    if user is None or request is None:
        return
    current = request.session.session_key if hasattr(request, "session") else None
    others_end(user_id=user.pk, current_key=current)


# How often the sweep runs (beat's schedule; the embedded default's loop checks it is due).
SWEEP_EVERY = dt.timedelta(hours=1)
_last_sweep: list[float] = []


def sessions_sweep() -> int:
    """Deletes expired sessions (Django's ``clearsessions``: their rows; the cached copies
    expire on their own at the same moment) and the device rows of sessions that are gone;
    how many device rows went."""
    from django.contrib.sessions.models import Session

    Session.objects.filter(expire_date__lt=timezone.now()).delete()
    gone = UserSession.objects.exclude(session_key__in=Session.objects.values("session_key"))
    return gone.delete()[0]


def sessions_sweep_if_due() -> int:
    """For the embedded default's loop, which runs every minute: the sweep once an hour."""
    import time

    now = time.monotonic()
    if _last_sweep and now - _last_sweep[0] < SWEEP_EVERY.total_seconds():
        return 0
    _last_sweep[:] = [now]
    return sessions_sweep()
