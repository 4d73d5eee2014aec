"""Skills: `<root>/<name>/SKILL.md` in `.wave/skills`, `.claude/skills` and the user's.

`Skills` is a `ContextSource` (names and descriptions in the dynamic system block — never the
bodies), a `ToolProvider` (`Skill(skill, args?)` returns the body and the skill's folder, so its
bundled files can be read) and a `CommandProvider` (`/name args` runs it as a turn).
`disable-model-invocation: true` hides a skill from the model, not from the user.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

from wave_tui.agent.commands import Command, CommandOutput, CommandResult, PromptExpansion
from wave_tui.config.paths import WavePaths
from wave_tui.config.records import record
from wave_tui.features.commands.builtin_skills import (
    BUILTIN_SCOPE,
    BUILTIN_SKILLS_DIR,
    SkillArgumentError,
    builtin_arguments,
    fill_builtin,
)
from wave_tui.features.commands.command_body import expand_root
from wave_tui.features.commands.markdown_files import ExtraRoot, MarkdownCache, expand_arguments
from wave_tui.llm.types import Message
from wave_tui.permissions.tool_table import SKILL
from wave_tui.tools.arguments import Arg, TypedTool, tool_arguments
from wave_tui.tools.base import Tool, ToolContext, ToolError, ToolResult

if TYPE_CHECKING:
    from wave_tui.config.settings import EffectiveSettings

SKILL_FILE = "SKILL.md"
SKILL_TOOL = SKILL
# The first line of an invoked skill's text, naming its folder: how an invocation is found again
# in the history (compaction restores the skills invoked, CV11).
SKILL_BASE = "Base directory for this skill: "
SKILLS_SECTION_HEADER = (
    "# Skills\n"
    "Skills are instructions for specific tasks. When a task matches a skill's description, "
    f"call the {SKILL_TOOL} tool with its name before doing the task yourself. Available skills:"
)


@record
class Skill:
    name: str
    description: str
    body: str
    folder: Path
    scope: str
    model_invocable: bool
    model: str | None = None  # frontmatter `model`: the model of a `/name` turn

    def render(self, args: str) -> str:
        """The body with `$ARGUMENTS` replaced, headed by the folder its bundled files are in.
        A built-in skill may refuse its arguments (`SkillArgumentError`)."""
        body = self.body
        if self.scope == BUILTIN_SCOPE:
            body, args = builtin_arguments(self.name, body, args)
        body = expand_arguments(body, args).strip()
        return f"{SKILL_BASE}{self.folder}\n\n{body}"


class Skills:
    def __init__(
        self,
        paths: WavePaths,
        warn: Callable[[str], None],
        label: Callable[[Path], str] = str,
        extra_roots: Callable[[], Sequence[ExtraRoot]] = list,
        model_of: Callable[[str | None], str | None] = lambda name: name,
    ) -> None:
        self.paths = paths
        self._cache = MarkdownCache(warn, label)
        self._tool = SkillTool(self)
        self._extra_roots = extra_roots  # plugins' skills, after the project's and the user's
        self._model_of = model_of  # a frontmatter `model` (an alias too) -> the model to use
        # Set by `freeze`: the skills as they were then, the folders no longer read.
        self._frozen: list[Skill] | None = None

    # req: SX2
    def freeze(self) -> None:
        """Stop following the skill folders (the SDK's `watch_skills=False`): the skills read now
        stay the session's, whatever is added, changed or removed later. Unfrozen, every use
        reads the folders again (each file parsed anew only when its stat changed)."""
        self._frozen = self.load()

    def _roots(self) -> list[tuple[Path, str, str, Path | None]]:
        """(root, scope, name prefix, plugin root) of every skill root, highest precedence
        first. A plugin's root may be one skill's own folder (a market entry's `skills` list)."""
        own = [(root, scope, "", None) for root, scope in self.paths.skill_dirs]
        return own + [
            (r.folder, r.scope, f"{r.namespace}:", r.plugin_root) for r in self._extra_roots()
        ]

    # req: SK1
    def load(self) -> list[Skill]:
        """Every skill by name; the first root (project `.wave` first) wins a name, and the
        built-in skills come last (a user or project skill of the same name replaces one)."""
        if self._frozen is not None:
            return list(self._frozen)
        found: dict[str, Skill] = {}
        roots = [*self._roots(), (BUILTIN_SKILLS_DIR, BUILTIN_SCOPE, "", None)]
        for root, scope, prefix, plugin_root in roots:
            if not root.is_dir():
                continue
            for folder in _skill_folders(root):
                inside = self.paths.project_root if scope == "project" else None
                fm = self._cache.load(folder / SKILL_FILE, inside)
                if fm is None:
                    continue
                own = fm.get_str("name")
                # A plugin's skill is `/plugin:name`: a display name with spaces (common in
                # Claude Code plugins) cannot be typed, so its folder names it.
                if not own or (prefix and any(c.isspace() for c in own)):
                    own = folder.name
                name = prefix + own
                if name in found:
                    continue
                disabled = fm.data.get("disable-model-invocation") is True
                body = (
                    fill_builtin(name, fm.body, self.paths)
                    if scope == BUILTIN_SCOPE
                    else expand_root(fm.body, plugin_root)
                )
                found[name] = Skill(
                    name,
                    fm.get_str("description"),
                    body,
                    folder,
                    scope,
                    not disabled,
                    fm.get_str("model") or None,
                )
        return list(found.values())

    def get(self, name: str) -> Skill | None:
        return next((s for s in self.load() if s.name == name), None)

    # -- ContextSource -------------------------------------------------------------------------
    def system_sections(self, settings: EffectiveSettings) -> list[str]:
        # req: CS4
        visible = [s for s in self.load() if s.model_invocable]
        if not visible:
            return []
        lines = [
            f"- {s.name}: {s.description}" if s.description else f"- {s.name}" for s in visible
        ]
        return [SKILLS_SECTION_HEADER + "\n" + "\n".join(lines)]

    def prepend_reminder(self) -> str | None:
        return None

    def before_request(self) -> list[Message]:
        return []

    # -- ToolProvider --------------------------------------------------------------------------
    def tools(self) -> Sequence[Tool]:
        return [self._tool] if any(s.model_invocable for s in self.load()) else []

    # -- what a compaction restores ----------------------------------------------------------
    # req: CV11
    def invoked_skills(self, messages: Sequence[Message]) -> list[tuple[str, str]]:
        """The skills invoked in `messages` (by the Skill tool or as `/name`), newest first, each
        with its text as last invoked."""
        names = {str(s.folder): s.name for s in self.load()}
        found: dict[str, str] = {}
        for message in reversed(messages):
            text = message.content
            if message.role not in ("tool", "user") or not text.startswith(SKILL_BASE):
                continue
            folder = text[len(SKILL_BASE) :].split("\n", 1)[0]
            found.setdefault(names.get(folder, Path(folder).name), text)
        return list(found.items())

    # -- CommandProvider -----------------------------------------------------------------------
    def commands(self) -> Sequence[Command]:
        return [self._command(s) for s in self.load()]

    def _command(self, skill: Skill) -> Command:
        # req: CS5
        async def run(args: str) -> CommandResult:
            try:
                return PromptExpansion(skill.render(args), model=self._model_of(skill.model))
            except SkillArgumentError as exc:
                return CommandOutput(str(exc), is_error=True)

        # /help and the `/` popup list every command with a description.
        description = skill.description or f"Run the {skill.name} skill"
        return Command(skill.name, description, run, source="skill")


def _skill_folders(root: Path) -> list[Path]:
    """The skill folders of a root: its sub-folders, or the root itself when it holds the
    SKILL.md (a market entry lists skills one folder each)."""
    if (root / SKILL_FILE).is_file():
        return [root]
    return sorted(p for p in root.iterdir() if p.is_dir())


@tool_arguments
class SkillArgs:
    skill: Annotated[str, Arg("The skill name")]
    args: Annotated[str, Arg("Optional arguments for the skill")] = ""


class SkillTool(TypedTool[SkillArgs]):
    name = SKILL_TOOL
    description = (
        "Run a skill listed under # Skills in the system prompt. Returns the skill's "
        "instructions and the folder of its bundled files; follow them."
    )
    arguments = SkillArgs
    read_only = True

    def __init__(self, skills: Skills) -> None:
        self._skills = skills

    async def call(self, args: SkillArgs, ctx: ToolContext) -> ToolResult:
        # req: CS5
        name = args.skill.strip().lstrip("/")
        extra = args.args
        skill = self._skills.get(name)
        if skill is None or not skill.model_invocable:
            names = ", ".join(s.name for s in self._skills.load() if s.model_invocable)
            raise ToolError(f"Unknown skill {name!r}. Available: {names or 'none'}.")
        try:
            return ToolResult(skill.render(extra), summary=f"skill {skill.name}")
        except SkillArgumentError as exc:
            raise ToolError(str(exc)) from exc
