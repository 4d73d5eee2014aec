"""The Textual-free helpers behind the status line and the memory browser."""

from __future__ import annotations

from pathlib import Path

from wave_tui.agent.status import cache_hit_percent, context_tokens
from wave_tui.config.paths import WavePaths
from wave_tui.llm.types import Usage
from wave_tui.memory.catalog import MemoryEntry
from wave_tui.tui.format import auto_memory_label, clip_output, short_tokens, show_key_arg
from wave_tui.tui.memory_view import entry_location, grouped, matches, stale_reminder


def entry(scope: str = "auto", age: int = 40, **kw: object) -> MemoryEntry:
    fields: dict[str, object] = {
        "id": f"{scope}:x",
        "scope": scope,
        "path": Path("/h/.wave/AGENTS.md"),
        "title": "Redis flakiness",
        "type": "feedback",
        "age_days": age,
        "body": "CI used a shared Redis",
        "stale": age > 1,
    }
    fields.update(kw)
    return MemoryEntry(**fields)  # type: ignore[arg-type]


def test_status_numbers() -> None:
    usage = Usage(prompt_tokens=2000, completion_tokens=100, cache_read_tokens=1500)
    assert context_tokens(usage) == 2100
    assert cache_hit_percent(usage) == 75
    assert cache_hit_percent(Usage()) is None
    assert short_tokens(950) == "950" and short_tokens(2100) == "2.1k"


def test_auto_memory_label() -> None:
    assert auto_memory_label(False, 3, 1) == "auto memory off"
    assert auto_memory_label(True, 1, None) == "auto memory on · every turn"
    assert auto_memory_label(True, 5, 2) == "auto memory on · every 5 turns · next in 2"


def test_paths_are_shown_relative(tmp_path: Path) -> None:
    paths = WavePaths(project_root=tmp_path / "p", home=tmp_path / "h")
    assert show_key_arg(str(tmp_path / "p" / "src" / "a.py"), paths) == "src/a.py"
    assert show_key_arg(str(tmp_path / "h" / ".wave" / "AGENTS.md"), paths) == "~/.wave/AGENTS.md"
    auto = entry(path=paths.memory_dir / "topic.md")
    assert entry_location(auto, paths) == "~/.wave/projects/…/memory/topic.md"


def test_clip_output_bounds_lines() -> None:
    clipped = clip_output("\n".join(str(i) for i in range(100)))
    assert clipped.endswith("… (40 more lines)")


def test_filter_and_grouping() -> None:
    entries = [entry("rule"), entry("project", title="Use uv"), entry("auto")]
    assert [scope for scope, _ in grouped(entries)] == ["project", "auto", "rule"]
    assert matches(entries[1], "UV") and not matches(entries[1], "uv zzz")
    assert matches(entries[0], "redis shared")


def test_stale_reminder_only_for_old_auto_memories() -> None:
    reminder = stale_reminder(entry("auto", 40))
    assert reminder is not None and reminder.startswith("This memory is 40 days old.")
    assert stale_reminder(entry("auto", 1)) is None
    assert stale_reminder(entry("project", 40)) is None
