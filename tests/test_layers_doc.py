"""The layer list in ARCHITECTURE.md and AGENTS.md is generated from `pyproject.toml`'s import
contract (the source of truth `lint-imports` enforces), each layer described by its package's
docstring, so the copies cannot drift from it or from each other. When this test fails, run
`python -m tests.test_layers_doc` and review the diff."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BEGIN = "<!-- layers: generated from pyproject.toml by `python -m tests.test_layers_doc` -->"
END = "<!-- /layers -->"
BLOCK = re.compile(re.escape(BEGIN) + r"\n.*?" + re.escape(END), re.DOTALL)
# Each copy: the file and how it draws the layers.
COPIES = ("ARCHITECTURE.md", "AGENTS.md")


def layers() -> list[list[str]]:
    """Top to bottom; each entry one layer, siblings (`tui | acp`) side by side."""
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    (contract,) = [c for c in data["tool"]["importlinter"]["contracts"] if c["type"] == "layers"]
    return [
        [name.strip(" ()").removeprefix("wave_tui.") for name in entry.split("|")]
        for entry in contract["layers"]
    ]


def describe(package: str) -> str:
    path = ROOT / "wave_tui" / package / "__init__.py"
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    return doc.strip().split("\n\n")[0].replace("\n", " ").split(". ")[0].rstrip(".")


def render_table() -> str:
    """ARCHITECTURE.md: one line a layer, top to bottom, with what it is."""
    rows = [(name, describe(name)) for layer in layers() for name in layer]
    width = max(len(name) for name, _ in rows) + 2
    return "```\n" + "".join(f"{name.ljust(width)}{text}\n" for name, text in rows) + "```"


def render_chain() -> str:
    """AGENTS.md: bottom to top in one sentence."""
    parts = [" / ".join(f"`{name}`" for name in layer) for layer in reversed(layers())]
    return " → ".join(parts) + "."


def rendered(name: str, text: str) -> str:
    body = render_table() if name == "ARCHITECTURE.md" else render_chain()
    return BLOCK.sub(lambda _m: f"{BEGIN}\n{body}\n{END}", text)


@pytest.mark.req("CB2")
def test_every_copy_of_the_layer_list_is_generated_from_pyproject() -> None:
    for name in COPIES:
        text = (ROOT / name).read_text(encoding="utf-8")
        assert BLOCK.search(text), f"{name} has no generated layer list"
        assert text == rendered(name, text), (
            f"{name}'s layer list is out of date: run `python -m tests.test_layers_doc`"
        )


@pytest.mark.req("CB2")
def test_every_layer_of_the_package_is_in_the_contract() -> None:
    named = {name for layer in layers() for name in layer}
    packages = {p.parent.name for p in (ROOT / "wave_tui").glob("*/__init__.py")}
    assert packages == named


@pytest.mark.req("CB2")
def test_the_lazy_export_table_has_one_home() -> None:
    """The three public faces that load their names on first use share one `__getattr__`."""
    faces = ("__init__.py", "session/facade.py", "session/types.py")
    for face in faces:
        tree = ast.parse((ROOT / "wave_tui" / face).read_text(encoding="utf-8"))
        own = [n.name for n in tree.body if isinstance(n, ast.FunctionDef)]
        assert "__getattr__" not in own, face
        assert "lazy_getattr(" in ast.unparse(tree), face


if __name__ == "__main__":
    for name in COPIES:
        path = ROOT / name
        path.write_text(rendered(name, path.read_text(encoding="utf-8")), encoding="utf-8")
    sys.exit(0)
