"""Challenges: one player invites others to a table of a game with chosen options; the table
opens (through ``games``' services) and its game starts when every invited player has accepted.

Each function is one transaction with the challenge's row locked. What the receivers allow is
asked before a challenge is stored (``may_challenge``): their block's switches, then who they
take challenges from [lichess: everyone, players rated near them, friends, nobody]. A challenge
expires ``CHALLENGE_DAYS`` after it was sent: nothing needs to sweep it, every read and answer
compares ``expires_at`` with now.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import ChallengesFrom, Follow, User
from accounts.notify import NoteKind
from accounts.relations import barred_among, contact_barred
from community import broadcast
from community.models import Challenge, ChallengeInvite, Notification
from community.services.notes import About, notes_read, notify
from games.bots import BOT_LEVELS
from games.errors import Conflict, Forbidden, GameError, NotFound
from games.models import Rating, Table
from games.services import tables as table_services
from games.services.ratings import new_rating

CHALLENGE_DAYS = 14
CHALLENGES_PER_DAY = 20  # from one sender, in 24 hours
MAX_INVITED = 5  # players invited to one table


def may_challenge(*, sender: User, receiver: User, game: str) -> str:
    """Why ``sender`` cannot challenge ``receiver`` to ``game``, or "" if they can. A block says
    no more than "does not take challenges from you"."""
    name = receiver.public_name
    barred = barred_among(sender.pk, [receiver.pk])
    if barred.by_me:
        return _("You blocked %(name)s: unblock them to challenge them.") % {"name": name}
    if barred or contact_barred(sender_id=sender.pk, receiver_id=receiver.pk):
        return _("%(name)s does not take challenges from you.") % {"name": name}
    choice = receiver.challenges_from
    if choice == ChallengesFrom.NOBODY:
        return _("%(name)s takes no challenges.") % {"name": name}
    if choice == ChallengesFrom.FRIENDS and not _friends(sender, receiver):
        return _("%(name)s takes challenges from friends only.") % {"name": name}
    if choice == ChallengesFrom.RATED_NEAR:
        ratings = dict(
            Rating.objects.filter(game=game, user__in=[sender, receiver]).values_list(
                "user_id", "ordinal"
            )
        )
        start = new_rating().ordinal()
        gap = abs(ratings.get(sender.pk, start) - ratings.get(receiver.pk, start))
        if gap > receiver.challenge_rating_range:
            return _("%(name)s takes challenges from players rated within %(range)d of them.") % {
                "name": name,
                "range": receiver.challenge_rating_range,
            }
    return ""


def _friends(one: User, other: User) -> bool:
    pairs = Follow.objects.filter(Q(follower=one, followed=other) | Q(follower=other, followed=one))
    return pairs.count() == 2


@transaction.atomic
def challenge_create(
    *,
    sender: User,
    receivers: list[User],
    game: str,
    num_seats: int,
    seconds_per_move: int,
    rated: bool = True,
    options: dict[str, Any] | None = None,
    bot_level: str = "",
) -> Challenge:
    """Sends a challenge to one player, or (for a game of more) to up to ``MAX_INVITED``, each
    to a seat in order after the sender's; the seats left are the bots' (``bot_level``)."""
    options = table_services.table_settings_checked(
        game=game, num_seats=num_seats, seconds_per_move=seconds_per_move, options=options
    )
    unique = list({receiver.pk: receiver for receiver in receivers}.values())
    if any(receiver.pk == sender.pk for receiver in unique):
        raise GameError(_("You cannot challenge yourself."))
    if not unique:
        raise GameError(_("Name a player to challenge."))
    if len(unique) > min(MAX_INVITED, num_seats - 1):
        raise GameError(_("More players are invited than the table has seats for."))
    open_seats = num_seats - 1 - len(unique)
    if bot_level and bot_level not in BOT_LEVELS:
        raise GameError(_("Choose one of the offered bot levels."))
    if open_seats and not bot_level:
        raise GameError(_("Invite a player to every seat, or give the open seats to bots."))
    User.objects.select_for_update().filter(pk=sender.pk).first()  # one at a time: the limit
    since = timezone.now() - dt.timedelta(days=1)
    if Challenge.objects.filter(sender=sender, created_at__gte=since).count() >= CHALLENGES_PER_DAY:
        raise Conflict(
            _("You have sent %(count)d challenges today: send more tomorrow.")
            % {"count": CHALLENGES_PER_DAY}
        )
    for receiver in unique:
        if not receiver.is_active:
            raise NotFound(_("There is no such player."))
        why_not = may_challenge(sender=sender, receiver=receiver, game=game)
        if why_not:
            raise Forbidden(why_not)
        if barred_among(receiver.pk, [other.pk for other in unique]):
            raise Forbidden(_("Some of the invited players cannot be seated together."))
    challenge = Challenge.objects.create(
        sender=sender,
        game=game,
        num_seats=num_seats,
        seconds_per_move=seconds_per_move,
        rated=rated and open_seats == 0,  # a game with a bot is never rated
        options=options,
        bot_level=bot_level if open_seats else "",
        expires_at=timezone.now() + dt.timedelta(days=CHALLENGE_DAYS),
    )
    ChallengeInvite.objects.bulk_create(
        ChallengeInvite(challenge=challenge, receiver=receiver, position=n)
        for n, receiver in enumerate(unique, start=1)
    )
    notify(
        kind=NoteKind.CHALLENGE,
        user_ids=[receiver.pk for receiver in unique],
        about=About(actor=sender, challenge_id=challenge.pk),
    )
    return challenge


def _locked_open(challenge_id: int) -> Challenge:
    """The challenge, locked, if it still waits for answers; otherwise a refusal that says why."""
    challenge = Challenge.objects.select_for_update().filter(pk=challenge_id).first()
    if challenge is None:
        raise NotFound(_("There is no such challenge."))
    if challenge.status == Challenge.Status.STARTED:
        raise Conflict(_("This challenge was accepted: its game has started."))
    if challenge.status == Challenge.Status.DECLINED:
        raise Conflict(_("This challenge was declined."))
    if challenge.status == Challenge.Status.WITHDRAWN:
        raise Conflict(_("This challenge was withdrawn."))
    if challenge.expires_at <= timezone.now():
        raise Conflict(_("This challenge has expired."))
    return challenge


def _invite_of(challenge: Challenge, user: User) -> ChallengeInvite:
    invite = challenge.invites.filter(receiver=user).first()
    if invite is None:
        raise NotFound(_("There is no such challenge."))
    if invite.answer != ChallengeInvite.Answer.WAITING:
        raise Conflict(_("You have answered this challenge already."))
    return invite


@transaction.atomic
def challenge_accept(*, challenge_id: int, user: User) -> Challenge:
    """``user`` accepts; once everyone has, the table opens with everyone seated (the bots in the
    open seats) and the game starts. A block made meanwhile refuses the seat, and nothing
    changes."""
    challenge = _locked_open(challenge_id)
    invite = _invite_of(challenge, user)
    invite.answer = ChallengeInvite.Answer.ACCEPTED
    invite.answered_at = timezone.now()
    invite.save(update_fields=["answer", "answered_at"])
    invites = list(challenge.invites.select_related("receiver").order_by("position"))
    if all(other.answer == ChallengeInvite.Answer.ACCEPTED for other in invites):
        challenge.table = _table_for(challenge, [other.receiver for other in invites])
        challenge.status = Challenge.Status.STARTED
        challenge.save(update_fields=["table", "status"])
    notify(
        kind=NoteKind.CHALLENGE_ACCEPTED,
        user_ids=[challenge.sender_id],
        about=About(actor=user, challenge_id=challenge.pk, table_id=challenge.table_id),
    )
    _read_challenge(user, challenge)
    return challenge


def _read_challenge(user: User, challenge: Challenge) -> None:
    """An answered challenge is no longer news to the one who answered."""
    ids = Notification.objects.filter(
        user=user, challenge=challenge, kind=NoteKind.CHALLENGE, read_at__isnull=True
    ).values_list("pk", flat=True)
    if user.notes_unread and ids:
        notes_read(user=user, note_ids=list(ids))


def _table_for(challenge: Challenge, receivers: list[User]) -> Table:
    table = table_services.table_create(
        user=challenge.sender,
        game=challenge.game,
        num_seats=challenge.num_seats,
        seconds_per_move=challenge.seconds_per_move,
        options=challenge.options,
        rated=challenge.rated,
    )
    for receiver in receivers:
        table_services.table_join(table_id=table.pk, user=receiver)
    for _seat in range(challenge.num_seats - 1 - len(receivers)):
        table_services.table_seat_bot(
            table_id=table.pk, user=challenge.sender, level=challenge.bot_level
        )
    table.refresh_from_db()
    return table


@transaction.atomic
def challenge_decline(*, challenge_id: int, user: User, reason: object) -> Challenge:
    """``user`` declines with a reason from the list; the challenge ends for everyone (its table
    could never fill)."""
    if reason not in ChallengeInvite.Reason.values:
        raise GameError(_("Choose one of the offered reasons."))
    challenge = _locked_open(challenge_id)
    invite = _invite_of(challenge, user)
    invite.answer = ChallengeInvite.Answer.DECLINED
    invite.reason = str(reason)
    invite.answered_at = timezone.now()
    invite.save(update_fields=["answer", "reason", "answered_at"])
    challenge.status = Challenge.Status.DECLINED
    challenge.save(update_fields=["status"])
    notify(
        kind=NoteKind.CHALLENGE_DECLINED,
        user_ids=[challenge.sender_id],
        about=About(actor=user, challenge_id=challenge.pk, detail=str(reason)),
    )
    _read_challenge(user, challenge)
    return challenge


@transaction.atomic
def challenge_withdraw(*, challenge_id: int, user: User) -> Challenge:
    challenge = _locked_open(challenge_id)
    if challenge.sender_id != user.pk:
        raise Forbidden(_("Only the player who sent a challenge can withdraw it."))
    challenge.status = Challenge.Status.WITHDRAWN
    challenge.save(update_fields=["status"])
    receivers = list(challenge.invites.select_related("receiver"))
    for invite in receivers:
        _read_challenge(invite.receiver, challenge)
    # Their open pages and API streams hear it at once, whether or not they had read its note:
    # a withdrawn challenge leaves their lists (the streams' ``challengeGone``).
    receiver_ids = [invite.receiver_id for invite in receivers]
    transaction.on_commit(lambda: broadcast.notes_changed(receiver_ids))
    return challenge


def challenge_settings_set(*, user: User, challenges_from: str, rating_range: int) -> None:
    """Who may challenge ``user`` (values checked by the form that brings them)."""
    user.challenges_from = challenges_from
    user.challenge_rating_range = rating_range
    user.save(update_fields=["challenges_from", "challenge_rating_range"])
