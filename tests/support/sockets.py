"""A table page's socket as its board sees it, for the tests of pushes: the player's bell (their
notifications ride on the same socket, ``community.live``) arrives there too, in between."""

from __future__ import annotations

from channels.testing import WebsocketCommunicator


def is_bell(frame: str) -> bool:
    return frame.lstrip().startswith('<a id="bell"')


class BoardSocket(WebsocketCommunicator):
    """Receives the board's frames; the bell's are kept aside in ``bells``."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.bells: list[str] = []

    async def receive_output(self, timeout: float = 1) -> dict:
        """The next message that is not the bell's (a frame of the board, or the close)."""
        while True:
            message = await super().receive_output(timeout)
            if message.get("type") != "websocket.send" or not is_bell(message.get("text") or ""):
                return message
            self.bells.append(message["text"])

    async def receive_nothing(self, timeout: float = 0.1, interval: float = 0.01) -> bool:
        """True if nothing but the bell came; anything else stays in the queue to be read."""
        while not await super().receive_nothing(timeout, interval):
            head = self.output_queue._queue[0]  # a peek: a close must stay there for its reader
            if head.get("type") != "websocket.send" or not is_bell(head.get("text") or ""):
                return False
            self.bells.append((await super().receive_output())["text"])
        return True
