from django.contrib import admin
from django.urls import include, path

handler500 = "games.middleware.server_error"  # a lost database: 503 with a sentence

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/", include("allauth.urls")),
    path("i18n/", include("django.conf.urls.i18n")),
    path("", include("accounts.urls")),
    path("", include("games.urls")),
]
