"""What the apps above ``games`` add to its pages and its socket, without ``games`` importing
them (``docs/architecture.md``, "The apps above games"): registries they fill in their ``ready()``.

- ``table_panels``: HTML after the board on a table's page (the chat, under it on a phone);
- ``replay_panels``: HTML after a replay's board (the chat of a finished game);
- ``profile_panels``: HTML under a player's name on their profile (follow, block, report);
- ``lobby_panels``: HTML sections of the lobby after "Play" (the tournaments);
- ``vacation_refusals``: called when a player asks for a vacation; a sentence refuses it (a
  tournament they entered "with no vacations during it");
- ``table_opened``: called when a signed-in player loads a table's page (what they were told of
  it is read now);
- ``reminder_notes``: a short plain-text note per table in the reminder e-mails (unread chat
  lines), for a sweep's batch of players at once, each in the player's language: keyed by
  (player, table);
- ``row_notes``: a short note per table in the lobby's "your tables" (unread chat lines), for all
  the rows at once, in a fixed number of queries;
- ``socket_groups``: the groups a table's socket joins besides the table's own (the players'
  chat room, for a seat only);
- ``socket_messages``: what a table's socket does with a message that carries a given key (a chat
  line sent over the socket); its answer goes back to that socket only;
- ``socket_events``: what a table's socket sends its page for a group message of a given kind
  (``{"type": "extension.event", "kind": ...}``), rendered in that page's language.
- ``calendar_events``: a player's deadlines in their calendar feed besides their tables' (a
  tournament round's window), as ``CalendarEvent``s, in a fixed number of queries; called in the
  player's language.

Each handler is called for every page and socket; it must be cheap and must decide itself what
its viewer may see.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from django.http import HttpRequest

    from accounts.models import User
    from games.models import Table

# The group message type a table's socket hands to ``socket_events`` by its ``kind``.
EXTENSION_EVENT = "extension.event"


@dataclass(frozen=True)
class SocketPage:
    """The page a table's socket serves: its table, viewer, seat (None: a spectator), language
    and page id."""

    table_id: int
    user_id: int | None
    position: int | None
    language: str
    page_id: str


@dataclass(frozen=True)
class CalendarEvent:
    """One deadline in a player's calendar feed (games/selectors/calendar.py).

    ``uid`` is stable for the same thing (a table, a round) so that a calendar app moves the
    event rather than adding one; ``at`` is the deadline, ``stamp`` when it was last set (the
    feed stays the same, its ETag too, until something changes); ``url`` is absolute.
    """

    uid: str
    summary: str
    at: dt.datetime
    stamp: dt.datetime
    url: str
    description: str = ""


TablePanel = Callable[["HttpRequest", "Table", "int | None"], str]
ReplayPanel = Callable[["HttpRequest", "Table"], str]
ProfilePanel = Callable[["HttpRequest", "User"], str]
LobbyPanel = Callable[["HttpRequest"], str]
RowNotes = Callable[["User", "list[Table]"], dict[int, str]]
ReminderNotes = Callable[["list[tuple[User, list[Table]]]"], dict[tuple[int, int], str]]
TableOpened = Callable[["User", "Table"], None]
VacationRefusal = Callable[["User"], "str | None"]
SocketGroups = Callable[[SocketPage], list[str]]
SocketMessage = Callable[[SocketPage, dict[str, Any]], Awaitable[str]]
SocketEvent = Callable[[SocketPage, dict[str, Any]], Awaitable[str]]
CalendarEvents = Callable[["User"], "list[CalendarEvent]"]

table_panels: list[TablePanel] = []
replay_panels: list[ReplayPanel] = []
profile_panels: list[ProfilePanel] = []
lobby_panels: list[LobbyPanel] = []
row_notes: list[RowNotes] = []
reminder_notes: list[ReminderNotes] = []
table_opened: list[TableOpened] = []
vacation_refusals: list[VacationRefusal] = []
socket_groups: list[SocketGroups] = []
socket_messages: dict[str, SocketMessage] = {}
socket_events: dict[str, SocketEvent] = {}
calendar_events: list[CalendarEvents] = []


def extension_event(kind: str, **data: Any) -> dict[str, Any]:
    """A group message for ``socket_events[kind]``."""
    return {"type": EXTENSION_EVENT, "kind": kind, **data}
