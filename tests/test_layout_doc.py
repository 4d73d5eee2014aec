"""`docs/layout.md` is the package's tree, one line per module from its docstring (the
layout shows the architecture). It is generated, so it cannot drift: when this test fails,
run `python -m tests.test_layout_doc` and review the diff."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "wave_tui"
LAYOUT = ROOT / "docs" / "layout.md"
HEADER = (
    "# The package, one line per module\n\n"
    "Generated from each module's docstring by `python -m tests.test_layout_doc`; the layers and\n"
    "the facade are in [ARCHITECTURE.md](../ARCHITECTURE.md).\n\n"
)


def summary(path: Path) -> str:
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    first = doc.strip().split("\n\n")[0].replace("\n", " ")
    return first if len(first) <= 140 else first[:139] + "…"


def render() -> str:
    lines: list[str] = []
    for path in sorted(
        PACKAGE.rglob("*.py"), key=lambda p: (p.parent.parts, p.name != "__init__.py", p.name)
    ):
        rel = path.relative_to(PACKAGE)
        depth = len(rel.parts) - 1
        if rel.name == "__init__.py":
            if depth:  # the package's own line, its modules below it
                package = rel.parent.as_posix() + "/"
                text = summary(path)
                lines.append(f"{'  ' * (depth - 1)}- `{package}`" + (f" — {text}" if text else ""))
            continue
        lines.append(f"{'  ' * depth}- `{rel.name}` — {summary(path) or '(no docstring)'}")
    return HEADER + "\n".join(lines) + "\n"


def test_docs_layout_lists_every_module_with_its_docstring() -> None:
    expected = render()
    assert LAYOUT.read_text(encoding="utf-8") == expected, (
        "docs/layout.md is out of date: run `python -m tests.test_layout_doc`"
    )
    assert "(no docstring)" not in expected, "every module says in one line what it is for"


if __name__ == "__main__":
    LAYOUT.write_text(render(), encoding="utf-8")
    sys.stdout.write(f"wrote {LAYOUT.relative_to(ROOT)}\n")
