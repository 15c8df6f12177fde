"""The HTML of follows and blocks: the controls on a player's profile, and "Follow" beside the
other players of a finished table (both plugged into games' pages, ``games.extensions``)."""

from __future__ import annotations

from django.http import HttpRequest
from django.template.loader import render_to_string

from accounts.models import User
from community.models import PlayerReport
from community.selectors.people import relation_to, table_people
from games.models import Table


def relation_html(
    request: HttpRequest, player: User, message: str = "", refused: bool = False
) -> str:
    """Follow, block and report, as ``request.user`` stands to ``player`` (two queries; nothing
    for a visitor or on one's own profile)."""
    relation = relation_to(request.user, player)
    if relation is None:
        return ""
    context = {
        "player": player,
        "relation": relation,
        "reasons": PlayerReport.Reason.choices,
        "message": message,
        "refused": refused,
    }
    return render_to_string("community/people/relation.html", context, request=request)


def profile_panel(request: HttpRequest, player: User) -> str:
    return relation_html(request, player)


def follow_button_html(
    request: HttpRequest, player: User, following: bool, message: str = ""
) -> str:
    context = {"player": player, "following": following, "message": message}
    return render_to_string("community/people/follow_button.html", context, request=request)


def table_panel(request: HttpRequest, table: Table, position: int | None) -> str:
    """At a finished table, the other people seated at it, each with "Follow" (one query)."""
    if not table.is_finished or not request.user.is_authenticated:
        return ""
    people = table_people(request.user, table.pk)
    if not people:
        return ""
    return render_to_string(
        "community/people/table_people.html", {"people": people}, request=request
    )
