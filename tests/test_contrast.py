"""Text keeps a contrast of at least 4.5:1 with its background at the default display settings,
in the light theme and in the dark one.

The colours are read from the stylesheets themselves (static/css/site.css and the game
files), so a colour changed there is checked here. Each pair names where its text colour and
its background are declared: (file, selector, property[, which colour of the value]). At the
default settings --paper and the felt are their untinted "-base" colours (the warmth mixes in
0%: tests/e2e/test_keyboard_play.py checks that in a browser) and contrast() is 1.

The theme (accounts/display.py: light, dark, or the system's) is the page's colour scheme, and
every colour that differs is a light-dark(light, dark) pair: each pair below is checked with
the first colours and with the second (THEMES). A theme chosen wins over the system's in both
directions because no stylesheet asks prefers-color-scheme (checked below; axe-core checks the
pages in a browser, each theme against the other system scheme: tests/e2e/test_axe.py).

The display settings change the paper and the felt (colour temperature) and put a contrast()
filter on the page: DISPLAY_PAIRS are checked at every temperature, in both themes, from the
default contrast up. Below the middle of its slider the filter softens the page on purpose, at
the player's request. The grain never lies under text: panels are solid.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import NamedTuple

import pytest

CSS = Path(__file__).resolve().parent.parent / "static" / "css"
FILES = {
    "site": "site.css",
    "pages": "pages.css",
    "ratings": "ratings.css",
    "dn": "games/district-noir.css",
    "gnav": "games/gnav.css",
    "slide": "games/slide.css",
    "pc": "games/point-city.css",
}
THEMES = ("light", "dark")  # light-dark()'s first colours, and its second
MINIMUM = 4.5


class Ref(NamedTuple):
    """A colour declared in a stylesheet: ``which`` picks one colour of a gradient."""

    file: str
    selector: str
    prop: str
    which: int = 0
    scope: str = ""  # a selector that defines the custom properties the value uses


def root(prop: str) -> Ref:
    return Ref("site", ":root", prop)


INK, PAPER, MUTED = root("--ink"), root("--paper-base"), root("--muted")
WHITE_CARD = Ref("site", ".card", "background")
CARD_INK = Ref("site", ".card", "color")
SEAT = Ref("site", ".seat", "background")
GN_CENTRE = Ref("gnav", ".gn-table::before", "background")  # the middle of the felt

PAIRS: list[tuple[str, Ref, Ref]] = [
    # The site
    ("ink on paper", INK, PAPER),
    ("muted text on paper", MUTED, PAPER),
    ("a link on paper", Ref("site", "a", "color"), PAPER),
    ("a link on a game card", Ref("site", "a", "color"), Ref("site", ".game-card", "background")),
    (
        "header text",
        Ref("site", ".site-header", "color"),
        Ref("site", ".site-header", "background"),
    ),
    (
        "table title on the lightest felt",
        Ref("site", ".table-header", "color"),
        Ref("site", ".table-header", "background"),
    ),
    (
        "table number on the lightest felt",
        Ref("site", ".table-header .muted", "color"),
        Ref("site", ".table-header", "background"),
    ),
    ("button text", Ref("site", "button", "color"), Ref("site", "button", "background")),
    (
        "secondary button text",
        Ref("site", "button", "color"),
        Ref("site", "button.secondary", "background"),
    ),
    ("turn badge", Ref("site", ".badge.turn", "color"), Ref("site", ".badge.turn", "background")),
    ("a message", INK, Ref("site", ".message", "background")),
    (
        "an error",
        Ref("site", ".message.error", "color"),
        Ref("site", ".message.error", "background"),
    ),
    ("muted text on a waiting table row", MUTED, Ref("site", ".table-row.waiting", "background")),
    ("a clock on a seat", Ref("site", ".clock", "color"), SEAT),
    ("timeouts on a seat", Ref("site", ".timeouts", "color"), SEAT),
    ("card text", CARD_INK, WHITE_CARD),
    ("the skip link", Ref("site", ".skip-link", "color"), Ref("site", ".skip-link", "background")),
    ("display settings", INK, Ref("site", ".display-form", "background")),
    (
        "display settings' ends",
        Ref("site", ".display-ends", "color"),
        Ref("site", ".display-form", "background"),
    ),
    (
        "display settings saved",
        Ref("site", ".display-status", "color"),
        Ref("site", ".display-form", "background"),
    ),
    ("muted text on a seat", MUTED, SEAT),
    ("a link on a seat", Ref("site", "a", "color"), SEAT),
    ("a lobby row's table number", Ref("site", ".table-number", "color"), PAPER),
    (
        "a lobby row's last move, on your turn",
        Ref("site", ".table-link .moved", "color"),
        Ref("site", ".table-row.waiting", "background"),
    ),
    ("a late clock on a seat", Ref("site", ".clock.up", "color"), SEAT),
    ("a form field's hint", Ref("site", ".account .helptext", "color"), PAPER),
    ("a form field's error", Ref("site", ".account .errorlist", "color"), PAPER),
    ("a late clock on your row", Ref("site", ".clock.up", "color"), root("--highlight")),
    # Pages (pages.css, ratings.css)
    ("a jump link on the game page", INK, Ref("pages", ".game-jump a", "background")),
    ("a figure in the rules", MUTED, Ref("pages", ".rules-figure", "background")),
    (
        "why a seat cannot act",
        Ref("pages", ".why-not", "color"),
        Ref("pages", ".why-not", "background"),
    ),
    (
        "the rules button's mark",
        Ref("pages", ".rules-toggle::before", "color"),
        Ref("pages", ".rules-toggle::before", "background"),
    ),
    ("a leaderboard heading", Ref("ratings", "table.ratings th", "color"), PAPER),
    ("your row on the leaderboard", INK, Ref("ratings", "table.ratings tr.me", "background")),
    ("a game's tab", INK, Ref("ratings", ".game-tabs a", "background")),
    (
        "the chosen game's tab",
        Ref("ratings", '.game-tabs a[aria-current="page"]', "color"),
        Ref("ratings", '.game-tabs a[aria-current="page"]', "background"),
    ),
    (
        "a provisional rating",
        Ref("ratings", ".badge.provisional", "color"),
        Ref("ratings", ".badge.provisional", "background"),
    ),
    (
        "the rating chart's ticks",
        Ref("ratings", ".rating-chart .tick", "fill"),
        Ref("ratings", ".rating-chart svg", "background"),
    ),
    # District Noir
    *[
        (f"District Noir support {v}", Ref("dn", f".dn-support.v{v}", "color"), WHITE_CARD)
        for v in (5, 6, 7, 8)
    ],
    (
        "District Noir alliance",
        Ref("dn", ".dn-alliance", "color"),
        Ref("dn", ".dn-alliance", "background"),
    ),
    (
        "District Noir betrayal",
        Ref("dn", ".dn-betrayal", "color"),
        Ref("dn", ".dn-betrayal", "background"),
    ),
    ("District Noir city", Ref("dn", ".dn-city", "color"), Ref("dn", ".dn-city", "background")),
    ("District Noir taken badge", INK, Ref("dn", ".dn-taken .badge", "background")),
    ("District Noir taken badge, done", INK, Ref("dn", ".dn-taken .badge.done", "background")),
    (
        "District Noir majority leader",
        Ref("dn", ".dn-majorities td.leader", "color"),
        Ref("dn", ".dn-majorities td.leader", "background"),
    ),
    # Gnav
    ("Gnav card", Ref("gnav", ".gn-card", "color"), Ref("gnav", ".gn-card", "background")),
    (
        "Gnav numeral",
        Ref("gnav", ".gn-numeral", "color"),
        Ref("gnav", ".gn-number", "background", 1),
    ),
    (
        "Gnav picture card",
        Ref("gnav", ".gn-picture", "color"),
        Ref("gnav", ".gn-picture", "background", 1),
    ),
    (
        "Gnav matador",
        Ref("gnav", ".gn-matador", "color"),
        Ref("gnav", ".gn-matador", "background", 1),
    ),
    (
        "Gnav card name on a picture card",
        Ref("gnav", ".gn-read", "color"),
        Ref("gnav", ".gn-picture", "background", 1),
    ),
    (
        "Gnav card name on a matador",
        Ref("gnav", ".gn-read", "color"),
        Ref("gnav", ".gn-matador", "background", 1),
    ),
    ("Gnav 'you'", Ref("gnav", ".gn-you", "color"), PAPER),
    ("Gnav hint", Ref("gnav", ".gn-hint", "color"), Ref("gnav", ".gn-seat", "background")),
    ("Gnav lives", Ref("gnav", ".gn-heart", "color"), Ref("gnav", ".gn-seat", "background")),
    ("Gnav tag", Ref("gnav", ".gn-tag", "color"), Ref("gnav", ".gn-tag", "background")),
    *[
        (
            f"Gnav {tag} tag",
            Ref("gnav", f".gn-tag-{tag}", "color"),
            Ref("gnav", f".gn-tag-{tag}", "background"),
        )
        for tag in ("turn", "fool", "rest", "out", "win")
    ],
    ("Gnav centre text", Ref("gnav", ".gn-centre", "color"), GN_CENTRE),
    ("Gnav deal number", Ref("gnav", ".gn-deal", "color"), GN_CENTRE),
    ("Gnav 'your turn'", Ref("gnav", ".gn-now strong", "color"), GN_CENTRE),
    ("Gnav keep button", Ref("site", "button", "color"), Ref("gnav", ".gn-keep", "background")),
    ("Gnav winner row", INK, Ref("gnav", ".gn-winner-row", "background")),
    # Slide
    *[
        (
            f"Slide {v}",
            Ref("slide", f".sl-v{v}", "--sl-ink"),
            Ref("slide", f".sl-v{v}", "--sl-tint"),
        )
        for v in range(1, 11)
    ],
    *[
        (
            f"Slide {v} on an arrow",
            Ref("slide", f".sl-v{v}", "--sl-ink"),
            Ref("slide", ".sl-arrow-num", "background"),
        )
        for v in range(1, 11)
    ],
    ("Slide round", Ref("slide", ".sl-round", "color"), Ref("slide", ".sl-round", "background")),
    ("Slide player state", MUTED, Ref("slide", ".sl-who", "background")),
    (
        "Slide 'has chosen'",
        Ref("slide", ".sl-state.sl-done", "color"),
        Ref("slide", ".sl-who", "background"),
    ),
    (
        "Slide 'sliding now'",
        Ref("slide", ".sl-state.sl-active", "color"),
        Ref("slide", ".sl-who.sl-now", "background"),
    ),
    ("Slide tag", Ref("slide", ".sl-tag", "color"), Ref("slide", ".sl-tag", "background")),
    # Point City
    *[
        (
            f"Point City {r} label",
            Ref("pc", ".pc-rlabel", "color", scope=f".pc-r-{r}"),
            Ref("pc", ".pc-resource.pc-card", "background", scope=f".pc-r-{r}"),
        )
        for r in ("community", "economy", "energy", "ecology", "industry", "ingenuity")
    ],
    ("Point City card kind", Ref("pc", ".pc-kind", "color"), Ref("pc", ".pc-card", "background")),
    ("Point City points badge", Ref("pc", ".pc-vp", "color"), Ref("pc", ".pc-vp", "background")),
    (
        "Point City token face",
        Ref("pc", ".pc-token-face", "color"),
        Ref("pc", ".pc-token-face", "background"),
    ),
    ("Point City token", Ref("pc", ".pc-token", "color"), Ref("pc", ".pc-token", "background")),
    (
        "Point City 'suggested'",
        Ref("pc", ".pc-default", "color"),
        Ref("pc", ".pc-default", "background"),
    ),
    (
        "Point City price",
        Ref("pc", ".pc-offer .pc-paid", "color"),
        Ref("pc", ".pc-offer .pc-paid", "background"),
    ),
    ("Point City score", INK, Ref("pc", ".pc-scoreline li", "background")),
    (
        "Point City civic building",
        Ref("pc", ".pc-card", "color"),
        Ref("pc", ".pc-building.pc-k-civic", "background"),
    ),
    (
        "Point City points building",
        Ref("pc", ".pc-card", "color"),
        Ref("pc", ".pc-building.pc-k-points", "background"),
    ),
    (
        "Point City building chip",
        Ref("pc", ".pc-mini", "color"),
        Ref("pc", ".pc-mini", "background"),
    ),
    ("Point City stars", Ref("pc", ".pc-stars", "color"), PAPER),
]

# A focus ring is no text: it needs 3:1 against what it is drawn on (WCAG 1.4.11).
FOCUS_MINIMUM = 3
FOCUS_PAIRS: list[tuple[str, Ref, Ref]] = [
    ("focus ring on the felt", root("--focus"), root("--felt-base")),
    ("focus ring on the lightest felt", root("--focus"), root("--felt-light-base")),
    ("focus ring on the darkest felt", root("--focus"), root("--felt-dark-base")),
    ("focus ring on the header", root("--focus"), Ref("site", ".site-header", "background")),
    ("focus ring on paper", root("--focus-on-paper"), PAPER),
    ("focus ring on a seat", root("--focus-on-paper"), SEAT),
]
# A chart's lines are no text either: 3:1 against the chart (the legend names them in text).
GRAPHIC_PAIRS: list[tuple[str, Ref, Ref]] = [
    (
        f"the rating chart's line {n}",
        Ref("ratings", f".series-{n}", "--series"),
        Ref("ratings", ".rating-chart svg", "background"),
    )
    for n in range(6)
]
# In the light theme the ring also stands out from a white card it surrounds; on dark paper it
# is a light ring, drawn 2px outside the card, on the paper checked above.
LIGHT_FOCUS_PAIRS = [("focus ring on a white card", root("--focus-on-paper"), WHITE_CARD)]

COMMENT = re.compile(r"/\*.*?\*/", re.S)
LIGHT_DARK = "light-dark("
VAR = re.compile(r"var\(\s*(--[\w-]+)\s*(?:,\s*([^()]*))?\)")
HEX_PART = r"#[0-9a-fA-F]{3,6}"
# color-mix(in srgb, A [p%], B [q%]) of two colours already worked out, innermost first.
MIX = re.compile(
    rf"color-mix\(in srgb,\s*({HEX_PART})(?:\s+([\d.]+)%)?,\s*({HEX_PART})(?:\s+([\d.]+)%)?\s*\)"
)
CALC_PERCENT = re.compile(r"calc\(\s*([\d.]+)\s*\*\s*([\d.]+)%\s*\)")
HEX = re.compile(r"#(?:[0-9a-fA-F]{6}|[0-9a-fA-F]{3})\b")


def _split_selectors(prelude: str) -> list[str]:
    """Splits "a, b:has(c, d)" on the commas outside parentheses."""
    parts, depth, current = [], 0, ""
    for char in prelude:
        depth += (char == "(") - (char == ")")
        if char == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += char
    return [*parts, current.strip()]


def _parse(text: str, media: str, rules: dict) -> None:
    """Fills rules[(media, selector)] with the declarations, later ones winning."""
    i = 0
    while (opening := text.find("{", i)) != -1:
        prelude, depth, j = text[i:opening].strip(), 1, opening + 1
        while depth:
            depth += (text[j] == "{") - (text[j] == "}")
            j += 1
        body = text[opening + 1 : j - 1]
        if prelude.startswith("@media"):
            _parse(body, " ".join(prelude.split()), rules)
        elif not prelude.startswith("@"):
            declarations = {}
            for declaration in body.split(";"):
                name, _, value = declaration.partition(":")
                if value.strip():
                    declarations[name.strip()] = " ".join(value.split())
            for selector in _split_selectors(prelude):
                rules.setdefault((media, " ".join(selector.split())), {}).update(declarations)
        i = j


@cache
def rules_of(file: str) -> dict:
    rules: dict = {}
    _parse(COMMENT.sub("", (CSS / FILES[file]).read_text(encoding="utf-8")), "", rules)
    return rules


def declared(file: str, selector: str, prop: str) -> str | None:
    return rules_of(file).get(("", selector), {}).get(prop)


def in_theme(text: str, theme: str) -> str:
    """Each light-dark(light, dark) replaced by its colour for ``theme``, innermost first (its
    colours may be color-mix() or var() with commas of their own)."""
    while (start := text.rfind(LIGHT_DARK)) != -1:
        depth, comma, i = 1, -1, start + len(LIGHT_DARK)
        while depth:
            char = text[i]
            depth += (char == "(") - (char == ")")
            if char == "," and depth == 1:
                comma = i
            i += 1
        light, dark = text[start + len(LIGHT_DARK) : comma], text[comma + 1 : i - 1]
        text = text[:start] + (light if theme == "light" else dark).strip() + text[i:]
    return text


def resolve(ref: Ref, warmth: float = 0.5, theme: str = "light") -> str:
    """The value with every var(), light-dark() and color-mix() worked out, as far as colours
    go; ``warmth`` is the colour temperature setting, 0 (cool) to 1 (warm), as base.html writes
    --warmth; ``theme`` the colour scheme, "light" or "dark"."""
    value = declared(ref.file, ref.selector, ref.prop)
    assert value is not None, f"{ref} is not declared"
    # site.css's --warm and --cool: how far the paper and the felt are tinted, 0 to 1.
    tints = {"--warm": max(0, warmth - 0.5) * 2, "--cool": max(0, 0.5 - warmth) * 2}

    def custom(match: re.Match) -> str:
        name, fallback = match.group(1), match.group(2)
        if name in tints:
            return f"{tints[name]:g}"
        for file, selector in [(ref.file, ref.scope), (ref.file, ":root"), ("site", ":root")]:
            found = declared(file, selector, name) if selector else None
            if found is not None:
                return resolve_value(found, ref)
        assert fallback is not None, f"{name} is not defined for {ref}"
        return fallback

    def resolve_value(text: str, ref: Ref) -> str:
        while VAR.search(text):
            text = VAR.sub(custom, text)
        text = in_theme(text, theme)
        text = CALC_PERCENT.sub(lambda m: f"{float(m.group(1)) * float(m.group(2)):g}%", text)
        while MIX.search(text):
            text = MIX.sub(mix_match, text)
        return text

    return resolve_value(value, ref)


def mix_match(match: re.Match) -> str:
    """A color-mix() with its weights as CSS reads them: one given, the other the rest."""
    first, p, second, q = match.groups()
    percent = float(p) if p else 100 - float(q) if q else 50
    return mix(first, percent, second)


def rgb(hex_colour: str) -> tuple[int, int, int]:
    digits = hex_colour.lstrip("#")
    if len(digits) == 3:
        digits = "".join(d * 2 for d in digits)
    return int(digits[0:2], 16), int(digits[2:4], 16), int(digits[4:6], 16)


def mix(first: str, percent: float, second: str) -> str:
    """color-mix(in srgb, first percent%, second) for opaque colours."""
    weight = percent / 100
    channels = (round(x * weight + y * (1 - weight)) for x, y in zip(rgb(first), rgb(second)))
    return "#" + "".join(f"{channel:02x}" for channel in channels)


def colour(ref: Ref, warmth: float = 0.5, theme: str = "light") -> str:
    value = resolve(ref, warmth, theme)
    found = HEX.findall(value)
    assert len(found) > ref.which, f"no colour {ref.which} in {ref} ({theme}): {value}"
    return found[ref.which]


def filtered(hex_colour: str, factor: float) -> str:
    """The colour through CSS's contrast(factor) filter: each channel away from the middle."""
    channels = (
        min(255, max(0, round((c / 255 - 0.5) * factor * 255 + 127.5))) for c in rgb(hex_colour)
    )
    return "#" + "".join(f"{channel:02x}" for channel in channels)


def luminance(hex_colour: str) -> float:
    def linear(channel: int) -> float:
        c = channel / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(c) for c in rgb(hex_colour))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(first: str, second: str) -> float:
    light, dark = sorted([luminance(first), luminance(second)], reverse=True)
    return (light + 0.05) / (dark + 0.05)


def test_the_contrast_formula_matches_wcag():
    assert contrast("#000", "#fff") == pytest.approx(21)
    assert contrast("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)
    assert mix("#ffffff", 50, "#000000") == "#808080"


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize(("what", "text", "background"), PAIRS, ids=[p[0] for p in PAIRS])
def test_text_keeps_a_contrast_of_4_5_to_1(
    what: str, text: Ref, background: Ref, theme: str
) -> None:
    ink, paper = colour(text, theme=theme), colour(background, theme=theme)
    ratio = contrast(ink, paper)
    assert ratio >= MINIMUM, f"{what} ({theme}): {ink} on {paper} is {ratio:.2f}:1"


@pytest.mark.parametrize(
    ("what", "ring", "background", "theme"),
    [(*pair, theme) for pair in FOCUS_PAIRS for theme in THEMES]
    + [(*pair, "light") for pair in LIGHT_FOCUS_PAIRS],
    ids=[f"{p[0]}-{t}" for p in FOCUS_PAIRS for t in THEMES]
    + [f"{p[0]}-light" for p in LIGHT_FOCUS_PAIRS],
)
def test_the_focus_ring_stands_out_3_to_1(
    what: str, ring: Ref, background: Ref, theme: str
) -> None:
    edge, under = colour(ring, theme=theme), colour(background, theme=theme)
    ratio = contrast(edge, under)
    assert ratio >= FOCUS_MINIMUM, f"{what} ({theme}): {edge} on {under}: {ratio:.2f}"


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize(
    ("what", "line", "background"), GRAPHIC_PAIRS, ids=[p[0] for p in GRAPHIC_PAIRS]
)
def test_a_charts_lines_stand_out_3_to_1(what: str, line: Ref, background: Ref, theme: str) -> None:
    stroke, under = colour(line, theme=theme), colour(background, theme=theme)
    ratio = contrast(stroke, under)
    assert ratio >= FOCUS_MINIMUM, f"{what} ({theme}): {stroke} on {under}: {ratio:.2f}"


def test_colour_mixes_weigh_as_css_does():
    assert resolve(root("--paper"), warmth=0.5) == "#fbf8f1"  # untinted at the default
    assert mix_match(MIX.search("color-mix(in srgb, #000000, #ffffff 25%)")) == "#404040"


def test_light_dark_gives_each_theme_its_colour():
    assert in_theme("light-dark(#fff, #000)", "light") == "#fff"
    assert in_theme("light-dark(#fff, #000)", "dark") == "#000"
    nested = "color-mix(in srgb, light-dark(#fff, color-mix(in srgb, #000, #111)), #222 5%)"
    assert in_theme(nested, "dark") == "color-mix(in srgb, color-mix(in srgb, #000, #111), #222 5%)"
    assert colour(root("--paper-base"), theme="dark") != colour(root("--paper-base"))


def test_the_theme_chosen_wins_over_the_systems_in_both_directions():
    """data-theme="light" or "dark" fixes the colour scheme that light-dark() follows, and
    "system" leaves it to the browser; no stylesheet asks the system's preference itself, which
    would undo a choice against it."""
    assert declared("site", ":root", "color-scheme") == "light dark"
    assert declared("site", ':root[data-theme="light"]', "color-scheme") == "light"
    assert declared("site", ':root[data-theme="dark"]', "color-scheme") == "dark"
    for name in FILES.values():
        css = COMMENT.sub("", (CSS / name).read_text(encoding="utf-8"))
        assert "prefers-color-scheme" not in css, name


def test_dark_is_dark():
    """The felt, the panels and the header are near black in the dark theme, and the text on
    them light: the issue's "barely dark" was the same green and a grey-beige paper."""
    for prop in ("--felt-base", "--felt-dark-base", "--felt-light-base", "--paper-base"):
        assert luminance(colour(root(prop), theme="dark")) < 0.03, prop
        assert luminance(colour(root(prop), theme="dark")) < luminance(colour(root(prop))), prop
    assert luminance(colour(Ref("site", ".site-header", "background"), theme="dark")) < 0.01
    assert luminance(colour(INK, theme="dark")) > 0.6
    assert luminance(colour(Ref("site", ".card", "border"), theme="dark")) < 0.01  # cards' edges


# Text on what the display settings tint: the paper and the felt.
def _on() -> list[tuple[str, Ref, Ref]]:
    paper = root("--paper")
    header = Ref("site", ".table-header", "background")
    return [
        ("ink on paper", INK, paper),
        ("muted text on paper", MUTED, paper),
        ("a link on paper", Ref("site", "a", "color"), paper),
        ("the rules button", INK, Ref("pages", ".rules-toggle", "background")),
        ("table title on its band", Ref("site", ".table-header", "color"), header),
        ("table number on its band", Ref("site", ".table-header .muted", "color"), header),
        ("a link on the title's band", Ref("site", ".table-header a", "color"), header),
        ("a rating gained", Ref("ratings", ".delta.up", "color"), paper),
        ("a rating lost", Ref("ratings", ".delta.down", "color"), paper),
    ]


DISPLAY_PAIRS = [
    (f"{theme}: {what}", text, bg, theme) for theme in THEMES for what, text, bg in _on()
]
WARMTHS = [0, 0.25, 0.5, 0.75, 1]
# accounts/display.py: the slider's middle (the default) is contrast(1), its top contrast(1.25).
CONTRASTS = [1, 1.05, 1.1, 1.15, 1.2, 1.25]


@pytest.mark.parametrize("warmth", WARMTHS)
@pytest.mark.parametrize(
    ("what", "text", "background", "theme"), DISPLAY_PAIRS, ids=[p[0] for p in DISPLAY_PAIRS]
)
def test_text_keeps_4_5_to_1_at_every_colour_temperature_and_contrast(
    what: str, text: Ref, background: Ref, theme: str, warmth: float
) -> None:
    for factor in CONTRASTS:
        ink, paper = (filtered(colour(ref, warmth, theme), factor) for ref in (text, background))
        ratio = contrast(ink, paper)
        assert ratio >= MINIMUM, f"{what}, warmth {warmth}, contrast({factor}): {ratio:.2f}:1"


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize(("what", "text", "background"), PAIRS, ids=[p[0] for p in PAIRS])
def test_more_contrast_never_lowers_a_pair_below_4_5_to_1(
    what: str, text: Ref, background: Ref, theme: str
) -> None:
    ink, paper = colour(text, theme=theme), colour(background, theme=theme)
    for factor in CONTRASTS:
        ratio = contrast(filtered(ink, factor), filtered(paper, factor))
        assert ratio >= MINIMUM, f"{what} ({theme}) at contrast({factor}): {ratio:.2f}:1"


# Where text sits: a background of one colour, no gradient or image (the grain) under it.
SOLID = [
    ("site", ".panel"),
    ("site", ".table-header"),
    ("site", ".table-scroll"),
    ("site", ".display-form"),
    ("pages", ".rules-toggle"),
]


@pytest.mark.parametrize(("file", "selector"), SOLID, ids=[s[1] for s in SOLID])
def test_text_sits_on_a_solid_colour(file: str, selector: str) -> None:
    for prop in ("background", "background-image"):
        value = declared(file, selector, prop) or ""
        assert not re.search(r"gradient|url\(", value), f"{selector} {prop}: {value}"
