"""Fixtures for the tool tests: a work dir with a fresh read state."""

from __future__ import annotations

from pathlib import Path

import pytest

from wave_tui.files.read_state import ReadState
from wave_tui.tools.base import ToolContext


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    workdir = tmp_path / "work"
    workdir.mkdir()
    return ToolContext(workdir=workdir.resolve(), read_state=ReadState())
