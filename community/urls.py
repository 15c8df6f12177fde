from django.urls import path

from community import views

urlpatterns = [
    path("t/<int:table_id>/chat/", views.chat_post, name="chat_post"),
    path("t/<int:table_id>/chat/<str:room>/", views.chat_lines, name="chat_lines"),
    path("t/<int:table_id>/chat-spectators/", views.chat_spectators, name="chat_spectators"),
    path("chat/line/<int:line_id>/report/", views.chat_report, name="chat_report"),
]
