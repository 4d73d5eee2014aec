"""Layering: only `wave_tui/tui/` may import Textual (the engine stays UI-free)."""

from __future__ import annotations

import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "wave_tui"
TEXTUAL_IMPORT = re.compile(r"^\s*(from|import)\s+textual\b", re.MULTILINE)


def test_no_textual_outside_the_tui_package() -> None:
    offenders = [
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*.py")
        if "tui" not in path.relative_to(PACKAGE).parts[:1]
        and TEXTUAL_IMPORT.search(path.read_text(encoding="utf-8"))
    ]
    assert offenders == []


def test_tui_helpers_do_not_import_textual() -> None:
    for name in ("format.py", "memory_view.py"):
        assert not TEXTUAL_IMPORT.search((PACKAGE / "tui" / name).read_text(encoding="utf-8"))
