"""`/plugin`: the marketplaces, the plugins each offers (with descriptions), the installed ones;
install, enable / disable, update, uninstall and add a market — all from the keyboard.

Opening the screen refreshes every git market's listing in the background (a bounded wait, one
line per market that did not answer) without upgrading anything installed. Git work shows its
progress in the status line; a failure is that line, and nothing changes.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Literal, cast

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from wave_tui.session.types import PluginError
from wave_tui.tui.widgets.footer import Footer

if TYPE_CHECKING:
    from wave_tui.session.facade import PluginAccess
    from wave_tui.session.types import OfferedPlugin, PluginRow
    from wave_tui.tui.app import WaveApp

View = Literal["markets", "offered", "installed"]
REFRESH_WAIT_S = 20.0  # opening the screen never waits longer for a market to answer
HINTS = {
    "markets": "enter its plugins · a add a market · r refresh · tab installed · esc close",
    "offered": "enter/i install · e enable/disable · u update · x uninstall · esc back",
    "installed": "e enable/disable · u update · x uninstall · tab markets · esc close",
}


# req: PG8
class PluginScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("escape", "back", "Back", id="plugin-back"),
        Binding("tab", "switch", "Markets/installed", id="plugin-switch", priority=True),
        Binding("i", "install", "Install", id="plugin-install"),
        Binding("e,space", "flip", "Enable/disable", id="plugin-toggle"),
        Binding("u", "update", "Update", id="plugin-update"),
        Binding("x", "uninstall", "Uninstall", id="plugin-uninstall"),
        Binding("a", "add_market", "Add market", id="plugin-add-market"),
        Binding("r", "refresh", "Refresh markets", id="plugin-refresh"),
    ]

    def __init__(self, access: PluginAccess) -> None:
        super().__init__(classes="dialog-screen")
        self.access = access
        self.view: View = "markets"
        self.market: str | None = None
        self._offered: list[OfferedPlugin] = []
        self._installed: list[PluginRow] = []
        self._busy = False
        self._shown: tuple[View, str | None] | None = None

    @property
    def wave(self) -> WaveApp:
        return cast("WaveApp", self.app)

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog picker plugin-screen"):
            yield Static(Content("Plugins"), id="plugin-title", classes="dialog-title")
            yield OptionList(id="plugin-list")
            yield Input(placeholder="a folder or a git URL", id="market-source")
            yield Static("", id="plugin-status", markup=False)
            yield Static(Content(HINTS["markets"]), id="plugin-hint", classes="dialog-detail")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#market-source", Input).display = False
        self._show()
        self.query_one("#plugin-list", OptionList).focus()
        self.action_refresh()

    # -- what is shown ---------------------------------------------------------------------------
    def _status(self, line: str) -> None:
        self.query_one("#plugin-status", Static).update(line)

    def _show(self) -> None:
        options = self.query_one("#plugin-list", OptionList)
        same = self._shown == (self.view, self.market)
        keep = options.highlighted if same else 0  # a new view starts at its top
        self._shown = (self.view, self.market)
        options.clear_options()
        title = {"markets": "Plugins · marketplaces", "installed": "Plugins · installed"}
        heading = title.get(self.view) or f"Plugins · {self.market}"
        self.query_one("#plugin-title", Static).update(Content(heading))
        self.query_one("#plugin-hint", Static).update(Content(HINTS[self.view]))
        rows = self._rows()
        if rows:
            options.add_options(rows)
            options.highlighted = min(keep or 0, len(rows) - 1)
        else:
            empty = {
                "markets": "No marketplaces yet: a adds one (a folder or a git URL).",
                "offered": "This marketplace lists no plugins.",
                "installed": "No plugins installed: pick a marketplace to install one.",
            }[self.view]
            options.add_option(Option(Content.styled(empty, "$text-muted"), disabled=True))

    def _rows(self) -> list[Option]:
        if self.view == "markets":
            return [
                Option(
                    Content.assemble(
                        (m.name, "bold"),
                        f"  {m.kind}  {m.source}",
                        ("" if m.known else "  (fetched when used)", "$text-muted"),
                    ),
                    id=m.name,
                )
                for m in self.access.markets()
            ]
        if self.view == "offered":
            return [
                Option(
                    Content.assemble(
                        (p.name, "bold"),
                        f"  {p.version}" if p.version else "",
                        (f"  {_state(p.installed)}", "$success" if p.installed else "$text-muted"),
                        f"\n  {p.description}" if p.description else "",
                    ),
                    id=p.plugin_id,
                )
                for p in self._offered
            ]
        self._installed = self.access.installed()
        return [
            Option(
                Content.assemble(
                    (f"{r.name}@{r.marketplace}", "bold"),
                    f"  {r.version}  {r.scope}  ",
                    (
                        "enabled" if r.enabled else "disabled",
                        "$success" if r.enabled else "$warning",
                    ),
                ),
                id=f"{r.name}@{r.marketplace}",
            )
            for r in self._installed
        ]

    def _highlighted(self) -> str | None:
        options = self.query_one("#plugin-list", OptionList)
        if options.highlighted is None or options.option_count == 0:
            return None
        return options.get_option_at_index(options.highlighted).id

    def _row(self, plugin_id: str) -> PluginRow | None:
        rows = self.access.installed()
        return next((r for r in rows if f"{r.name}@{r.marketplace}" == plugin_id), None)

    # -- moving between the views ----------------------------------------------------------------
    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if self.view == "markets" and event.option.id:
            self._open_market(event.option.id)
        elif self.view == "offered":
            self.action_install()

    def _open_market(self, name: str) -> None:
        async def listing() -> None:
            try:
                self._offered = await self.access.offered(name)
            except PluginError as exc:
                self._status(str(exc))
                return
            self.view, self.market = "offered", name
            self._show()

        self.run_worker(listing(), group="plugin-list", exclusive=True)

    def action_back(self) -> None:
        source = self.query_one("#market-source", Input)
        if source.display:
            source.display = False
            self.query_one("#plugin-list", OptionList).focus()
        elif self.view == "offered":
            self.view = "markets"
            self._show()
        else:
            self.dismiss(None)

    def action_switch(self) -> None:
        self.view = "markets" if self.view == "installed" else "installed"
        self._show()

    # -- the operations (git work in a worker, its progress in the status line) -------------------
    def _run(self, doing: str, work: Callable[[], Awaitable[str]]) -> None:
        if self._busy:
            self._status("Still working on the last step…")
            return
        self._busy = True
        self._status(f"{doing}…")

        async def run() -> None:
            try:
                self._status(await work())
            except PluginError as exc:
                self._status(str(exc))
            finally:
                self._busy = False
            if self.view == "offered" and self.market is not None:
                try:
                    self._offered = await self.access.offered(self.market)
                except PluginError as exc:
                    self._status(str(exc))
            self._show()

        self.run_worker(run(), group="plugin-op", exclusive=False)

    def action_install(self) -> None:
        plugin_id = self._highlighted()
        if self.view != "offered" or not plugin_id:
            return

        async def work() -> str:
            version = await self.access.install(plugin_id)
            return f"Installed {plugin_id} {version}: enabled from the next turn"

        self._run(f"Installing {plugin_id}", work)

    def action_flip(self) -> None:
        plugin_id = self._highlighted()
        row = self._row(plugin_id) if plugin_id and self.view != "markets" else None
        if row is None or plugin_id is None:
            return
        enabled = not row.enabled

        async def work() -> str:
            if enabled:
                await self.access.enable(plugin_id, row.scope)
            else:
                await self.access.disable(plugin_id, row.scope)
            word = "Enabled" if enabled else "Disabled"
            return f"{word} {plugin_id}: from the next turn"

        self._run("Saving", work)

    def action_update(self) -> None:
        plugin_id = self._highlighted()
        if self.view == "markets" or not plugin_id or self._row(plugin_id) is None:
            return

        async def work() -> str:
            old, new = await self.access.update(plugin_id)
            return f"{plugin_id}: {old} → {new}" if old != new else f"{plugin_id} is the latest"

        self._run(f"Updating {plugin_id}", work)

    def action_uninstall(self) -> None:
        plugin_id = self._highlighted()
        row = self._row(plugin_id) if plugin_id and self.view != "markets" else None
        if row is None or plugin_id is None:
            return

        async def work() -> str:
            await self.access.uninstall(plugin_id, row.scope)
            return f"Uninstalled {plugin_id}"

        self._run(f"Uninstalling {plugin_id}", work)

    def action_add_market(self) -> None:
        if self.view != "markets":
            return
        source = self.query_one("#market-source", Input)
        source.display = True
        source.value = ""
        source.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        event.input.display = False
        self.query_one("#plugin-list", OptionList).focus()
        if not text:
            return

        async def work() -> str:
            name = await self.access.add_market(text, self.wave.session.paths.project_root)
            return f"Added marketplace {name}"

        self._run(f"Adding {text}", work)

    def action_refresh(self) -> None:
        """Fetch every git market's listing; installed plugins stay as they are."""
        git = [m.name for m in self.access.markets() if m.known and m.kind == "git"]
        if not git:
            return
        self._status(f"Refreshing {len(git)} marketplace{'s' if len(git) > 1 else ''}…")

        async def refresh() -> None:
            async def one(name: str) -> str | None:
                try:
                    await asyncio.wait_for(self.access.update_market(name), REFRESH_WAIT_S)
                except TimeoutError:
                    return f"{name}: no answer (offline?); showing the last listing"
                except PluginError as exc:
                    return f"{exc}; showing the last listing"
                return None

            problems = [p for p in await asyncio.gather(*(one(n) for n in git)) if p]
            self._status(" · ".join(problems) if problems else "Marketplaces up to date")
            self._show()

        self.run_worker(refresh(), group="plugin-refresh", exclusive=True)


def _state(row: PluginRow | None) -> str:
    if row is None:
        return "not installed"
    return f"installed {row.version}, {'enabled' if row.enabled else 'disabled'}"
