"""Credentials must never be saved to memory: memory files are plain text that every future
session loads into its prompt (and AGENTS.md is often committed). One detector, used by every
path that writes memory: the main agent's and the extraction fork's Write/Edit into any memory
file (AGENTS.md / CLAUDE.md and their `.local` twins anywhere, rules, `~/.wave/AGENTS.md`, team
and auto memory — `is_memory_file`), judged on the whole file as it would be after the call so
a key assembled over two Edits is caught; `wave memory add` / `# text`; inbox items on accept."""

from __future__ import annotations

import functools
import math
import re
from collections import Counter
from pathlib import Path

from wave_tui.config.paths import WavePaths
from wave_tui.config.records import record
from wave_tui.files.real_paths import is_inside
from wave_tui.permissions.tool_table import WRITE

# (kind, pattern). Specific formats only: a false positive blocks a legitimate save.
_PATTERNS: tuple[tuple[str, str], ...] = (
    ("private key", r"-----BEGIN (?:[A-Z]+ )*PRIVATE KEY-----"),
    ("AWS access key", r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    ("GitHub token", r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{60,})\b"),
    ("API key", r"\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{24,}\b"),
    ("Slack token", r"\bxox[abprs]-[A-Za-z0-9-]{10,}\b"),
    ("Google API key", r"\bAIza[0-9A-Za-z_-]{35}\b"),
    ("JSON web token", r"\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}"),
    ("Stripe key", r"\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,}\b"),
    (
        # `.env` style: DB_PASSWORD=…, AWS_SECRET_ACCESS_KEY=…, export API_TOKEN="…"; a value that
        # is a reference (`${VAR}`, `$VAR`, `<placeholder>`) is no secret.
        "secret in an environment line",
        r"(?im)^[ \t]*(?:export[ \t]+)?[A-Z0-9_]*(?:PASSWORD|PASSWD|SECRET|TOKEN|API_?KEY|"
        r"ACCESS_?KEY|PRIVATE_?KEY|CREDENTIALS?)[A-Z0-9_]*[ \t]*[:=][ \t]*[\"']?(?![$<{])"
        r"[^\s\"'#]{8,}",
    ),
    (
        "password or secret assignment",
        r"(?i)\b(?:password|passwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token)"
        r"\s*[:=]\s*[\"']?(?=[^\s\"']*[0-9])(?=[^\s\"']*[A-Za-z])[^\s\"'<>]{12,}",
    ),
)


# An assignment anywhere in a line (`prod DB_PASSWORD=…`, `note AWS_SECRET_ACCESS_KEY: …`) to a
# name that says what it holds; its value is judged by `_high_entropy`, so `sort_key=name` and
# `primary key: id` pass. A reference (`${VAR}`, `$VAR`, `<placeholder>`) is no secret.
_ASSIGNMENT = (
    r"(?i)(?<![A-Za-z0-9])[A-Za-z0-9_.-]*(?:password|passwd|secret|token|key|credentials?)"
    r"[A-Za-z0-9_.-]*[\"']?[ \t]*[:=][ \t]*[\"']?(?![$<{])(?P<value>[^\s\"'<>`]{12,})"
)
ASSIGNMENT_KIND = "secret assignment"
MIN_SECRET_ENTROPY = 3.2  # bits a character: random keys are ~4 and more, words and dates less


@functools.cache
def _compiled() -> tuple[tuple[str, re.Pattern[str]], ...]:
    """Compiled at the first memory write, not at every start."""
    return tuple((kind, re.compile(pattern)) for kind, pattern in _PATTERNS)


@functools.cache
def _assignment() -> re.Pattern[str]:
    return re.compile(_ASSIGNMENT)


def _high_entropy(value: str) -> bool:
    """Whether a value looks generated: letters and digits, many distinct characters."""
    if not any(c.isdigit() for c in value) or not any(c.isalpha() for c in value):
        return False
    counts = Counter(value)
    size = len(value)
    bits = -sum(n / size * math.log2(n / size) for n in counts.values())
    return bits >= MIN_SECRET_ENTROPY


REFUSAL = (
    "Not saved: this looks like it contains a secret ({kinds}). Memory is plain text that every "
    "future session loads, so it must never hold credentials. Save where the secret lives "
    'instead (e.g. "the deploy token is in the DEPLOY_TOKEN env var").'
)


@record
class SecretFinding:
    kind: str
    preview: str  # first and last characters only: the secret itself is never repeated


def find_secrets(text: str) -> list[SecretFinding]:
    findings: list[SecretFinding] = []
    for kind, pattern in _compiled():
        for match in pattern.finditer(text):
            value = match.group(0)
            findings.append(SecretFinding(kind, f"{value[:4]}…{value[-2:]}"))
    for match in _assignment().finditer(text):
        value = match.group("value")
        if _high_entropy(value):
            findings.append(SecretFinding(ASSIGNMENT_KIND, f"{value[:4]}…{value[-2:]}"))
    return findings


def secret_refusal(text: str) -> str | None:
    """The refusal for a memory write containing a secret, or None when it looks clean."""
    findings = find_secrets(text)
    if not findings:
        return None
    kinds = ", ".join(sorted({f.kind for f in findings}))
    return REFUSAL.format(kinds=kinds)


def written_text(tool_name: str, args: dict[str, object]) -> str:
    """The text a Write/Edit call would put into a file."""
    key = "content" if tool_name == WRITE else "new_string"
    value = args.get(key)
    return value if isinstance(value, str) else ""


_MEMORY_NAMES = frozenset({"AGENTS.md", "CLAUDE.md", "AGENTS.local.md", "CLAUDE.local.md"})


def is_memory_file(path: Path, paths: WavePaths) -> bool:
    """Whether a (real) path is a file memory is loaded from: an AGENTS.md, CLAUDE.md or their
    `.local` twin in any folder, a rule, `~/.wave/AGENTS.md`, team or auto memory."""
    if path.name in _MEMORY_NAMES:
        return True
    folders = [
        *paths.project_rules_dirs,
        *paths.user_rules_dirs,
        paths.project_root / ".wave" / "memory",
        paths.memory_dir,
    ]
    return any(is_inside(path, folder) for folder in folders)


def text_after(tool_name: str, args: dict[str, object], current: str | None) -> str:
    """The whole file a Write/Edit would leave (`current`: the file now, None when missing):
    what the guard judges, so a secret split over two Edits is seen whole."""
    if tool_name == WRITE or current is None:
        return written_text(tool_name, args)
    old, new = args.get("old_string"), args.get("new_string")
    if not isinstance(old, str) or not isinstance(new, str) or not old:
        return written_text(tool_name, args)
    count = -1 if args.get("replace_all") is True else 1
    return current.replace(old, new, count)
