"""ASGI entry point: HTTP through Django, websockets through Channels."""

import os

from channels.auth import AuthMiddlewareStack
from channels.routing import ProtocolTypeRouter, URLRouter
from channels.security.websocket import AllowedHostsOriginValidator
from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django_asgi_app = get_asgi_application()

from community.routing import websocket_urlpatterns as community_sockets  # noqa: E402
from games.live.routing import websocket_urlpatterns  # noqa: E402  (needs the apps loaded)

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": AllowedHostsOriginValidator(
            AuthMiddlewareStack(URLRouter(websocket_urlpatterns + community_sockets))
        ),
    }
)
