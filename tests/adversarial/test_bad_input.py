"""Family 4: a bad-input corpus against the installed `wave` (X9, X10, X11, S-rules, HL).

Each item is a real `wave` subprocess in its own HOME and project against the scripted model
server. Handled cleanly means: the exit code the contract documents (0 when wave can carry on,
2 for a configuration or usage error, 1 for a failed run), no traceback, at most one line per
problem on stderr (each `wave: …`; argparse's usage block aside), an answer when it carries on,
and nothing lost: every file the item planted is still there, byte for byte (a transcript may
grow; a cut-off fragment may move to a `.corrupt` side file).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.adversarial.runner import Result, Run, run, run_all
from tests.adversarial.tally import figure
from tests.model_server import ModelServer
from wave_tui.config.paths import WavePaths

# The requirements this module checks beyond its tests' own markers.
pytestmark = pytest.mark.req("M5", "X11")

OK, FAILED, USAGE = 0, 1, 2


@dataclass(frozen=True)
class Item:
    id: str
    setup: Callable[[Path, Path], Run]  # (home, project) -> how wave is run
    codes: AbstractSet[int]
    problems: int = 1  # stderr lines allowed
    names: str = ""  # what the stderr line must mention (the file, the flag)


def _prompt(home: Path, proj: Path) -> Run:
    return Run(["-p", "hi"])


def _file(
    where: str, data: bytes | str, run: Callable[[Path, Path], Run] = _prompt
) -> Callable[[Path, Path], Run]:
    def setup(home: Path, proj: Path) -> Run:
        path = (home if where.startswith("~/") else proj) / where.removeprefix("~/")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data.encode() if isinstance(data, str) else data)
        return run(home, proj)

    return setup


def _user_settings(data: bytes | str) -> Callable[[Path, Path], Run]:
    return _file("~/.wave/settings.json", data)


def _project_settings(data: bytes | str) -> Callable[[Path, Path], Run]:
    return _file(".wave/settings.json", data)


def _wrong(key: str, value: object) -> Callable[[Path, Path], Run]:
    return _user_settings(json.dumps({key: value}))


def _cli(*args: str, stdin: bytes = b"") -> Callable[[Path, Path], Run]:
    def setup(home: Path, proj: Path) -> Run:
        return Run(list(args), stdin=stdin)

    return setup


def _owned(make: Callable[[Path, WavePaths], object]) -> Callable[[Path, Path], Run]:
    def setup(home: Path, proj: Path) -> Run:
        make(home, WavePaths.for_workdir(proj, home=home))
        return Run(["-p", "hi"])

    return setup


def _plant_file(where: Callable[[Path, WavePaths], Path]) -> Callable[[Path, Path], Run]:
    """A file where wave owns a folder."""

    def make(home: Path, paths: WavePaths) -> None:
        path = where(home, paths)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("not a folder")

    return _owned(make)


GOOD_LINE = {
    "role": "user",
    "content": "remember the blue door",
    "id": "msg_1",
    "toolCalls": [],
    "isMeta": False,
    "kind": "normal",
    "timestamp": "2026-01-01T00:00:00.000Z",
    "meta": {},
}


def _transcript(*lines: bytes) -> Callable[[Path, Path], Run]:
    def setup(home: Path, proj: Path) -> Run:
        path = WavePaths.for_workdir(proj, home=home).transcript(
            "0b0e0000-0000-4000-8000-000000000001"
        )
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"".join(lines))
        return Run(["-p", "again", "--continue"])

    return setup


# A billion-laughs frontmatter under one unknown key (9**6 nodes if expanded).
BOMB = (
    "---\nx: [&a [x,x,x,x,x,x,x,x,x]"
    + "".join(f", &{n} [{','.join(['*' + p] * 9)}]" for p, n in zip("abcde", "bcdef", strict=True))
    + "]\n---\nbody\n"
)
good = (json.dumps(GOOD_LINE) + "\n").encode()
SETTINGS = "settings.json"
ITEMS: list[Item] = [
    # ---- malformed settings files: every JSON error kind ------------------------------------
    Item("empty", _user_settings(""), {OK}, problems=0),  # an empty file is no settings
    Item("truncated", _user_settings('{"model": "x"'), {OK}, names=SETTINGS),
    Item("trailing-comma", _user_settings('{"language": "en",}'), {OK}, names=SETTINGS),
    Item("comment", _user_settings('// c\n{"language": "en"}'), {OK}, names=SETTINGS),
    Item("unquoted-key", _user_settings("{language: 1}"), {OK}, names=SETTINGS),
    Item("bad-escape", _user_settings('{"language": "\\q"}'), {OK}, names=SETTINGS),
    Item("nan", _user_settings('{"firstByteTimeout": NaN}'), {OK}, names=SETTINGS),
    Item("infinity", _user_settings('{"firstByteTimeout": Infinity}'), {OK}, names=SETTINGS),
    Item("top-level-array", _user_settings("[]"), {OK}, names=SETTINGS),
    Item("top-level-string", _user_settings('"x"'), {OK}, names=SETTINGS),
    Item("deep-nesting", _user_settings("[" * 100_000 + "]" * 100_000), {OK}, names=SETTINGS),
    Item(
        "huge-exponent", _user_settings('{"autoMemoryFrequency": 1e999999}'), {OK}, names=SETTINGS
    ),
    Item(
        "huge-int",
        _user_settings('{"autoMemoryFrequency": ' + "9" * 5000 + "}"),
        {OK},
        names=SETTINGS,
    ),
    Item("bom", _user_settings(b'\xef\xbb\xbf{"language": "en"}'), {OK}, problems=1),
    Item("utf16", _user_settings('{"language": "en"}'.encode("utf-16")), {OK}, names=SETTINGS),
    Item("binary", _user_settings(bytes(range(256)) * 4), {OK}, names=SETTINGS),
    Item(
        "latin1",
        _user_settings('{"language": "fran\xe7ais"}'.encode("latin-1")),
        {OK},
        names=SETTINGS,
    ),
    Item(
        "settings-is-folder",
        _owned(lambda h, p: (h / ".wave" / "settings.json").mkdir(parents=True)),
        {OK, USAGE},
        names=SETTINGS,
    ),
    Item("project-truncated", _project_settings('{"permissions": {'), {OK}, names=SETTINGS),
    Item("project-binary", _project_settings(b"\x00\xff\xfe" * 100), {OK}, names=SETTINGS),
    # ---- wrong types per key ---------------------------------------------------------------
    Item("model-int", _wrong("model", 5), {OK}, names="model"),
    Item("permissions-string", _wrong("permissions", "allow all"), {OK}, names="permissions"),
    Item("allow-string", _wrong("permissions", {"allow": "Bash"}), {OK}, names="allow"),
    Item(
        "default-mode-bogus",
        _wrong("permissions", {"defaultMode": "yolo"}),
        {OK},
        names="defaultMode",
    ),
    Item("env-list", _wrong("env", ["A=1"]), {OK}, names="env"),
    Item("hooks-string", _wrong("hooks", "x"), {OK}, names="hooks"),
    Item("auto-memory-string", _wrong("autoMemoryEnabled", "yes"), {OK}, names="autoMemoryEnabled"),
    Item("frequency-zero", _wrong("autoMemoryFrequency", 0), {OK}, names="autoMemoryFrequency"),
    Item("timeout-negative", _wrong("firstByteTimeout", -1), {OK}, names="firstByteTimeout"),
    # ---- AGENTS.md and rules -----------------------------------------------------------------
    Item(
        "agents-binary", _file("AGENTS.md", b"\x00\x01\x02PK\x03\x04" * 50), {OK}, names="AGENTS.md"
    ),
    Item(
        "agents-latin1",
        _file("AGENTS.md", "caf\xe9 au lait\n".encode("latin-1")),
        {OK},
        names="AGENTS.md",
    ),
    Item("agents-huge-line", _file("AGENTS.md", "x" * 3_000_000), {OK}, problems=1),
    Item(
        "user-agents-binary",
        _file("~/.wave/AGENTS.md", b"\x7fELF\x00\x00" * 40),
        {OK},
        names="AGENTS.md",
    ),
    Item("rule-binary", _file(".wave/rules/bin.md", b"\x00\xff" * 100), {OK}, names="bin.md"),
    Item(
        "rule-latin1",
        _file(".wave/rules/l1.md", "r\xe8gle\n".encode("latin-1")),
        {OK},
        names="l1.md",
    ),
    Item(
        "rule-bad-yaml",
        _file(".wave/rules/y.md", "---\npaths: [unclosed\n---\nbody\n"),
        {OK},
        names="y.md",
    ),
    Item(
        "rule-unclosed-frontmatter",
        _file(".wave/rules/u.md", "---\npaths: x\nbody\n"),
        {OK},
        problems=1,
    ),
    Item(
        "rule-paths-int", _file(".wave/rules/pi.md", "---\npaths: 5\n---\nbody\n"), {OK}, problems=1
    ),
    Item(
        "rule-folder-named-md",
        _owned(lambda h, p: (p.project_root / ".wave" / "rules" / "d.md").mkdir(parents=True)),
        {OK},
        problems=1,
    ),
    Item("rule-yaml-bomb", _file(".wave/rules/bomb.md", BOMB), {OK}, problems=1),
    # ---- wrong-type owned paths -----------------------------------------------------------
    Item(
        "wave-home-file",
        _owned(lambda h, p: (h / ".wave").write_text("x")),
        {USAGE},
        names="~/.wave",
    ),
    Item(
        "locks-file",
        _plant_file(lambda h, p: h / ".wave" / "locks"),
        {USAGE},
        names="locks",
    ),
    Item(
        "projects-file",
        _plant_file(lambda h, p: h / ".wave" / "projects"),
        {USAGE},
        names="projects",
    ),
    Item(
        "project-dir-file",
        _plant_file(lambda h, p: p.project_dir),
        {USAGE},
        names=".wave/projects",
    ),
    # Memory sources (M5): the run goes on. Auto memory is off in this corpus, so its folder is
    # not read at all (tests/e2e/test_config_faults.py has the warnings with it on).
    Item("memory-file", _plant_file(lambda h, p: p.memory_dir), {OK}, problems=0),
    Item(
        "memory-index-folder",
        _owned(lambda h, p: (p.memory_dir / "MEMORY.md").mkdir(parents=True)),
        {OK},
        problems=0,
    ),
    Item(
        "agents-folder",
        _owned(lambda h, p: p.project_agents_md.mkdir()),
        {OK},
        names="AGENTS.md",
    ),
    # ---- bad CLI flags and values ----------------------------------------------------------
    Item("flag-unknown", _cli("--bogus"), {USAGE}, names="--bogus"),
    Item("mode-bogus", _cli("-p", "hi", "--permission-mode", "yolo"), {USAGE}, names="yolo"),
    Item("format-bogus", _cli("-p", "hi", "--output-format", "xml"), {USAGE}, names="xml"),
    Item("max-turns-word", _cli("-p", "hi", "--max-turns", "many"), {USAGE}, names="max-turns"),
    Item("max-turns-negative", _cli("-p", "hi", "--max-turns", "-1"), {USAGE}, names="max-turns"),
    Item("max-turns-huge", _cli("-p", "hi", "--max-turns", "9" * 30), {OK, USAGE}, problems=1),
    Item(
        "resume-unknown",
        _cli("-p", "hi", "-r", "no-such-session"),
        {USAGE, FAILED},
        names="no-such-session",
    ),
    Item(
        "resume-traversal",
        _cli("-p", "hi", "-r", "../../../etc/passwd"),
        {USAGE, FAILED},
        problems=1,
    ),
    Item("continue-and-resume", _cli("-p", "hi", "-c", "-r", "x"), {USAGE}, problems=1),
    Item(
        "workdir-missing",
        _cli("-p", "hi", "--workdir", "/nonexistent/dir"),
        {USAGE},
        names="/nonexistent/dir",
    ),
    Item(
        "workdir-file",
        _cli("-p", "hi", "--workdir", "/etc/hostname"),
        {USAGE},
        names="/etc/hostname",
    ),
    Item(
        "allowed-tools-unclosed",
        _cli("-p", "hi", "--allowedTools", "Bash("),
        {OK, USAGE},
        problems=1,
    ),
    Item(
        "local-model-missing",
        _cli("-p", "hi", "--local-model", "/nope.gguf"),
        {USAGE, FAILED},
        names="/nope.gguf",
    ),
    Item("continue-nothing", _cli("-p", "hi", "-c"), {OK, USAGE}, problems=1),
    # ---- malformed transcripts for --continue ------------------------------------------------
    Item("torn-last-line", _transcript(good, good[: len(good) // 2]), {OK}, problems=1),
    Item("garbage-line", _transcript(good, b"#$%^ not json\n", good), {OK}, problems=1),
    Item(
        "huge-line",
        _transcript(good, b'{"role":"user","content":"' + b"x" * 3_000_000 + b'"}\n'),
        {OK},
        problems=1,
    ),
    Item("binary-transcript", _transcript(bytes(range(256)) * 20), {OK}, problems=1),
    Item("empty-transcript", _transcript(b""), {OK}, problems=1),
    Item("json-not-object", _transcript(good, b"[1,2,3]\n42\n"), {OK}, problems=1),
    Item(
        "wrong-field-types",
        _transcript(good, b'{"role": 5, "content": {"a": 1}, "toolCalls": "x"}\n'),
        {OK},
        problems=1,
    ),
    Item(
        "invalid-utf8-line",
        _transcript(good, b'{"role":"user","content":"\xff\xfe"}\n'),
        {OK},
        problems=1,
    ),
    # ---- odd prompts -------------------------------------------------------------------------
    Item("prompt-nul", _cli("-p", stdin=b"hello\x00world"), {OK}, problems=1),
    Item("prompt-1mb", _cli("-p", stdin=b"word " * 200_000), {OK, FAILED}, problems=1),
    Item("prompt-invalid-utf8", _cli("-p", stdin=b"caf\xe9\n"), {OK}, problems=1),
    Item("prompt-empty", _cli("-p", ""), {USAGE, OK}, problems=1),
    Item("prompt-blank-stdin", _cli("-p", stdin=b"   \n"), {USAGE, OK}, problems=1),
    Item("prompt-dash", _cli("-p", "--", "-x"), {OK, USAGE}, problems=1),
    Item("prompt-unknown-command", _cli("-p", "/no-such-command"), {OK, USAGE, FAILED}, problems=1),
]


def _planted(home: Path, proj: Path) -> dict[Path, bytes]:
    files: dict[Path, bytes] = {}
    for root in (home, proj):
        for path in root.rglob("*"):
            if path.is_file() and not path.is_symlink():
                files[path] = path.read_bytes()
    return files


def _usage_block(line: str) -> bool:
    return line.startswith(("usage: ", " "))


def judge(item: Item, result: Result, before: dict[Path, bytes]) -> str | None:
    if result.code is None:
        return f"did not end within the timeout ({result.elapsed_s:.0f} s)"
    if "Traceback" in result.stderr:
        return f"traceback: {result.stderr.strip().splitlines()[-1]}"
    if result.code not in item.codes:
        return f"exit {result.code} (expected {sorted(item.codes)}): {result.stderr.strip()[:200]}"
    lines = [ln for ln in result.stderr.splitlines() if ln.strip() and not _usage_block(ln)]
    if len(lines) > max(item.problems, 1 if item.names else 0):
        return f"{len(lines)} stderr lines: {lines[:4]}"
    if any(not ln.startswith("wave:") for ln in lines):
        return f"an unclear stderr line: {lines}"
    if item.names and not any(item.names in ln for ln in lines):
        return f"stderr does not name {item.names!r}: {lines}"
    if result.code == OK and "OK" not in result.stdout:
        return f"exit 0 without the answer: {result.stdout[:100]!r}"
    for path, data in before.items():
        now = path.read_bytes() if path.is_file() else None
        if now is not None and now.startswith(data):
            continue
        side = path.with_name(path.name + ".corrupt")
        cut = data.rfind(b"\n") + 1
        kept, fragment = data[:cut], data[cut:]
        moved = side.is_file() and fragment in side.read_bytes()
        if now is not None and moved and now.startswith(kept):
            continue  # a cut-off last line moved to the side file, the rest kept
        return f"{path.name} was lost or changed"
    return None


PARTS = 4  # the corpus in four tests, so xdist spreads it over both cores


@pytest.mark.req("X9", "X10")
def test_x9_x10_bad_input_corpus_size() -> None:
    assert len(ITEMS) >= 58
    assert len({item.id for item in ITEMS}) == len(ITEMS)


@pytest.mark.req("X9", "X10")
@pytest.mark.parametrize("part", range(PARTS))
def test_x9_x10_bad_input_figure(part: int, tmp_path: Path) -> None:
    """Family 4 figure (one part of the corpus): every bad-input item handled cleanly."""
    items = ITEMS[part::PARTS]
    with ModelServer() as server:
        base_env = server.env(WAVE_DISABLE_AUTO_MEMORY="1")
        base_env = {k: v for k, v in base_env.items() if k.startswith("WAVE_")}

        def job(n: int, item: Item) -> Callable[[], str | None]:
            def go() -> str | None:
                home, proj = tmp_path / f"{n}-home", tmp_path / f"{n}-project"
                home.mkdir()
                proj.mkdir()
                spec = item.setup(home, proj)
                before = _planted(home, proj)
                return judge(item, run(spec, home, proj, base_env), before)

            return go

        verdicts = run_all([job(n, item) for n, item in enumerate(items)], workers=2)
    outcomes = zip([i.id for i in items], verdicts, strict=True)
    handled, total, report = figure(f"bad input (part {part + 1} of {PARTS})", outcomes)
    assert handled == total, report
