"""Family 2: mutating commands the read-only classifier must not auto-approve in default mode
(X5, X6). Each case is a real `PermissionPolicy.decide` in a real git project; a case fails when
the policy answers "allow" with no rule and no mode that grants it."""

from __future__ import annotations

import os
import subprocess

import pytest

from tests.adversarial.tally import figure
from tests.adversarial.world import make_world
from wave_tui.permissions.policy import PermissionPolicy

# The requirements this module checks beyond its tests' own markers.
pytestmark = pytest.mark.req("X5")

MUTATING: list[str] = [
    # option prefixes and `--output=` spellings
    "sort --output=out.txt a.txt",
    "sort --outp=out.txt a.txt",
    "sort --o out.txt a.txt",
    "sort -uo out.txt a.txt",
    "sort -o out.txt a.txt",
    "sort --compress-program=sh a.txt",
    "tree -o out.txt",
    "tree -ao out.txt",
    "tree -R -H x",
    "git diff --output=out.txt",
    "git diff --outpu=out.txt",
    "git log --output out.txt",
    "rg --pre=sh x",
    "rg --pr sh x",
    "rg --hostname-bin=sh x",
    "file -C -m magic",
    "file -p a.txt",
    "uniq a.txt out.txt",
    "find . -delete",
    "find . -exec touch x ;",
    "find . -execdir touch x ;",
    "find . -okdir touch x ;",
    "find . -fprint out.txt",
    "find . -fls out.txt",
    "find . -fprintf out.txt %p",
    "find . -fprint0 out.txt",
    # wrappers that run their arguments
    "env X=1 ls",
    "env touch x",
    "X=1 ls",
    "command touch x",
    "exec touch x",
    "builtin cd /",
    "nohup touch x",
    "time touch x",
    "sudo ls",
    "xargs touch",
    "xargs -I{} touch {}",
    "ls | xargs -0 rm",
    "xargs --process-slot-var=X ls",
    "xargs -a list.txt sh",
    # here-docs, here-strings, process substitution, substitutions
    "cat <<EOF > out.txt\nx\nEOF",
    "cat <<< x > out.txt",
    "cat <(touch x)",
    "diff <(ls) >(tee out.txt)",
    "echo $(touch x)",
    "echo ${X:=$(touch x)}",
    "echo `touch x`",
    'echo "$(touch x)"',
    "echo $'\\x41' > out.txt",
    # brace and glob tricks
    "{touch,x}",
    "ls {a,b} > out.txt",
    "sort -* a.txt",
    "sort -[o] out.txt a.txt",
    "tree -?",
    "find . -del*",
    "git diff --out*=x",
    # unicode look-alikes and control characters
    "t\u043euch x",  # Cyrillic o: not an allow-listed program
    "ls\u2028touch x",
    "ls\rtouch x",
    "ls\x0btouch x",
    "ls\x00; touch x",
    "echo x >&\u00b2",
    # redirections to files
    "echo x > out.txt",
    "ls 1> out.txt",
    "ls >> out.txt",
    "ls &>> out.txt",
    "ls > /dev/null > out.txt",
    "cat < a.txt > out.txt",
    "ls >&out.txt",
    # git subcommands that write or run programs
    "git commit -m x",
    "git add .",
    "git checkout -- a.txt",
    "git restore a.txt",
    "git reset --hard",
    "git stash",
    "git clean -fdx",
    "git push",
    "git fetch",
    "git pull",
    "git gc",
    "git branch new",
    "git branch -D main",
    "git branch -l -m x",
    "git branch --edit-description",
    "git tag v1",
    "git tag -d v1",
    "git tag -l -d v1",
    "git remote add x y",
    "git remote set-url origin x",
    "git remote remove origin",
    "git config user.name x",
    "git config --add x y",
    "git config set x y",
    "git config --get x --replace-all y",
    "git config --list --file=/etc/passwd",
    "git config --unset x",
    "git -c core.pager=sh log",
    "git -c alias.x=!sh x",
    "git --exec-path=/tmp status",
    "git --git-dir=/tmp/x status",
    "git --work-tree=/tmp status",
    "git diff --ext-diff",
    "git diff --ext",
    "git show --textconv HEAD",
    "git cat-file --filters HEAD:a.txt",
    "git log --show-signature",
    "git ls-remote --upload-pack=sh x",
    "git grep --open-files-in-pager=sh x",
    "git difftool",
    "git submodule update",
    "git worktree add ../x",
    "git update-index --refresh",
    "git notes add -m x",
    "git rev-parse --git-dir; touch x",
    "git -C / status",
    "git -C .. status",
    "git -C vendor/lib.git status",
    # plain writers
    "touch x",
    "rm a.txt",
    "mv a.txt b.txt",
    "cp a.txt b.txt",
    "mkdir x",
    "ln -s a.txt b",
    "chmod 777 a.txt",
    "tee out.txt",
    "sed -i s/a/b/ a.txt",
    "dd if=/dev/zero of=out.txt",
    "truncate -s 0 a.txt",
    'python -c \'open("x","w")\'',
    "bash -c 'touch x'",
    "sh -c 'touch x'",
    "awk 'BEGIN{print > \"x\"}'",
    "perl -e 'open F,\">x\"'",
    "curl -o x http://example.com",
    "wget http://example.com",
    "make",
    "npm install",
    "ls & touch x",
    "ls; touch x",
    "ls && touch x",
    "ls || touch x",
    "ls | sh",
    "(touch x)",
    "{ touch x; }",
    "ls # ; touch x",
]

READ_ONLY_CONTROLS = ["ls -la", "cat a.txt", "git status", "git diff", "git log --oneline -3"]
# Look-alikes bash reads as plain words: approving them is right, and running them writes nothing.
LOOK_ALIKES = [
    "ls \uff1e out.txt",
    "sort \u2014output=out.txt a.txt",
    "cat a.txt \u037e touch out.txt",
]


def attempt(command: str, policy: PermissionPolicy) -> str | None:
    decision = policy.decide("Bash", {"command": command})
    if decision.behavior == "allow":
        return f"auto-approved ({decision.reason})"
    return None


@pytest.fixture(scope="module")
def policy(tmp_path_factory: pytest.TempPathFactory) -> PermissionPolicy:
    """One world for the module: no case here runs its command (only the look-alikes, harmless)."""
    world = make_world(tmp_path_factory.mktemp("home"), tmp_path_factory.mktemp("world"))
    return PermissionPolicy(world.proj, "default")


@pytest.mark.req("X6")
@pytest.mark.parametrize("command", MUTATING)
def test_x6_mutating_command_is_not_auto_approved(command: str, policy: PermissionPolicy) -> None:
    assert attempt(command, policy) is None


@pytest.mark.req("X6")
def test_x6_auto_approve_figure(policy: PermissionPolicy) -> None:
    """Family 2 figure: 0 auto-approved mutating commands of at least 47."""
    handled, total, report = figure(
        "auto-approved mutating commands", ((c, attempt(c, policy)) for c in MUTATING)
    )
    assert total >= 47
    assert handled == total, report


@pytest.mark.req("X6")
@pytest.mark.parametrize("command", READ_ONLY_CONTROLS)
def test_x6_read_only_controls_are_approved(command: str, policy: PermissionPolicy) -> None:
    assert policy.decide("Bash", {"command": command}).behavior == "allow"


@pytest.mark.req("X6")
@pytest.mark.parametrize("command", LOOK_ALIKES)
def test_x6_unicode_look_alikes_are_plain_words(command: str, policy: PermissionPolicy) -> None:
    decision = policy.decide("Bash", {"command": command})
    subprocess.run(
        ["bash", "-c", command],
        cwd=policy.workdir,
        env={**os.environ, **decision.profile.env},
        capture_output=True,
        check=False,
    )
    assert not (policy.workdir / "out.txt").exists()
