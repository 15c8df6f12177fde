from django.urls import path

from games.views import game_pages, health, lobby, ratings, rematches, replays, settings, tables

urlpatterns = [
    path("", lobby.lobby, name="lobby"),
    path("health/", health.health, name="health"),
    path("tables/new/", lobby.table_create, name="table_create"),
    path("play/bots/", lobby.play_against_bots, name="play_against_bots"),
    path("t/<int:table_id>/", tables.table_detail, name="table_detail"),
    path("t/<int:table_id>/view.json", tables.table_view_json, name="table_view_json"),
    path("t/<int:table_id>/log/", tables.table_log, name="table_log"),
    path("t/<int:table_id>/act/", tables.table_act, name="table_act"),
    path("t/<int:table_id>/join/", tables.table_join, name="table_join"),
    path("t/<int:table_id>/leave/", tables.table_leave, name="table_leave"),
    path("t/<int:table_id>/bot/", tables.table_seat_bot, name="table_seat_bot"),
    path("t/<int:table_id>/abort/", tables.table_abort, name="table_abort"),
    path("t/<int:table_id>/rematch/", rematches.table_rematch, name="table_rematch"),
    path(
        "t/<int:table_id>/rematch/decline/",
        rematches.table_rematch_decline,
        name="table_rematch_decline",
    ),
    path("invite/<str:code>/", tables.table_invite, name="table_invite"),
    path("settings/play/", settings.play_settings, name="play_settings"),
    path("settings/confirm/", settings.confirm_moves_set, name="confirm_moves_set"),
    path("settings/vacation/start/", settings.vacation_start, name="vacation_start"),
    path("settings/vacation/end/", settings.vacation_end, name="vacation_end"),
    path("unsubscribe/<str:token>/", settings.unsubscribe, name="unsubscribe"),
    path("games/<slug:game>/", game_pages.game_page, name="game_page"),
    path("games/<slug:game>/leaderboard/", ratings.leaderboard, name="leaderboard"),
    path("players/<str:username>/", ratings.player_profile, name="player_profile"),
    path("t/<int:table_id>/replay/", replays.table_replay, name="table_replay"),
    path("t/<int:table_id>/record.json", replays.table_record, name="table_record"),
]
