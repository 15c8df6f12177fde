"""The broker's transport (config/broker.py) on a real redis-server, paused with SIGSTOP: a
message settled while Redis hangs does not cost the consumer its place for the next message.
``tests/games/faults/test_redis_pause_ack.py`` does the same to a real worker.
"""

from __future__ import annotations

import shutil

import pytest
from django.conf import settings
from kombu import Connection, Consumer, Producer, Queue

from config.broker import Transport

pytestmark = pytest.mark.skipif(
    shutil.which("redis-server") is None, reason="needs redis-server on PATH"
)


@pytest.mark.parametrize("settle", ["ack", "reject and requeue"])
def test_a_consumer_whose_message_is_settled_in_a_redis_pause_gets_the_next_message(
    redis_server, settle
):
    """An acknowledgement, or the requeueing of a task whose worker process was lost
    (``CELERY_TASK_REJECT_ON_WORKER_LOST``), that times out: kombu logs it in a worker
    ("Couldn't ack"), and the consumer, which may hold one message, takes the next one."""
    timeouts = settings.SITE_REDIS_TIMEOUTS  # the site's, not the tests' longer ones
    options = {
        **settings.CELERY_BROKER_TRANSPORT_OPTIONS,
        "socket_timeout": timeouts["REDIS_SOCKET_TIMEOUT"],
        "socket_connect_timeout": timeouts["REDIS_CONNECT_TIMEOUT"],
    }
    queue, received = Queue("pause-ack"), []
    with (
        Connection(redis_server.url, transport_options=options) as sending,
        Connection(redis_server.url, transport=Transport, transport_options=options) as taking,
    ):
        for number in (1, 2):
            Producer(sending.default_channel).publish(
                {"n": number}, routing_key=queue.name, declare=[queue]
            )
        consumer = Consumer(
            taking.default_channel,
            [queue],
            callbacks=[lambda body, message: received.append(message)],
            accept=["json"],
        )
        consumer.qos(prefetch_count=1)  # as a worker process: one message at a time
        consumer.consume()
        taking.drain_events(timeout=5)
        assert [message.payload for message in received] == [{"n": 1}]

        redis_server.pause()
        try:
            with pytest.raises(taking.connection_errors):
                if settle == "ack":
                    received[0].ack()
                else:
                    received[0].reject(requeue=True)
        finally:
            redis_server.resume()
        taking.drain_events(timeout=5)

    assert received[1].payload == {"n": 2}
