"""The request types the views are written against, so that mypy checks what they use.

``HtmxHttpRequest`` is the class django-htmx's documentation gives for type checking: the
middleware (config/settings.py) sets ``request.htmx`` on every request.
``SignedInRequest`` is for ``@login_required`` views: the decorator lets no anonymous user
through, so their ``request.user`` is a ``User``.
"""

from __future__ import annotations

from django.http import HttpRequest
from django_htmx.middleware import HtmxDetails

from accounts.models import User


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails


class SignedInRequest(HtmxHttpRequest):
    user: User
