"""Writing in a table's chat: a line (with its limits), a report of a line, what a reader has
read, and closing the table's room to spectators.

The limits are lichess's: 500 characters a line; a fifth line within 10 seconds, or a line that
nearly repeats one of the writer's last two, is refused with the reason. A line is text only
(the templates escape it everywhere, and a link stays text). Once the line is stored, it goes out
to the open pages of its room after the commit (``community.live``).
"""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from difflib import SequenceMatcher

from django.db import transaction
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext as _

from accounts.models import User
from community import broadcast
from community.models import ChatLine, ChatRead, ChatReport, Room, TableChat
from community.selectors.chat import may_read, may_write
from community.services.notes import mention_notes
from games.errors import Forbidden, GameError, NotFound
from games.models import Table

MAX_LINE_CHARS = 500
FLOOD_LINES = 4  # at most this many lines ...
FLOOD_WINDOW = dt.timedelta(seconds=10)  # ... within this time; the next one is refused
REPEAT_LINES = 2  # a near-copy of one of the writer's last two lines is refused
NEAR_COPY_RATIO = 0.9


def normalized(text: str) -> str:
    """A line as it reads: case, accents, spaces and punctuation aside."""
    folded = unicodedata.normalize("NFKD", text.casefold())
    letters = "".join(c for c in folded if not unicodedata.combining(c))
    return re.sub(r"[\W_]+", " ", letters).strip()


def near_copy(text: str, earlier: str) -> bool:
    a, b = normalized(text), normalized(earlier)
    return a == b or SequenceMatcher(None, a, b).ratio() >= NEAR_COPY_RATIO


def clean_line(text: object) -> str:
    """The line as it will be stored, or a GameError saying why it cannot be."""
    if not isinstance(text, str):
        raise GameError(_("Write a line of text."))
    if "\x00" in text:
        raise GameError(_("A line cannot contain a NUL character."))
    # One line: other control characters (a newline included) become spaces.
    line = " ".join("".join(" " if unicodedata.category(c) == "Cc" else c for c in text).split())
    if not line:
        raise GameError(_("Write a line of text."))
    if len(line) > MAX_LINE_CHARS:
        raise GameError(
            _("A line has at most %(limit)d characters; this one has %(count)d.")
            % {"limit": MAX_LINE_CHARS, "count": len(line)}
        )
    return line


def chat_line_post(*, table_id: int, user: User, room: str, text: object) -> ChatLine:
    """Stores a line in a room of a table; its room's open pages get it after the commit."""
    line_text = clean_line(text)
    if room not in Room.values:
        raise GameError(_("There is no such room."))
    with transaction.atomic():
        table = Table.objects.filter(pk=table_id).first()
        if table is None:
            raise NotFound(_("There is no such table."))
        if not user.is_authenticated:
            raise Forbidden(_("Sign in to write in the chat."))
        refusal = may_write(table, user, room)
        if refusal:
            raise Forbidden(refusal)
        if user.muted_at(timezone.now()):
            raise Forbidden(muted_message(user))
        # One writer's lines are checked one at a time: two at once cannot both slip through.
        User.objects.select_for_update().filter(pk=user.pk).first()
        latest = list(ChatLine.objects.filter(author=user).order_by("-id")[:FLOOD_LINES])
        now = timezone.now()
        if len(latest) >= FLOOD_LINES and now - latest[-1].created_at < FLOOD_WINDOW:
            raise GameError(
                _("You are writing too fast: wait a few seconds before your next line.")
            )
        if any(near_copy(line_text, earlier.text) for earlier in latest[:REPEAT_LINES]):
            raise GameError(_("You have just written that: say something new."))
        line = ChatLine.objects.create(table=table, room=room, author=user, text=line_text)
        _mark_read(table_id=table.pk, user=user, line_id=line.pk)
        if "@" in line_text:
            mention_notes(table=table, author=user, text=line_text)
        transaction.on_commit(lambda: broadcast.line_posted(line))
    return line


def muted_message(user: User) -> str:
    """What a muted player reads instead of their line: why, and until when."""
    until = user.muted_until
    if until is None or until.year >= 9999:
        return _("A moderator muted you for good: %(reason)s") % {"reason": user.mute_reason}
    with timezone.override(user.zone):
        when = date_format(timezone.localtime(until), "DATETIME_FORMAT")
    return _("A moderator muted you until %(when)s: %(reason)s") % {
        "when": when,
        "reason": user.mute_reason,
    }


def chat_read_mark(*, table_id: int, user: User, line_id: int | None = None) -> None:
    """Remembers that ``user`` has read the table's lines up to ``line_id`` (the latest the page
    shows; without it, the latest there is): the lobby's "your tables" counts only newer ones."""
    if line_id is None:
        line_id = (
            ChatLine.objects.filter(table_id=table_id)
            .order_by("-id")
            .values_list("id", flat=True)
            .first()
        )
    if line_id:
        _mark_read(table_id=table_id, user=user, line_id=line_id)


def _mark_read(*, table_id: int, user: User, line_id: int) -> None:
    """One statement: the reader's row, made or moved on to ``line_id`` (the latest line)."""
    ChatRead.objects.bulk_create(
        [ChatRead(table_id=table_id, user=user, last_line_id=line_id)],
        update_conflicts=True,
        unique_fields=["user", "table"],
        update_fields=["last_line_id"],
    )


def chat_line_report(*, line_id: int, user: User) -> ChatReport:
    """A reader reports a line to the moderators (once: a second report is the same)."""
    line = ChatLine.objects.select_related("table").filter(pk=line_id).first()
    if line is None or not may_read(line.table, user, line.room):
        raise NotFound(_("There is no such line."))
    if line.author_id == user.pk:
        raise GameError(_("You cannot report your own line."))
    report, _created = ChatReport.objects.get_or_create(line=line, reporter=user)
    return report


def table_chat_close_to_spectators(*, table_id: int, user: User, closed: bool) -> TableChat:
    """The table's creator closes (or opens again) the table's room to spectators."""
    table = Table.objects.filter(pk=table_id).first()
    if table is None:
        raise NotFound(_("There is no such table."))
    if table.created_by_id != user.pk:
        raise Forbidden(_("Only the table's creator can close its room to spectators."))
    chat, _created = TableChat.objects.update_or_create(
        table=table, defaults={"spectators_closed": closed}
    )
    return chat
