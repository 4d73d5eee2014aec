"""Subagent types: the four built-in ones and custom `.wave/agents/*.md` files (AG1, AG2).

A custom agent is a Markdown file whose frontmatter names it (`name`, `description`, optional
`tools` — a list or a comma-separated string — and `model`: `inherit`/`main`, `fast`, Claude
Code's `sonnet`/`opus`/`haiku` (mapped through `modelAliases` when it runs), or a model id) and
whose body is its system prompt. Project agents win over user agents, which win over the built-in
ones of the same name. Frontmatter strict YAML refuses is read line by line (Claude Code's
plugins' agents); a file that still cannot be read is skipped with one warning line.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import field, replace
from pathlib import Path
from typing import Literal

from wave_tui.config.paths import WavePaths
from wave_tui.config.records import record
from wave_tui.features.commands.lenient_frontmatter import parse_lenient
from wave_tui.features.commands.markdown_files import ExtraRoot
from wave_tui.permissions.tool_table import (
    AGENT,
    ASK_USER_QUESTION,
    BASH,
    CRON_CREATE,
    CRON_DELETE,
    CRON_LIST,
    ENTER_PLAN_MODE,
    ENTER_WORKTREE,
    EXIT_PLAN_MODE,
    EXIT_WORKTREE,
    GLOB,
    GREP,
    LSP,
    READ,
    WORKFLOW,
)
from wave_tui.tools.base import Tool

AgentSource = Literal["built-in", "project", "user", "plugin"]
MAIN_MODEL = "main"
FAST_MODEL = "fast"
VISION_MODEL = "visionModel"  # the settings' vision model (the `vision` type's)
AGENT_TOOL_NAME = AGENT
# Never given to a subagent: it has no user to talk to and may not spawn agents itself; nor
# may it move the session (worktrees) or schedule the session's prompts (cron).
SUBAGENT_EXCLUDED_TOOLS = frozenset(
    {
        AGENT_TOOL_NAME,
        ASK_USER_QUESTION,
        ENTER_PLAN_MODE,
        EXIT_PLAN_MODE,
        ENTER_WORKTREE,
        EXIT_WORKTREE,
        CRON_CREATE,
        CRON_DELETE,
        CRON_LIST,
        WORKFLOW,
    }
)
READ_ONLY_AGENT_TOOLS = (GLOB, GREP, READ, BASH, LSP)  # LSP when a server is configured
MAX_AGENT_FILE_BYTES = 256_000


@record
class SubagentDefinition:
    name: str
    description: str
    system_prompt: str
    tools: tuple[str, ...] | None = None  # None: every tool the parent has (but the excluded)
    model: str = MAIN_MODEL  # MAIN_MODEL, FAST_MODEL, or a model id
    read_only: bool = False  # runs under plan-mode permissions: changes are refused
    source: AgentSource = "built-in"
    path: Path | None = None


GENERAL_PURPOSE_PROMPT = """\
You are a subagent of a coding agent, given one self-contained task. Research and act as needed \
with the tools you have, then reply with a concise final report: what you found or did, with \
file paths and line numbers where relevant. Your final message is all the caller sees."""

EXPLORE_PROMPT = """\
You are a fast, read-only explorer of a code base. Find files with Glob, search content with \
Grep, read with Read; Bash only for read-only commands. Never change anything. Match your depth \
to the request (quick, medium, or very thorough) and reply with a concise report of what you \
found: paths, line numbers, and the relevant facts."""

PLAN_PROMPT = """\
You are a software architect. Explore the code read-only and design an implementation plan: the \
steps in order, the files to change, the trade-offs, and how to verify the result. Never change \
anything. Reply with the plan."""

BASH_PROMPT = """\
You run shell commands for a coding agent: git operations, builds, test runs, terminal tasks. \
Run what the task needs and reply with a concise report of the commands and their results."""

BUILTIN_AGENTS: tuple[SubagentDefinition, ...] = (
    SubagentDefinition(
        "general-purpose",
        "General agent for researching complex questions, searching code and doing multi-step "
        "tasks. Use it when a search may need several rounds.",
        GENERAL_PURPOSE_PROMPT,
    ),
    SubagentDefinition(
        "Explore",
        "Fast read-only agent for exploring a code base: finding files, searching code, "
        "answering questions about it. Say how thorough: quick, medium or very thorough.",
        EXPLORE_PROMPT,
        tools=READ_ONLY_AGENT_TOOLS,
        model=FAST_MODEL,
        read_only=True,
    ),
    SubagentDefinition(
        "Plan",
        "Read-only software architect that designs an implementation plan: steps, key files, "
        "trade-offs.",
        PLAN_PROMPT,
        tools=READ_ONLY_AGENT_TOOLS,
        read_only=True,
    ),
    SubagentDefinition(
        "Bash",
        "Runs shell commands: git operations, builds, tests, other terminal tasks.",
        BASH_PROMPT,
        tools=(BASH,),
    ),
)


@record
class SubagentCatalog:
    definitions: tuple[SubagentDefinition, ...]
    warnings: tuple[str, ...] = ()

    def get(self, name: str) -> SubagentDefinition | None:
        for definition in self.definitions:
            if definition.name == name:
                return definition
        return None

    @property
    def names(self) -> list[str]:
        return [d.name for d in self.definitions]


@record(frozen=False)
class _Found:
    by_name: dict[str, SubagentDefinition] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


def _tool_list(value: object) -> tuple[str, ...] | str | None:
    """Parsed `tools`: a tuple, None when absent, or an error line."""
    if value is None:
        return None
    if isinstance(value, str):
        items = [part.strip() for part in value.split(",")]
    elif isinstance(value, list) and all(isinstance(x, str) for x in value):
        items = [x.strip() for x in value]
    else:
        return "`tools` must be a list of tool names or a comma-separated string"
    names = tuple(x for x in items if x)
    return names if names != ("*",) else None


def parse_agent_file(path: Path, text: str, source: AgentSource) -> SubagentDefinition | str:
    """A definition, or one line saying what is wrong with the file."""
    fm = parse_lenient(text)
    if fm.error:
        return f"{path}: {fm.error}"
    if not fm.has_frontmatter:
        return f"{path}: no frontmatter (needs at least `name` and `description`)"
    name, description = fm.get_str("name"), fm.get_str("description")
    if not name or not description:
        return f"{path}: frontmatter needs `name` and `description`"
    if not all(c.isalnum() or c in "-_:" for c in name):
        return f"{path}: `name` may hold only letters, digits, '-', '_' and ':'"
    tools = _tool_list(fm.data.get("tools"))
    if isinstance(tools, str):
        return f"{path}: {tools}"
    model = fm.get_str("model") or MAIN_MODEL
    if model == "inherit":
        model = MAIN_MODEL
    body = fm.body.strip() or GENERAL_PURPOSE_PROMPT
    return SubagentDefinition(name, description, body, tools, model, False, source, path)


def _scan(directory: Path, source: AgentSource, found: _Found, namespace: str = "") -> None:
    try:
        if directory.is_file():
            files = [directory]
        else:
            files = sorted(p for p in directory.glob("*.md") if p.is_file())
    except OSError:
        return
    for path in files:
        try:
            with path.open("rb") as fh:
                text = fh.read(MAX_AGENT_FILE_BYTES).decode("utf-8", "replace")
        except OSError as exc:
            found.warnings.append(f"{path}: cannot be read ({exc.strerror or exc})")
            continue
        parsed = parse_agent_file(path, text, source)
        if isinstance(parsed, str):
            found.warnings.append(parsed)
        else:
            if namespace:  # a plugin's agent is `plugin:name`
                parsed = replace(parsed, name=f"{namespace}:{parsed.name}")
            found.by_name.setdefault(parsed.name, parsed)


# req: AG1
def load_subagents(
    paths: WavePaths,
    extra: Sequence[SubagentDefinition] = (),
    plugin_roots: Sequence[ExtraRoot] = (),
) -> SubagentCatalog:
    """Built-in types (and the `extra` built-in ones the settings enable), custom types and the
    enabled plugins' (`plugin:name`) (blocking file reads: call in a thread from a coroutine)."""
    # req: AG2
    found = _Found()
    project_dir, user_dir = paths.agent_dirs
    _scan(project_dir, "project", found)
    _scan(user_dir, "user", found)
    for root in plugin_roots:
        _scan(root.folder, "plugin", found, root.namespace)
    for builtin in (*BUILTIN_AGENTS, *extra):
        found.by_name.setdefault(builtin.name, builtin)
    return SubagentCatalog(tuple(found.by_name.values()), tuple(found.warnings))


# req: LS6
def tools_for(definition: SubagentDefinition, available: Sequence[Tool]) -> list[Tool]:
    """The parent's tools this subagent gets: its list (or all), never Agent or user dialogs."""
    allowed = None if definition.tools is None else set(definition.tools)
    return [
        t
        for t in available
        if t.name not in SUBAGENT_EXCLUDED_TOOLS and (allowed is None or t.name in allowed)
    ]


def new_agent_id() -> str:
    return f"agent_{uuid.uuid4().hex[:12]}"
