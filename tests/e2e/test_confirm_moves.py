"""A stray click is not a move (#25.5): with "Confirm my moves" on, a first click, tap, Enter or
Space on a move only chooses it (pressed, with a Play button beside the moves), and Play, or the
chosen move again, plays it; off, a click plays at once; "as the device" is on for a touch screen
only. Without JavaScript the move form posts at once. The choice is made on the settings page.
"""

from __future__ import annotations

import json

import pytest
from django.urls import reverse
from playwright.sync_api import Page, expect

from accounts.models import User
from games.models import Table
from games.rules import get_rules
from games.services.tables import table_create, table_join
from tests.e2e.axe import EVERY_RULE, violations
from tests.e2e.pages import sign_in
from tests.factories import UserFactory

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}
MOVE = "#board-form button[name=action]"
CHOSEN = f'{MOVE}[aria-pressed="true"]'
IN_VIEW = """element => {
  const box = element.getBoundingClientRect();
  return box.top >= 0 && box.bottom <= innerHeight + 1 && scrollY === 0;
}"""


def a_turn(live_server, browser, confirm: str, **context) -> tuple[Table, Page, User]:
    """A District Noir table at the turn of a player whose setting is ``confirm``, open on
    their page (a phone's size, and whatever ``context`` asks: a touch screen, no script)."""
    anna, ben = UserFactory(username="anna"), UserFactory(username="ben")
    table = table_create(user=anna, game="district-noir", num_seats=2, seconds_per_move=86400)
    table_join(table_id=table.pk, user=ben)
    table.refresh_from_db()
    mover = table.seats.get(is_waiting=True).user
    User.objects.filter(pk=mover.pk).update(confirm_moves=confirm)
    signed_in = browser.new_context(viewport=PHONE)
    sign_in(signed_in.new_page(), live_server.url, mover.username)  # the form needs no script,
    page = browser.new_context(viewport=PHONE, **context).new_page()  # but its page's header
    page.context.add_cookies(signed_in.cookies())  # has a no-script button before it
    page.goto(f"{live_server.url}/t/{table.pk}/")
    return table, page, mover


def moves_sent(page: Page) -> list[str]:
    """The moves this page posts from now on (the HTTP path: the live server has no socket)."""
    sent: list[str] = []
    page.on("request", lambda r: sent.append(r.url) if r.url.endswith("/act/") else None)
    return sent


def played(table: Table) -> list[dict]:
    return [move.action for move in table.moves.order_by("seq")]


def test_with_confirm_on_a_click_chooses_and_play_plays(live_server, browser):
    table, page, _mover = a_turn(live_server, browser, "on")
    sent = moves_sent(page)
    first, second = page.locator(MOVE).nth(0), page.locator(MOVE).nth(1)
    first.click()
    expect(first).to_have_attribute("aria-pressed", "true")
    play = page.get_by_role("button", name="Play", exact=True)
    expect(play).to_be_visible()
    assert play.evaluate(IN_VIEW), "Play is on the screen, beside the moves"
    assert page.locator(".board-dock .move-confirm").count() == 1
    expect(page.locator(".move-confirm")).to_contain_text("Chosen:")

    second.click()  # another choice: still nothing played
    expect(second).to_have_attribute("aria-pressed", "true")
    expect(page.locator(CHOSEN)).to_have_count(1)
    page.get_by_role("button", name="Cancel").click()
    expect(page.locator(CHOSEN)).to_have_count(0)
    expect(page.locator(".move-confirm")).to_have_count(0)
    assert sent == [] and played(table) == []

    chosen = first.get_attribute("value")
    first.click()
    assert not [f"{v}" for v in violations(page, EVERY_RULE)], (
        "the chosen move and its Play button pass axe-core"
    )
    play.click()
    expect(page.locator("#board-public")).to_have_attribute("data-version", str(table.version + 1))
    assert played(table) == [json.loads(chosen)]
    assert len(sent) == 1


def test_with_confirm_on_the_keyboard_chooses_then_plays(live_server, browser):
    table, page, _mover = a_turn(live_server, browser, "on")
    sent = moves_sent(page)
    first = page.locator(MOVE).first
    first.focus()
    page.keyboard.press("Enter")
    expect(first).to_have_attribute("aria-pressed", "true")
    expect(first).to_be_focused()  # the focus stays on the move: the same key again plays it
    page.keyboard.press("Escape")
    expect(page.locator(CHOSEN)).to_have_count(0)
    page.keyboard.press("Space")
    expect(first).to_have_attribute("aria-pressed", "true")
    assert sent == [] and played(table) == []
    chosen = first.get_attribute("value")
    page.keyboard.press("Space")
    expect(page.locator("#board-public")).to_have_attribute("data-version", str(table.version + 1))
    assert played(table) == [json.loads(chosen)]


@pytest.mark.parametrize("key", ["click", "Enter"])
def test_with_confirm_off_a_move_plays_at_once_even_on_a_touch_screen(live_server, browser, key):
    table, page, _mover = a_turn(live_server, browser, "off", has_touch=True)
    move = page.locator(MOVE).first
    chosen = move.get_attribute("value")
    if key == "click":
        move.click()
    else:
        move.focus()
        page.keyboard.press(key)
    expect(page.locator("#board-public")).to_have_attribute("data-version", str(table.version + 1))
    assert played(table) == [json.loads(chosen)]


def test_as_the_device_confirms_on_a_touch_screen_and_not_with_a_mouse(live_server, browser):
    table, touch, _mover = a_turn(live_server, browser, "auto", has_touch=True)
    move = touch.locator(MOVE).first
    move.tap()
    expect(move).to_have_attribute("aria-pressed", "true")
    assert played(table) == []
    expect(touch.locator(".click-hint .when-confirming")).to_be_visible()

    mouse = browser.new_context(viewport=PHONE).new_page()
    sign_in(mouse, live_server.url, _mover.username)
    mouse.goto(f"{live_server.url}/t/{table.pk}/")
    expect(mouse.locator(".click-hint .when-confirming")).to_be_hidden()
    mouse.locator(MOVE).first.click()
    expect(mouse.locator("#board-public")).to_have_attribute("data-version", str(table.version + 1))
    assert len(played(table)) == 1


def test_without_javascript_a_move_posts_at_once(live_server, browser):
    table, page, _mover = a_turn(live_server, browser, "on", java_script_enabled=False)
    chosen = page.locator(MOVE).first.get_attribute("value")
    with page.expect_navigation():
        page.locator(MOVE).first.click()
    assert played(table) == [json.loads(chosen)]


def test_the_choice_is_made_on_the_settings_page(live_server, browser):
    table, page, mover = a_turn(live_server, browser, "auto")
    expect(page.locator(".table-page")).to_have_attribute("data-confirm", "auto")
    page.goto(live_server.url + reverse("play_settings"))
    page.get_by_label("always: choose, then Play").check()
    page.locator("#confirm-moves").get_by_role("button", name="Save").click()
    expect(page.locator(".messages")).to_contain_text("Your choice for confirming moves is saved.")
    mover.refresh_from_db()
    assert mover.confirm_moves == "on"
    page.goto(f"{live_server.url}/t/{table.pk}/")
    expect(page.locator(".table-page")).to_have_attribute("data-confirm", "on")
    page.locator(MOVE).first.click()
    expect(page.locator(CHOSEN)).to_have_count(1)
    assert played(table) == []


def test_point_city_s_payment_is_itself_the_second_step_and_its_draw_asks_for_play(
    live_server, browser
):
    """A take is chosen card by card and played by its payment (data-confirms): no Play after
    that; a one-click move, the draw, waits for Play in the docked line under the market."""
    me = UserFactory(username="pia")
    User.objects.filter(pk=me.pk).update(confirm_moves="on")
    table = table_create(user=me, game="point-city", num_seats=1, seconds_per_move=86400)
    table.refresh_from_db()
    rules = get_rules("point-city")
    actions = rules.legal_actions(rules.from_json(table.state), 0)
    take = next(a for a in actions if a["type"] == "take")
    page = browser.new_context(viewport=PHONE).new_page()
    sign_in(page, live_server.url, me.username)
    page.goto(f"{live_server.url}/t/{table.pk}/")

    draw = page.locator(".pc-draw")
    draw.click()
    expect(draw).to_have_attribute("aria-pressed", "true")
    expect(page.locator(".pc-actions .move-confirm")).to_be_visible()
    page.get_by_role("button", name="Cancel").click()

    for cell in take["cells"]:
        page.locator(f'.pc-market-pick button.pc-cell[data-cell="{cell[0]}{cell[1]}"]').click()
    page.locator(".pc-offers li.pc-shown button").first.click()
    expect(page.locator("#board-public")).to_have_attribute("data-version", str(table.version + 1))
    assert played(table)[0]["type"] == "take"
