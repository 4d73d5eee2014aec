"""Commands that destroy what they touch (`rm`, `dd`, `mkfs`, `git push --force`, `git reset
--hard`, `chmod -R` …): the one list of them.

"Always allow" for such a command grants exactly the command the user saw, never its prefix:
one yes to `rm -rf build` must not let the model run `rm -rf ~` later in the session.
"""

from __future__ import annotations

from collections.abc import Callable

# Programs whose every run destroys or overwrites data.
DESTRUCTIVE_PROGRAMS = frozenset(
    {"rm", "rmdir", "unlink", "shred", "srm", "dd", "truncate", "wipefs", "mkswap", "mke2fs",
     "fdisk", "sfdisk", "cfdisk", "parted", "blkdiscard", "mkfs"}
)  # fmt: skip
_MKFS_PREFIX = "mkfs."  # `mkfs.ext4`, `mkfs.vfat`
# Programs that destroy with a recursive option: one `-R` reaches a whole tree.
_RECURSIVE_PROGRAMS = frozenset({"chmod", "chown", "chgrp", "setfacl"})
_FIND_DESTROYING = ("-delete", "-exec", "-execdir", "-ok", "-okdir")

_PUSH_FORCE = ("--force", "--force-with-lease", "--force-if-includes", "--mirror", "--delete")


def _program(word: str) -> str:
    return word.rsplit("/", 1)[-1]  # `/bin/rm`, `./rm` run rm


def _short_cluster_has(args: list[str], letter: str) -> bool:
    return any(a.startswith("-") and not a.startswith("--") and letter in a[1:] for a in args)


def _long_option(args: list[str], names: tuple[str, ...]) -> bool:
    return any(a.split("=", 1)[0] in names for a in args)


def _git_push(args: list[str]) -> bool:
    if _long_option(args, _PUSH_FORCE) or _short_cluster_has(args, "f"):
        return True
    if _short_cluster_has(args, "d"):
        return True  # `git push -d origin branch` deletes the remote branch
    return any(a.startswith("+") or a.startswith(":") for a in args)  # `+main`, `:branch`


def _git_reset(args: list[str]) -> bool:
    return _long_option(args, ("--hard", "--merge", "--keep"))


def _git_branch(args: list[str]) -> bool:
    forced = _long_option(args, ("--force",)) or _short_cluster_has(args, "f")
    deleting = _long_option(args, ("--delete",)) or _short_cluster_has(args, "d")
    return "-D" in args or (forced and deleting)


def _git_checkout(args: list[str]) -> bool:
    return "--" in args or _long_option(args, ("--force",)) or _short_cluster_has(args, "f")


def _git_stash(args: list[str]) -> bool:
    return args[:1] in (["drop"], ["clear"])


def _always(_args: list[str]) -> bool:
    return True


_GIT_SUBCOMMANDS: dict[str, Callable[[list[str]], bool]] = {
    "push": _git_push,
    "reset": _git_reset,
    "clean": _always,
    "branch": _git_branch,
    "checkout": _git_checkout,
    "restore": _always,
    "stash": _git_stash,
    "filter-branch": _always,
    "filter-repo": _always,
    "update-ref": lambda args: _short_cluster_has(args, "d"),
}


# req: FH15
def is_destructive(words: list[str]) -> bool:
    """Whether one simple command (its words, program first) destroys what it touches."""
    if not words:
        return False
    name = _program(words[0])
    args = words[1:]
    if name in DESTRUCTIVE_PROGRAMS or name.startswith(_MKFS_PREFIX):
        return True
    if name in _RECURSIVE_PROGRAMS:
        return _short_cluster_has(args, "R") or _long_option(args, ("--recursive",))
    if name == "find":
        return any(a in _FIND_DESTROYING for a in args)
    if name == "git" and args and not args[0].startswith("-"):
        check = _GIT_SUBCOMMANDS.get(args[0])
        return check is not None and check(args[1:])
    return False
