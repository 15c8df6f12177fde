"""At a tournament's table, which tournament and round it belongs to, with a link to its page
(games/extensions.py ``table_panels``). One query."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest
from django.template.loader import render_to_string

from games.models import Table
from tournaments.models import Pairing


def table_panel(request: HttpRequest, table: Table, position: int | None) -> str:
    if not settings.TOURNAMENTS_OPEN:
        return ""
    pairing = Pairing.objects.filter(table_id=table.pk).select_related("round__tournament").first()
    if pairing is None:
        return ""
    context = {"pairing": pairing, "round": pairing.round, "tournament": pairing.round.tournament}
    return render_to_string("tournaments/table_panel.html", context, request=request)
