"""Builds an AgentService with every feature extension plugged in (one place for the wiring)."""

from __future__ import annotations

from wave_tui.agent.service import AgentOptions, AgentService, Approver
from wave_tui.config.settings import SettingsStore
from wave_tui.features.commands.extensibility import Extensibility, install_extensibility
from wave_tui.features.cron.wiring import install_cron
from wave_tui.features.exec.wiring import install_exec
from wave_tui.features.images.wiring import install_images
from wave_tui.features.mcp.wiring import install_mcp
from wave_tui.features.memory.attachment_reads import AttachmentReads
from wave_tui.features.memory.auto_memory_hook import AutoMemoryHook
from wave_tui.features.memory.commands import memory_commands
from wave_tui.features.memory.duplicate_hook import DuplicateNoteHook
from wave_tui.features.memory.extraction import (
    AUDIT_DIR,
    ExtractionHook,
    ForkHost,
    ForkSnapshot,
    last_extraction_time,
)
from wave_tui.features.memory.freshness_hook import FreshnessHook
from wave_tui.features.memory.injection_hook import MemoryInjectionHook
from wave_tui.features.memory.path_memory_hook import PathMemoryHook
from wave_tui.features.memory.rule_check_hook import RuleCheckHook
from wave_tui.features.memory.secret_guard import MemorySecretGuard
from wave_tui.features.memory.worktree_staging import WorktreeStagingHook
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
    service.add_extension(MemoryInjectionHook(service.paths, service.notify, service.clock))
    auto = AutoMemoryHook(
        service.paths,
        safe_zones=service.safe_zones,
        read_state=lambda: service.read_state,
        clock=service.clock,
        notify=service.notify,
        last_extraction=lambda: last_extraction_time(service.paths.project_dir, service.session_id),
        session_id=lambda: service.session_id,
    )
    service.add_extension(auto)
    service.add_extension(
        PathMemoryHook(service.paths, lambda: bool(auto.enabled), service.clock, service.notify)
    )
    service.add_extension(ExtractionHook(fork_host(service), auto))
    service.add_extension(  # `ruleCheck: "turn"`: the turn's calls checked against the rules
        RuleCheckHook(
            service.paths,
            settings=service.store.current,
            messages=lambda: service.messages,
            record=service.conversation.add,
            client=service.client,
            model=lambda: service.model,
            session_id=lambda: service.session_id,
            notify=service.notify,
            publish=service.publish,
        )
    )
    service.add_extension(DuplicateNoteHook(service.paths))
    service.add_extension(MemorySecretGuard(service.paths))
    service.add_extension(
        FreshnessHook(
            lambda: service.read_state,
            service.paths.project_root,
            service.paths.home,
            service.notify,
        )
    )
    service.add_extension(AttachmentReads(service.extensions, service.paths.project_root))
    for command in memory_commands(service):  # /init, /context
        service.commands.register(command)
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
    asker = None if service.options.headless else EventAsker(service)
    service.add_extension(WorktreeStagingHook(service.paths, asker))
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

        service.add_extension(LspWhenConfigured(service))


def fork_host(service: AgentService) -> ForkHost:
    """The extraction fork's narrow view of the agent."""
    return ForkHost(
        snapshot=lambda: fork_snapshot(service),
        client=service.client,
        tools=lambda: service.tools,
        settings=service.store.current,
        workdir=service.paths.project_root,
        audit_dir=service.paths.project_dir / AUDIT_DIR,
        paths=service.paths,
        publish=service.publish,
        notify=service.notify,
        worktree=lambda: service.status().worktree,
    )


# req: F1
# req: F2
# req: F3
# req: F10
def fork_snapshot(service: AgentService) -> ForkSnapshot | None:
    """The main loop's last request and reply, and a clone of its read state (F10, F11).

    The body's message list is copied, not its messages: a request's wire messages are never
    changed once built (each step that alters one — the cache mark, a fold, the adapter — makes
    a new dict), so the fork shares them with the main request at no cost per turn held."""
    body, reply = service.last_request, service.last_reply
    if body is None or reply is None:
        return None
    return ForkSnapshot(
        body={**body, "messages": list(body["messages"])},
        final_reply=reply,
        read_state=service.read_state.clone(),
        session_id=service.session_id,
        turn=sum(1 for m in service.messages if m.role == "user" and not m.is_meta),
    )
