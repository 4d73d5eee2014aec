"""Plugs memory into a session: the injection, auto-memory, path-memory, extraction, rule-check,
duplicate, secret, freshness and `@path` hooks, `/init` and `/context`, and the staging of
memory written in a worktree; each hook registered for exactly the seams it serves."""

from __future__ import annotations

from wave_tui.agent.extensions import (
    CompactionHooks,
    ContextSource,
    SessionObserver,
    StatusSource,
    ToolDecider,
    ToolGuard,
    ToolLock,
    ToolObserver,
    TurnObserver,
    WorkdirObserver,
)
from wave_tui.agent.service import AgentService
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
from wave_tui.features.memory.worktree_staging import Ask, WorktreeStagingHook


def install_memory(service: AgentService) -> None:
    """Memory's hooks and commands, first of the features: its context comes before theirs."""
    injection = MemoryInjectionHook(service.paths, service.notify, service.clock)
    service.add_extension(
        injection, ContextSource, ToolObserver, SessionObserver, StatusSource, WorkdirObserver
    )
    auto = AutoMemoryHook(
        service.paths,
        safe_zones=service.safe_zones,
        read_state=lambda: service.read_state,
        clock=service.clock,
        notify=service.notify,
        last_extraction=lambda: last_extraction_time(service.paths.project_dir, service.session_id),
        session_id=lambda: service.session_id,
    )
    service.add_extension(
        auto, ContextSource, ToolGuard, ToolLock, ToolObserver, SessionObserver, StatusSource
    )
    path_memory = PathMemoryHook(
        service.paths, lambda: bool(auto.enabled), service.clock, service.notify
    )
    service.add_extension(path_memory, ToolObserver, SessionObserver)
    extraction = ExtractionHook(fork_host(service), auto)
    service.add_extension(extraction, TurnObserver, SessionObserver, StatusSource, CompactionHooks)
    rule_check = RuleCheckHook(  # `ruleCheck: "turn"`: the turn's calls checked against the rules
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
    service.add_extension(rule_check, ToolDecider, TurnObserver)
    service.add_extension(DuplicateNoteHook(service.paths), ToolObserver)
    service.add_extension(MemorySecretGuard(service.paths), ToolGuard)
    freshness = FreshnessHook(
        lambda: service.read_state,
        service.paths.project_root,
        service.paths.home,
        service.notify,
    )
    service.add_extension(freshness, ContextSource, SessionObserver)
    attachments = AttachmentReads(service.extensions, service.paths.project_root)
    service.add_extension(attachments, TurnObserver)
    for command in memory_commands(service):  # /init, /context
        service.commands.register(command)


def install_worktree_staging(service: AgentService, ask: Ask | None) -> None:
    """Memory staged in a worktree is settled when it is left: `ask` the user (the app), or
    None to keep it in the inbox (`-p`). After the worktree tools, whose exit it follows."""
    service.add_extension(WorktreeStagingHook(service.paths, ask), ToolObserver)


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
