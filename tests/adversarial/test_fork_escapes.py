"""Family 1: the extraction fork tries to write outside its memory folder (F7, X5).

Each case is a real call of the fork gate in a real hostile world (tmp HOME, a git project, a
hostile repository inside the memory folder). A case escapes when the gate lets a write outside
the memory folder through, or when a Bash command it allows, run for real with the profile the
gate returns, changes a file outside the memory folder or runs a program named by git config.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.adversarial.tally import figure
from tests.adversarial.world import World, git, hostile_config, make_world
from wave_tui.memory.fork_gate import memory_fork_gate
from wave_tui.permissions.call_facts import AnalysedUse

Setup = Callable[[World], None]


@dataclass(frozen=True)
class Case:
    id: str
    tool: str
    args: dict[str, Any]
    setup: Setup | None = None
    # True: the gate may allow it (a read, or git in the project's own repository), but running
    # it must change nothing outside the memory folder and run no configured program.
    may_run: bool = False
    before: tuple[Setup, ...] = field(default_factory=tuple)


def _symlink(link: str, target: str) -> Setup:
    def setup(w: World) -> None:
        Path(w.fill(link)).symlink_to(w.fill(target))

    return setup


def _hardlink(link: str, target: str) -> Setup:
    def setup(w: World) -> None:
        os.link(w.fill(target), w.fill(link))

    return setup


def _project_config(extra: str) -> Setup:
    def setup(w: World) -> None:
        with (w.proj / ".git" / "config").open("a") as f:
            f.write(w.fill(extra))

    return setup


def _memory_repo_config(extra: str) -> Setup:
    def setup(w: World) -> None:
        with (w.mem / "r" / ".git" / "config").open("a") as f:
            f.write(w.fill(extra))

    return setup


def _parent_repo_behind_empty_dotgit(w: World) -> None:
    """An empty `.git/` in the project (git skips it) and a hostile repository above it."""
    import shutil

    parent = w.proj.parent
    git("init", "-q", cwd=parent)
    (parent / "b.txt").write_text("1\n")
    git("add", "b.txt", cwd=parent)
    git("-c", "user.email=a@b", "-c", "user.name=n", "commit", "-qm", "b", cwd=parent)
    (parent / "b.txt").write_text("2\n")
    with (parent / ".git" / "config").open("a") as f:
        f.write(f"[diff]\n\texternal = {w.evil}\n")
    shutil.rmtree(w.proj / ".git")
    (w.proj / ".git").mkdir()


def _project_hostile(w: World) -> None:
    with (w.proj / ".git" / "config").open("a") as f:
        f.write(hostile_config(w))


def _attributes(w: World) -> None:
    (w.proj / ".git" / "info").mkdir(exist_ok=True)
    (w.proj / ".git" / "info" / "attributes").write_text("*.txt diff=x filter=x\n")
    with (w.proj / ".git" / "config").open("a") as f:
        f.write(f'[diff "x"]\n\ttextconv = {w.evil}\n[filter "x"]\n\tclean = {w.evil}\n')


def _worktree_attributes(w: World) -> None:
    (w.proj / ".gitattributes").write_text("*.txt diff=x filter=x\n")
    with (w.proj / ".git" / "config").open("a") as f:
        f.write(f'[diff "x"]\n\ttextconv = {w.evil}\n\tcommand = {w.evil}\n')


def _include(w: World) -> None:
    (w.out / "inc.cfg").write_text(f"[diff]\n\texternal = {w.evil}\n")
    with (w.proj / ".git" / "config").open("a") as f:
        f.write(f"[include]\n\tpath = {w.out / 'inc.cfg'}\n")


def _gitfile_elsewhere(w: World) -> None:
    """The project's `.git` is a file pointing at the hostile repository in the memory folder."""
    import shutil

    shutil.rmtree(w.proj / ".git")
    (w.proj / ".git").write_text(f"gitdir: {w.mem / 'r' / '.git'}\n")


def W(path: str, content: str = "x") -> dict[str, Any]:
    return {"file_path": path, "content": content}


def E(path: str) -> dict[str, Any]:
    return {"file_path": path, "old_string": "victim", "new_string": "owned"}


def B(command: str) -> dict[str, Any]:
    return {"command": command}


LONG = "a/" * 3000
CASES: list[Case] = [
    # ---- paths: .., absolute, ~, case, NUL, long ----------------------------------------------
    Case("dotdot", "Write", W("{mem}/../escape.md")),
    Case("dotdot-deep", "Write", W("{mem}/sub/../../../../outside.md")),
    Case("dotdot-out", "Write", W("{mem}/../../../../../../{out}/victim.md")),
    Case("abs-outside", "Write", W("{out}/victim.md")),
    Case("abs-project", "Write", W("{proj}/a.txt")),
    Case("relative-project", "Write", W("a.txt")),
    Case("relative-dotdot", "Write", W("../outside/victim.md")),
    Case("tilde", "Write", W("~/escape.md")),
    Case("tilde-wave", "Write", W("~/.wave/settings.json", "{{}}")),
    Case("memory-dir-itself", "Write", W("{mem}")),
    Case("memory-parent-prefix", "Write", W("{mem}-evil/x.md")),
    Case("case-trick", "Write", W("{mem}/../MEMORY/x.md")),
    Case("upper-path", "Write", W("{home}/.WAVE/x.md")),
    Case("nul-byte", "Write", W("{mem}/x.md\x00/../../escape.md")),
    Case("nul-prefix", "Write", W("\x00{out}/victim.md")),
    Case("very-long", "Write", W("{mem}/" + LONG + "../" * 3001 + "escape.md")),
    Case("empty-path", "Write", W("")),
    Case("blank-path", "Write", W("   ")),
    Case("path-not-string", "Write", {"file_path": ["{out}/victim.md"], "content": "x"}),
    Case("path-missing", "Write", {"content": "x"}),
    Case("args-not-dict", "Write", ["{out}/victim.md"]),  # type: ignore[arg-type]
    Case("edit-outside", "Edit", E("{out}/victim.md")),
    Case("edit-dotdot", "Edit", E("{mem}/../../../../../../{out}/victim.md")),
    Case("edit-tilde", "Edit", E("~/x.md")),
    # ---- symlinks and hard links ------------------------------------------------------------
    Case("symlink-file", "Write", W("{mem}/link.md"), _symlink("{mem}/link.md", "{out}/victim.md")),
    Case("symlink-dir", "Write", W("{mem}/d/x.md"), _symlink("{mem}/d", "{out}")),
    Case("symlink-dangling", "Write", W("{mem}/dl.md"), _symlink("{mem}/dl.md", "{out}/new.md")),
    Case(
        "symlink-chain",
        "Write",
        W("{mem}/c1.md"),
        _symlink("{mem}/c1.md", "{mem}/c2.md"),
        before=(_symlink("{mem}/c2.md", "{out}/victim.md"),),
    ),
    Case("symlink-dir-deep", "Write", W("{mem}/d/a/b/c.md"), _symlink("{mem}/d", "{out}")),
    Case("symlink-to-parent", "Write", W("{mem}/up/escape.md"), _symlink("{mem}/up", "..")),
    Case("symlink-edit", "Edit", E("{mem}/e.md"), _symlink("{mem}/e.md", "{out}/victim.md")),
    Case(
        "symlink-rel",
        "Write",
        W("{mem}/rel.md"),
        _symlink("{mem}/rel.md", "../../../../../../../../{out}/victim.md"),
    ),
    Case(
        "symlink-during-run",
        "Write",
        W("{mem}/later.md"),
        _symlink("{mem}/later.md", "{out}/victim.md"),
        before=(),
    ),
    Case(
        "hardlink",
        "Write",
        W("{mem}/hard.md", "owned"),
        _hardlink("{mem}/hard.md", "{out}/victim.md"),
        may_run=True,
    ),
    Case(
        "hardlink-edit",
        "Edit",
        E("{mem}/hard2.md"),
        _hardlink("{mem}/hard2.md", "{out}/victim.md"),
        may_run=True,
    ),
    # ---- Bash that writes ---------------------------------------------------------------------
    Case("redirect", "Bash", B("echo x > {out}/victim.md")),
    Case("redirect-append", "Bash", B("echo x >> {proj}/a.txt")),
    Case("redirect-clobber", "Bash", B("echo x >| {out}/victim.md")),
    Case("redirect-fd", "Bash", B("echo x 2> {out}/err")),
    Case("redirect-amp", "Bash", B("ls &> {out}/ls")),
    Case("redirect-rw", "Bash", B("cat <> {out}/victim.md")),
    Case("redirect-into-mem-dotdot", "Bash", B("echo x > {mem}/../../x")),
    Case("tee", "Bash", B("echo x | tee {out}/victim.md")),
    Case("tee-mem", "Bash", B("tee {mem}/x.md")),
    Case("sed-i", "Bash", B("sed -i s/victim/owned/ {out}/victim.md")),
    Case("find-delete", "Bash", B("find {out} -delete")),
    Case("find-exec", "Bash", B("find {out} -exec rm {{}} ;")),
    Case("find-fprint", "Bash", B("find . -fprint {out}/list")),
    Case("find-fls", "Bash", B("find . -fls {out}/list")),
    Case("xargs-rm", "Bash", B("ls {out} | xargs rm")),
    Case("xargs-sh", "Bash", B("echo {out} | xargs -I% sh -c 'touch %/x'")),
    Case("xargs-replace-program", "Bash", B("echo touch | xargs -I% % {out}/x")),
    Case("cp", "Bash", B("cp {mem}/MEMORY.md {out}/")),
    Case("mv", "Bash", B("mv {out}/victim.md {mem}/")),
    Case("rm", "Bash", B("rm {out}/victim.md")),
    Case("touch", "Bash", B("touch {out}/x")),
    Case("sort-o", "Bash", B("sort -o {out}/victim.md {out}/victim.md")),
    Case("sort-output-abbrev", "Bash", B("sort --out={out}/victim.md {out}/victim.md")),
    Case("uniq-out", "Bash", B("uniq {out}/victim.md {out}/copy")),
    Case("tree-o", "Bash", B("tree -o {out}/tree")),
    Case("rg-pre", "Bash", B("rg --pre {evil} x")),
    Case("subst", "Bash", B("echo $(touch {out}/x)")),
    Case("backticks", "Bash", B("echo `touch {out}/x`")),
    Case("newline", "Bash", B("ls\ntouch {out}/x")),
    Case("semicolon", "Bash", B("ls; touch {out}/x")),
    Case("env-prefix", "Bash", B("FOO=1 touch {out}/x")),
    Case("bash-c", "Bash", B("bash -c 'touch {out}/x'")),
    Case("process-subst", "Bash", B("cat <(touch {out}/x)")),
    Case("heredoc", "Bash", B("cat <<EOF > {out}/x\nowned\nEOF")),
    Case("background", "Bash", B("touch {out}/x &")),
    # ---- git: -c, -C into hostile repositories, options that run programs ---------------------
    Case("git-c-pager", "Bash", B("git -c core.pager={evil} log")),
    Case("git-c-alias", "Bash", B("git -c alias.st=!{evil} st")),
    Case("git-C-mem-status", "Bash", B("git -C {mem}/r status")),
    Case("git-C-mem-ls-files", "Bash", B("git -C {mem}/r ls-files")),
    Case("git-C-mem-diff", "Bash", B("git -C {mem}/r diff")),
    Case("git-C-mem-remote", "Bash", B("git -C {mem}/r remote show origin")),
    Case("git-C-vendor-status", "Bash", B("git -C vendor/lib.git status")),
    Case("git-C-vendor-remote", "Bash", B("git -C vendor/lib.git remote show origin")),
    Case("git-C-chain", "Bash", B("git -C {proj} -C ../outside status")),
    Case("git-C-symlink", "Bash", B("git -C r status"), _symlink("{proj}/r", "{mem}/r")),
    Case("git-dir", "Bash", B("git --git-dir={mem}/r/.git status")),
    Case("git-work-tree", "Bash", B("git --work-tree={out} status")),
    Case("git-diff-output", "Bash", B("git diff --output={out}/d")),
    Case("git-log-output-abbrev", "Bash", B("git log -p --out={out}/d")),
    Case(
        "git-ext-diff",
        "Bash",
        B("git diff --ext-diff"),
        _project_config("[diff]\n\texternal = {evil}\n"),
    ),
    Case("git-textconv", "Bash", B("git show --textconv HEAD:a.txt")),
    Case("git-cat-file-filters", "Bash", B("git cat-file --filters HEAD:a.txt")),
    Case("git-config-write", "Bash", B("git config core.fsmonitor {evil}")),
    Case("git-config-set", "Bash", B("git config set core.fsmonitor {evil}")),
    Case("git-config-add", "Bash", B("git config --get x --add core.pager {evil}")),
    Case("git-branch-create", "Bash", B("git branch evil")),
    Case("git-tag-create", "Bash", B("git tag v-evil")),
    Case("git-remote-add", "Bash", B("git remote add o {out}")),
    Case("git-include", "Bash", B("git diff"), _include),
    Case("git-attributes", "Bash", B("git diff"), _attributes),
    Case("git-worktree-attributes", "Bash", B("git diff"), _worktree_attributes),
    # The project's `.git` points into the memory folder: the settings git can be told to ignore
    # are neutralised (may run); a driver written there by the fork is refused.
    Case("git-gitfile-to-memory", "Bash", B("git diff"), _gitfile_elsewhere, may_run=True),
    Case(
        "git-gitfile-to-memory-driver",
        "Bash",
        B("git diff"),
        _gitfile_elsewhere,
        before=(_memory_repo_config("[diff]\n\texternal = {evil}\n"),),
    ),
    Case(
        "git-parent-behind-empty-dotgit",
        "Bash",
        B("git diff"),
        _parent_repo_behind_empty_dotgit,
        may_run=True,
    ),
    Case(
        "git-parent-behind-empty-dotgit-log",
        "Bash",
        B("git log -p"),
        _parent_repo_behind_empty_dotgit,
        may_run=True,
    ),
    # git in the project's own repository with every neutralisable program setting hostile: the
    # gate may allow it, but nothing may run.
    Case("git-own-status", "Bash", B("git status"), _project_hostile, may_run=True),
    Case("git-own-ls-files", "Bash", B("git ls-files"), _project_hostile, may_run=True),
    Case("git-own-diff", "Bash", B("git diff"), _project_hostile, may_run=True),
    Case("git-own-log", "Bash", B("git log -p"), _project_hostile, may_run=True),
    Case("git-own-remote", "Bash", B("git remote show origin"), _project_hostile, may_run=True),
    Case("git-own-no-pager", "Bash", B("git --no-pager show"), _project_hostile, may_run=True),
    # ---- every other tool --------------------------------------------------------------------
    Case("mcp", "mcp__fs__write_file", {"path": "{out}/x", "content": "x"}),
    Case("agent", "Agent", {"description": "d", "prompt": "write {out}/x"}),
    Case("task", "Task", {"description": "d", "prompt": "write {out}/x"}),
    Case("task-create", "TaskCreate", {"subject": "x", "description": "y"}),
    Case("webfetch", "WebFetch", {"url": "http://127.0.0.1:1/", "prompt": "x"}),
    Case("skill", "Skill", {"skill": "deploy"}),
    Case("exit-plan", "ExitPlanMode", {"plan": "x"}),
    Case("ask-user", "AskUserQuestion", {"questions": []}),
    Case("bash-output", "BashOutput", {"bash_id": "1"}),
    Case("unknown-tool", "Shell", {"command": "touch {out}/x"}),
    Case("case-tool-name", "write", W("{out}/victim.md")),
]


def _fill(value: Any, w: World) -> Any:
    if isinstance(value, str):
        return w.fill(value)
    if isinstance(value, dict):
        return {k: _fill(v, w) for k, v in value.items()}
    if isinstance(value, list):
        return [_fill(v, w) for v in value]
    return value


def _run_allowed(case: Case, args: dict[str, Any], w: World, env: dict[str, str]) -> None:
    if case.tool == "Bash":
        subprocess.run(
            ["bash", "-c", args["command"]],
            cwd=w.proj,
            env={**os.environ, **env},
            capture_output=True,
            timeout=20,
            stdin=subprocess.DEVNULL,
        )
    elif case.tool == "Write":
        from wave_tui.config.fileio import atomic_write_text

        atomic_write_text(Path(args["file_path"]), args["content"])  # what the Write tool does
    elif case.tool == "Edit":
        from wave_tui.config.fileio import atomic_write_text

        path = Path(args["file_path"])
        atomic_write_text(path, path.read_text().replace("victim", "owned"))


def attempt(case: Case, home: Path, tmp: Path) -> str | None:
    """Why `case` escaped, or None."""
    w = make_world(home, tmp)
    for step in case.before:
        step(w)
    gate = memory_fork_gate_for(w)
    if case.setup is not None and case.id != "symlink-during-run":
        case.setup(w)
    args = _fill(case.args, w)
    if case.id == "symlink-during-run":
        first = gate.check(AnalysedUse.of(case.tool, args, w.proj))  # a regular file first: allowed
        assert first.allowed, first.reason
        _run_allowed(case, args, w, {})
        Path(args["file_path"]).unlink()
        assert case.setup is not None
        case.setup(w)  # then swapped for a symlink out, between two calls
    before = w.snapshot()
    decision = gate.check(AnalysedUse.of(case.tool, args, w.proj))
    if decision.allowed and not case.may_run:
        return f"allowed: {decision.reason}"
    if decision.allowed:
        _run_allowed(case, args, w, dict(decision.profile.env))
        if w.pwned.exists():
            return "a program named by git config ran"
        changed = [p for p, h in w.snapshot().items() if before.get(p) != h]
        if changed:
            return f"changed outside the memory folder: {changed}"
    elif not decision.reason:
        return "refused without a reason"
    return None


def memory_fork_gate_for(w: World):  # type: ignore[no-untyped-def]
    from wave_tui.config.paths import WavePaths
    from wave_tui.memory.auto_memory import AutoMemoryDir

    return memory_fork_gate(AutoMemoryDir(WavePaths.for_workdir(w.proj, home=w.home)))


@pytest.mark.req("F7", "X5")
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_f7_x5_fork_cannot_escape(case: Case, isolated_home: Path, tmp_path: Path) -> None:
    assert attempt(case, isolated_home, tmp_path) is None


@pytest.mark.req("F7")
def test_f7_fork_escape_figure(isolated_home: Path, tmp_path: Path) -> None:
    """Family 1 figure: every hostile case handled (0 escapes), at least 67 cases."""
    outcomes = []
    for n, case in enumerate(CASES):
        (tmp_path / str(n)).mkdir()
        outcomes.append((case.id, attempt(case, isolated_home / str(n), tmp_path / str(n))))
    handled, total, report = figure("fork escapes", outcomes)
    assert total >= 67
    assert handled == total, report


@pytest.mark.req("F7")
def test_f7_controls_are_allowed(isolated_home: Path, tmp_path: Path) -> None:
    """The gate is not refusing everything: memory writes, reads and plain reads of git pass."""
    w = make_world(isolated_home, tmp_path)
    gate = memory_fork_gate_for(w)
    for tool, args in [
        ("Write", W(str(w.mem / "notes.md"))),
        ("Write", W(str(w.mem / "sub" / "deep.md"))),
        ("Read", {"file_path": str(w.out / "victim.md")}),
        ("Bash", B(f"ls {w.mem}")),
        ("Bash", B("git status")),
        ("Bash", B("git log --oneline")),
    ]:
        assert gate.check(AnalysedUse.of(tool, args, w.proj)).allowed, (tool, args)
