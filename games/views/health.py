"""The health check a load balancer or monitor asks."""

from __future__ import annotations

from django.http import HttpRequest, JsonResponse
from django.views.decorators.http import require_GET

from games.services.health import check as health_check


@require_GET
def health(request: HttpRequest) -> JsonResponse:
    """200 when the database, Redis and a worker all answer; 503 otherwise."""
    report = health_check()
    healthy = all(part["ok"] for part in report.values())
    return JsonResponse({"ok": healthy, **report}, status=200 if healthy else 503)
