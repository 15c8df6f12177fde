from django.urls import path

from games import settings_views, views, views_games, views_ratings

urlpatterns = [
    path("", views.lobby, name="lobby"),
    path("health/", views.health, name="health"),
    path("tables/new/", views.table_create, name="table_create"),
    path("t/<int:table_id>/", views.table_detail, name="table_detail"),
    path("t/<int:table_id>/view.json", views.table_view_json, name="table_view_json"),
    path("t/<int:table_id>/log/", views.table_log, name="table_log"),
    path("t/<int:table_id>/act/", views.table_act, name="table_act"),
    path("t/<int:table_id>/join/", views.table_join, name="table_join"),
    path("t/<int:table_id>/leave/", views.table_leave, name="table_leave"),
    path("t/<int:table_id>/bot/", views.table_seat_bot, name="table_seat_bot"),
    path("play/bots/", views.play_against_bots, name="play_against_bots"),
    path("t/<int:table_id>/abort/", views.table_abort, name="table_abort"),
    path("invite/<str:code>/", views.table_invite, name="table_invite"),
    path("settings/play/", settings_views.play_settings, name="play_settings"),
    path("settings/vacation/start/", settings_views.vacation_start, name="vacation_start"),
    path("settings/vacation/end/", settings_views.vacation_end, name="vacation_end"),
    path("unsubscribe/<str:token>/", settings_views.unsubscribe, name="unsubscribe"),
    path("games/<slug:game>/", views_games.game_page, name="game_page"),
    path("games/<slug:game>/leaderboard/", views_ratings.leaderboard, name="leaderboard"),
    path("players/<str:username>/", views_ratings.player_profile, name="player_profile"),
    path("t/<int:table_id>/replay/", views_ratings.table_replay, name="table_replay"),
    path("t/<int:table_id>/record.json", views_ratings.table_record, name="table_record"),
]
