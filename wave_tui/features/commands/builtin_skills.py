"""The skills wave ships: `/simplify`, `/code-review [effort]`, `/settings`, `/wave-daemon`
(004 §12, §14).

They are ordinary `SKILL.md` files in `builtin_skills/`, loaded after every user and project
skill root, so a skill of the same name in `.wave/skills`, `.claude/skills` or the user's folder
replaces one. What a file cannot know is filled in here: the session's settings paths and keys
(`/settings`), the reviewers and confidence threshold of the effort level (`/code-review`), and
how the shell runs this wave (`/wave-daemon`).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from wave_tui.config.paths import WavePaths
from wave_tui.config.records import record

BUILTIN_SKILLS_DIR = Path(__file__).with_name("builtin_skills")
BUILTIN_SCOPE = "built-in"
CODE_REVIEW = "code-review"
SETTINGS = "settings"
DAEMON_SKILL = "wave-daemon"
EFFORT = "{{EFFORT}}"
DEFAULT_EFFORT = "medium"
_REVIEWERS = ("Bug scan", "AGENTS.md audit", "Git history", "Reuse and quality", "Efficiency")


@record
class Effort:
    name: str
    agents: int  # the first `agents` of the reviewers run
    threshold: int  # findings scoring under this are dropped


EFFORTS = {
    e.name: e
    for e in (
        Effort("low", 2, 90),
        Effort("medium", 3, 80),
        Effort("high", 4, 70),
        Effort("max", 5, 60),
    )
}


class SkillArgumentError(ValueError):
    """A built-in skill's arguments it cannot run with: one line for the user."""


# req: SK2
def effort_block(args: str) -> str:
    """The effort level's reviewers and threshold, as the skill states them to the model."""
    word = args.strip().lower() or DEFAULT_EFFORT
    effort = EFFORTS.get(word)
    if effort is None:
        raise SkillArgumentError(
            f"/code-review: unknown effort {args.strip()!r}: use low, medium, high or max"
        )
    reviewers = ", ".join(f"**{r}**" for r in _REVIEWERS[: effort.agents])
    return (
        f"Effort: {effort.name}. Launch {effort.agents} reviewers in parallel: {reviewers} "
        f"(only these). Confidence threshold: {effort.threshold} — report only findings that "
        f"score {effort.threshold} or more."
    )


@cache
def settings_keys() -> str:
    """One line per settings-file key of the schema: its type and description."""
    from wave_tui.config.schema import settings_fields

    return "\n".join(
        f"- `{f.key}` ({f.type}): {f.description}" for f in settings_fields() if f.key is not None
    )


# req: DM4
def wave_command() -> str:
    """How the model's shell runs this wave (`/wave-daemon`): `wave` when that is the one on
    PATH, else this interpreter with `-m wave_tui` (a virtualenv that is not activated)."""
    import shlex
    import shutil
    import sys

    found = shutil.which("wave")
    mine = Path(sys.executable).with_name("wave")
    if found is not None and Path(found).resolve() == mine.resolve():
        return "wave"
    return f"{shlex.quote(sys.executable)} -m wave_tui"


# req: SK3
def fill_builtin(name: str, body: str, paths: WavePaths) -> str:
    """A built-in skill's body with what only the session knows filled in (at load); the
    settings key table waits for the skill's run (`builtin_arguments`): building it reads the
    whole schema, and most sessions never run /settings."""
    if name == DAEMON_SKILL:
        return body.replace("{{WAVE}}", wave_command())
    if name != SETTINGS:
        return body
    return (
        body.replace("{{USER_SETTINGS}}", str(paths.user_settings))
        .replace("{{PROJECT_SETTINGS}}", str(paths.project_settings))
        .replace("{{LOCAL_SETTINGS}}", str(paths.local_settings))
    )


def builtin_arguments(name: str, body: str, args: str) -> tuple[str, str]:
    """(body, arguments) for a built-in skill's run: `/code-review`'s effort becomes its block
    (and is no longer an argument); `/settings` gets the table of settings keys."""
    if name == CODE_REVIEW and EFFORT in body:
        return body.replace(EFFORT, effort_block(args)), ""
    if name == SETTINGS:
        return body.replace("{{SETTINGS_KEYS}}", settings_keys()), args
    return body, args
