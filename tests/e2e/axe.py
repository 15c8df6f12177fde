"""What the axe-core tests share: the sizes and themes every page is checked at, the rules, and
the check itself (one line per violating element)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from axe_playwright_python.base import AXE_SCRIPT
from playwright.sync_api import Page, expect

SIZES = {
    390: {"width": 390, "height": 844},
    768: {"width": 768, "height": 1024},
    1280: {"width": 1280, "height": 800},
}
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22a", "wcag22aa"]
# WCAG 2.0, 2.1 and 2.2, levels A and AA (target-size is 2.2 AA), plus the best practices the
# issue asks for: a heading outline without jumps, no empty header cell, one main landmark.
BEST_PRACTICES = [
    "heading-order",
    "empty-heading",
    "empty-table-header",
    "page-has-heading-one",
    "landmark-one-main",
    "scrollable-region-focusable",
]
EVERY_RULE = {
    "runOnly": {"type": "tag", "values": TAGS},
    "rules": {rule: {"enabled": True} for rule in BEST_PRACTICES},
    "resultTypes": ["violations"],
}
# The theme changes colours only (site.css's "Theme" section): the first run checks everything,
# the others the rules about colour.
COLOUR_RULES = {
    "runOnly": {"type": "rule", "values": ["color-contrast", "link-in-text-block"]},
    "resultTypes": ["violations"],
}
# (<html data-theme>, the system's colour scheme, the rules): the server writes "system" unless
# the viewer chose otherwise; the others are set as the display menu's script sets them.
THEMES = [
    ("system", "light", EVERY_RULE),
    ("system", "dark", COLOUR_RULES),
    ("dark", "light", COLOUR_RULES),
    ("light", "dark", COLOUR_RULES),
]
RUN = "options => axe.run(document, options).then(results => results.violations)"
SET_THEME = "theme => { document.documentElement.dataset.theme = theme; }"


def theme_name(theme: str, scheme: str) -> str:
    return scheme if theme == "system" else f"{theme} on a {scheme} system"


@dataclass(frozen=True)
class Visit:
    """A page to check: its name in a failure, its path, and who looks (None: a visitor)."""

    name: str
    path: str
    viewer: str | None = None
    ready: str | None = None  # a selector to wait for before checking (a part that arrives late)


def violations(page: Page, options: dict) -> Iterator[str]:
    """Each violation of the page as it is now, one line per element: the rule and where."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.evaluate(AXE_SCRIPT)  # once per page load: 0.5 MB of script
    for violation in page.evaluate(RUN, options):
        for node in violation["nodes"]:
            target = " ".join(str(t) for t in node["target"])
            yield f"{violation['id']} ({violation['help']}): {target}"


def check_visits(browser, base: str, visits: list[Visit], sign_in) -> list[str]:
    """Every violation of every visit at every size and theme: one page per viewer and size,
    each page checked in every theme before the next is opened."""
    found: list[str] = []
    for width, viewport in SIZES.items():
        pages: dict[str | None, Page] = {}
        for viewer in {visit.viewer for visit in visits}:
            pages[viewer] = browser.new_context(viewport=viewport).new_page()
            if viewer:
                sign_in(pages[viewer], base, viewer)
        for visit in visits:
            page = pages[visit.viewer]
            page.goto(base + visit.path)
            if visit.ready:
                expect(page.locator(visit.ready)).to_be_visible()
            for theme, scheme, options in THEMES:
                page.emulate_media(color_scheme=scheme)
                page.evaluate(SET_THEME, theme)
                name = theme_name(theme, scheme)
                found += [f"{visit.name} {width}px {name}: {v}" for v in violations(page, options)]
        for page in pages.values():
            page.context.close()
    return found
