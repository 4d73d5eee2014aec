"""The built-in tool set."""

from __future__ import annotations

from wave_tui.tools.base import Tool
from wave_tui.tools.bash import BashTool
from wave_tui.tools.edit import EditTool
from wave_tui.tools.glob_tool import GlobTool
from wave_tui.tools.grep import GrepTool
from wave_tui.tools.read import ReadTool
from wave_tui.tools.write import WriteTool


# req: AC7
def builtin_tools() -> list[Tool]:
    return [ReadTool(), WriteTool(), EditTool(), GlobTool(), GrepTool(), BashTool()]
