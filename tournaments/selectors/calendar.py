"""A player's tournament deadlines in their calendar feed (games/selectors/calendar.py, through
``games.extensions.calendar_events``): the end of each running round with a window that they
play in (a Swiss with round windows), and each window game of theirs not yet started that waits
for them to be ready, at its latest start. Two queries however many."""

from __future__ import annotations

from django.urls import reverse
from django.utils.translation import gettext as _

from accounts.models import User
from games.extensions import CalendarEvent
from games.selectors.calendar import absolute, site_host
from tournaments.models import Format, Pairing, Round, Tournament


def tournament_calendar_events(user: User) -> list[CalendarEvent]:
    host = site_host()
    rounds = (
        Round.objects.filter(
            tournament__format=Format.SWISS_WINDOWS,
            tournament__status=Tournament.Status.RUNNING,
            tournament__entries__user=user,
            tournament__entries__withdrawn_at__isnull=True,
            closed_at__isnull=True,
            closes_at__isnull=False,
        )
        .select_related("tournament")
        .distinct()
    )
    events = []
    for round_ in rounds:
        tournament = round_.tournament
        if round_.closes_at is None:
            continue
        events.append(
            CalendarEvent(
                uid=f"tournament-{tournament.pk}-round-{round_.pk}@{host}",
                summary=_("%(tournament)s: round %(number)d ends")
                % {"tournament": tournament.name, "number": round_.number},
                at=round_.closes_at,
                stamp=round_.opens_at,
                url=absolute(reverse("tournament_page", args=[tournament.pk])),
                description=_("Your games of this round must be over by then."),
            )
        )
    pairings = (
        Pairing.objects.filter(
            table__isnull=True,
            done=False,
            is_bye=False,
            starts_by__isnull=False,
            round__closed_at__isnull=True,
            round__tournament__status=Tournament.Status.RUNNING,
            seats__entry__user=user,
            seats__ready_at__isnull=True,
        )
        .select_related("round__tournament")
        .distinct()
    )
    for pairing in pairings:
        tournament = pairing.round.tournament
        if pairing.starts_by is None:
            continue
        events.append(
            CalendarEvent(
                uid=f"tournament-game-{pairing.pk}@{host}",
                summary=_("%(tournament)s: your round %(number)d game starts")
                % {"tournament": tournament.name, "number": pairing.round.number},
                at=pairing.starts_by,
                stamp=pairing.round.opens_at,
                url=absolute(reverse("tournament_page", args=[tournament.pk])),
                description=_("It starts when you are both ready, or at this time at the latest."),
            )
        )
    return events
