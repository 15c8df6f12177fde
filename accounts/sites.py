"""The sites framework's row, which allauth's e-mails read, kept equal to the settings."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from django.apps import apps as global_apps
from django.apps.registry import Apps
from django.conf import settings
from django.contrib.sites.models import Site


def site_domain(url: str) -> str:
    """The host (and port) of ``SITE_URL``: what e-mails show as the site's address."""
    return urlsplit(url).netloc or "localhost"


def sync_site(sender: Any, apps: Apps | None = None, using: str = "default", **kwargs: Any) -> None:
    """After every migrate: Site(SITE_ID) takes SITE_NAME and SITE_URL's domain.

    Django creates the row as "example.com", and allauth writes its name into every
    subject ("[example.com]") and greeting; following the settings on each migrate keeps
    it right when the site moves.
    """
    try:  # migrate passes the migrated state's models; flush passes none
        historical = (apps or global_apps).get_model("sites", "Site")
    except LookupError:  # the sites app is not migrated (yet)
        return
    historical.objects.using(using).update_or_create(
        pk=settings.SITE_ID,
        defaults={
            "name": settings.SITE_NAME[: Site._meta.get_field("name").max_length],
            "domain": site_domain(settings.SITE_URL)[: Site._meta.get_field("domain").max_length],
        },
    )
    Site.objects.clear_cache()  # a historical model's save does not clear it
