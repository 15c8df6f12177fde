from django.urls import path

from accounts import data_views, views

urlpatterns = [
    path("profile/", views.profile_edit, name="profile_edit"),
    path("profile/data/", data_views.data_page, name="account_data"),
    path("profile/data/download/", data_views.data_download, name="account_data_download"),
    path("profile/close/", data_views.account_close_view, name="account_close"),
    path("goodbye/", data_views.account_closed, name="account_closed"),
    path("language/", views.language_set, name="language_set"),
    path("display/", views.display_set, name="display_set"),
]
