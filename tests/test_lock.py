"""requirements.lock agrees with the requirements people edit.

``make install`` installs only the lock (``--require-hashes``), so a package added to
requirements.txt or requirements-dev.txt without ``make lock`` would be missing on a fresh
clone and in CI, and a changed pin would not be installed. Read from the files alone: no
network, no installed metadata.
"""

from __future__ import annotations

import re
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent
INPUTS = ("requirements.txt", "requirements-dev.txt")


def read_requirements(path: Path) -> dict[str, list[Requirement]]:
    """Each requirements file's own requirements, by file name, following ``-r`` includes."""
    found: dict[str, list[Requirement]] = {path.name: []}
    for raw in path.read_text().splitlines():
        line = raw.split(" #", 1)[0].strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith(("-r ", "--requirement ")):
            found.update(read_requirements(path.parent / line.split(maxsplit=1)[1]))
        elif not line.startswith("-"):
            found[path.name].append(Requirement(line))
    return found


def read_lock(text: str) -> tuple[dict[str, str], dict[str, set[str]], set[str]]:
    """The locked versions, each package's ``# via -r <file>`` origins, and the packages
    that have at least one hash."""
    versions: dict[str, str] = {}
    via_files: dict[str, set[str]] = {}
    hashed: set[str] = set()
    current = ""
    for raw in text.splitlines():
        pin = re.match(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s\\;]+)", raw)
        if pin:
            current = canonicalize_name(pin.group(1))
            versions[current] = pin.group(2)
            via_files[current] = set()
        elif current and "--hash=sha256:" in raw:
            hashed.add(current)
        elif current and (origin := re.search(r"-r\s+(\S+)", raw)):
            via_files[current].add(Path(origin.group(1)).name)
    return versions, via_files, hashed


def lock_problems(requirements: dict[str, list[Requirement]], lock: str) -> list[str]:
    """Every way the lock disagrees with the requirements files, as sentences (none: fresh)."""
    versions, via_files, hashed = read_lock(lock)
    problems = []
    direct: dict[str, set[str]] = {}
    for file_name, requirements_of_file in requirements.items():
        for requirement in requirements_of_file:
            name = canonicalize_name(requirement.name)
            direct.setdefault(name, set()).add(file_name)
            if name not in versions:
                problems.append(f"{requirement} ({file_name}) is not in the lock")
            elif not requirement.specifier.contains(versions[name], prereleases=True):
                problems.append(
                    f"{requirement} ({file_name}) is locked at {name}=={versions[name]}"
                )
    for name, files in via_files.items():
        for file_name in sorted(files - direct.get(name, set())):
            problems.append(f"{name} is locked for {file_name}, which no longer asks for it")
    problems += [f"{name} has no hash in the lock" for name in sorted(set(versions) - hashed)]
    return problems


def test_the_lock_pins_every_requirement_at_its_version_with_hashes():
    requirements = read_requirements(ROOT / "requirements-dev.txt")
    assert set(INPUTS) <= set(requirements)
    problems = lock_problems(requirements, (ROOT / "requirements.lock").read_text())
    assert problems == [], "requirements.lock is stale: run `make lock`\n" + "\n".join(problems)


STALE_LOCK = """\
django==5.2.19 \\
    --hash=sha256:00
    # via -r requirements.txt
uvicorn==0.53.0 \\
    --hash=sha256:11
    # via
    #   -r requirements.txt
    #   other
daphne==4.2.3 \\
    --hash=sha256:22
    # via -r requirements.txt
h11==0.16.0
    # via uvicorn
"""


def test_a_stale_lock_is_named_for_each_way_it_is_stale():
    requirements = {
        "requirements.txt": [
            Requirement("Django==5.2.*"),
            Requirement("uvicorn[standard]==0.54.0"),
            Requirement("django-csp==4.0"),
        ],
        "requirements-dev.txt": [],
    }
    assert lock_problems(requirements, STALE_LOCK) == [
        "uvicorn[standard]==0.54.0 (requirements.txt) is locked at uvicorn==0.53.0",
        "django-csp==4.0 (requirements.txt) is not in the lock",
        "daphne is locked for requirements.txt, which no longer asks for it",
        "h11 has no hash in the lock",
    ]


def test_the_requirements_are_read_with_their_comments_and_includes(tmp_path):
    (tmp_path / "requirements.txt").write_text("# the site\nDjango==5.2.*\n")
    (tmp_path / "requirements-dev.txt").write_text(
        "-r requirements.txt\n\n# tools\nruff==0.17.5  # lint\n"
    )
    found = read_requirements(tmp_path / "requirements-dev.txt")
    assert {name: [str(r) for r in reqs] for name, reqs in found.items()} == {
        "requirements-dev.txt": ["ruff==0.17.5"],
        "requirements.txt": ["Django==5.2.*"],
    }
