from __future__ import annotations

from pathlib import Path

import pytest

from wave_tui.files.read_state import ReadState
from wave_tui.tools.base import ToolContext


@pytest.fixture
def ctx(project: Path) -> ToolContext:
    return ToolContext(workdir=project.resolve(), read_state=ReadState())
