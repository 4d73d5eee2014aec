"""User-provided extensions of one session: hooks, custom commands, skills, `/hooks`.

One place that builds them for a service and plugs them in: the hooks and skills as loop
extensions, the commands, skills and `/hooks` in a `CommandRegistry`. The app asks before a
project's hooks run (trust mode "ask"); `wave -p` runs them (the invoker's trust).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from wave_tui.agent.commands import CommandRegistry
from wave_tui.agent.extensions import (
    CompactionHooks,
    ContextSource,
    InvokedSkills,
    PermissionRequestHooks,
    SessionObserver,
    ToolDecider,
    ToolObserver,
    ToolProvider,
    TurnObserver,
)
from wave_tui.agent.service import AgentService
from wave_tui.config.records import record
from wave_tui.config.settings import display_path
from wave_tui.config.trust import TrustMode, TrustStore
from wave_tui.features.commands.command_body import BodyShell
from wave_tui.features.commands.custom import CustomCommands
from wave_tui.features.commands.model_aliases import resolve_model
from wave_tui.features.commands.skills import Skills
from wave_tui.features.user_hooks import Layer, SessionInfo, SessionSource, UserHooks, live_layers
from wave_tui.features.user_hooks.listing import hooks_command

if TYPE_CHECKING:
    from wave_tui.features.plugins.active import ActivePlugins


@record
class Extensibility:
    hooks: UserHooks
    commands: CustomCommands
    skills: Skills
    registry: CommandRegistry


def install_extensibility(
    service: AgentService,
    registry: CommandRegistry | None = None,
    plugins: ActivePlugins | None = None,
) -> Extensibility:
    """Build the user extensions for `service`, plug them in, register their commands; the
    enabled `plugins` add their commands, skills and hooks to the same loaders."""
    paths = service.paths
    mode: TrustMode = "invoker" if service.options.headless else "ask"  # req: HK10
    trust = TrustStore(paths.trust_file, mode)

    def label(path: Path) -> str:
        return display_path(path, paths.project_root, paths.home)

    def warn(line: str) -> None:
        service.notify("warning", line)

    source: SessionSource = (
        "resume" if service.options.continue_last or service.options.resume else "startup"
    )
    settings_layers = live_layers(service.store, paths)

    def hook_layers() -> list[Layer]:
        extra = [] if plugins is None else [Layer(*layer) for layer in plugins.hook_layers()]
        return [*settings_layers(), *extra]

    hooks = UserHooks(
        project_root=paths.project_root,
        layers=hook_layers,
        session=lambda: SessionInfo(service.session_id, service.transcript.path),
        notify=warn,
        trust=trust,
        initial_source=source,
        env=lambda: service.settings.env,
        label=label,
    )
    shell = BodyShell(
        workdir=lambda: service.workdir,
        env=lambda: service.settings.env,
        policy=service.policy,
        ask=service.permission_asker,
        read_state=lambda: service.read_state,
    )

    def model_of(name: str | None) -> str | None:
        return resolve_model(name, service.settings)

    command_roots = list if plugins is None else plugins.command_roots
    skill_roots = list if plugins is None else plugins.skill_roots
    commands = CustomCommands(paths, warn, trust, label, command_roots, shell, model_of)
    skills = Skills(paths, warn, label, skill_roots, model_of)
    service.add_extension(
        hooks,
        ToolDecider,
        ToolObserver,
        TurnObserver,
        SessionObserver,
        CompactionHooks,
        PermissionRequestHooks,
    )
    service.add_extension(skills, ContextSource, ToolProvider, InvokedSkills)
    registry = registry or CommandRegistry()
    registry.register(hooks_command(hooks))
    registry.add_provider(commands)  # custom commands before skills: a command wins a name
    registry.add_provider(skills)
    return Extensibility(hooks, commands, skills, registry)
