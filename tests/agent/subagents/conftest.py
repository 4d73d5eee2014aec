from __future__ import annotations

from pathlib import Path

import pytest

from wave_tui.tools.base import ToolContext
from wave_tui.tools.read_state import ReadState


@pytest.fixture
def ctx(project: Path) -> ToolContext:
    return ToolContext(workdir=project.resolve(), read_state=ReadState())
