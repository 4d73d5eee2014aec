"""Memory injection texts and per-session state (I1, I2, R2, R3, R5, D1, D2, D4, D5)."""

from __future__ import annotations

from pathlib import Path

import pytest

from wave_tui.config.paths import WavePaths
from wave_tui.llm.types import Message
from wave_tui.memory.injection import MemoryInjector, ReminderPart, build_memory_reminder
from wave_tui.tools.base import ToolResult

# The requirements this module checks beyond its tests' own markers.
pytestmark = pytest.mark.req("I2")


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def read_result(*files: Path) -> ToolResult:
    return ToolResult(content="...", context_paths=list(files), read_paths=list(files))


def test_build_memory_reminder_none_when_empty() -> None:
    assert build_memory_reminder([]) is None
    assert build_memory_reminder([ReminderPart("label", " \n\n")]) is None


@pytest.mark.req("I1", "R2")
def test_i1_r2_reminder_has_agents_user_memory_and_unconditional_rules(
    paths: WavePaths,
) -> None:
    write(paths.project_root / "AGENTS.md", "Use pnpm.\n\n\n")
    write(paths.user_agents_md, "Answer in English.\n")
    write(paths.project_root / ".wave/rules/style.md", "---\npriority: 1\n---\nTabs.\n")
    write(paths.project_root / ".wave/rules/api.md", "---\npaths: src/**\n---\nAPI only.\n")
    text = MemoryInjector(paths).reminder_text()
    assert text is not None
    assert text.startswith("<system-reminder>\n") and text.endswith("\n</system-reminder>")
    project_at = text.index("Contents of AGENTS.md (project memory):\n\nUse pnpm.\n\n")
    user_at = text.index("~/.wave/AGENTS.md (user memory, applies in every project):\n\nAnswer")
    rule_at = text.index("Rule style.md (project rule, applies to every file):\n\nTabs.")
    assert project_at < user_at < rule_at
    assert "API only." not in text  # conditional rules are not in the reminder
    assert "\n\n\n" not in text  # parts are trimmed, not raw-joined


def test_reminder_none_without_memory(paths: WavePaths) -> None:
    assert MemoryInjector(paths).reminder_text() is None


@pytest.mark.req("R3", "R4")
def test_r3_conditional_rule_injected_once_with_marker(paths: WavePaths) -> None:
    write(paths.project_root / ".wave/rules/api.md", "---\npaths: src/api/**/*.ts\n---\nAPI.\n")
    injector = MemoryInjector(paths)
    ui = write(paths.project_root / "src/ui/Button.tsx", "x")
    assert injector.on_tool_result(read_result(ui)) == []  # R4
    api = write(paths.project_root / "src/api/user.ts", "x")
    (message,) = injector.on_tool_result(read_result(api))
    assert message.is_meta and message.role == "user"
    assert message.meta == {
        "ruleId": "api.md",
        "trigger": "src/api/user.ts",
        "pattern": "src/api/**/*.ts",
    }
    assert message.content == (
        "<!-- rule: api.md -->\n<system-reminder>\n"
        "Rule api.md applies now because src/api/user.ts matches its path pattern src/api/**/*.ts; "
        "follow it when working with matching files:\n\nAPI.\n</system-reminder>"
    )
    other = write(paths.project_root / "src/api/other.ts", "x")
    assert injector.on_tool_result(read_result(other)) == []  # de-duplicated by rule id
    assert injector.activations == {"api.md": ("src/api/user.ts", "src/api/**/*.ts")}


@pytest.mark.req("R5")
def test_r5_written_file_in_context_triggers_rule_but_not_nested(paths: WavePaths) -> None:
    write(paths.project_root / ".wave/rules/api.md", "---\npaths: src/**\n---\nAPI.\n")
    write(paths.project_root / "src/AGENTS.md", "src memory\n")
    target = write(paths.project_root / "src/a.ts", "x")
    messages = MemoryInjector(paths).on_tool_result(
        ToolResult(content="ok", context_paths=[target], written_paths=[target])
    )
    assert [m.meta.get("ruleId") for m in messages] == ["api.md"]


def test_failed_tool_result_triggers_nothing(paths: WavePaths) -> None:
    write(paths.project_root / ".wave/rules/api.md", "---\npaths: src/**\n---\nAPI.\n")
    target = paths.project_root / "src/a.ts"
    result = ToolResult(content="err", is_error=True, context_paths=[target], read_paths=[target])
    assert MemoryInjector(paths).on_tool_result(result) == []


@pytest.mark.req("D1", "D2", "D3", "D4")
def test_d1_d4_nested_memory_far_to_near_once_then_rules(paths: WavePaths) -> None:
    """D3: d1 d4 nested memory far to near once then rules."""
    root = paths.project_root
    write(root / "AGENTS.md", "root\n")
    far = write(root / "pkg/AGENTS.md", "pkg memory\n")
    near = write(root / "pkg/sub/CLAUDE.md", "sub memory\n")
    write(root / ".wave/rules/py.md", "---\npaths: '*.py'\n---\nPython.\n")
    target = write(root / "pkg/sub/m.py", "x")
    injector = MemoryInjector(paths)
    messages = injector.on_tool_result(read_result(target))
    assert [m.meta for m in messages[:2]] == [
        {"nestedMemory": str(far)},
        {"nestedMemory": str(near)},
    ]
    assert (
        messages[0].content
        == f"<system-reminder>Contents of {far}:\n\npkg memory\n</system-reminder>"
    )
    assert messages[2].meta["ruleId"] == "py.md"
    assert all(m.is_meta for m in messages)
    again = write(root / "pkg/sub/n.py", "x")
    assert injector.on_tool_result(read_result(again)) == []  # D2: once per session


@pytest.mark.req("D1")
def test_d1_only_read_paths_trigger_nested(paths: WavePaths) -> None:
    write(paths.project_root / "pkg/AGENTS.md", "pkg\n")
    target = write(paths.project_root / "pkg/m.py", "x")
    grep = ToolResult(content="m.py:1:x", context_paths=[target])
    assert MemoryInjector(paths).on_tool_result(grep) == []


@pytest.mark.req("D5")
def test_d5_outside_project_nothing(paths: WavePaths, tmp_path: Path) -> None:
    write(tmp_path / "other/AGENTS.md", "no\n")
    write(paths.project_root / ".wave/rules/all.md", "---\npaths: '**'\n---\nAll.\n")
    target = write(tmp_path / "other/f.py", "x")
    assert MemoryInjector(paths).on_tool_result(read_result(target)) == []


@pytest.mark.req("CP3")
def test_restore_rebuilds_state_from_messages(paths: WavePaths) -> None:
    """CP3: restore rebuilds state from messages."""
    root = paths.project_root
    nested = write(root / "pkg/AGENTS.md", "pkg\n")
    write(root / ".wave/rules/py.md", "---\npaths: '*.py'\n---\nPython.\n")
    write(root / ".wave/rules/ts.md", "---\npaths: '*.ts'\n---\nTS.\n")
    target = write(root / "pkg/m.py", "x")
    first = MemoryInjector(paths)
    messages = first.on_tool_result(read_result(target))
    # Through the transcript (JSON lines), as on resume.
    restored = [Message.model_validate_json(m.to_json_line()) for m in messages]
    # Marker-only rule message (no meta) is recognised too.
    restored.append(
        Message.user("<!-- rule: ts.md -->\n<system-reminder>x</system-reminder>", is_meta=True)
    )
    second = MemoryInjector(paths)
    second.restore(restored)
    assert second.loaded_rule_ids == {"py.md", "ts.md"}
    assert second.injected_nested == {nested.resolve()}
    assert second.activations["py.md"] == ("pkg/m.py", "*.py")
    assert second.on_tool_result(read_result(target)) == []
    # After compaction dropped them, everything may come back.
    second.restore([])
    assert len(second.on_tool_result(read_result(target))) == 2


def test_rule_edited_mid_session_is_used(paths: WavePaths) -> None:
    rule = write(paths.project_root / ".wave/rules/r.md", "Old.\n")
    injector = MemoryInjector(paths)
    assert "Old." in (injector.reminder_text() or "")
    rule.write_text("New rule text.\n", encoding="utf-8")
    assert "New rule text." in (injector.reminder_text() or "")
