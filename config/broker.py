"""The Celery broker's transport: kombu's Redis transport, except that a worker whose
acknowledgement fails never stops taking tasks (``CELERY_BROKER_TRANSPORT`` in settings).

Tasks are acknowledged late, after they ran (``CELERY_TASK_ACKS_LATE``). kombu 5.7's Redis
QoS removes the message from Redis's "unacked" index first and only then frees the channel's
place for it (the prefetch credit). An acknowledgement that times out (a paused or hung Redis:
``socket_timeout``) leaves the place taken for good. Celery logs "Couldn't ack" and carries on;
once every place is taken (one per process: ``CELERY_WORKER_PREFETCH_MULTIPLIER`` 1), the
worker never asks Redis for a task again, yet it does not exit, so no supervisor restarts it.

Here the place is freed whatever Redis answered. The acknowledgement that failed is not lost
work: most often Redis still runs it when it resumes (the command was sent); otherwise the
message stays in the unacked index and Redis's visibility timeout (an hour) puts it back in
its queue, so the task runs once more, which every task here allows (a bot turn checks the
table's version, the sweeps only do what is still due).
"""

from __future__ import annotations

from typing import Any

from kombu.transport import redis, virtual


class QoS(redis.QoS):
    """Frees the message's place in the channel even when Redis did not take the ack."""

    def ack(self, delivery_tag: Any) -> None:
        try:
            super().ack(delivery_tag)
        except BaseException:
            virtual.QoS.ack(self, delivery_tag)
            raise

    def reject(self, delivery_tag: Any, requeue: bool = False) -> None:
        try:
            super().reject(delivery_tag, requeue=requeue)
        except BaseException:
            virtual.QoS.ack(self, delivery_tag)
            raise


class Channel(redis.Channel):
    QoS = QoS


class Transport(redis.Transport):
    Channel = Channel
