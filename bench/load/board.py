"""What a page shows, read from the HTML it gets (a page, a poll's or a move's answer, a
push): the board's version, whether the game runs, whether it is this seat's turn, its action
buttons and its private digest; and the fields a browser would submit for each form."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html import unescape
from html.parser import HTMLParser

DONE = {"finished", "aborted"}


@dataclass
class Board:
    version: int
    my_turn: bool
    running: bool
    actions: list[str] = field(default_factory=list)
    """The private part's action buttons' values (JSON), as the page offers them."""
    digest: str = ""
    """The private part's ``data-digest``, which the page's hello names."""


PUBLIC_TAG = re.compile(r'<div id="board-public"[^>]*>')
PRIVATE_TAG = re.compile(r'<div id="board-private"[^>]*>')
MESSAGE_TAG = re.compile(r'<div id="board-message"[^>]*>')
REFUSAL = re.compile(r'<p class="message error"[^>]*>(.*?)</p>', re.S)
ACTION_BUTTON = re.compile(r'<button type="submit" name="action" value="([^"]*)"')


def parse_board(html: str, previous: Board | None = None) -> Board | None:
    """The board a page shows once ``html`` (a page, a poll's or a move's answer, a push) is
    swapped in: the version and whether the game still runs (the public part polls) from
    ``#board-public``; this seat's turn, its action buttons and the digest from
    ``#board-private``. A part the message leaves out stays as the page had it
    (``previous``). None if the message carries neither part."""
    public, private = PUBLIC_TAG.search(html), PRIVATE_TAG.search(html)
    if public is None and private is None:
        return None
    if public is None and previous is None:
        return None
    board = Board(
        previous.version if previous else -1,
        previous.my_turn if previous else False,
        previous.running if previous else True,
        list(previous.actions) if previous else [],
        previous.digest if previous else "",
    )
    if public is not None:
        version = re.search(r'data-version="(\d+)"', public.group(0))
        if version is None:
            return None
        board.version = int(version.group(1))
        board.running = "hx-get=" in public.group(0)
    if private is not None:
        tag = private.group(0)
        digest = re.search(r'data-digest="([^"]*)"', tag)
        board.digest = digest.group(1) if digest else ""
        board.my_turn = 'data-my-turn="1"' in tag
        # The private part runs to the end of the message (both the board and a push put it
        # after the public part), or to the public part if that comes after.
        end = public.start() if public is not None and public.start() > private.start() else None
        part = html[private.start() : end]
        board.actions = [unescape(v) for v in ACTION_BUTTON.findall(part)] if board.my_turn else []
    return board


class FormParser(HTMLParser):
    """The fields a browser would submit for each form: hidden inputs, checked boxes, selects."""

    def __init__(self) -> None:
        super().__init__()
        self.forms: list[dict] = []
        self._select: str | None = None
        self._first_option: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "form":
            self.forms.append({"action": a.get("action", ""), "fields": {}})
        elif not self.forms:
            return
        fields = self.forms[-1]["fields"] if self.forms else {}
        if tag == "input" and a.get("name"):
            kind = a.get("type", "text")
            if kind == "checkbox":
                if "checked" in a:
                    fields[a["name"]] = a.get("value", "on")
            elif kind not in ("submit", "button"):
                fields[a["name"]] = a.get("value", "")
        elif tag == "select":
            self._select, self._first_option = a.get("name"), None
        elif tag == "option" and self._select:
            if self._first_option is None:
                self._first_option = a.get("value", "")
                fields.setdefault(self._select, self._first_option)
            if "selected" in a:
                fields[self._select] = a.get("value", "")

    def handle_endtag(self, tag: str) -> None:
        if tag == "select":
            self._select = None
