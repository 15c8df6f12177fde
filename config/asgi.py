"""ASGI entry point: HTTP through Django, websockets through Channels."""

import os

from channels.auth import AuthMiddlewareStack
from channels.routing import ProtocolTypeRouter, URLRouter
from channels.security.websocket import AllowedHostsOriginValidator
from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django_asgi_app = get_asgi_application()

from games.jobs import embedded  # noqa: E402  (needs the apps loaded)
from games.live.routing import websocket_urlpatterns  # noqa: E402

# Without Redis (``make run``), this server process runs the periodic sweeps itself.
if embedded.should_start(asgi_server=True):
    embedded.start()

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": AllowedHostsOriginValidator(
            AuthMiddlewareStack(URLRouter(websocket_urlpatterns))
        ),
    }
)
