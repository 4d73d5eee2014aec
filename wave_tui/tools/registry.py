"""The built-in tool set."""

from __future__ import annotations

from wave_tui.tools.background import BackgroundManager
from wave_tui.tools.base import Tool
from wave_tui.tools.bash import BashTool
from wave_tui.tools.edit import EditTool
from wave_tui.tools.glob_tool import GlobTool
from wave_tui.tools.grep import GrepTool
from wave_tui.tools.read import ReadTool
from wave_tui.tools.write import WriteTool


# req: AC7
def builtin_tools(background: BackgroundManager | None = None) -> list[Tool]:
    """The built-in tools; Bash starts its background commands in `background` (its own when
    None)."""
    return [ReadTool(), WriteTool(), EditTool(), GlobTool(), GrepTool(), BashTool(background)]
