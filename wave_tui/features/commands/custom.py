"""Custom slash commands: Markdown files in `.wave/commands`, `.claude/commands` and the user's.

`sub/name.md` is `/sub:name`; the body (frontmatter removed) is sent as the user message with
`$ARGUMENTS` / `$1…` replaced, a plugin's `${CLAUDE_PLUGIN_ROOT}` expanded, its `!` commands run
and `@path` files attached (`command_body`). Frontmatter: `description`, `argument-hint`,
`allowed-tools` (permission rules granted for that command's turn and its `!` commands) and
`model` (that turn's model, aliases mapped). A project command's `allowed-tools` and `!` commands
hold only once the project's command set is trusted (`wave -p` is the invoker's trust) — without
trust the command still runs, ungranted, its commands not run.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from wave_tui.agent.commands import Command, CommandResult, PromptExpansion
from wave_tui.config.paths import WavePaths
from wave_tui.config.records import record
from wave_tui.config.trust import TrustStore
from wave_tui.features.commands.command_body import (
    BodyShell,
    expand_root,
    has_shell,
    render_body,
)
from wave_tui.features.commands.markdown_files import (
    ExtraRoot,
    MarkdownCache,
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
    plugin_root: Path | None = None


def command_name(relative: Path) -> str:
    """`git/commit.md` → `git:commit` (CS1)."""
    return ":".join(relative.with_suffix("").parts)


def trust_items(commands: Sequence[CustomCommand]) -> list[str]:
    """What trusting a project's commands allows: their grants, and the commands they run."""
    items = [f"/{c.name}: {','.join(c.allowed_tools)}" for c in commands if c.allowed_tools]
    return items + [f"/{c.name}: runs ! commands" for c in commands if has_shell(c.body)]


class CustomCommands:
    """A `CommandProvider` over the command folders; re-read on every lookup (hot reload)."""

    def __init__(
        self,
        paths: WavePaths,
        warn: Callable[[str], None],
        trust: TrustStore,
        label: Callable[[Path], str] = str,
        extra_roots: Callable[[], Sequence[ExtraRoot]] = list,
        shell: BodyShell | None = None,
        model_of: Callable[[str | None], str | None] = lambda name: name,
    ) -> None:
        self.paths = paths
        self.trust = trust
        self._cache = MarkdownCache(warn, label)
        self._extra_roots = extra_roots  # plugins' commands, after the project's and the user's
        self._shell = shell  # None: `!` commands and `@path` stay as written
        self._model_of = model_of  # a frontmatter `model` (an alias too) -> the model to use

    def _files(self) -> Iterator[tuple[str, Path, str, Path | None, Path | None]]:
        """(name, file, scope, the folder its real path must stay in, its plugin's root) of
        every command file, highest precedence first: a project's command or a plugin's that
        links out of the project or the plugin is not served."""
        for folder, scope in self.paths.command_dirs:
            inside = self.paths.project_root if scope == "project" else None
            for path in walk_markdown(folder):
                yield command_name(path.relative_to(folder)), path, scope, inside, None
        for root in self._extra_roots():
            for path, relative in walk_root(root):
                name = f"{root.namespace}:{command_name(relative)}"
                yield name, path, root.scope, root.folder, root.plugin_root

    def load(self) -> list[CustomCommand]:
        """Every command, the first folder (highest precedence) winning a name."""
        # req: CS1
        found: dict[str, CustomCommand] = {}
        for name, path, scope, inside, plugin_root in self._files():
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
                body=expand_root(fm.body, plugin_root),
                # /help and the `/` popup list every command with a description.
                description=fm.get_str("description")
                or _first_line(fm.body)
                or f"Custom command in {path.name}",
                argument_hint=fm.get_str("argument-hint"),
                allowed_tools=tuple(
                    expand_root(rule, plugin_root)
                    for rule in str_list(fm.data.get("allowed-tools"))
                ),
                model=model,
                plugin_root=plugin_root,
            )
        return list(found.values())

    def commands(self) -> Sequence[Command]:
        loaded = self.load()
        return [self._command(c, loaded) for c in loaded]

    def _command(self, custom: CustomCommand, loaded: list[CustomCommand]) -> Command:
        async def run(args: str) -> CommandResult:
            return await self.expand(custom, args, loaded)

        return Command(
            name=custom.name,
            description=custom.description,
            run=run,
            argument_hint=custom.argument_hint,
            source=custom.scope,
        )

    # req: CS2
    # req: PH3
    async def expand(
        self, custom: CustomCommand, args: str, loaded: list[CustomCommand]
    ) -> PromptExpansion:
        trusted = custom.scope != "project" or self.trust.is_trusted(
            self.paths.project_root,
            "commands",
            trust_items([c for c in loaded if c.scope == "project"]),
        )
        allowed = custom.allowed_tools if trusted else ()
        text = await render_body(custom.body, args, allowed, trusted, self._shell)
        return PromptExpansion(text, allowed, self._model_of(custom.model))


def _first_line(body: str) -> str:
    for line in body.splitlines():
        text = line.strip().lstrip("#").strip()
        if text:
            return text[:80]
    return ""
