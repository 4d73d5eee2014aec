"""The read-only allow-list: programs that may run without approval, each with the check its
arguments must pass (options that write files or run programs are refused, abbreviated or not).
"""

from __future__ import annotations

from collections.abc import Callable

Checker = Callable[[list[str]], bool]


def _always(_args: list[str]) -> bool:
    return True


def _long_option_hits(arg: str, names: tuple[str, ...]) -> bool:
    """Whether `arg` (`--name` or `--name=value`) may select one of the long options `names`.

    GNU getopt_long accepts any unambiguous prefix (`sort --out=F` is `--output=F`), so a name
    that is a prefix of a banned one counts, as does one that extends it (`--pre-glob`).
    """
    if not arg.startswith("--") or arg == "--":
        return False
    name = arg[2:].split("=", 1)[0]
    return any(full.startswith(name) or name.startswith(full) for full in names)


def _no_option(*, long: tuple[str, ...] = (), short: str = "") -> Checker:
    """Reject the long options `long` (abbreviated or not, with or without `=value`) and
    short-option clusters containing any letter of `short` (`-uo` is `-u -o`).

    Every word is checked, also after `--`: `--` may itself be the value of an option
    (`sort -T -- -o out`), in which case what follows is still parsed as options.
    """

    def check(args: list[str]) -> bool:
        for arg in args:
            if arg == "--":
                continue
            if _long_option_hits(arg, long):
                return False
            is_cluster = arg.startswith("-") and not arg.startswith("--")
            if is_cluster and any(ch in short for ch in arg[1:]):
                return False
        return True

    return check


_FIND_BANNED = ("-exec", "-execdir", "-ok", "-okdir", "-delete", "-fls", "-fprint")


def _check_find(args: list[str]) -> bool:
    return not any(a.startswith(_FIND_BANNED) for a in args)


def _check_uniq(args: list[str]) -> bool:
    """`uniq IN OUT` writes OUT: allow at most one file operand."""
    operands, i, only_operands = 0, 0, False
    while i < len(args):
        arg = args[i]
        if only_operands or arg == "-" or not arg.startswith("-"):
            operands += 1
        elif arg == "--":
            only_operands = True
        elif arg in ("-f", "-s", "-w"):
            i += 1  # their value is not an operand
        i += 1
    return operands <= 1


def _list_only(
    flags: frozenset[str], value_opts: frozenset[str], prefixes: tuple[str, ...]
) -> Checker:
    """`git branch`/`git tag`: only listing options; names only as patterns after -l/--list."""

    def check(args: list[str]) -> bool:
        listing = any(a in ("-l", "--list") for a in args)
        i = 0
        while i < len(args):
            arg = args[i]
            if arg in value_opts:
                i += 1
            elif arg.split("=", 1)[0] in value_opts or arg in flags or arg.startswith(prefixes):
                pass
            elif arg.startswith("-") or not listing:
                return False
            i += 1
        return True

    return check


_BRANCH_FLAGS = frozenset(
    {"-a", "--all", "-r", "--remotes", "-v", "-vv", "--verbose", "-l", "--list", "--show-current",
     "--color", "--no-color", "--column", "--no-column", "-i", "--ignore-case", "--omit-empty"}
)  # fmt: skip
_TAG_FLAGS = frozenset(
    {"-l", "--list", "--column", "--no-column", "-i", "--ignore-case", "--omit-empty"}
)
_LIST_VALUE_OPTS = frozenset(
    {"--contains", "--no-contains", "--merged", "--no-merged", "--points-at", "--sort", "--format"}
)


def _check_git_remote(args: list[str]) -> bool:
    positional = [a for a in args if not a.startswith("-")]
    if not positional:
        return all(a in ("-v", "--verbose") for a in args)
    return positional[0] in ("show", "get-url") and all(
        a in ("-v", "--verbose", "-n", "--push", "--all") for a in args if a.startswith("-")
    )


_CONFIG_READS = frozenset({"--list", "-l", "--get", "--get-all", "--get-regexp", "--get-urlmatch"})
_CONFIG_FLAGS = frozenset(
    {"--global", "--local", "--system", "--worktree", "--show-origin", "--show-scope", "--null",
     "-z", "--name-only", "--includes", "--no-includes", "--bool", "--int", "--path"}
)  # fmt: skip


# git >= 2.46 dispatches `git config <subcommand>`; `set`, `unset`, ... write.
_CONFIG_SUBCOMMANDS = frozenset(
    {"set", "unset", "edit", "rename-section", "remove-section", "list", "get"}
)


def _check_git_config(args: list[str]) -> bool:
    if not any(a in _CONFIG_READS for a in args):
        return False
    if any(a in _CONFIG_SUBCOMMANDS for a in args):
        return False
    return all(
        a in _CONFIG_READS
        or a in _CONFIG_FLAGS
        or a.startswith(("--type=", "--default="))
        or not a.startswith("-")
        for a in args
    )


_GIT_SUBCOMMANDS: dict[str, Checker] = {
    "status": _always,
    "diff": _always,
    "log": _always,
    "show": _always,
    "ls-files": _always,
    "rev-parse": _always,
    "cat-file": _always,
    "count-objects": _always,
    "blame": _always,
    "branch": _list_only(_BRANCH_FLAGS, _LIST_VALUE_OPTS, ()),
    "tag": _list_only(_TAG_FLAGS, _LIST_VALUE_OPTS, ("-n",)),
    "remote": _check_git_remote,
    "config": _check_git_config,
}
# Options that make otherwise read-only git commands write files or run programs.
_GIT_BANNED_LONG = (
    "output", "ext-diff", "exec", "upload-pack", "receive-pack", "show-signature", "textconv",
    "filters",
)  # fmt: skip


def _check_git(args: list[str]) -> bool:
    i = 0
    while i < len(args) and args[i].startswith("-"):
        if args[i] == "-C" and i + 1 < len(args):
            i += 2  # `git -C <dir>`: same command, another repository
        elif args[i] in ("--no-pager", "-P"):
            i += 1
        else:
            return False  # -c key=value, --git-dir, ... can redirect git into running anything
    if i >= len(args):
        return False
    sub, rest = args[i], args[i + 1 :]
    check = _GIT_SUBCOMMANDS.get(sub)
    # parse-options accepts abbreviated long options too (`--out=F`), so match prefixes.
    if check is None or any(_long_option_hits(a, _GIT_BANNED_LONG) for a in rest):
        return False
    return check(rest)


# GNU xargs (getopt_long, "+0a:E:e::i::I:l::L:n:prs:txP:d:o"): options that need a value take the
# rest of their word or the next word; optional values (-e -i -l) can only be attached.
_XARGS_SHORT_REQUIRED = frozenset("aEILnsPd")
_XARGS_SHORT_OPTIONAL = frozenset("eil")
_XARGS_SHORT_FLAGS = frozenset("0prtxo")
_XARGS_LONG = {
    # name -> "required" | "optional" | "flag"
    "null": "flag", "arg-file": "required", "delimiter": "required", "eof": "optional",
    "replace": "optional", "max-lines": "optional", "max-args": "required",
    "open-tty": "flag", "interactive": "flag", "no-run-if-empty": "flag",
    "max-chars": "required", "verbose": "flag", "show-limits": "flag", "exit": "flag",
    "max-procs": "required", "process-slot-var": "required", "version": "flag", "help": "flag",
}  # fmt: skip
# Programs whose options cannot write or execute, so xargs may append arbitrary input to them.
_XARGS_TARGETS = frozenset(
    {"ls", "cat", "head", "tail", "wc", "grep", "stat", "du", "echo", "pwd", "diff", "which"}
)


def _xargs_long(name: str) -> str | None:
    """The full long option `name` selects (exact, or an unambiguous prefix), else None."""
    if name in _XARGS_LONG:
        return name
    matches = [full for full in _XARGS_LONG if full.startswith(name)]
    return matches[0] if len(matches) == 1 and name else None


def _check_xargs(args: list[str]) -> bool:
    i = 0
    replace: str | None = None  # -I/-i/--replace: the string substituted by input lines
    while i < len(args) and args[i].startswith("-") and args[i] != "-":
        arg = args[i]
        i += 1
        if arg == "--":
            break
        if arg.startswith("--"):
            name, eq, value = arg[2:].partition("=")
            full = _xargs_long(name)
            if full is None or full == "process-slot-var":
                return False  # unknown or ambiguous (xargs fails), or sets a child's environment
            kind = _XARGS_LONG[full]
            if kind == "flag" and eq:
                return False
            if kind == "required" and not eq:
                if i >= len(args):
                    return False
                value, i = args[i], i + 1
            if full == "replace":
                replace = value if eq else "{}"
            continue
        pos = 1
        while pos < len(arg):
            letter, attached = arg[pos], arg[pos + 1 :]
            pos += 1
            if letter in _XARGS_SHORT_FLAGS:
                continue
            if letter in _XARGS_SHORT_OPTIONAL:
                if letter == "i":
                    replace = attached or "{}"
                break  # the rest of the word, possibly empty, is its value
            if letter not in _XARGS_SHORT_REQUIRED:
                return False  # unknown option: xargs fails
            if not attached:
                if i >= len(args):
                    return False
                attached, i = args[i], i + 1
            if letter == "I":
                replace = attached
            break
    if i >= len(args):
        return True  # defaults to echo
    program, rest = args[i], args[i + 1 :]
    if replace is not None and (not replace or replace in program):
        return False  # input lines would be substituted into the program name
    return program in _XARGS_TARGETS and PROGRAMS[program][0](rest)


# program -> (argument checker, whether shell globbing could smuggle in a dangerous option)
PROGRAMS: dict[str, tuple[Checker, bool]] = {
    **{
        name: (_always, False)
        for name in (
            "ls",
            "cat",
            "head",
            "tail",
            "wc",
            "grep",
            "pwd",
            "echo",
            "stat",
            "du",
            "df",
            "which",
            "diff",
        )
    },
    "rg": (_no_option(long=("pre", "hostname-bin")), True),
    "find": (_check_find, True),
    "sort": (_no_option(long=("output", "compress-program"), short="o"), True),
    "uniq": (_check_uniq, True),
    # tree takes `-o FILE` / `-R` (writes 00Tree.html files with -H) also inside clusters (`-ao`).
    "tree": (_no_option(long=("output",), short="oR"), True),
    # -C compiles magic files; -p resets access times (a metadata write).
    "file": (_no_option(long=("compile", "preserve-date"), short="Cp"), True),
    "git": (_check_git, True),
    "xargs": (_check_xargs, True),
}
