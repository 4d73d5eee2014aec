from __future__ import annotations

import pytest

from wave_tui.tools.base import spec_of
from wave_tui.tools.registry import READ_ONLY_TOOLS, builtin_tools, is_read_only_bash


def test_builtin_tools_come_in_a_fixed_order() -> None:
    assert [t.name for t in builtin_tools()] == ["Read", "Write", "Edit", "Glob", "Grep", "Bash"]


def test_read_only_flags_agree_with_the_read_only_set() -> None:
    assert {"Read", "Glob", "Grep"} == READ_ONLY_TOOLS
    assert {t.name for t in builtin_tools() if t.read_only} == READ_ONLY_TOOLS


def test_every_tool_has_a_description_and_an_object_schema() -> None:
    for tool in builtin_tools():
        spec = spec_of(tool)
        assert spec.description.strip()
        assert spec.parameters["type"] == "object"
        assert set(spec.parameters["required"]) <= set(spec.parameters["properties"])


READ_ONLY = [
    "ls",
    "ls -la src",
    "pwd",
    "cat README.md | head -20",
    "grep -rn 'def main' src | wc -l",
    "rg -n TODO --glob '*.py'",
    "find . -name '*.py' -type f",
    "git status && git diff --stat",
    "git log --oneline -10 || echo 'no history'",
    "git -C ../other log -p",
    "git branch",
    "git branch -a -v",
    "git branch --list 'feat/*'",
    "git tag",
    "git tag -l 'v1.*'",
    "git remote -v",
    "git remote show origin",
    "git config --get user.email",
    "git config --list",
    "git show HEAD:README.md; git rev-parse HEAD",
    "git blame -L 1,10 README.md",
    "stat a.txt; file a.txt; du -sh .; df -h",
    "tree -L 2",
    "sort names.txt | uniq -c",
    "diff a.txt b.txt",
    "which python",
    "echo 'a > b; rm -rf /'",
    'grep "end$" file.txt',
    "ls 2>/dev/null",
    "ls 2>&1 | head",
    "find . -name '*.log' | xargs wc -l",
    "echo a \\; rm b",
    "cat < input.txt",
]

NOT_READ_ONLY = [
    "",
    "rm -rf build",
    "rm x && ls",
    "ls && rm x",
    "ls; rm x",
    "ls | xargs rm",
    "ls\nrm x",
    "ls\r\nrm x",
    "echo hi > f",
    "echo hi >> f",
    "ls &> out.txt",
    "ls 2> errors.txt",
    "echo hi >&out.txt",
    "cat a | tee b",
    "echo $(rm x)",
    'echo "$(rm x)"',
    "echo `rm x`",
    "diff <(ls a) <(ls b)",
    "echo $HOME",
    "echo ${PATH}",
    "echo $'\\x3b'",
    "FOO=1 ls",
    "PAGER=rm git log",
    "find . -delete",
    "find . -name x -exec rm {} \\;",
    "find . -execdir rm {} +",
    "find . -fprint out.txt",
    "find . -name *.py",
    "find . -ok rm {} ;",
    "sed -i s/a/b/ f",
    "sed -n 1p f",
    "git push",
    "git commit -m x",
    "git branch -D x",
    "git branch -d x",
    "git branch -m old new",
    "git branch new-branch",
    "git tag v1.0",
    "git tag -d v1.0",
    "git remote add origin url",
    "git remote remove origin",
    "git config user.name me",
    "git config --unset user.name",
    "git -c core.pager=rm log",
    "git diff --output=patch.txt",
    "git log --ext-diff",
    "git",
    "git checkout main",
    "sort -o out.txt in.txt",
    "sort -uo out.txt in.txt",
    "sort --compress-program=sh big.txt",
    "uniq in.txt out.txt",
    "tree -o out.txt",
    "tree -R",
    "file -C -m magic",
    "rg --pre ./evil TODO",
    "echo -delete | xargs find .",
    "ls | xargs sort",
    "ls &",
    "ls & rm x",
    "ls |& rm x",
    "(rm x)",
    "{ rm x; }",
    "ls # ; rm x",
    "ls a#b; rm x",
    "echo 'unclosed",
    'echo \\"; rm b \\"',
    "/bin/rm x",
    "./script.sh",
    "bash -c ls",
    "sudo ls",
    "env ls",
    "ls &&",
    "ls ; ; pwd",
    "cat <> f",
    "cat << EOF",
    "python -c 'print(1)'",
    "npm test",
]


@pytest.mark.parametrize("command", READ_ONLY)
def test_allow_listed_read_only_commands_pass(command: str) -> None:
    assert is_read_only_bash(command) is True


@pytest.mark.parametrize("command", NOT_READ_ONLY)
def test_anything_that_may_write_or_run_other_programs_is_refused(command: str) -> None:
    assert is_read_only_bash(command) is False
