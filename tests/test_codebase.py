"""The codebase for the next engineer: no unreferenced code, and what only tests use lives in
`tests/` (CB3); one home for a settings key; one base for the list dialogs.

vulture scans the package ALONE (never `tests/`), with the entry-point whitelist: a symbol that
only a test uses is then unreferenced, so it is reported, and belongs in `tests/`.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from vulture import Vulture
from vulture.core import Item

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "wave_tui"
WHITELIST = ROOT / "tests" / "vulture" / "whitelist.py"
CI_CONFIDENCE = 80  # as `.ci/run` runs it
# At 60 vulture also names every method, attribute and variable it cannot see used (Textual's
# handlers, pydantic fields, the SDK's public methods): too many to hold to nothing. Functions
# and classes it names there are real findings, but for the names the interpreter calls.
LOW_CONFIDENCE = 60
CALLED_BY_THE_INTERPRETER = frozenset({"__dir__", "__getitem__", "__getattr__"})


@pytest.fixture(scope="module")
def package_scan() -> Vulture:
    """One scan (about 4 s of CPU) for every check below."""
    scan = Vulture()
    scan.scavenge([str(PACKAGE), str(WHITELIST)])
    return scan


def _shown(items: list[Item]) -> list[str]:
    return [f"{Path(i.filename).relative_to(ROOT)}:{i.first_lineno}: {i.message}" for i in items]


@pytest.mark.req("CB3")
def test_no_symbol_of_the_package_is_unreferenced_or_used_only_by_tests(
    package_scan: Vulture,
) -> None:
    unused = package_scan.get_unused_code(min_confidence=CI_CONFIDENCE)
    assert _shown(unused) == [], "delete it, or move what only tests use into tests/"


@pytest.mark.req("CB3")
def test_no_function_or_class_is_unreferenced_even_at_low_confidence(
    package_scan: Vulture,
) -> None:
    unused = [
        item
        for item in package_scan.get_unused_code(min_confidence=LOW_CONFIDENCE)
        if item.typ in ("function", "class") and item.name not in CALLED_BY_THE_INTERPRETER
    ]
    assert _shown(unused) == [], "delete it, or move what only tests use into tests/"


def _string_constants(path: Path) -> list[str]:
    """The string literals of a module that are not docstrings."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
        if id(node) not in docstrings
    ]


def test_the_memory_folder_setting_is_spelled_only_in_the_schema() -> None:
    """`WavePaths` once parsed the user settings for it on its own: one home for the key."""
    spelled = sorted(
        str(path.relative_to(ROOT))
        for path in PACKAGE.rglob("*.py")
        if "autoMemoryDirectory" in _string_constants(path)
    )
    assert spelled == ["wave_tui/config/schema.py"]


def test_the_list_dialogs_share_one_base() -> None:
    from wave_tui.tui.screens.list_dialog import ListDialog
    from wave_tui.tui.screens.permissions import PermissionsScreen
    from wave_tui.tui.screens.tasks import TasksScreen

    assert issubclass(TasksScreen, ListDialog) and issubclass(PermissionsScreen, ListDialog)
