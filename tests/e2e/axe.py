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
# The widths axe checks every page at: a phone's and a desktop's, as #19.6 asks. The tablet's
# layout between them (SIZES) is left to the layout tests and the screenshots: checking it too
# was a third of the sweep's time.
AXE_WIDTHS = (390, 1280)
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
COLOUR_RULE_IDS = ["color-contrast", "link-in-text-block"]  # both WCAG A/AA: in EVERY_RULE too
COLOUR_RULES = {
    "runOnly": {"type": "rule", "values": COLOUR_RULE_IDS},
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
# What the colour rules read of a page: each element's (and its ::before's and ::after's)
# computed colours, backgrounds, borders, decorations, shadows, opacity, filters and visibility,
# hashed. In one page at one size (one layout), two themes with the same hash look the same to
# them, and the second is not checked again. Not color-scheme: it only picks the system
# colours (Canvas, Field), whose values are read here, as axe reads them.
COLOURS = """() => {
  const names = ["color", "background-color", "background-image", "opacity", "visibility",
    "filter", "backdrop-filter", "mix-blend-mode", "text-shadow", "box-shadow",
    "text-decoration-line", "text-decoration-color", "text-decoration-style",
    "border-top-color", "border-right-color", "border-bottom-color", "border-left-color",
    "border-bottom-style", "outline-color", "fill", "stroke", "-webkit-text-fill-color",
    "-webkit-text-stroke-color"];
  let hash = 2166136261;
  const add = text => {
    for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 16777619);
  };
  for (const element of document.querySelectorAll("*")) {
    for (const pseudo of [null, "::before", "::after"]) {
      const style = getComputedStyle(element, pseudo);
      if (pseudo && style.content === "none") continue;
      add(`${element.tagName}${pseudo}`);
      for (const name of names) add(style.getPropertyValue(name) + ";");
    }
  }
  return hash;
}"""
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
    for _rule, line in _violations(page, options):
        yield line


def _violations(page: Page, options: dict) -> list[tuple[str, str]]:
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.evaluate(AXE_SCRIPT)  # once per page load: 0.5 MB of script
    return [
        (violation["id"], f"{violation['id']} ({violation['help']}): {target}")
        for violation in page.evaluate(RUN, options)
        for target in (" ".join(str(t) for t in node["target"]) for node in violation["nodes"])
    ]


def check_visits(browser, base: str, visits: list[Visit], sign_in) -> list[str]:
    """Every violation of every visit at every size and theme: one page per viewer; each visit
    loaded once, then checked as ``check_page`` does."""
    found: list[str] = []
    first = next(iter(SIZES.values()))
    pages: dict[str | None, Page] = {}
    for viewer in {visit.viewer for visit in visits}:
        pages[viewer] = browser.new_context(viewport=first).new_page()
        if viewer:
            sign_in(pages[viewer], base, viewer)
    for visit in visits:
        page = pages[visit.viewer]
        page.set_viewport_size(first)
        page.goto(base + visit.path)
        if visit.ready:
            expect(page.locator(visit.ready)).to_be_visible()
        found += check_page(page, visit.name)
    for page in pages.values():
        page.context.close()
    return found


def check_page(page: Page, name: str) -> list[str]:
    """Every violation of the page as it is now, at each of ``AXE_WIDTHS`` (the window resized,
    as a phone turned or a window dragged: the layout is CSS's, and the scripts that place
    things listen to "resize") in every theme; the page is left at its first size."""
    found: list[str] = []
    for width in AXE_WIDTHS:
        page.set_viewport_size(SIZES[width])
        colour_findings: dict[int, list[str]] = {}  # by the colours' hash
        for theme, scheme, options in THEMES:
            page.emulate_media(color_scheme=scheme)
            page.evaluate(SET_THEME, theme)
            colours = page.evaluate(COLOURS)
            if options is EVERY_RULE or colours not in colour_findings:
                findings = _violations(page, options)
                colour_findings[colours] = [
                    line for rule, line in findings if rule in COLOUR_RULE_IDS
                ]
                lines = [line for _rule, line in findings]
            else:
                lines = colour_findings[colours]
            found += [f"{name} {width}px {theme_name(theme, scheme)}: {line}" for line in lines]
    page.set_viewport_size(next(iter(SIZES.values())))
    page.emulate_media(color_scheme="light")
    page.evaluate(SET_THEME, "system")
    return found
