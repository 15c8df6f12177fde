"""The repository's documents stand on their own: every path a file cites is in the
repository, every file and module it names exists, every registered game has its rules
reference (docs/rules/<game>.md), and every section that code and tests cite in one exists.

A newcomer reads a clone, not a developer's machine: a citation of a folder outside the
repository, of a module that was moved, or of a section that was renumbered, sends them
nowhere.
"""

from __future__ import annotations

import importlib
import importlib.util
import io
import os
import re
import tokenize
from functools import cache
from pathlib import Path

import pytest

from games.rules import all_rules

ROOT = Path(__file__).resolve().parent.parent
RULES_DOCS = ROOT / "docs" / "rules"
THIS_FILE = Path(__file__).resolve()

#: Folders that are not the project's text: tools' caches, installed packages, build output.
SKIPPED = {
    ".git",
    ".venv",
    "venv",
    "node_modules",
    "__pycache__",
    ".mypy_cache",
    ".ruff_cache",
    ".pytest_cache",
    ".hypothesis",
    "staticfiles",
    "test-results",
    ".peer",
}

#: A path on a developer's machine, or in the folder beside the repository.
OUTSIDE = re.compile(r"/work/|\.\./shared\b|(?<![\w./-])shared/(?:rules|bench|DESIGN|STYLE)\b")

#: (file, the path it names) that may stay, and why.
OUTSIDE_ALLOWED = {
    # The boardgame.io peer is another project's program that the load bench compares
    # against, not part of this one; ``--peer-source`` says where its files are.
    ("bench/load/__init__.py", "../shared/bench/peer-bgio"),
    ("bench/load/peer.py", "../shared/bench/peer-bgio"),
}

#: A file named by its path, with a folder and a known ending: ``games/live/consumers.py``,
#: ``tables/partials/seats.html``, ``../rules-conventions.md``. Not a placeholder's
#: (``templates/games/<slug>/public.html``), nor a part of an address or a longer path.
FILE_PATH = re.compile(
    r"(?<![\w./@:<>{}$%-])((?:[\w.-]+/)+[\w-]+\.(?:py|html|txt|js|mjs|css|md|toml|json|sh))"
    r"(?![\w/<{*])"
)
#: Where a path may be written from besides the root (and the citing file's folder): a
#: module from games/, a template from templates/, a stylesheet or script from static/.
PATH_BASES = {
    "py": ("games/",),
    "html": ("templates/",),
    "txt": ("templates/",),
    "css": ("static/", "static/css/"),
    "js": ("static/",),
    "md": ("docs/",),
}
#: The tests' fifth game keeps its own folders, which Django's settings add for its tests.
FIFTH_GAME = "tests/fifth_game/"
FIFTH_GAME_BASES = (FIFTH_GAME + "templates/", FIFTH_GAME + "static/")
#: (file, the start of the paths it may name that do not exist), and why.
MISSING_ALLOWED = {
    # A game whose parts are missing on purpose: the checks must name each one.
    ("tests/games/catalog/test_game_contract.py", "games/half-baked/"),
    ("tests/games/catalog/test_game_contract.py", "static/css/games/half-baked"),
    # A throwaway package the test writes into tmp_path.
    ("tests/test_write_paths.py", "shadow/"),
    ("tests/test_architecture.py", "tests/games/test_"),
    # Figures measured before the load bench became a package keep the command that made them.
    ("docs/benchmarks.md", "bench/load.py"),
    # The moderators' page extends Django admin's own template.
    ("templates/admin/community/moderate.html", "admin/base_site.html"),
    # The list of passkeys extends allauth.mfa's own template.
    ("templates/mfa/webauthn/authenticator_list.html", "mfa/webauthn/base.html"),
    ("templates/mfa/webauthn/authenticator_confirm_delete.html", "mfa/webauthn/base.html"),
}
#: A module of the project named by its dotted path: ``games.live.consumers``,
#: ``config.redis_guard.guard``. (Not ``games.py``: a file.)
DOTTED = re.compile(r"(?<![\w./@:-])((?:games|config|accounts)(?:\.[a-z_][a-z0-9_]*)+)")
FILE_ENDINGS = {"py", "html", "txt", "js", "css", "md", "toml", "json"}
#: Celery's task names (``@shared_task(name="games.tasks.sweep_deadlines")``) are kept from
#: an older layout so that queued tasks still run: names, not modules.
TASK_NAME = re.compile(r"""shared_task\(\s*name=["']([\w.]+)["']""")

#: ``docs/rules/slide.md §4``, ``docs/rules/gnav.md §2.5``, ``docs/rules/gnav.md A6``.
CITATION = re.compile(
    r"docs/rules/(?P<doc>[\w-]+)\.md(?:\s*§\s*(?P<section>\d+(?:\.\d+)*)|\s+(?P<id>[A-Z]\d+)\b)?"
)
#: A section number or a reading's id cited without the document's name, in a game's own files.
BARE_SECTION = re.compile(r"§\s*(\d+(?:\.\d+)*)|\b[Ss]ections? (\d+(?:\.\d+)*)")
#: The sections of a rules document: its numbered headings ("### 3.2 Step B ...").
HEADING = re.compile(r"^#{2,6}\s+(\d+(?:\.\d+)*)\.?\s", re.M)
#: The ids of its readings and named items: the first cell of a table row ("| A1 | ...").
TABLE_ID = re.compile(r"^\|\s*([A-Z])(\d+)\s*\|", re.M)


def _texts() -> list[tuple[str, str]]:
    """(path from the root, text) of every text file of the project."""
    found = []
    for folder, subfolders, files in os.walk(ROOT):
        subfolders[:] = sorted(name for name in subfolders if name not in SKIPPED)
        for name in sorted(files):
            path = Path(folder) / name
            if name in SKIPPED or path == THIS_FILE or path.is_symlink():
                continue
            data = path.read_bytes()
            if b"\0" in data:
                continue
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                continue
            found.append((path.relative_to(ROOT).as_posix(), text))
    return found


@cache
def project_texts() -> tuple[tuple[str, str], ...]:
    return tuple(_texts())


def _line(text: str, at: int) -> int:
    return text.count("\n", 0, at) + 1


def outside_paths(name: str, text: str) -> list[str]:
    """``file:line: path`` for each path outside the repository that ``text`` names."""
    found = []
    for match in OUTSIDE.finditer(text):
        start = text.rfind("\n", 0, match.start()) + 1
        end = text.find("\n", match.end())
        line = text[start : None if end < 0 else end]
        if any(name == file and allowed in line for file, allowed in OUTSIDE_ALLOWED):
            continue
        found.append(f"{name}:{_line(text, match.start())}: {line.strip()}")
    return found


def _exists(path: str, citing: str) -> bool:
    """Whether ``path``, as ``citing`` names it, is a file or folder of the repository."""
    bases = ["", Path(citing).parent.as_posix() + "/", *PATH_BASES.get(path.rsplit(".")[-1], ())]
    if citing.startswith(FIFTH_GAME):
        bases += FIFTH_GAME_BASES
    return any((ROOT / (base + path)).exists() for base in bases)


def missing_files(name: str, text: str) -> list[str]:
    """``file:line: path`` for each file ``text`` names that the repository does not hold."""
    found = []
    for match in FILE_PATH.finditer(text):
        path = match.group(1)
        allowed = any(name == file and path.startswith(start) for file, start in MISSING_ALLOWED)
        if not allowed and not _exists(path, name):
            found.append(f"{name}:{_line(text, match.start())}: {path}")
    return found


def prose(name: str, text: str) -> list[tuple[int, str]]:
    """(first line, text) of what ``name`` says in words: a document whole; a Python module's
    comments and docstrings (its code holds variables, Celery task and model names that read
    like modules: ``games.append``, ``"games.table"``)."""
    if name.endswith(".md"):
        return [(1, text)]
    if not name.endswith(".py"):
        return []
    pieces = []
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        docstring = token.type == tokenize.STRING and token.string.lstrip("rbuRBU")[:3] in (
            '"""',
            "'''",
        )
        if token.type == tokenize.COMMENT or docstring:
            pieces.append((token.start[0], token.string))
    return pieces


@cache
def module_exists(dotted: str) -> bool:
    """Whether ``games.live.consumers`` (or ``games.services.events.table_events``: a module,
    then a name in it) is there to import."""
    parts = dotted.split(".")
    for size in range(len(parts), 0, -1):
        module = ".".join(parts[:size])
        try:
            found = importlib.util.find_spec(module) is not None
        except ModuleNotFoundError:  # a parent that is a module, not a package
            found = False
        if found:
            return size == len(parts) or hasattr(importlib.import_module(module), parts[size])
    return False


@cache
def task_names() -> frozenset[str]:
    return frozenset(
        task
        for name, text in project_texts()
        if name.endswith(".py")
        for task in TASK_NAME.findall(text)
    )


def missing_modules(name: str, text: str, tasks: frozenset[str] = frozenset()) -> list[str]:
    """``file:line: name`` for each module of the project that ``text`` names in its words
    and that does not exist (a Celery task's name, or the start of one, is not a module)."""
    found = []
    for first, piece in prose(name, text):
        for match in DOTTED.finditer(piece):
            dotted = match.group(1)
            if dotted.rsplit(".", 1)[1] in FILE_ENDINGS or module_exists(dotted):
                continue
            if any(
                task.startswith(dotted) and task.count(".") == dotted.count(".") for task in tasks
            ):
                continue
            found.append(f"{name}:{first + piece.count(chr(10), 0, match.start())}: {dotted}")
    return found


def anchors(document: str) -> tuple[set[str], set[str]]:
    """The section numbers of a rules document, and the ids in its tables (``A1``, ``T22``)."""
    sections = set(HEADING.findall(document))
    ids = {letter + number for letter, number in TABLE_ID.findall(document)}
    return sections, ids


@cache
def rules_documents() -> dict[str, tuple[set[str], set[str]]]:
    return {path.stem: anchors(path.read_text()) for path in sorted(RULES_DOCS.glob("*.md"))}


def bad_citations(
    name: str,
    text: str,
    documents: dict[str, tuple[set[str], set[str]]],
    own: str | None = None,
) -> list[str]:
    """Citations in ``text`` of a rules document, section or id that does not exist.

    ``own`` is the game whose files these are: there a bare ``§4``, ``section 3.5`` or
    ``A6`` cites that game's document.
    """
    wrong, named = [], []
    for match in CITATION.finditer(text):
        named.append(match.span())
        doc, section, cited_id = match.group("doc", "section", "id")
        where = f"{name}:{_line(text, match.start())}: {match.group()}"
        if doc not in documents:
            wrong.append(f"{where} (no such document)")
        elif section and section not in documents[doc][0]:
            wrong.append(f"{where} (no such section)")
        elif cited_id and cited_id not in documents[doc][1]:
            wrong.append(f"{where} (no such id)")
    if own is None:
        return wrong
    sections, ids = documents[own]
    letters = "".join(sorted({cited[0] for cited in ids})) or "^"
    bare = re.compile(rf"{BARE_SECTION.pattern}|\b(?P<id>[{letters}]\d+)\b")
    for match in bare.finditer(text):
        if any(start <= match.start() < end for start, end in named):
            continue  # a citation that names its document, checked above
        cited = match.group(1) or match.group(2)
        if (match.group("id") or cited) not in (ids if match.group("id") else sections):
            wrong.append(f"{name}:{_line(text, match.start())}: {match.group()} (not in {own}.md)")
    return wrong


def owner(name: str) -> str | None:
    """The game whose own files these are: its rules, bots, tests, templates and document."""
    for rules in all_rules():
        slug, package = rules.slug, rules.slug.replace("-", "_")
        top, file = name.split("/")[0], name.split("/")[-1]
        if (
            name == f"docs/rules/{slug}.md"
            or name.startswith((f"games/rules/{package}/", f"templates/games/{slug}/"))
            or (top in ("games", "tests") and file.startswith((package, f"test_{package}")))
        ):
            return slug
    return None


def test_no_file_cites_a_path_outside_the_repository() -> None:
    found = [line for name, text in project_texts() for line in outside_paths(name, text)]
    assert not found, "cite the repository's own files instead:\n" + "\n".join(found)


def test_every_file_a_file_names_is_in_the_repository() -> None:
    found = [
        line
        for name, text in project_texts()
        if not name.startswith("locale/") and name not in ("package-lock.json",)
        for line in missing_files(name, text)
    ]
    assert not found, "name the file where it is now:\n" + "\n".join(found)


def test_every_module_the_documents_and_comments_name_exists() -> None:
    tasks = task_names()
    found = [line for name, text in project_texts() for line in missing_modules(name, text, tasks)]
    assert not found, "name the module where it is now:\n" + "\n".join(found)


def test_every_registered_game_has_its_rules_reference() -> None:
    slugs = {rules.slug for rules in all_rules()}
    assert slugs == set(rules_documents()), "docs/rules/<slug>.md, one per registered game"


@pytest.mark.parametrize("slug", [rules.slug for rules in all_rules()])
def test_each_rules_reference_numbers_its_sections_and_lists_its_readings(slug: str) -> None:
    sections, ids = rules_documents()[slug]
    assert {"1", "2"} <= sections
    assert ids, "the readings the site chose, each with an id in the first column of a table"


def test_every_citation_of_a_rules_document_names_a_section_that_exists() -> None:
    documents = rules_documents()
    wrong = [
        line
        for name, text in project_texts()
        for line in bad_citations(name, text, documents, owner(name))
    ]
    assert not wrong, "\n".join(wrong)


def test_the_checks_catch_what_they_are_for() -> None:
    documents = {"slide": anchors("## 4. Sliding\n### 4.1 Entries\n| A1 | a reading |\n")}
    doc = "docs/rules/" + "slide.md"
    assert bad_citations("x.py", f"{doc} §4.1, {doc} A1, §4", documents, own="slide") == []
    wrong = bad_citations("x.py", f"{doc} §4.2\n{doc} A2\nsection 5, A3", documents, own="slide")
    assert [line.split(": ", 1)[0] for line in wrong] == ["x.py:1", "x.py:2", "x.py:3", "x.py:3"]
    assert bad_citations("x.py", "docs/rules/" + "chess.md", documents) != []
    assert bad_citations("x.py", "§9 and A9 name no game here", documents) == []
    assert outside_paths("a.py", "see /" + "work/shared/rules/slide.md") != []
    assert outside_paths("a.py", "see .." + "/shared/DESIGN.md") != []
    assert outside_paths("a.py", "docs/rules/slide.md and ../docs/architecture.md") == []


def test_the_checks_of_files_and_modules_catch_what_they_are_for() -> None:
    moved = "games/" + "consumers.py"
    assert missing_files("docs/x.md", f"see {moved}, templates/games/<slug>/public.html") == [
        f"docs/x.md:1: {moved}"
    ]
    cited = "games/live/consumers.py, live/consumers.py, tables/partials/seats.html"
    assert missing_files("docs/x.md", cited + ", ../docs/architecture.md, css/site.css") == []
    assert missing_files("docs/rules/x.md", "../" + "rules-conventions.md") == []
    code = (
        """# games.live.consumers and games."""
        + '''charts\n"""games.services.events.table_events"""\n'''
    )
    tasks = frozenset({"games.tasks.sweep_deadlines"})
    code += """games.append("games.table")  # games.tasks.sweep_deadlines, games.tasks.sweep_*\n"""
    assert missing_modules("x.py", code, tasks) == ["x.py:1: games." + "charts"]
    assert missing_modules("x.md", "`games.tasks`, `games.py`", tasks) == ["x.md:1: games.tasks"]
