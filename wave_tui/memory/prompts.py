"""Every memory prompt text, in one place (P1–P9, M1, M2).

The main agent's `# auto memory` section and the extraction fork's prompt are both rendered from
the same data below, so one fork request can never ask to record what the other forbids (P8) and
both write the same frontmatter (P9).
"""

from __future__ import annotations

from pathlib import Path

from wave_tui.config.paths import MEMORY_INDEX_FILENAME
from wave_tui.config.records import record
from wave_tui.memory.index import INDEX_MAX_LINES, POINTER_MAX_CHARS


@record
class MemoryType:
    name: str
    description: str
    when_to_save: str
    how_to_use: str
    example: str


MEMORY_TYPES: tuple[MemoryType, ...] = (
    MemoryType(
        name="user",
        description=(
            "Who the user is: their role, goals, responsibilities, expertise and how they like "
            "to work. Lets you tailor explanations and suggestions to this person."
        ),
        when_to_save=(
            "When you learn something about the user's role, background, knowledge or "
            "preferences that will still matter in a later conversation."
        ),
        how_to_use=(
            "When your answer should be shaped by who the user is: explain in terms of what they "
            "already know, skip basics they have mastered, match how they like to collaborate."
        ),
        example=(
            'user: "I\'ve written Go for ten years, but this is my first Python project."\n'
            "→ save a user memory: experienced Go developer, new to Python; relate Python "
            "idioms to their Go equivalents when explaining."
        ),
    ),
    MemoryType(
        name="feedback",
        description=(
            "Guidance the user has given about how to approach the work: what to avoid and what "
            "to keep doing. Record corrections and confirmed choices alike, so the user never "
            "has to give the same guidance twice."
        ),
        when_to_save=(
            'When the user corrects your approach ("no, not that", "stop doing X") or confirms '
            "that a non-obvious approach was right. Save the rule, why it matters and how to "
            "apply it."
        ),
        how_to_use=(
            "Let these memories steer how you work in every later conversation, so the user does "
            "not have to repeat themselves."
        ),
        example=(
            "user: \"Don't mock the database in integration tests — last quarter the mocks hid a "
            'broken migration."\n'
            "→ save a feedback memory: integration tests must hit a real database. **Why:** mocks "
            "once hid a broken migration. **How to apply:** when writing or reviewing integration "
            "tests, use the real database."
        ),
    ),
    MemoryType(
        name="project",
        description=(
            "Facts about the ongoing work that cannot be read from the repository: goals, "
            "decisions and the reasons behind them, deadlines, who is responsible for what, "
            "incidents, constraints coming from outside the code."
        ),
        when_to_save=(
            "When you learn why something is being done, by whom or by when, and the repository "
            'does not say so. Turn relative dates into absolute ones ("Thursday" → 2026-03-05).'
        ),
        how_to_use=(
            "To understand the motivation and constraints behind a request and make suggestions "
            "that fit them."
        ),
        example=(
            'user: "Freeze non-critical merges after Thursday — the mobile team cuts the release '
            'branch then."\n'
            "→ save a project memory: merge freeze from 2026-03-05 for the mobile release cut. "
            "**Why:** release branch cut. **How to apply:** flag any non-critical merge after "
            "that date."
        ),
    ),
    MemoryType(
        name="reference",
        description=(
            "Pointers to where information lives outside the repository: issue trackers, "
            "dashboards, documents, chat channels, and what each one is for."
        ),
        when_to_save="When you learn about an external resource and what it is used for.",
        how_to_use=(
            "When the user mentions an external system, or you need information that probably "
            "lives in one."
        ),
        example=(
            'user: "Bugs in the ingestion pipeline are tracked in the INGEST project in Linear."\n'
            "→ save a reference memory: ingestion pipeline bugs live in Linear project INGEST; "
            "look there for bug context."
        ),
    ),
)

MEMORY_TYPE_NAMES: tuple[str, ...] = tuple(t.name for t in MEMORY_TYPES)

WHAT_NOT_TO_SAVE: tuple[str, ...] = (
    "Code patterns, conventions, architecture, file paths or project structure that can be "
    "derived from the current project — read the code instead.",
    "Git history, recent changes, or who changed what — `git log` and `git blame` are "
    "authoritative.",
    "Debugging solutions and fix recipes — the fix is in the code and its commit message.",
    "Anything already written in AGENTS.md or CLAUDE.md files.",
    "Ephemeral task state from this session: in-progress work, temporary state, the context of "
    "the current conversation.",
)

FRONTMATTER_TEMPLATE = (
    "---\n"
    "name: <short name of the memory>\n"
    "description: <one specific line; future conversations use it to decide whether this "
    "memory is relevant>\n"
    f"type: <{' | '.join(MEMORY_TYPE_NAMES)}>\n"
    "---\n"
    "\n"
    "<the memory itself; for feedback and project memories: the rule or fact, then a **Why:** "
    "line and a **How to apply:** line>\n"
)

POINTER_LINE_EXAMPLE = "- [Title](file_name.md) — one-line hook"

TYPES_HEADING = "## Types of memory"
NOT_SAVE_HEADING = "## What NOT to save in memory"
HOW_TO_SAVE_HEADING = "## How to save memories"


def _render_type(t: MemoryType) -> str:
    example = "\n".join(f"    {line}" for line in t.example.splitlines())
    return (
        "<type>\n"
        f"  <name>{t.name}</name>\n"
        f"  <description>{t.description}</description>\n"
        f"  <when_to_save>{t.when_to_save}</when_to_save>\n"
        f"  <how_to_use>{t.how_to_use}</how_to_use>\n"
        f"  <example>\n{example}\n  </example>\n"
        "</type>"
    )


# req: P1
def render_types() -> str:
    body = "\n".join(_render_type(t) for t in MEMORY_TYPES)
    return (
        f"{TYPES_HEADING}\n\n"
        "Every memory has exactly one of these types:\n\n"
        f"<types>\n{body}\n</types>"
    )


# req: P2
def render_what_not_to_save() -> str:
    items = "\n".join(f"- {item}" for item in WHAT_NOT_TO_SAVE)
    return (
        f"{NOT_SAVE_HEADING}\n\n"
        f"{items}\n\n"
        "These exclusions apply even when the user explicitly asks you to save something. If "
        "they ask you to save, say, a list of changes or a summary of a session, ask what was "
        "surprising or non-obvious about it; that part is worth keeping."
    )


# req: P3
def render_how_to_save() -> str:
    return (
        f"{HOW_TO_SAVE_HEADING}\n\n"
        "Saving a memory takes two steps.\n\n"
        "**Step 1**: write the memory to its own topic file in the memory directory (for "
        "example `user_role.md` or `feedback_testing.md`), starting with this frontmatter:\n\n"
        f"```markdown\n{FRONTMATTER_TEMPLATE}```\n\n"
        f"**Step 2**: add a one-line pointer to that file in `{MEMORY_INDEX_FILENAME}`, under "
        f"~{POINTER_MAX_CHARS} characters: `{POINTER_LINE_EXAMPLE}`.\n\n"
        f"`{MEMORY_INDEX_FILENAME}` is an index, not a memory: one line per entry, no "
        "frontmatter, and never the content of a memory itself. It is loaded into every "
        f"conversation and cut off after {INDEX_MAX_LINES} lines, so keep it short.\n\n"
        "- Keep `name`, `description` and `type` in each file in step with its content.\n"
        "- Organise memories by topic, not by date.\n"
        "- Never write duplicates: first check whether an existing memory can be updated.\n"
        "- Update or remove memories that turn out to be wrong or outdated."
    )


# req: P8
# req: P9
def render_typology() -> str:
    """Types, exclusions and the two-step save: shared verbatim by both prompts (P8, P9)."""
    return "\n\n".join((render_types(), render_what_not_to_save(), render_how_to_save()))


# req: P4
# req: P5
# req: P6
# req: P7
def render_memory_section(memory_dir: Path) -> str:
    """The `# auto memory` section of the main system prompt (P1–P7)."""
    return (
        "# auto memory\n\n"
        f"You have a persistent, file-based memory in `{memory_dir}`. It is local to this "
        "machine and shared by every work tree of this repository; it is not part of the "
        "repository and nobody else sees it. This directory already exists: write to it "
        "directly with the Write tool. Never run mkdir or check whether it exists.\n\n"
        "Build this memory up over time, so that future conversations know who the user is, "
        "how they like to work with you, what to avoid or repeat, and the context behind "
        "their work.\n\n"
        "When the user explicitly asks you to remember something, save it right away: a "
        "standing instruction or preference goes into AGENTS.md (see the section on "
        "remembering on request); anything else goes into this directory as whichever type "
        "fits best. When they ask you to forget something, find the entry and remove it.\n\n"
        f"{render_typology()}\n\n"
        "## When to access memories\n\n"
        "- When a memory seems relevant, or the user refers to work from an earlier "
        "conversation.\n"
        "- You MUST read memory when the user explicitly asks you to check, recall or remember "
        "something.\n"
        "- If the user says to ignore or not use memory, proceed as if MEMORY.md were empty: do "
        "not apply, cite, compare against or mention anything from memory.\n"
        "- Memories are point-in-time notes and can go stale. When a memory conflicts with what "
        "you observe now, trust what you observe, and update or remove the memory.\n\n"
        "## Before recommending from memory\n\n"
        "A memory that names a function, file or flag says that it existed when the memory was "
        "written. It may have been renamed or removed since. Before recommending it:\n"
        "- a file: check that it exists;\n"
        "- a function or flag: search for it;\n"
        "- if the user is about to act on your recommendation, verify first.\n\n"
        '"The memory says X exists" is not the same as "X exists now".\n\n'
        "## Memory and other forms of persistence\n\n"
        "Memory is only for what will help in future conversations. Within this conversation:\n"
        "- To align with the user on an approach before a non-trivial change, use a plan, not "
        "memory: EnterPlanMode, then ExitPlanMode with the plan for the user's approval.\n"
        "- To track the steps of this session's work and your progress, use tasks, not "
        "memory: TaskCreate for each step, TaskUpdate as each one starts and completes.\n"
        "- Anything that only matters to the current conversation does not belong in memory."
    )


def render_memory_index_block(index_text: str, warning: str | None) -> str:
    """The MEMORY.md index as shown in the system prompt's dynamic block (A2)."""
    heading = f"## {MEMORY_INDEX_FILENAME}"
    if not index_text.strip() and warning:
        body = f"Nothing of your {MEMORY_INDEX_FILENAME} could be loaded (see the warning below)."
    elif not index_text.strip():
        body = (
            f"Your {MEMORY_INDEX_FILENAME} is currently empty. When you save new memories, "
            "they will appear here."
        )
    else:
        body = index_text.rstrip("\n")
    block = f"{heading}\n\n{body}"
    if warning:
        block += f"\n\n{warning}"
    return block


TYPOLOGY_IN_PREFIX = (
    "What to save, what never to save and how to save it (types, frontmatter, the two-step "
    "save with its MEMORY.md pointer) are exactly as in the `# auto memory` section of your "
    "system prompt above."
)


def render_extraction_prompt(memory_dir: Path, manifest: str) -> str:
    """The extraction fork's final user message when its request starts with the main system
    prompt (the fork's cached prefix): the typology is there already, and one copy in the
    request is the P8/P9 guarantee; repeating it would be ~1,300 uncached tokens per fork."""
    return f"{_extraction_task(memory_dir, manifest)}\n\n{TYPOLOGY_IN_PREFIX}"


def render_standalone_extraction_prompt(memory_dir: Path, manifest: str) -> str:
    """The extraction prompt for a request whose system prompt lacks the `# auto memory`
    section (auto memory switched on after the last main request): typology included."""
    return f"{_extraction_task(memory_dir, manifest)}\n\n{render_typology()}"


def _extraction_task(memory_dir: Path, manifest: str) -> str:
    """Existing memories first (F12), then the task."""
    listing = manifest.rstrip("\n") if manifest.strip() else "(none yet: no memory files exist)"
    return (
        "## Existing memory files\n\n"
        f"{listing}\n\n"
        "Check this list before writing: if one of these files covers the topic, update it "
        "instead of creating a new one.\n\n"
        "---\n\n"
        "You are now the memory extraction subagent. Review the conversation above and save "
        "what is worth remembering in future conversations into the auto-memory directory "
        f"`{memory_dir}`. The directory already exists.\n\n"
        "Rules for this run:\n"
        "- Use only what the conversation above shows; do not investigate or verify further.\n"
        "- Tools: Read, Grep, Glob and read-only Bash (ls, cat, grep, …) anywhere; Write and "
        f"Edit only for files inside `{memory_dir}`. Every other tool and every other write is "
        "refused.\n"
        "- You have a few turns at most: read what you need first, then make all your writes "
        "together.\n"
        "- Prefer updating an existing memory file over creating a new one; never write "
        "duplicates.\n"
        "- If nothing is worth saving, reply with one short sentence and no tool calls."
    )


# req: M1
# req: M2
def render_manual_memory_guidance(project_agents_md: Path, user_agents_md: Path) -> str:
    """System-prompt section: where explicit "remember this" instructions go (M1, M2)."""
    return (
        "# Remembering on request\n\n"
        "When the user asks you to remember a standing instruction or preference:\n"
        f"- for this project: add it as a list item to `{project_agents_md}`;\n"
        f"- personal or for every project: add it as a list item to `{user_agents_md}`.\n"
        "Create the file if it is missing. Keep each item to one line, and do not add an item "
        "that is already there. The user can see and delete these items at any time."
    )


INIT_WRITE_HEADING = "## What AGENTS.md should hold"


# req: MX1
def render_init_prompt(agents_md: Path, existing: Path | None, request: str = "") -> str:
    """The `/init` turn (MX1): study the repository, then write `agents_md` — or, when a memory
    file exists, improve it without dropping anything a person wrote. The same exclusions as auto
    memory apply (P8): AGENTS.md is loaded every turn, so it holds only what the code cannot say."""
    if existing is None:
        task = (
            f"There is no AGENTS.md yet. Create `{agents_md}` with the Write tool once you have "
            "studied the repository."
        )
    else:
        task = (
            f"`{existing}` already exists and people wrote it. Read it first, then improve it "
            "with Edit calls: add what is missing, correct what is now wrong (say why in your "
            "reply), and keep every other line exactly as written. Never delete or rewrite a "
            "person's instruction silently; when one seems obsolete, leave it and name it in "
            "your reply so the user decides."
        )
    extra = f"\n\nThe user adds: {request.strip()}" if request.strip() else ""
    return (
        "Study this repository and write its AGENTS.md: the instructions every future session "
        "of a coding agent here will be given before it starts.\n\n"
        f"{task}{extra}\n\n"
        "First look around with Read, Glob, Grep and read-only Bash: the README, build and "
        "package manifests (pyproject.toml, package.json, Makefile, Cargo.toml, …), CI "
        "workflows, lint and format settings, test folders, and any CLAUDE.md, .cursorrules, "
        ".github/copilot-instructions.md or .claude/rules files whose guidance should carry "
        "over.\n\n"
        f"{INIT_WRITE_HEADING}\n\n"
        "- The exact commands to install, build, lint, format and test — including how to run "
        "a single test — as they really work here.\n"
        "- Rules a newcomer would get wrong that nothing in the repository enforces or shows: "
        "required tools and versions, environment setup, things never to do, and the reasons "
        "behind them.\n"
        "- Where to start reading, in one or two lines, only when it is not obvious.\n"
        "- Short list items, one fact each; under about 60 lines in all. Every line is paid "
        "for in every request.\n\n"
        f"{render_what_not_to_save()}\n\n"
        "Do not invent commands you did not find or could not confirm. When you are done, reply "
        "with a short summary of what you wrote or changed."
    )
