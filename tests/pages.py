"""Helpers for comparing two loads of the same page."""

from __future__ import annotations

import re
from typing import TypeVar

Html = TypeVar("Html", str, bytes)

# Random per response, not per game: the CSRF token (masked afresh each time) and the
# id each table page gets for its own moves' broadcasts (games/live/broadcast.py).
PER_RESPONSE = re.compile(r'(csrfmiddlewaretoken" value="|X-CSRFToken": "|X-Page": "|\?page=)[^"]+')


def without_per_response_tokens(html: Html) -> Html:
    """``html`` with every per-response random token replaced by ``-``."""
    if isinstance(html, bytes):
        return PER_RESPONSE.sub(r"\1-", html.decode()).encode()
    return PER_RESPONSE.sub(r"\1-", html)
