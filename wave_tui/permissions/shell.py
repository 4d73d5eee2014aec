"""Read-only shell classification: which Bash commands may run without approval.

`segment_is_read_only` is a security gate (auto-approval, the memory-extraction fork): anything
it is not sure about is classified as NOT read-only. The tokenizer is ours (not bashlex): it applies
bash's quoting rules and refuses every construct it does not model, which is what a gate needs;
a general parser would give an AST for constructs (substitutions, functions) we must refuse anyway.
"""

from __future__ import annotations

import re

from wave_tui.permissions.shell_programs import PROGRAMS
from wave_tui.permissions.shell_tokens import Segment, segment_words

_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*\+?=")


# req: PM3
def segment_is_read_only(segment: Segment) -> bool:
    """One simple command: an allow-listed program, used read-only, with no unsafe redirection."""
    words = segment_words(segment)
    if not words or _ASSIGNMENT.match(words[0]):
        return False
    rule = PROGRAMS.get(words[0])
    if rule is None:
        return False
    check, glob_sensitive = rule
    return not (glob_sensitive and segment.has_glob) and check(words[1:])


def git_directories_of(commands: list[list[str]]) -> list[str]:
    """For each `git` among the simple commands' argv, the `-C` directory it runs in."""
    found: list[str] = []
    for words in commands:
        if words[0] != "git":
            continue
        directory, i = "", 1
        while i < len(words) and words[i].startswith("-"):
            if words[i] == "-C" and i + 1 < len(words):
                step = words[i + 1]
                directory = step if not directory or step.startswith("/") else f"{directory}/{step}"
                i += 2
            else:
                i += 1
        found.append(directory)
    return found
