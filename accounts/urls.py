from django.urls import path

from accounts import views

urlpatterns = [
    path("profile/", views.profile_edit, name="profile_edit"),
    path("language/", views.language_set, name="language_set"),
    path("display/", views.display_set, name="display_set"),
]
