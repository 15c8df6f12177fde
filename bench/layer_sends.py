"""What a group message costs synchronous code (a Celery worker's bot move, a sweep): asgiref's
``async_to_sync(layer.group_send)``, which makes an event loop (and channels-redis a connection
to Redis) for each message, against ``config.layer_sends``, one loop a process that keeps its
connection. CPU and wall time a message, on the Redis at ``REDIS_URL`` (database 15 unless
given), nobody listening to the group.

    REDIS_URL=redis://127.0.0.1:6379/15 .venv/bin/python bench/layer_sends.py [--messages 500]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/15")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("DJANGO_DEBUG", "1")

import django

django.setup()

from asgiref.sync import async_to_sync  # noqa: E402
from channels.layers import get_channel_layer  # noqa: E402

from config import layer_sends  # noqa: E402


def cost(send: Callable[[str, dict], None], messages: int) -> tuple[float, float]:
    """(CPU ms, wall ms) a message, after a few to warm up."""
    for _ in range(5):
        send("bench-sends", {"type": "bench"})
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(messages):
        send("bench-sends", {"type": "bench"})
    return (
        (time.process_time() - cpu) * 1000 / messages,
        (time.perf_counter() - wall) * 1000 / messages,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=500)
    args = parser.parse_args()
    layer = get_channel_layer()
    ways = {
        "async_to_sync (a loop a message)": async_to_sync(layer.group_send),
        "config.layer_sends (one loop a process)": layer_sends.sender(layer),
    }
    print(f"{args.messages} group messages, {layer}")
    for name, send in ways.items():
        cpu, wall = cost(send, args.messages)
        print(f"{name}: CPU {cpu:.2f} ms, wall {wall:.2f} ms a message")
    layer_sends.close()


if __name__ == "__main__":
    main()
