"""Each bench writes its figures into docs/benchmarks.md, between markers of its own."""

from __future__ import annotations

from pathlib import Path

DOCS = Path(__file__).resolve().parents[1] / "docs" / "benchmarks.md"


def write_section(path: Path, section: str, source: str) -> None:
    """Puts the section between its markers (``<!-- <source>: start -->`` ... ``end -->``)
    in ``path``, keeping every other section; appends it the first time."""
    start, end = f"<!-- {source}: start -->", f"<!-- {source}: end -->"
    text = path.read_text(encoding="utf-8") if path.exists() else "# Benchmarks\n"
    block = f"{start}\n{section.rstrip()}\n{end}\n"
    if start in text and end in text:
        before, rest = text.split(start, 1)
        after = rest.split(end, 1)[1].lstrip("\n")
        text = before + block + ("\n" + after if after else "")
    else:
        text = text.rstrip("\n") + "\n\n" + block
    path.write_text(text, encoding="utf-8")
