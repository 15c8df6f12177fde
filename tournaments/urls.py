from django.urls import path

from tournaments import views

# Every page answers 404 while settings.TOURNAMENTS_OPEN is off (tournaments.views.open_only).
urlpatterns = [
    path("tournaments/", views.tournaments_page, name="tournaments"),
    path("tournaments/new/", views.tournament_new, name="tournament_new"),
    path("tournaments/<int:tournament_id>/", views.tournament_page, name="tournament_page"),
    path("tournaments/<int:tournament_id>/join/", views.tournament_join, name="tournament_join"),
    path("tournaments/<int:tournament_id>/leave/", views.tournament_leave, name="tournament_leave"),
    path(
        "tournaments/<int:tournament_id>/cancel/",
        views.tournament_cancel,
        name="tournament_cancel",
    ),
    path(
        "tournaments/<int:tournament_id>/games/<int:pairing_id>/ready/",
        views.tournament_ready,
        name="tournament_ready",
    ),
    path(
        "tournaments/<int:tournament_id>/round/end/",
        views.tournament_round_end,
        name="tournament_round_end",
    ),
]
