"""A virtual row list: only the visible rows are rendered, so 10,000 entries cost what 30 do.

`DataTable` measures every cell of every row it is given and keeps a renderable per cell; the
memory browser, the runs and the inbox need none of that — fixed columns, one cursor, one
highlighted key — so this widget keeps plain tuples and renders a line when it is painted. The
rows may be a `RowSource` that makes each row when it is first asked for (`LazyRows`): then only
the painted ones are ever made.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ClassVar, NamedTuple, Protocol

from rich.cells import set_cell_size
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from wave_tui.config.records import record

GAP = 1
MIN_FLEX = 20  # the title keeps this much before optional columns give way


@record
class Column:
    key: str
    label: str
    width: int
    flex: bool = False  # takes the width left over by the others
    optional: bool = False  # dropped first when the list is narrow
    keep: int = (
        0  # of the optional columns, the lowest `keep` is dropped first (then the rightmost)
    )


class ListRow(NamedTuple):
    """A plain tuple: of strings only, so the garbage collector stops tracking it at once."""

    key: str
    cells: tuple[str, ...]
    group: bool = False  # a heading row ("Auto memory (12)")
    flag_column: str | None = None  # the column shown in the warning style


class _Paint(NamedTuple):
    """What every line of one painting shares."""

    width: int
    layout: list[tuple[Column, int]]
    widths: list[int]
    base: Style
    header: Style
    group: Style
    cursor: Style
    flag: Style


class RowSource(Protocol):
    """What the list reads its rows from: a `list[ListRow]`, or rows made on demand."""

    def __len__(self) -> int: ...

    def __getitem__(self, index: int, /) -> ListRow: ...


class LazyRows:
    """Rows made when first read (painted, or under the cursor), then kept: `make(i)` is row i."""

    def __init__(self, count: int, make: Callable[[int], ListRow]) -> None:
        self._rows: list[ListRow | None] = [None] * count
        self._make = make

    def __len__(self) -> int:
        return len(self._rows)

    def __getitem__(self, index: int, /) -> ListRow:
        row = self._rows[index]
        if row is None:
            row = self._rows[index] = self._make(index)
        return row


class RowList(ScrollView, can_focus=True):
    """Fixed columns, a row cursor, a header line; `Highlighted` when the cursor moves."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "cursor(-1)", "Up", show=False),
        Binding("down", "cursor(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "jump(0)", "First", show=False),
        Binding("end", "jump(-1)", "Last", show=False),
    ]
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "row-list--header",
        "row-list--cursor",
        "row-list--group",
        "row-list--flag",
    }
    # Styles live in memory.tcss, loaded with the app: a DEFAULT_CSS here would re-parse the
    # whole stylesheet when the first list opens.

    class Highlighted(Message):
        def __init__(self, row_list: RowList, key: str | None) -> None:
            super().__init__()
            self.row_list = row_list
            self.key = key

        @property
        def control(self) -> RowList:
            return self.row_list

    def __init__(self, columns: Sequence[Column], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.columns = tuple(columns)
        self._column_index = {column.key: n for n, column in enumerate(self.columns)}
        self._layouts: dict[int, list[tuple[Column, int]]] = {}  # by width: painted per line
        self._rows: RowSource = []
        self._keys: list[str] = []
        self._index: dict[str, int] | None = None  # by key, made when first asked for
        self.cursor_row = 0
        self._paint: _Paint | None = None  # set while the list paints

    # -- data ----------------------------------------------------------------------------------
    @property
    def row_count(self) -> int:
        return len(self._rows)

    @property
    def keys(self) -> list[str]:
        return list(self._keys)

    def row_at(self, index: int) -> ListRow:
        return self._rows[index]

    def get_row_index(self, key: str) -> int:
        if self._index is None:
            self._index = {k: i for i, k in enumerate(self._keys)}
        return self._index[key]

    def set_rows(
        self, rows: RowSource, keep: str | None = None, *, keys: list[str] | None = None
    ) -> None:
        """Replace every row; the cursor stays on `keep` when it is still there. `keys` are the
        rows' keys in order, when `rows` makes its rows on demand (they are read otherwise)."""
        self._rows = rows
        self._keys = keys if keys is not None else [rows[i].key for i in range(len(rows))]
        self._index = None
        self.virtual_size = Size(0, len(rows) + 1)
        target = self._find(keep) if keep else None
        if target is None:
            target = next((i for i in range(len(rows)) if not rows[i].group), 0)
        self.move_cursor(target, force=True)
        self.refresh()

    def _find(self, key: str) -> int | None:
        try:
            return self._keys.index(key)  # once per fill: no index of every key for one lookup
        except ValueError:
            return None

    @property
    def cursor_key(self) -> str | None:
        return self._keys[self.cursor_row] if self._keys else None

    # -- cursor --------------------------------------------------------------------------------
    def move_cursor(self, row: int, *, force: bool = False) -> None:
        row = max(0, min(row, len(self._keys) - 1))
        changed = row != self.cursor_row
        self.cursor_row = row
        self._scroll_to_cursor()
        if changed or force:
            self.refresh()
            self.post_message(self.Highlighted(self, self.cursor_key))

    def _visible_rows(self) -> int:
        return max(1, self.scrollable_content_region.height - 1)

    def _scroll_to_cursor(self) -> None:
        top = round(self.scroll_offset.y)
        visible = self._visible_rows()
        if self.cursor_row < top:
            self.scroll_to(y=self.cursor_row, animate=False, immediate=True)
        elif self.cursor_row >= top + visible:
            self.scroll_to(y=self.cursor_row - visible + 1, animate=False, immediate=True)

    # req: FH10
    def action_cursor(self, step: int) -> None:
        """One row up or down, over the headings (they name a group; nothing to act on)."""
        row = self._past_headings(self.cursor_row + step, step)
        if row is not None:
            self.move_cursor(row)

    def action_page(self, direction: int) -> None:
        target = self.cursor_row + direction * self._visible_rows()
        target = max(0, min(target, len(self._keys) - 1))
        row = self._past_headings(target, direction)
        if row is None:
            row = self._past_headings(target, -direction)
        self.move_cursor(row if row is not None else target)

    def _past_headings(self, row: int, step: int) -> int | None:
        """The first row from `row` on, going by `step`, that is not a heading (None: none)."""
        while 0 <= row < len(self._keys) and self._rows[row].group:
            row += step
        return row if 0 <= row < len(self._keys) else None

    def action_jump(self, row: int) -> None:
        self.move_cursor(row if row >= 0 else len(self._rows) - 1)

    def on_click(self, event: events.Click) -> None:
        if event.y >= 1:
            self.move_cursor(round(self.scroll_offset.y) + event.y - 1)

    def on_resize(self, _event: events.Resize) -> None:
        self._scroll_to_cursor()

    # -- rendering -----------------------------------------------------------------------------
    def _widths(self, total: int) -> list[tuple[Column, int]]:
        """The columns that fit in `total` cells, with their widths (the flex one stretches)."""
        if total not in self._layouts:
            self._layouts[total] = self._fit(total)
        return self._layouts[total]

    def _fit(self, total: int) -> list[tuple[Column, int]]:
        shown = list(self.columns)
        while True:
            fixed = sum(c.width for c in shown if not c.flex) + GAP * (len(shown) - 1)
            if total - fixed >= MIN_FLEX or not any(c.optional for c in shown):
                break
            optional = [c for c in reversed(shown) if c.optional]
            drop = min(optional, key=lambda c: c.keep)  # the first of the lowest `keep`
            shown.remove(drop)
        return [(c, max(MIN_FLEX, total - fixed) if c.flex else c.width) for c in shown]

    def _line(
        self, cells: Sequence[tuple[str, Style]], widths: list[int], base: Style, width: int
    ) -> Strip:
        """One strip padded to `width`: not a strip, then a padded copy of it, per line."""
        segments: list[Segment] = []
        used = 0
        for n, ((text, style), cell_width) in enumerate(zip(cells, widths, strict=True)):
            if n:
                segments.append(Segment(" " * GAP, base))
                used += GAP
            segments.append(Segment(set_cell_size(text, cell_width), base + style))
            used += cell_width
        if used < width:
            segments.append(Segment(" " * (width - used), base))
            used = width
        return Strip(segments, used)

    def _paint_styles(self) -> _Paint:
        width = self.scrollable_content_region.width
        layout = self._widths(width)
        return _Paint(
            width,
            layout,
            [w for _c, w in layout],
            self.rich_style,
            self.get_component_rich_style("row-list--header"),
            self.get_component_rich_style("row-list--group"),
            self.get_component_rich_style("row-list--cursor"),
            self.get_component_rich_style("row-list--flag", partial=True),
        )

    def render_lines(self, crop: Region) -> list[Strip]:
        # The styles once per painting, not per line: each look-up walks the widget's ancestors.
        self._paint = self._paint_styles()
        try:
            return super().render_lines(crop)
        finally:
            self._paint = None

    def render_line(self, y: int) -> Strip:
        paint = self._paint or self._paint_styles()
        width, layout, widths, base = paint.width, paint.layout, paint.widths, paint.base
        if y == 0:
            cells = [(c.label, Style()) for c, _w in layout]
            return self._line(cells, widths, base + paint.header, width)
        index = round(self.scroll_offset.y) + y - 1
        if index >= len(self._rows):
            return Strip.blank(width, base)
        row = self._rows[index]
        style = base
        if row.group:
            style += paint.group
        if index == self.cursor_row:
            style += paint.cursor
        if row.group:
            # A heading spans the row: it is not squeezed into the first column.
            return Strip([Segment(set_cell_size(row.cells[0], width), style)])
        cells = []
        for column, _w in layout:
            n = self._column_index[column.key]
            text = row.cells[n] if n < len(row.cells) else ""
            cells.append((text, paint.flag if column.key == row.flag_column else Style()))
        return self._line(cells, widths, style, width)
