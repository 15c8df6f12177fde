from django.urls import path

from community.views import challenges, chat, notes, people

urlpatterns = [
    path("t/<int:table_id>/chat/", chat.chat_post, name="chat_post"),
    path("t/<int:table_id>/chat/<str:room>/", chat.chat_lines, name="chat_lines"),
    path("t/<int:table_id>/chat-spectators/", chat.chat_spectators, name="chat_spectators"),
    path("chat/line/<int:line_id>/report/", chat.chat_report, name="chat_report"),
]
urlpatterns += [
    path("people/", people.people_page, name="people"),
    path("players/<str:username>/follow/", people.player_follow, name="player_follow"),
    path("players/<str:username>/block/", people.player_block, name="player_block"),
    path("players/<str:username>/report/", people.player_report, name="player_report"),
]
urlpatterns += [
    path("challenges/", challenges.challenges_page, name="challenges"),
    path("challenges/settings/", challenges.challenge_settings, name="challenge_settings"),
    path("players/<str:username>/challenge/", challenges.challenge_new, name="challenge_new"),
    path(
        "challenges/<int:challenge_id>/accept/",
        challenges.challenge_accept,
        name="challenge_accept",
    ),
    path(
        "challenges/<int:challenge_id>/decline/",
        challenges.challenge_decline,
        name="challenge_decline",
    ),
    path(
        "challenges/<int:challenge_id>/withdraw/",
        challenges.challenge_withdraw,
        name="challenge_withdraw",
    ),
]
urlpatterns += [
    path("notifications/", notes.notifications_page, name="notifications"),
    path("notifications/read/", notes.notifications_read, name="notifications_read"),
    path("notifications/settings/", notes.notification_settings, name="notification_settings"),
    path("notifications/<int:note_id>/", notes.notification_open, name="notification_open"),
]
urlpatterns += [
    path("notifications/push/", notes.push_subscribe, name="push_subscribe"),
    path("notifications/push/stop/", notes.push_unsubscribe, name="push_unsubscribe"),
]
