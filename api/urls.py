from __future__ import annotations

from django.urls import path, re_path

from api import views
from api.endpoints import api
from api.errors import api_home, not_found

urlpatterns = [
    path("api/", api_home, name="api_home"),  # before ninja's own, a 404 in HTML
    path("api/", api.urls),
    re_path(r"^api/(?P<rest>.*)$", not_found),
    path("settings/api/", views.tokens_page, name="api_tokens"),
    path("settings/api/<int:token_id>/revoke/", views.token_revoke, name="api_token_revoke"),
    path("settings/api/rated/", views.rated_against_bots, name="api_rated_against_bots"),
]
