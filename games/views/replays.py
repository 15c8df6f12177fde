"""The replays of finished games and their records (seed and moves, to check the shuffle)."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest, JsonResponse
from django.shortcuts import get_object_or_404, render
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from games import boards, extensions
from games.models import Table
from games.rules import get_rules
from games.selectors import replays
from games.selectors.fairness import game_record
from games.views.requests import HtmxHttpRequest


def _finished_table(table_id: int) -> Table:
    table = get_object_or_404(Table, pk=table_id)
    if not table.is_finished or table.seed is None:
        raise Http404(_("Only a finished game can be replayed."))
    return table


@require_GET
def table_replay(request: HtmxHttpRequest, table_id: int) -> HttpResponse:
    """A finished game at ``?step=N``: the page, or (for HTMX) just the replay area."""
    table = _finished_table(table_id)
    try:
        step = int(request.GET.get("step", "0"))
    except ValueError:
        return HttpResponseBadRequest(_("The step must be a whole number."))
    replay = replays.replay_at(table, step)
    context = {**boards.replay_context(table, replay.seats, replay.view), "replay": replay}
    if request.htmx:
        return render(request, "replays/area.html", context)
    rules = get_rules(table.game)
    assert table.state is not None  # _finished_table: a finished game keeps its final state
    context["final_view"] = rules.view(rules.from_json(table.state), None)
    context["results"] = replays.table_results(table, replay.seats)
    context["extra_panels"] = mark_safe(
        "".join(panel(request, table) for panel in extensions.replay_panels)
    )
    return render(request, "replays/page.html", context)


@require_GET
def table_record(request: HttpRequest, table_id: int) -> JsonResponse:
    """A finished game's seed, options and moves: everything needed to check its shuffle."""
    record = game_record(_finished_table(table_id))
    return JsonResponse({"table": table_id, **record.to_json()})
