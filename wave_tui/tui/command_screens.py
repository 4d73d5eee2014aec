"""The app's answers to `/model` (configured models, then the endpoint's), `/resume`,
`/permissions`, `/tasks`, `/workflows` (pickers and screens instead of text), the resume picker
of `wave --resume` without an id, and the trust prompt at start. Each screen's module loads when it is first
shown, not before the app's first frame."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from wave_tui.config.records import record
from wave_tui.tui.format import show_path

if TYPE_CHECKING:
    from wave_tui.session.types import TrustRequested
    from wave_tui.tui.app import WaveApp


@record
class Reopen:
    """A session of another project was picked: wave reopens in its folder once the app ends."""

    folder: Path
    session_id: str


class CommandScreens:
    def __init__(self, app: WaveApp) -> None:
        self.app = app
        self.reopen: Reopen | None = None
        self._asked: set[str] = set()  # trust requests asked this session (fingerprints)

    # req: MX2
    def open(self, name: str, args: str) -> bool:
        """True when the app answers this command with a screen (nothing sent)."""
        if not self.app.session.available:
            return False
        if name == "model" and not args:
            self.pick_model()
            return True
        if name == "resume" and not args:
            self.pick_session()
            return True
        if name == "permissions":
            from wave_tui.tui.screens.permissions import PermissionsScreen

            self.app.push_screen(PermissionsScreen())
            return True
        if name == "tasks" and not args:
            from wave_tui.tui.screens.tasks import TasksScreen

            self.app.push_screen(TasksScreen())
            return True
        if name == "workflows" and not args and self.app.session.workflows.available:
            from wave_tui.tui.screens.workflows import WorkflowsScreen

            self.app.push_screen(WorkflowsScreen())
            return True
        if name in ("rewind", "fork") and not args:
            from wave_tui.tui.screens.rewind import run_fork, run_rewind

            run = run_rewind if name == "rewind" else run_fork
            self.app.run_worker(run(self.app), group="rewind", exclusive=True)
            return True
        if name == "context" and not args:
            self.app.show_context()
            return True
        if name == "compact" and not self.app.session.status().busy:
            from wave_tui.tui.compaction import preview_compaction

            preview_compaction(self.app, args.strip() or None)
            return True
        if name == "plugin":
            from wave_tui.session.facade import PluginAccess
            from wave_tui.tui.screens.plugins import PluginScreen

            self.app.push_screen(PluginScreen(PluginAccess(self.app.session.paths)))
            return True
        return False

    def pick_model(self) -> None:
        self.app.run_worker(
            self._pick_model(), group="model-picker", exclusive=True, name="listing the models"
        )

    async def _pick_model(self) -> None:
        from wave_tui.tui.screens.pickers import model_picker

        app = self.app
        menu = (
            await app.session.settings.model_menu()
        )  # the endpoint's list: a bounded wait, then cached

        def chosen(name: str | None) -> None:
            if name:
                app.run_worker(
                    app.session.input.run_command(f"/model {name}"),
                    group="model",
                    exit_on_error=False,
                )
                app.notify(f"Model: {name} (from the next request)", markup=False)

        app.push_screen(model_picker(menu), chosen)

    # req: UX15
    def pick_session(self) -> None:
        self.app.run_worker(self._pick_session(), group="resume", exclusive=True)

    # req: FH11
    async def _pick_session(self) -> None:
        from wave_tui.tui.screens.resume_picker import ResumePicker

        app = self.app
        picker = app.session.picker
        rows = await picker.summaries()
        screen = ResumePicker(rows, picker.all_summaries, picker.summaries, app.size.width)

        async def resume(session_id: str | None) -> None:
            if not session_id:
                return
            row = screen.row(session_id)
            if row is not None and row.project is not None:
                self.reopen = Reopen(row.project, session_id)
                app.notify(
                    f"Session {session_id[:8]} is of {row.project}: wave reopens in that folder.",
                    markup=False,
                )
                await app.action_quit()
                return
            try:
                app.session.picker.resume(session_id)
            except (FileNotFoundError, RuntimeError) as exc:
                app.notify(str(exc), severity="error", markup=False)
                return
            await app.chat_screen.reload_conversation()
            app.notify(f"Resumed session {session_id}", markup=False)

        app.push_screen(screen, resume)

    # req: HK10
    def ask_trust(self) -> None:
        app = self.app
        requests = app.session.permissions.trust_requests()
        if not requests:
            return
        self._asked.update(r.fingerprint for r in requests)
        from wave_tui.tui.screens.trust import TrustDialog

        async def answered(trusted: bool | None) -> None:
            if trusted:
                await app.session.permissions.grant_trust(requests)
                self._show_trusted(requests)
                app.notify("Trusted: the project's hooks and servers run now.", markup=False)
            else:
                app.notify("Project hooks and servers stay off this session.", markup=False)

        project = app.paths.project_root.name or show_path(app.paths.project_root, app.paths)
        app.push_screen(TrustDialog(project, requests), answered)

    # req: FH6
    def ask_trust_for_new(self) -> None:
        """After a settings change: servers named since that wait for trust are asked about
        once (a set the user already said no to this session is not asked again)."""
        requests = self.app.session.permissions.trust_requests()
        if any(r.fingerprint not in self._asked for r in requests):
            self.ask_trust()

    def _show_trusted(self, requests: list[TrustRequested]) -> None:
        """The chat's "not trusted yet" notices would now mislead: the first says what runs
        from now on, the others go."""
        from wave_tui.session.types import NOT_TRUSTED_YET
        from wave_tui.tui.screens.trust import trusted_notice
        from wave_tui.tui.widgets.chat_items import NoticeLine

        held_back = [
            line
            for line in self.app.chat_screen.query(NoticeLine)
            if NOT_TRUSTED_YET in str(line.content)
        ]
        for n, line in enumerate(held_back):
            if n == 0:
                line.update(trusted_notice(requests))
            else:
                line.remove()
