"""tournaments/pairing/ is pure Python, like games/rules/: it imports no Django (DESIGN.md,
"Players together, competitions, the API"), so a service, a job or a bench can call it
without settings."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "tournaments" / "pairing"
#: What its modules may import besides the standard library.
ALLOWED = {"networkx", "tournaments"}


def test_every_module_imports_in_a_process_without_django_settings():
    modules = sorted(f"tournaments.pairing.{p.stem}" for p in PACKAGE.glob("*.py"))
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}: importlib.import_module(name)\n"
        "print(sorted(m for m in sys.modules if m == 'django' or m.startswith('django.')))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_no_module_names_anything_but_the_standard_library_networkx_and_itself():
    for path in PACKAGE.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                assert top in sys.stdlib_module_names or top in ALLOWED, (path.name, name)
                if top == "tournaments":
                    assert name.startswith("tournaments.pairing"), (path.name, name)
