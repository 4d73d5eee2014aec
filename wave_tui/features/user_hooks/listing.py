"""`/hooks`: what is configured, from which file, and whether project hooks are trusted."""

from __future__ import annotations

from wave_tui.agent.commands import Command, CommandOutput, CommandResult
from wave_tui.features.user_hooks.engine import UserHooks


def render_hooks(hooks: UserHooks) -> str:
    # req: HK10
    config = hooks.config()
    if not config.hooks:
        lines = ["No hooks configured (settings key `hooks`)."]
    else:
        untrusted = hooks.trust_needed() is not None
        lines = [f"{len(config.hooks)} hook(s) configured:"]
        for spec in config.hooks:
            matcher = f" [{spec.matcher}]" if spec.matcher else ""
            flags = [f"timeout {spec.timeout_s:g}s"]
            if spec.run_async:
                flags.append("async")
            if spec.from_project and untrusted:
                flags.append("not trusted: does not run")
            lines.append(
                f"  {spec.event}{matcher}: {spec.command}  ({', '.join(flags)}) — "
                f"{hooks.label(spec.source)}"
            )
    lines.extend(f"  problem: {p}" for p in config.problems)
    return "\n".join(lines)


def hooks_command(hooks: UserHooks) -> Command:
    async def run(_args: str) -> CommandResult:
        return CommandOutput(render_hooks(hooks))

    return Command("hooks", "List the configured hooks and the file each comes from", run)
