"""The layers of games/ point one way (docs/architecture.md), checked by import-linter;
every service takes its arguments by keyword; and no test module imports another.

The contracts live in pyproject.toml; a module that imports a layer above its own fails
here, naming the import chain. (That every write is a service's: tests/test_write_paths.py.)
"""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def _lint(config: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(LINT_IMPORTS), "--config", str(config), "--no-cache"],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(cwd), "PATH": "/usr/bin:/bin"},
    )


def test_every_import_in_the_project_keeps_the_layers():
    result = _lint(ROOT / "pyproject.toml", ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def test_a_lower_layer_importing_a_higher_one_is_caught(tmp_path):
    """The same kind of contract, on a throwaway package whose rules import its views."""
    package = tmp_path / "shadow"
    for name in ["rules", "services", "views"]:
        (package / name).mkdir(parents=True)
        (package / name / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    (package / "rules" / "game.py").write_text("from shadow.views import page\n")
    (package / "views" / "page.py").write_text("")
    config = tmp_path / "contracts.toml"
    config.write_text(
        textwrap.dedent(
            """
            [tool.importlinter]
            root_packages = ["shadow"]

            [[tool.importlinter.contracts]]
            name = "layers"
            type = "layers"
            layers = ["shadow.views", "shadow.services", "shadow.rules"]
            """
        )
    )
    result = _lint(config, tmp_path)
    assert result.returncode != 0
    assert "shadow.rules.game -> shadow.views" in result.stdout


def positional_services(package: Path) -> list[str]:
    """``module.function`` for each public function of ``package`` that takes an argument by
    position: every service is called with keywords (docs/architecture.md, "Names")."""
    found = []
    for path in sorted(package.glob("*.py")):
        for node in ast.parse(path.read_text()).body:
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            if node.name.startswith("_") or not (node.args.posonlyargs or node.args.args):
                continue
            found.append(f"{path.stem}.{node.name}")
    return found


def test_every_public_service_takes_its_arguments_by_keyword():
    found = positional_services(ROOT / "games" / "services")
    assert not found, "make these keyword-only (def f(*, ...)): " + ", ".join(found)


def test_a_service_taking_an_argument_by_position_is_caught(tmp_path):
    (tmp_path / "tables.py").write_text(
        textwrap.dedent(
            """
            def table_join(table_id, *, user): ...
            def table_leave(*, table_id, user): ...
            def _bump(table): ...
            class Helper:
                def method(self, table): ...
            """
        )
    )
    assert positional_services(tmp_path) == ["tables.table_join"]


def cross_test_imports(tests: Path) -> list[str]:
    """``file: module`` for each import, in a test module (``test_*.py``) under ``tests``, of
    another test module or of a name in one. What tests share lives in modules that are no
    tests (``tests/support/``, ``tests/e2e/pages.py``, ...) and their fixtures in a conftest.py
    or a plugin it names, so that a test module can be moved, split or deleted on its own."""
    found = []
    for path in sorted(tests.rglob("test_*.py")):
        package = path.relative_to(tests.parent).parent.parts
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = package[: len(package) - node.level + 1] if node.level else ()
                module = ".".join([*base, *([node.module] if node.module else [])])
                names = [module] + [f"{module}.{alias.name}" for alias in node.names]
            else:
                continue
            for name in names:
                parts = name.split(".")
                if parts[0] == tests.name and any(p.startswith("test_") for p in parts[1:]):
                    found.append(f"{path.relative_to(tests.parent)}: {name}")
                    break
    return found


def test_no_test_module_imports_another():
    found = cross_test_imports(ROOT / "tests")
    assert not found, "move what they share out of the test modules: " + "; ".join(found)


def test_a_test_module_importing_another_is_caught(tmp_path):
    tests = tmp_path / "tests"
    (tests / "games").mkdir(parents=True)
    (tests / "games" / "test_one.py").write_text(
        "from tests.games.test_two import helper\n"
        "from tests.games import test_three as three\n"
        "from . import test_four\n"
        "import tests.test_five\n"
        "from tests.support.processes import free_port\n"
        "from tests.games.rated_games import finished_game\n"
    )
    (tests / "support.py").write_text("from tests.games.test_one import x\n")  # no test module
    assert cross_test_imports(tests) == [
        "tests/games/test_one.py: tests.games.test_two",
        "tests/games/test_one.py: tests.games.test_three",
        "tests/games/test_one.py: tests.games.test_four",
        "tests/games/test_one.py: tests.test_five",
    ]
