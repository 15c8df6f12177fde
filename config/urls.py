from django.conf import settings
from django.contrib import admin
from django.urls import include, path
from django.views.generic import RedirectView

from accounts.email_change import email_page
from accounts.views import PasskeyReauthenticateView, PasskeySignInView, devices_page
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
    # allauth's e-mail page, which never makes an unconfirmed address the player's own
    # (accounts/email_change.py).
    path("accounts/email/", email_page),
    # allauth.mfa's passkey sign-in and "confirm it is you", at its addresses, but a refused
    # passkey answers 400 with the page and why (accounts/views.py), not a redirect.
    path("accounts/2fa/webauthn/login/", PasskeySignInView.as_view(), name="passkey_sign_in"),
    path(
        "accounts/2fa/webauthn/reauthenticate/",
        PasskeyReauthenticateView.as_view(),
        name="passkey_reauthenticate",
    ),
    path("accounts/", include("allauth.urls")),
    path("i18n/", include("django.conf.urls.i18n")),
    path("", include("accounts.urls")),
    path("", include("games.urls")),
    path("", include("community.urls")),
    path("", include("tournaments.urls")),
    path("", include("api.urls")),
]
