"""The layers of games/ point one way (docs/architecture.md), checked by import-linter;
and every service takes its arguments by keyword.

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
