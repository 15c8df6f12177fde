"""Every game's table page, read as a screen reader and a keyboard would.

Every card has a name a screen reader reads, every move is a real button in the Tab
order, and a skip link leads straight to the board.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from html.parser import HTMLParser

import pytest
from django.urls import reverse

from games.models import Table
from games.services.tables import table_create, table_join
from tests.conftest import client_for, play_random_moves, user_at
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

SEATS = {"district-noir": 2, "gnav": 4, "slide": 2, "point-city": 2}
# The classes that draw one card (or, for Slide, one square of a grid).
CARD_CLASSES = {"card", "gn-card", "sl-cell", "pc-card"}
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}


@dataclass
class Node:
    tag: str
    attrs: dict[str, str]
    parent: Node | None = None
    children: list[Node | str] = field(default_factory=list)

    @property
    def classes(self) -> set[str]:
        return set(self.attrs.get("class", "").split())

    def hidden(self) -> bool:
        node: Node | None = self
        while node is not None:
            if node.attrs.get("aria-hidden") == "true" or "hidden" in node.attrs:
                return True
            node = node.parent
        return False

    def text(self) -> str:
        """The text a screen reader reads inside, without what is aria-hidden."""
        parts = []
        for child in self.children:
            if isinstance(child, str):
                parts.append(child)
            elif child.attrs.get("aria-hidden") != "true":
                parts.append(child.attrs.get("aria-label") or child.text())
        return " ".join(" ".join(parts).split())

    def walk(self):
        yield self
        for child in self.children:
            if isinstance(child, Node):
                yield from child.walk()


class TreeBuilder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", {})
        self.current = self.root

    def handle_starttag(self, tag, attrs):
        node = Node(tag, {k: v or "" for k, v in attrs}, self.current)
        self.current.children.append(node)
        if tag not in VOID:
            self.current = node

    def handle_startendtag(self, tag, attrs):
        self.current.children.append(Node(tag, {k: v or "" for k, v in attrs}, self.current))

    def handle_endtag(self, tag):
        node = self.current
        while node.parent is not None and node.tag != tag:
            node = node.parent
        if node.parent is not None:
            self.current = node.parent

    def handle_data(self, data):
        if self.current.tag not in {"script", "style"}:
            self.current.children.append(data)


def parse(html: str) -> Node:
    builder = TreeBuilder()
    builder.feed(html)
    return builder.root


def accessible_name(node: Node) -> str:
    return node.attrs.get("aria-label", "").strip() or node.text()


def pages_of_a_game_under_way(game: str) -> list[str]:
    players = [UserFactory() for _ in range(SEATS[game])]
    table = table_create(user=players[0], game=game, num_seats=SEATS[game], seconds_per_move=86400)
    for user in players[1:]:
        table_join(table_id=table.pk, user=user)
    table = play_random_moves(Table.objects.get(pk=table.pk), 6, random.Random(3))
    url = reverse("table_detail", args=[table.pk])
    viewers = [user_at(table, seat) for seat in range(SEATS[game])] + [None]
    return [client_for(user).get(url).content.decode() for user in viewers]


@pytest.mark.parametrize("game", sorted(SEATS))
def test_every_card_has_a_name_a_screen_reader_reads(game):
    for page in pages_of_a_game_under_way(game):
        cards = [n for n in parse(page).walk() if n.classes & CARD_CLASSES and not n.hidden()]
        assert cards, "no card on the page"
        unnamed = [n.attrs.get("class") for n in cards if not accessible_name(n)]
        assert not unnamed, f"cards without a name: {unnamed}"


@pytest.mark.parametrize("game", sorted(SEATS))
def test_every_move_is_a_real_button_in_the_tab_order(game):
    for page in pages_of_a_game_under_way(game):
        for node in parse(page).walk():
            if node.attrs.get("name") == "action":
                assert node.tag == "button", node.attrs
                assert node.attrs.get("tabindex", "0") != "-1", node.attrs
                assert accessible_name(node), f"a move without a name: {node.attrs}"


def test_the_skip_link_comes_first_and_leads_to_the_board(running_table, alice):
    html = client_for(alice).get(reverse("table_detail", args=[running_table.pk])).content.decode()
    tree = parse(html)
    focusable = [n for n in tree.walk() if n.tag in {"a", "button", "select", "summary"}]
    skip = focusable[0]
    assert "skip-link" in skip.classes and skip.attrs["href"] == "#board"
    assert skip.text() == "Skip to the board"
    board = next(n for n in tree.walk() if n.attrs.get("id") == "board")
    assert board.attrs.get("tabindex") == "-1"  # it takes the focus, but Tab passes it by
