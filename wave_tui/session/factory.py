"""Builds an AgentService with every feature extension plugged in (one place for the wiring)."""

from __future__ import annotations

from wave_tui.agent.extensions import SessionObserver
from wave_tui.agent.service import AgentOptions, AgentService, Approver
from wave_tui.config.settings import SettingsStore
from wave_tui.features.commands.extensibility import Extensibility, install_extensibility
from wave_tui.features.cron.wiring import install_cron
from wave_tui.features.exec.wiring import install_exec
from wave_tui.features.images.wiring import install_images
from wave_tui.features.mcp.wiring import install_mcp
from wave_tui.features.memory.wiring import install_memory, install_worktree_staging
from wave_tui.features.plugins.active import ActivePlugins
from wave_tui.features.plugins.wiring import install_plugin_sync, plugin_sources
from wave_tui.features.rewind.wiring import install_checkpoints
from wave_tui.features.sandbox.feature import install_sandbox
from wave_tui.features.tasks.wiring import EventAsker, install_work
from wave_tui.features.telemetry.wiring import install_telemetry_if_on
from wave_tui.features.web_search.wiring import install_web_search
from wave_tui.features.workflows.wiring import install_workflows
from wave_tui.features.worktrees.wiring import install_worktrees


def create_service(
    options: AgentOptions,
    *,
    approver: Approver | None = None,
    store: SettingsStore | None = None,
) -> AgentService:
    return create_service_with_extensions(options, approver=approver, store=store)[0]


# req: MX9
# req: UX16
# req: MC1
# req: FH12
def create_service_with_extensions(
    options: AgentOptions,
    *,
    approver: Approver | None = None,
    store: SettingsStore | None = None,
) -> tuple[AgentService, Extensibility | None]:
    """The service and its user extensions (None with `bare`: none were installed)."""
    service = AgentService(options, approver=approver, store=store)
    install_memory(service)  # first: its context comes before the other features'
    install_work(service)  # tasks, plan mode, subagents, background, questions, web
    install_images(service)  # `@img.png` in a prompt
    install_web_search(service)  # WebSearch, while settings `webSearch` names a backend
    # `wave --bare` leaves out what the user and the project add (no plugins, hence none of
    # the installs that read them): hooks, commands, skills, MCP, LSP.
    plugins = None if options.bare else plugin_sources(service)  # more roots for the loaders
    extras = None if plugins is None else install_extensibility(service, service.commands, plugins)
    if plugins is not None:
        install_exec(service, install_mcp(service, plugins.mcp_layers()))  # MCP tools, Exec
    install_worktrees(service)  # EnterWorktree / ExitWorktree, `wave --worktree`
    # Memory staged in a worktree is settled when it is left: asked in the app, kept in -p.
    install_worktree_staging(service, None if service.options.headless else EventAsker(service))
    install_cron(service)  # CronCreate / CronDelete / CronList, /loop
    if plugins is not None:  # Workflow, /workflows: scripts of the project, the user, plugins
        install_workflows(service, plugins)
    if plugins is not None:
        install_lsp_if_configured(service, plugins)
    install_checkpoints(service)
    install_sandbox(service)
    if plugins is not None:
        install_plugin_sync(service, plugins)
    install_telemetry_if_on(service)  # last: it closes after the fork it reports on
    return service, extras


def install_lsp_if_configured(service: AgentService, plugins: ActivePlugins) -> None:
    """Language servers, only when a settings file or a plugin names one: otherwise no LSP
    module loads."""
    from_plugins = plugins.lsp_layers()
    if from_plugins or any(layer.data.get("lspServers") for layer in service.store.layers()):
        from wave_tui.features.lsp.config import merge
        from wave_tui.features.lsp.wiring import install_lsp, settings_servers
        from wave_tui.features.plugins.wiring import plugin_lsp_config

        own = settings_servers(service)
        install_lsp(service, merge([plugin_lsp_config(plugins), own]) if from_plugins else own)
    else:  # servers named while the session runs plug the feature in then
        from wave_tui.session.lsp_later import LspWhenConfigured

        service.add_extension(LspWhenConfigured(service), SessionObserver)
