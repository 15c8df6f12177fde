"""Making a tournament and entering it: creating one (anyone signed in), joining and leaving it
while sign-up is open, withdrawing once it runs, and its creator's cancel before the start.
Each refusal is a ``GameError`` with a sentence for the player (a 4xx), and changes nothing."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.utils import formats, timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts.models import User
from accounts.relations import barred_among
from games.errors import Conflict, Forbidden, GameError, NotFound
from games.models import Rating, Seat, Table
from games.selectors.pace import pace_refused
from games.selectors.vacations import vacation_current
from games.services.tables import pace_requirement_checked, table_settings_checked
from tournaments.models import (
    MATCH_GAMES,
    TWO_PLAYER_FORMATS,
    Entry,
    Format,
    Pairing,
    Round,
    Tournament,
)
from tournaments.services import rounds, telling

MOST_PLAYERS = 256
MOST_ROUNDS = 30
LONGEST_AHEAD = dt.timedelta(days=365)
LONGEST_WINDOW = dt.timedelta(days=30)
# Formats whose number of rounds follows from the players: "until done" is allowed.
UNTIL_DONE = frozenset({Format.ROUND_ROBIN, Format.KNOCKOUT, Format.LEAGUE})


@dataclass(frozen=True)
class TournamentSettings:
    """What a tournament is, as its creator chose it (``tournaments.forms``)."""

    name: str
    game: str
    format: str
    table_size: int
    seconds_per_move: int
    starts_at: dt.datetime
    min_players: int
    max_players: int
    rated: bool = True
    options: dict[str, Any] | None = None
    rounds: int | None = None
    min_rating: float | None = None
    min_finished_games: int = 0
    no_vacations: bool = False
    pace_max_timeouts_per_100: int | None = None
    match_games: int = 1
    round_window: dt.timedelta | None = None
    start_within: dt.timedelta | None = None


def _checked(chosen: TournamentSettings, now: dt.datetime) -> dict[str, Any]:
    """The tournament's columns, or the first ``GameError`` that says what cannot be."""
    name = " ".join(str(chosen.name).split())
    if not name:
        raise GameError(_("Give the tournament a name."))
    if len(name) > 80:
        raise GameError(_("Say it in at most %(count)d characters.") % {"count": 80})
    if chosen.format not in Format.values:
        raise GameError(_("Choose one of the offered formats."))
    two_only = chosen.format in TWO_PLAYER_FORMATS or chosen.format in (
        Format.ROUND_ROBIN,
        Format.LEAGUE,
    )
    if two_only and chosen.table_size != 2:
        raise GameError(_("This format seats two players a table."))
    options = table_settings_checked(
        game=chosen.game,
        num_seats=chosen.table_size,
        seconds_per_move=chosen.seconds_per_move,
        options=chosen.options,
    )
    if chosen.table_size < 2:
        raise GameError(_("A tournament is for games of two players or more."))
    if not max(2, chosen.table_size) <= chosen.min_players <= chosen.max_players <= MOST_PLAYERS:
        raise GameError(
            _("Players: at least %(low)d, at most %(high)d, the fewest no more than the most.")
            % {"low": max(2, chosen.table_size), "high": MOST_PLAYERS}
        )
    if chosen.rounds is None and chosen.format not in UNTIL_DONE:
        raise GameError(_("Say how many rounds it has."))
    if chosen.rounds is not None and not 1 <= chosen.rounds <= MOST_ROUNDS:
        raise GameError(_("Rounds: from 1 to %(count)d.") % {"count": MOST_ROUNDS})
    if chosen.match_games not in MATCH_GAMES or (
        chosen.match_games != 1 and chosen.format != Format.KNOCKOUT
    ):
        raise GameError(_("Matches of 3 or 5 games are for single elimination only."))
    if not now < chosen.starts_at <= now + LONGEST_AHEAD:
        raise GameError(_("It starts after now, and within a year."))
    window, within = chosen.round_window, chosen.start_within
    if chosen.format == Format.SWISS_WINDOWS:
        if window is None or not dt.timedelta(seconds=chosen.seconds_per_move) < window:
            raise GameError(_("A round's window is longer than the time per move."))
        if window > LONGEST_WINDOW:
            raise GameError(_("A round's window is at most 30 days."))
        within = within if within is not None else window / 4
        if not dt.timedelta(0) <= within < window:
            raise GameError(_("Games start within their round's window."))
    elif window is not None or within is not None:
        raise GameError(_("Round windows are for a Swiss with round windows."))
    if chosen.min_rating is not None and not -1000 <= chosen.min_rating <= 1000:
        raise GameError(_("That lowest rating is out of range."))
    if not 0 <= chosen.min_finished_games <= 10000:
        raise GameError(_("That number of finished games is out of range."))
    pace = pace_requirement_checked(max_timeouts_per_100=chosen.pace_max_timeouts_per_100)
    return {
        "name": name,
        "game": chosen.game,
        "options": options,
        "format": chosen.format,
        "table_size": chosen.table_size,
        "seconds_per_move": chosen.seconds_per_move,
        "rated": bool(chosen.rated),
        "starts_at": chosen.starts_at,
        "rounds": chosen.rounds,
        "min_players": chosen.min_players,
        "max_players": chosen.max_players,
        "min_rating": chosen.min_rating,
        "min_finished_games": chosen.min_finished_games,
        "no_vacations": bool(chosen.no_vacations),
        "pace_max_timeouts_per_100": pace,
        "match_games": chosen.match_games,
        "round_window": window,
        "start_within": within,
    }


def tournament_create(
    *, user: User, chosen: TournamentSettings, now: dt.datetime | None = None
) -> Tournament:
    """A new tournament, open for sign-up from now; its creator is not entered by it."""
    now = now or timezone.now()
    columns = _checked(chosen, now)
    return Tournament.objects.create(**columns, signup_opens_at=now, created_by=user)


def _locked(tournament_id: int) -> Tournament:
    tournament = Tournament.objects.select_for_update().filter(pk=tournament_id).first()
    if tournament is None:
        raise NotFound(_("There is no such tournament."))
    return tournament


def _open_for_signup(tournament: Tournament, now: dt.datetime) -> None:
    """Sign-up is open before the start; a league also takes players while it runs (they
    play from its next season)."""
    if tournament.status == Tournament.Status.CANCELLED:
        raise Conflict(_("This tournament was cancelled."))
    if tournament.format == Format.LEAGUE and tournament.status == Tournament.Status.RUNNING:
        return
    if not tournament.is_signup or now >= tournament.starts_at:
        raise Conflict(_("Sign-up has closed: the tournament has started."))


def _may_enter(tournament: Tournament, user: User) -> None:
    """The tournament's entry rules, and blocks: a player never sits with one who barred them."""
    if tournament.min_rating is not None:
        rating = Rating.objects.filter(user=user, game=tournament.game).first()
        mine = rating.ordinal if rating is not None else None
        if mine is None or mine < tournament.min_rating:
            raise Forbidden(
                _("This tournament asks for a rating of at least %(rating)s at %(game)s.")
                % {
                    "rating": formats.number_format(tournament.min_rating, 1),
                    "game": tournament.game_name,
                }
            )
    if tournament.min_finished_games:
        played = Seat.objects.filter(
            user=user, table__game=tournament.game, table__status=Table.Status.FINISHED
        ).count()
        if played < tournament.min_finished_games:
            raise Forbidden(
                ngettext(
                    "This tournament asks for %(count)d finished game of %(game)s first.",
                    "This tournament asks for %(count)d finished games of %(game)s first.",
                    tournament.min_finished_games,
                )
                % {"count": tournament.min_finished_games, "game": tournament.game_name}
            )
    if tournament.no_vacations and vacation_current(user) is not None:
        raise Forbidden(
            _("This tournament is for players not on vacation: end your vacation to enter.")
        )
    _may_enter_at_pace(tournament, user)
    others = list(
        tournament.entries.filter(withdrawn_at__isnull=True).values_list("user_id", flat=True)
    )
    barred = barred_among(int(user.pk or 0), others)
    if barred.by_me:
        raise Forbidden(_("You blocked a player in this tournament from games with you."))
    if barred.by_them:
        raise Forbidden(_("You cannot enter this tournament."))


def _may_enter_at_pace(tournament: Tournament, user: User) -> None:
    """The pace its creator required, read from games' stored row: a player with too few
    moves in its window to judge is admitted (``games.selectors.pace.pace_admits``)."""
    limit = tournament.pace_max_timeouts_per_100
    yours = pace_refused(user, limit)
    if yours is not None:
        raise Forbidden(
            _(
                "This tournament is for players with fewer than %(limit)d timeouts per 100"
                " moves; you had %(yours)s over the last 90 days."
            )
            % {"limit": limit, "yours": yours}
        )


@transaction.atomic
def tournament_join(*, tournament_id: int, user: User, now: dt.datetime | None = None) -> Entry:
    now = now or timezone.now()
    tournament = _locked(tournament_id)
    _open_for_signup(tournament, now)
    if tournament.entries.filter(user=user).exists():
        raise Conflict(_("You have entered this tournament already."))
    if tournament.entries.count() >= tournament.max_players:
        raise Conflict(_("This tournament is full."))
    _may_enter(tournament, user)
    return Entry.objects.create(tournament=tournament, user=user)


@transaction.atomic
def tournament_leave(*, tournament_id: int, user: User, now: dt.datetime | None = None) -> None:
    """Out of it: before the start the entry goes; once it runs, the player withdraws (their
    games to come count as losses)."""
    now = now or timezone.now()
    tournament = _locked(tournament_id)
    entry = tournament.entries.filter(user=user, withdrawn_at__isnull=True).first()
    if entry is None:
        raise Conflict(_("You are not in this tournament."))
    if tournament.is_signup:  # its start may be due, not yet made by the sweep
        entry.delete()
    elif tournament.status == Tournament.Status.RUNNING:
        entry.withdrawn_at = now
        entry.save(update_fields=["withdrawn_at"])
        rounds.entry_withdrawn(tournament=tournament, entry=entry, now=now)
    else:
        raise Conflict(_("This tournament is over."))


@transaction.atomic
def tournament_cancel(*, tournament_id: int, user: User, now: dt.datetime | None = None) -> None:
    now = now or timezone.now()
    tournament = _locked(tournament_id)
    if tournament.created_by_id != user.pk:
        raise Forbidden(_("Only the player who created a tournament can cancel it."))
    if not tournament.is_signup or now >= tournament.starts_at:
        raise Conflict(_("A tournament can be cancelled only before it starts."))
    tournament.status = Tournament.Status.CANCELLED
    tournament.finished_at = now
    tournament.version += 1
    tournament.save(update_fields=["status", "finished_at", "version"])
    entries = list(tournament.entries.all())
    telling.tournament_cancelled(tournament=tournament, entries=entries, by_creator=True)


def vacation_refusal(user: User) -> str | None:
    """Games' ``vacation_refusals``: no vacation while a tournament the player is in, entered
    "with no vacations during it", has not ended."""
    bound = Entry.objects.filter(
        user=user,
        withdrawn_at__isnull=True,
        tournament__no_vacations=True,
        tournament__status__in=[Tournament.Status.SIGNUP, Tournament.Status.RUNNING],
    ).exists()
    if bound:
        return _("You are in a tournament with no vacations during it: withdraw from it first.")
    return None


@transaction.atomic
def pairing_ready(*, pairing_id: int, user: User, now: dt.datetime | None = None) -> bool:
    """A player of a round window's game is ready; the game starts once both are. Whether it
    started."""
    now = now or timezone.now()
    pairing = Pairing.objects.select_related("round").filter(pk=pairing_id).first()
    if pairing is None:
        raise NotFound(_("There is no such game in this tournament."))
    tournament = _locked(pairing.round.tournament_id)
    entry = tournament.entries.filter(user=user, withdrawn_at__isnull=True).first()
    if entry is None or not pairing.seats.filter(entry=entry).exists():
        raise Forbidden(_("This game of the tournament is not yours."))
    pairing.refresh_from_db()
    if pairing.done or pairing.table_id is not None or pairing.round.closed_at is not None:
        raise Conflict(_("This game has started already."))
    return rounds.pairing_ready(tournament=tournament, pairing=pairing, entry=entry, now=now)


@transaction.atomic
def round_end(*, tournament_id: int, user: User, now: dt.datetime | None = None) -> None:
    """Its creator ends the current round stalled past its window: its games still running
    end as timeouts of the seats to move."""
    now = now or timezone.now()
    tournament = _locked(tournament_id)
    if tournament.created_by_id != user.pk:
        raise Forbidden(_("Only the player who created a tournament can end its rounds."))
    current = Round.objects.filter(tournament=tournament, closed_at__isnull=True).first()
    if tournament.status != Tournament.Status.RUNNING or current is None:
        raise Conflict(_("No round of this tournament is being played."))
    if current.closes_at is not None and now < current.closes_at:
        raise Conflict(
            _("This round may be ended once its window has passed, from %(when)s.")
            % {
                "when": formats.date_format(
                    timezone.localtime(current.closes_at), "DATETIME_FORMAT"
                )
            }
        )
    rounds.round_end(tournament=tournament, round_=current, now=now)
