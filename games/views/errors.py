"""Error pages the framework asks for by setting (a refused CSRF check)."""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _

from games import boards
from games.views.requests import HtmxHttpRequest


def csrf_failure(request: HtmxHttpRequest, reason: str = "") -> HttpResponse:
    """A form sent without a valid CSRF token (cookies cleared or expired, or a forgery): a
    sentence to act on; for HTMX, one that shows where the board's answers show."""
    message = _("This page is out of date: reload the page and try again.")
    if request.htmx:
        response = HttpResponse(boards.message_html(message), status=403)
        response["X-Refusal"] = "1"
        return response
    return render(request, "403_csrf.html", {"message": message}, status=403)
