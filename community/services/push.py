"""Browser push (Web Push, RFC 8030/8291/8292 through pywebpush): the browsers a player allowed,
and the notifications pushed to them from a task, with a TTL, outside quiet hours, after the
player's reminder delay; a subscription its push service answers 404 or 410 is deleted.

The endpoint is where the server POSTs: an https URL, never a local address (but in tests), so
that a player cannot point the site's requests at a machine of the site's network.
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import ipaddress
import json
import logging
from urllib.parse import urlsplit

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from django.conf import settings
from django.db import transaction
from django.template.loader import render_to_string
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from py_vapid import Vapid02
from pywebpush import WebPushException, webpush

from accounts.models import User
from community.models import Notification, PushSubscription
from games.errors import GameError

logger = logging.getLogger(__name__)

SUBSCRIPTIONS_PER_PLAYER = 10  # the oldest goes when an eleventh browser subscribes
PUSH_TIMEOUT_SECONDS = 10
BATCH = 200


def push_enabled() -> bool:
    return bool(settings.WEBPUSH_VAPID_PRIVATE_KEY and settings.WEBPUSH_VAPID_PUBLIC_KEY)


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def vapid_pair() -> tuple[str, str]:
    """A new key pair: the private key (raw, base64url) and the public key as browsers take it
    (``applicationServerKey``: the uncompressed point, base64url)."""
    key = ec.generate_private_key(ec.SECP256R1())
    private = key.private_numbers().private_value.to_bytes(32, "big")
    public = key.public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    return _b64(private), _b64(public)


def _endpoint_checked(endpoint: object) -> str:
    if (
        not isinstance(endpoint, str)
        or not 10 <= len(endpoint) <= 1000
        or not endpoint.isprintable()
    ):
        raise GameError(_("That is not a push subscription."))
    parts = urlsplit(endpoint)
    host = parts.hostname or ""
    local = host == "localhost" or host.endswith(".localhost")
    try:
        address = ipaddress.ip_address(host)
        local = local or not address.is_global
    except ValueError:
        pass
    if settings.WEBPUSH_LOCAL_ENDPOINTS and parts.scheme in ("http", "https") and host:
        return endpoint
    if parts.scheme != "https" or not host or local:
        raise GameError(_("That is not a push subscription."))
    return endpoint


def _key_checked(text: object, length: int) -> str:
    try:
        raw = _unb64(text) if isinstance(text, str) and len(text) < 200 else b""
    except (binascii.Error, ValueError):
        raw = b""
    if len(raw) != length or (length == 65 and raw[0] != 4):
        raise GameError(_("That is not a push subscription."))
    return str(text)


@transaction.atomic
def push_subscribe(*, user: User, endpoint: object, p256dh: object, auth: object) -> None:
    """This browser pushes to ``user`` from now on (and no longer to whoever it did before)."""
    if not push_enabled():
        raise GameError(_("Browser push is not on at this site."))
    url = _endpoint_checked(endpoint)
    keys = {"p256dh": _key_checked(p256dh, 65), "auth": _key_checked(auth, 16)}
    PushSubscription.objects.update_or_create(endpoint=url, defaults={"user": user, **keys})
    kept = PushSubscription.objects.filter(user=user).order_by("-created_at", "-id")
    old = list(kept.values_list("pk", flat=True)[SUBSCRIPTIONS_PER_PLAYER:])
    PushSubscription.objects.filter(pk__in=old).delete()


def push_unsubscribe(*, user: User, endpoint: object) -> int:
    """This browser stops pushing to ``user``; what is no endpoint of theirs changes nothing."""
    if not isinstance(endpoint, str) or len(endpoint) > 1000 or "\x00" in endpoint:
        return 0
    return PushSubscription.objects.filter(user=user, endpoint=endpoint).delete()[0]


def push_due_in(user: User) -> dt.timedelta:
    """A push waits the player's reminder delay, as the e-mail does (none: at once)."""
    return dt.timedelta(minutes=max(user.reminder_delay, 0))


def sweep_pushes(now: dt.datetime | None = None) -> int:
    """Pushes every notification whose push fell due (and is unread); returns how many."""
    now = now or timezone.now()
    users = (
        Notification.objects.filter(
            push_due_at__lte=now, pushed_at__isnull=True, read_at__isnull=True
        )
        .order_by("push_due_at")
        .values_list("user_id", flat=True)[:BATCH]
    )
    return sum(pushes_send(user_id=user_id, now=now) for user_id in sorted(set(users)))


def pushes_send(*, user_id: int, now: dt.datetime | None = None) -> int:
    """Pushes the player's due notifications to each of their browsers; their quiet hours
    postpone them. The rows stay locked meanwhile: a second worker skips them."""
    now = now or timezone.now()
    with transaction.atomic():
        due = list(
            Notification.objects.select_for_update(skip_locked=True, of=("self",))
            .filter(
                user_id=user_id, push_due_at__lte=now, pushed_at__isnull=True, read_at__isnull=True
            )
            .select_related("user", "actor", "table", "challenge", "player")
            .order_by("id")
        )
        if not due:
            return 0
        user = due[0].user
        later = user.quiet_until(now)
        if later is not None:
            Notification.objects.filter(pk__in=[n.pk for n in due]).update(push_due_at=later)
            return 0
        browsers = list(PushSubscription.objects.filter(user=user))
        sent = 0
        if push_enabled():
            for note in due:
                payload = _payload(user, note)
                sent += sum(_push(browser, payload) for browser in browsers)
        Notification.objects.filter(pk__in=[n.pk for n in due]).update(pushed_at=now)
    return sent


def _payload(user: User, note: Notification) -> str:
    from community.services.notes import note_link

    with (
        translation.override(user.language or settings.LANGUAGE_CODE),
        timezone.override(user.zone),
    ):
        body = " ".join(render_to_string("community/notes/text.html", {"note": note}).split())
    return json.dumps(
        {
            "title": settings.SITE_NAME,
            "body": body,
            "url": f"{settings.SITE_URL}{note_link(note)}",
            "tag": f"{note.kind}-{note.table_id or note.challenge_id or note.pk}",
        }
    )


def _push(browser: PushSubscription, payload: str) -> int:
    """1 if the push service took it; a subscription it no longer knows (404, 410) is gone."""
    info = {"endpoint": browser.endpoint, "keys": {"p256dh": browser.p256dh, "auth": browser.auth}}
    try:
        webpush(
            info,
            data=payload,
            vapid_private_key=Vapid02.from_raw(settings.WEBPUSH_VAPID_PRIVATE_KEY.encode()),
            vapid_claims={"sub": settings.WEBPUSH_SUBJECT},
            ttl=settings.PUSH_TTL_SECONDS,
            timeout=PUSH_TIMEOUT_SECONDS,
        )
    except WebPushException as exc:
        status = exc.response.status_code if exc.response is not None else None
        if status in (404, 410):
            browser.delete()
        else:
            logger.warning("push to %s failed: %s", urlsplit(browser.endpoint).hostname, exc)
        return 0
    except Exception as exc:  # the push service unreachable: the others still get theirs
        logger.warning("push to %s failed: %r", urlsplit(browser.endpoint).hostname, exc)
        return 0
    return 1
