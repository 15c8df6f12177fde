"""The layers of games/ point one way (docs/architecture.md), checked by import-linter.

The contracts live in pyproject.toml; a module that imports a layer above its own fails
here, naming the import chain.
"""

from __future__ import annotations

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
