"""What one tool call is, analysed once where the call is parsed (`CallFacts.of`).

A Bash command is split once: its simple commands (each with whether it needs a rule and the
prefix a grant may name), the pieces deny rules are matched against, whether it is read-only and
whether its gits stay in the project's own repository. A path tool's path is resolved once to the
real path it names, with what path rules match. A WebFetch URL gives its host once. The policy,
the rules, the grants, the extraction fork's gate and the memory hooks read these facts from the
call; none of them splits the text or resolves the path again.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlsplit

from wave_tui.config.records import record
from wave_tui.files.real_paths import is_inside, is_strictly_inside, real_path, resolve_tool_path
from wave_tui.net.addresses import is_private_name
from wave_tui.permissions.command_words import command_prefix, deny_parts
from wave_tui.permissions.git_guard import gits_are_contained
from wave_tui.permissions.shell import git_directories_of, segment_is_read_only
from wave_tui.permissions.shell_tokens import segment_words, split_commands
from wave_tui.permissions.tool_table import (
    BASH,
    GLOB,
    GREP,
    WEB_FETCH,
    CallOnRow,
    ToolInfo,
    tool_info,
)

__all__ = [
    "AnalysedCall",
    "AnalysedUse",
    "CallFacts",
    "CommandFacts",
    "CommandPart",
    "private_host",
    "url_host",
]


@record
class CommandPart:
    """One simple command of a Bash call, as allow rules and grants see it."""

    text: str  # its words requoted (`shlex.join`): what a rule's pattern is compared with
    # Runs only when a rule allows it: not read-only, or it uses git (a part let through for
    # being read-only runs unhardened next to the rule's part: `echo hi; git -C <repo> status`).
    needs_rule: bool
    prefix: str | None  # the `git commit` of a `Bash(git commit:*)` grant; None: no safe prefix
    words: tuple[str, ...] = ()  # its words as the shell splits them (sandbox exclusions)


# req: X6
@record
class CommandFacts:
    """A Bash command, split once."""

    text: str
    # Each simple command; None when the command cannot be split with certainty (substitutions,
    # subshells, writing redirections): then no allow rule applies to its parts.
    parts: tuple[CommandPart, ...] | None
    deny_pieces: tuple[str, ...]  # every piece a deny rule is matched against (over-approximated)
    read_only: bool  # every part an allow-listed program used read-only (PM3)
    # Read-only, and every git in it runs in the project's own, tame repository (X5): what runs
    # without asking (hardened), in the main agent and in the extraction fork alike.
    read_only_here: bool


@record
class CallFacts:
    """What the permission layer needs to know of one call, computed once."""

    command: CommandFacts | None = None  # Bash
    target: Path | None = None  # a path tool: the real path its path argument names
    rule_paths: tuple[
        str, ...
    ] = ()  # what path rules match: the real path, and relative to the root
    in_project: bool = False  # `target` is inside the project's real root
    in_git_folder: bool = False  # `target` is inside a `.git` folder
    host: str | None = None  # WebFetch: the URL's host, lower case
    private_host: bool = False  # WebFetch: a host no allow rule may open (WF3)

    @classmethod
    def of(cls, name: str, args: Mapping[str, Any], row: ToolInfo, workdir: Path) -> CallFacts:
        if not isinstance(args, Mapping):
            return cls()  # unusable arguments: nothing to analyse (the tool refuses them)
        key = row.key_argument
        subject = args.get(key) if key is not None else None
        if name == BASH:
            command = subject if isinstance(subject, str) else None
            return cls(command=None if command is None else analyse_command(command, workdir))
        if name == WEB_FETCH:
            host = url_host(args.get("url"))
            return cls(host=host, private_host=private_host(host))
        if not isinstance(subject, str):
            return cls()
        rule_paths = path_candidates(subject, workdir)
        if not row.path_argument:
            return cls(rule_paths=rule_paths if name in (GLOB, GREP) else ())
        target = resolve_tool_path(subject, workdir)
        if target is None:
            return cls()
        return cls(
            target=target,
            rule_paths=rule_paths,
            in_project=is_inside(target, workdir),
            in_git_folder=".git" in target.parts,
        )


class AnalysedCall(CallOnRow, Protocol):
    """A parsed call with its table row and its facts: what the policy and the gates read."""

    @property
    def facts(self) -> CallFacts: ...


@record
class AnalysedUse:
    """The plainest `AnalysedCall`: a name and arguments, looked up and analysed once."""

    name: str
    args: Mapping[str, Any]
    row: ToolInfo
    facts: CallFacts

    @classmethod
    def of(cls, name: str, args: Mapping[str, Any], workdir: Path) -> AnalysedUse:
        row = tool_info(name)
        return cls(name, args, row, CallFacts.of(name, args, row, workdir))


# req: X6
def analyse_command(command: str, workdir: Path) -> CommandFacts:
    """Split `command` once into what the rules, the read-only gate and the git guard need."""
    pieces = tuple(deny_parts(command))
    segments = split_commands(command)
    if not segments:
        return CommandFacts(command, None, pieces, False, False)
    commands: list[list[str]] = []
    parts: list[CommandPart] = []
    read_only = True
    for segment in segments:
        words = segment_words(segment)
        part_read_only = segment_is_read_only(segment)
        read_only = read_only and part_read_only
        if not words:
            return CommandFacts(command, None, pieces, False, False)
        commands.append(words)
        prefix = command_prefix(words)
        parts.append(
            CommandPart(
                shlex.join(words),
                needs_rule=not part_read_only or words[0] == "git",
                prefix=None if prefix is None else shlex.join(prefix),
                words=tuple(words),
            )
        )
    here = read_only and gits_are_contained(git_directories_of(commands), workdir, workdir)
    return CommandFacts(command, tuple(parts), pieces, read_only, here)


def url_host(url: object) -> str | None:
    if not isinstance(url, str):
        return None
    try:
        host = urlsplit(url.strip()).hostname
    except ValueError:
        return None
    return host.rstrip(".").lower() if host else None


# req: WF3
def private_host(host: str | None) -> bool:
    """A host no allow rule may open: loopback, link-local, private, `.local` (WF3)."""
    if host is None:
        return True
    # Every spelling of an address (`127.1`, `0x7f000001`, `2130706433`): see net/addresses.py.
    return is_private_name(host)


def path_candidates(raw: str, workdir: Path) -> tuple[str, ...]:
    """What a path rule is matched against: the real absolute path, and its path relative to the
    real work dir when inside it. Never the raw argument: `src/../../x` or `./secret.txt` must
    not slip past a rule written for the place they really name."""
    target = resolve_tool_path(raw, workdir)
    if target is None:
        return ()
    root = real_path(workdir)
    if root is not None and is_strictly_inside(target, root):
        return (str(target), target.relative_to(root).as_posix())
    return (str(target),)
