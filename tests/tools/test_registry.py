from __future__ import annotations

import pytest

from wave_tui.permissions.tool_table import TOOLS, tool_info
from wave_tui.tools.base import spec_of
from wave_tui.tools.registry import builtin_tools


@pytest.mark.req("AC7")
def test_builtin_tools_come_in_a_fixed_order() -> None:
    """AC7: builtin tools come in a fixed order."""
    assert [t.name for t in builtin_tools()] == ["Read", "Write", "Edit", "Glob", "Grep", "Bash"]


def test_read_only_flags_agree_with_the_tool_table() -> None:
    read_only = {"Read", "Glob", "Grep"}
    assert {t.name for t in builtin_tools() if t.read_only} == read_only
    assert {t.name for t in builtin_tools() if tool_info(t.name).read_only} == read_only
    assert all(t.name in TOOLS for t in builtin_tools())


def test_every_tool_has_a_description_and_an_object_schema() -> None:
    for tool in builtin_tools():
        spec = spec_of(tool)
        assert spec.description.strip()
        assert spec.parameters["type"] == "object"
        assert set(spec.parameters["required"]) <= set(spec.parameters["properties"])
