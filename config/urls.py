from django.conf import settings
from django.contrib import admin
from django.urls import include, path
from django.views.generic import RedirectView

from accounts.views import devices_page
from config.site_files import robots_txt

handler500 = "config.errors.server_error"  # a lost database: 503 with a sentence

urlpatterns = [
    # Browsers ask for /favicon.ico whatever the page links: send them to the site's icon.
    path(
        "favicon.ico", RedirectView.as_view(url=f"{settings.STATIC_URL}favicon.svg", permanent=True)
    ),
    path("robots.txt", robots_txt),
    path("admin/", admin.site.urls),
    # The devices page is the site's own (one query however many; accounts/sessions.py), at
    # allauth.usersessions' address, which it takes first.
    path("accounts/sessions/", devices_page, name="devices"),
    path("accounts/", include("allauth.urls")),
    path("i18n/", include("django.conf.urls.i18n")),
    path("", include("accounts.urls")),
    path("", include("games.urls")),
    path("", include("community.urls")),
]
