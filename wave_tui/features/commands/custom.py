"""Custom slash commands: Markdown files in `.wave/commands`, `.claude/commands` and the user's.

`sub/name.md` is `/sub:name`; the body (frontmatter removed) is sent as the user message with
`$ARGUMENTS` / `$1…` replaced. Frontmatter: `description`, `argument-hint`, `allowed-tools`
(permission rules granted for that command's turn) and `model` (that turn's model). A project
command's `allowed-tools` are granted only once the project's command set is trusted (the app
asks; `wave -p` is the invoker's trust) — without trust the command still runs, ungranted.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from wave_tui.agent.commands import Command, CommandResult, PromptExpansion
from wave_tui.config.paths import WavePaths
from wave_tui.config.records import record
from wave_tui.config.trust import TrustStore
from wave_tui.features.commands.markdown_files import (
    ExtraRoot,
    MarkdownCache,
    expand_arguments,
    str_list,
    walk_markdown,
    walk_root,
)


@record
class CustomCommand:
    name: str
    path: Path
    scope: str  # "project" | "user"
    body: str
    description: str
    argument_hint: str
    allowed_tools: tuple[str, ...]
    model: str | None


def command_name(relative: Path) -> str:
    """`git/commit.md` → `git:commit` (CS1)."""
    return ":".join(relative.with_suffix("").parts)


def trust_items(commands: Sequence[CustomCommand]) -> list[str]:
    return [f"/{c.name}: {','.join(c.allowed_tools)}" for c in commands if c.allowed_tools]


class CustomCommands:
    """A `CommandProvider` over the command folders; re-read on every lookup (hot reload)."""

    def __init__(
        self,
        paths: WavePaths,
        warn: Callable[[str], None],
        trust: TrustStore,
        label: Callable[[Path], str] = str,
        extra_roots: Callable[[], Sequence[ExtraRoot]] = list,
    ) -> None:
        self.paths = paths
        self.trust = trust
        self._cache = MarkdownCache(warn, label)
        self._extra_roots = extra_roots  # plugins' commands, after the project's and the user's

    def _files(self) -> Iterator[tuple[str, Path, str, Path | None]]:
        """(name, file, scope, the folder its real path must stay in) of every command file,
        highest precedence first: a project's command or a plugin's that links out of the
        project or the plugin is not served."""
        for folder, scope in self.paths.command_dirs:
            inside = self.paths.project_root if scope == "project" else None
            for path in walk_markdown(folder):
                yield command_name(path.relative_to(folder)), path, scope, inside
        for root in self._extra_roots():
            for path, relative in walk_root(root):
                yield f"{root.namespace}:{command_name(relative)}", path, root.scope, root.folder

    def load(self) -> list[CustomCommand]:
        """Every command, the first folder (highest precedence) winning a name."""
        # req: CS1
        found: dict[str, CustomCommand] = {}
        for name, path, scope, inside in self._files():
            if name in found:
                continue
            fm = self._cache.load(path, inside)
            if fm is None:
                continue
            model = fm.get_str("model") or None
            found[name] = CustomCommand(
                name=name,
                path=path,
                scope=scope,
                body=fm.body,
                # /help and the `/` popup list every command with a description.
                description=fm.get_str("description")
                or _first_line(fm.body)
                or f"Custom command in {path.name}",
                argument_hint=fm.get_str("argument-hint"),
                allowed_tools=str_list(fm.data.get("allowed-tools")),
                model=model,
            )
        return list(found.values())

    def commands(self) -> Sequence[Command]:
        loaded = self.load()
        return [self._command(c, loaded) for c in loaded]

    def _command(self, custom: CustomCommand, loaded: list[CustomCommand]) -> Command:
        async def run(args: str) -> CommandResult:
            return self.expand(custom, args, loaded)

        return Command(
            name=custom.name,
            description=custom.description,
            run=run,
            argument_hint=custom.argument_hint,
            source=custom.scope,
        )

    def expand(
        self, custom: CustomCommand, args: str, loaded: list[CustomCommand]
    ) -> PromptExpansion:
        # req: CS2
        allowed = custom.allowed_tools
        if allowed and custom.scope == "project":
            project = [c for c in loaded if c.scope == "project"]
            if not self.trust.is_trusted(self.paths.project_root, "commands", trust_items(project)):
                allowed = ()
        return PromptExpansion(expand_arguments(custom.body, args).strip(), allowed, custom.model)


def _first_line(body: str) -> str:
    for line in body.splitlines():
        text = line.strip().lstrip("#").strip()
        if text:
            return text[:80]
    return ""
