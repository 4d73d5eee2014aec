"""The memory browser's loads at scale: one catalog load per showing, rows made
only when painted, and the catalog the session keeps never hiding a change on disk (UX7)."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult

from tests.tui.conftest import BuildApp, write
from tests.tui.helpers import open_memory, wait_until
from wave_tui.agent import events as ev
from wave_tui.config.paths import WavePaths
from wave_tui.memory import catalog
from wave_tui.session.types import MemoryEntry
from wave_tui.tui.messages import AgentEventPosted
from wave_tui.tui.widgets.row_list import Column, LazyRows, ListRow, RowList


@pytest.mark.req("UX7")
async def test_the_first_showing_loads_the_catalog_once(
    build_app: BuildApp, seeded_memory: WavePaths
) -> None:
    """Textual resumes a new mode's screen twice on its first showing: still one load (and the
    app's one read after its first frame, which fills the session's catalog cache)."""
    app = build_app()
    loads: list[int] = []
    list_memories = app.session.memory.entries

    async def counted() -> list[MemoryEntry]:
        loads.append(1)
        return await list_memories()

    app.session.memory.entries = counted  # type: ignore[method-assign]
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        assert len(loads) == 1  # the app reads the catalog once after its first frame
        loads.clear()
        table = await open_memory(pilot)
        assert table.row_count == 14 and len(loads) == 1
        await pilot.press("f1")
        await pilot.pause()
        await open_memory(pilot)
        assert len(loads) == 2  # shown again: loaded again (UX7)


class ListApp(App[None]):
    def __init__(self, rows: LazyRows) -> None:
        super().__init__()
        self.rows = rows

    def compose(self) -> ComposeResult:
        yield RowList([Column("title", "Title", 20, flex=True), Column("n", "N", 6)])

    def on_mount(self) -> None:
        keys = ["group:all", *(f"row{i}" for i in range(1, len(self.rows)))]
        self.query_one(RowList).set_rows(self.rows, keys=keys)


async def test_a_lazy_list_makes_only_the_rows_it_paints() -> None:
    made: list[int] = []

    def make(index: int) -> ListRow:
        made.append(index)
        if index == 0:
            return ListRow("group:all", ("All (9,999)",), True)
        return ListRow(f"row{index}", (f"Row {index}", str(index)))

    app = ListApp(LazyRows(10_000, make))
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.pause()
        table = app.query_one(RowList)
        assert table.row_count == 10_000 and table.cursor_key == "row1"
        assert len(set(made)) <= 20  # the visible rows, not 10,000
        table.focus()
        await pilot.press("end")
        await pilot.pause()
        assert table.cursor_key == "row9999" and table.row_at(9999).cells == ("Row 9999", "9999")
        assert len(set(made)) <= 40


@pytest.fixture
def settled(monkeypatch: pytest.MonkeyPatch) -> None:
    """The session's catalog keeps every file at once (not only those unchanged for seconds),
    so these tests read through the kept catalog. Each change below changes the file's size."""
    monkeypatch.setattr(catalog, "SETTLED_NS", 0)


@pytest.mark.req("UX7")
@pytest.mark.usefixtures("settled")
async def test_the_kept_catalog_shows_a_fork_write(
    build_app: BuildApp, seeded_memory: WavePaths
) -> None:
    """The extraction fork writes without a MemoryChanged of its own; its end refreshes the
    browser, through the kept catalog (an editor's edit: the UX7 test)."""
    app = build_app()
    async with app.run_test(size=(100, 32)) as pilot:
        table = await open_memory(pilot)
        write(seeded_memory.memory_dir / "from_fork.md", "---\nname: From the fork\n---\nx\n", 0)
        app.post_message(AgentEventPosted(ev.ExtractionFinished(written=("from_fork.md",))))
        await wait_until(pilot, lambda: "auto:from_fork.md" in table.keys)
        assert "auto:from_fork.md" in table.keys


@pytest.mark.req("FH10")
async def test_the_cursor_steps_over_group_headings() -> None:
    """↓ from a group's last entry lands on the next group's first entry, ↑ back: a heading
    never takes the cursor (three ↓ once reached the first match of a filter)."""
    labels = ["A (2)", "a1", "a2", "B (1)", "b1"]
    keys = ["group:a", "a1", "a2", "group:b", "b1"]
    rows = [ListRow(k, (t,), k.startswith("group:")) for k, t in zip(keys, labels, strict=True)]

    class Groups(App[None]):
        def compose(self) -> ComposeResult:
            yield RowList([Column("title", "Title", 20, flex=True)])

        def on_mount(self) -> None:
            self.query_one(RowList).set_rows(rows)

    app = Groups()
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.pause()
        table = app.query_one(RowList)
        table.focus()
        assert table.cursor_key == "a1"
        seen = []
        for key in ("down", "down", "down", "up", "up", "up"):
            await pilot.press(key)
            seen.append(table.cursor_key)
        assert seen == ["a2", "b1", "b1", "a2", "a1", "a1"]
