from django.urls import path

from community.consumers import NotesConsumer

websocket_urlpatterns = [
    path("ws/me/", NotesConsumer.as_asgi()),
]
