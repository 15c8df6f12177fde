"""The people around a player: how they stand to one other player (their profile), and their
friends, follows, followers and blocks (the people page), each in a fixed number of queries.

A player someone blocked, or who blocked them from games, vanishes from their lists
(``accounts.relations.out_of_sight``); the blocks themselves are listed apart, to lift them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.contrib.auth.models import AnonymousUser
from django.db.models import Exists, OuterRef, Subquery

from accounts.models import Block, Follow, User
from accounts.online import online_among
from accounts.relations import FOLLOW_CAP, out_of_sight

SWITCHES = ("hide_lines", "no_games", "no_contact")
# The followers a people page lists (the newest first): a popular player's are many.
FOLLOWERS_SHOWN = 400


@dataclass(frozen=True)
class Switches:
    """A block's three switches (``accounts.models.Block``)."""

    hide_lines: bool
    no_games: bool
    no_contact: bool


@dataclass(frozen=True)
class Relation:
    """How the viewer stands to a player: whether each follows the other, and the viewer's
    block of them (None: none)."""

    following: bool
    follows_me: bool
    block: Switches | None

    @property
    def friends(self) -> bool:
        return self.following and self.follows_me


def relation_to(viewer: User | AnonymousUser, player: User) -> Relation | None:
    """None for a visitor or the player themself; otherwise one query."""
    if not viewer.is_authenticated or viewer.pk == player.pk:
        return None
    mine = Block.objects.filter(blocker_id=viewer.pk, blocked_id=OuterRef("pk"))
    row = (
        User.objects.filter(pk=player.pk)
        .annotate(
            following=Exists(
                Follow.objects.filter(follower_id=viewer.pk, followed_id=OuterRef("pk"))
            ),
            follows_me=Exists(
                Follow.objects.filter(follower_id=OuterRef("pk"), followed_id=viewer.pk)
            ),
            **{name: Subquery(mine.values(name)[:1]) for name in SWITCHES},
        )
        .values_list("following", "follows_me", *SWITCHES)
        .first()
    )
    if row is None:
        return None
    following, follows_me, *switches = row
    block = Switches(*map(bool, switches)) if switches[0] is not None else None
    return Relation(bool(following), bool(follows_me), block)


@dataclass(frozen=True)
class Person:
    user: User
    online: bool
    mutual: bool = False  # they follow back: friends
    following: bool = False  # the viewer follows them


@dataclass
class People:
    friends: list[Person] = field(default_factory=list)  # online first, then by name
    following: list[Person] = field(default_factory=list)  # followed, not following back
    followers: list[Person] = field(default_factory=list)  # following, not followed back
    blocked: list[Block] = field(default_factory=list)
    following_count: int = 0
    cap: int = FOLLOW_CAP

    @property
    def online_friends(self) -> int:
        return sum(person.online for person in self.friends)


def _name(person: Person) -> str:
    return person.user.public_name.casefold()


def people_of(user: User) -> People:
    """Three queries and one cache read, however many people: the follows made (each marked
    mutual or not), the followers not followed back, the blocks; who is online from the cache."""
    hidden = out_of_sight(user.pk)
    follows_back = Follow.objects.filter(follower=OuterRef("followed_id"), followed=user)
    made = list(
        Follow.objects.filter(follower=user)
        .exclude(followed_id__in=hidden)
        .filter(followed__is_active=True)
        .select_related("followed")
        .annotate(mutual=Exists(follows_back))
    )
    received = list(
        Follow.objects.filter(followed=user, follower__is_active=True)
        .exclude(follower_id__in=hidden)
        .exclude(follower_id__in=Follow.objects.filter(follower=user).values("followed_id"))
        .select_related("follower")
        .order_by("-created_at")[:FOLLOWERS_SHOWN]
    )
    blocked = list(Block.objects.filter(blocker=user).select_related("blocked").order_by("-id"))
    online = online_among([row.followed_id for row in made] + [row.follower_id for row in received])
    people = People(blocked=blocked, following_count=len(made))
    for row in made:
        person = Person(row.followed, row.followed_id in online, row.mutual)
        (people.friends if row.mutual else people.following).append(person)
    people.friends.sort(key=lambda person: (not person.online, _name(person)))
    people.following.sort(key=_name)
    people.followers = [Person(row.follower, row.follower_id in online) for row in received]
    return people


def table_people(viewer: User | AnonymousUser, table_id: int) -> list[Person]:
    """The other people seated at a table, for "Follow" beside each (one query; those out of
    the viewer's sight left out)."""
    if not viewer.is_authenticated:
        return []
    following = Follow.objects.filter(follower_id=viewer.pk, followed=OuterRef("pk"))
    users = (
        User.objects.filter(seats__table_id=table_id, is_active=True)
        .exclude(pk=viewer.pk)
        .exclude(pk__in=out_of_sight(viewer.pk))
        .annotate(following=Exists(following))
        .order_by("username")
    )
    return [Person(user, online=False, following=user.following) for user in users]
