"""Every requirement ID is tagged in the code (`# req: ID`) and cited by a test.

A tag names one ID and sits at the definition it describes: on the comment lines right above a
`def`, `class`, decorator or assignment, or at the end of that line. A test cites an ID with the
marker `@pytest.mark.req("ID")` (or a module's `pytestmark`); the marker is what is read, so an
ID that only appears in a name or a docstring is not a citation.

IDs come from the shared spec (`../shared/spec/requirements.md`, beside the checkout in CI) and from
the project's own page (`docs/requirements.md`). An ID whose feature is not traced yet sits on
PENDING; the list only ever shrinks: an ID that is traced must leave it (the test says so).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED_SPEC = ROOT.parent / "shared" / "spec" / "requirements.md"
PROJECT_SPEC = ROOT / "docs" / "requirements.md"
TAG = re.compile(r"#\s*req:\s*(.*)$")
# One ID and nothing after it: an explanation goes on a comment line of its own.
ONE_ID = re.compile(r"^([A-Z]{1,2}\d+)$")
DEFINITION = re.compile(
    r"^\s*(?:async\s+def|def|class)\s|^\s*@|^\s*[A-Za-z_][\w.]*\s*(?::[^=]*)?=(?!=)"
)
# An entry starts a bullet, follows a sentence, or starts a line (a continuation line is indented
# by two spaces: `  CR5 …`).
SHARED_ENTRY = re.compile(r"(?:^- |(?<=\. )|(?<=^)|(?<=^  ))([A-Z]{1,2}\d+)\b(?=[ \n])", re.M)
PROJECT_ENTRY = re.compile(r"^- ([A-Z]{1,2}\d+) ", re.M)

# The shared spec's IDs, vendored so a checkout without shared/ still checks them; when the file is
# there, the two must agree (a new ID in the spec must be traced or put on PENDING).
SHARED_IDS = (
    "M1",
    "M2",
    "M3",
    "M4",
    "M5",
    "M6",
    "A1",
    "A2",
    "A3",
    "A4",
    "P1",
    "P2",
    "P3",
    "P4",
    "P5",
    "P6",
    "P7",
    "P8",
    "P9",
    "S1",
    "S2",
    "S3",
    "S4",
    "S5",
    "S6",
    "F1",
    "F2",
    "F3",
    "F4",
    "F5",
    "F6",
    "F7",
    "F8",
    "F9",
    "F10",
    "F11",
    "F12",
    "F13",
    "C1",
    "C2",
    "C3",
    "C4",
    "N1",
    "N2",
    "N3",
    "N4",
    "N5",
    "N6",
    "N7",
    "T1",
    "T2",
    "T3",
    "T4",
    "T5",
    "D1",
    "D2",
    "D3",
    "D4",
    "D5",
    "D6",
    "D7",
    "R1",
    "R2",
    "R3",
    "R4",
    "R5",
    "R6",
    "R7",
    "R8",
    "R9",
    "R10",
    "X1",
    "X2",
    "X3",
    "X4",
    "I1",
    "I2",
    "U1",
    "U2",
    "U3",
    "U4",
    "PV1",
    "PV2",
    "PV3",
    "PV4",
    "PV5",
    "PV6",
    "PV7",
    "PV8",
    "PV9",
    "PV10",
    "PV11",
    "PV12",
    "UX1",
    "UX2",
    "UX3",
    "UX4",
    "UX5",
    "UX6",
    "UX7",
    "UX8",
    "UX9",
    "UX10",
    "UX11",
    "UX12",
    "UX13",
    "UX14",
    "UX15",
    "UX16",
    "UX17",
    "UX18",
    "UX19",
    "UX20",
    "MX1",
    "MX2",
    "MX3",
    "MX4",
    "MX5",
    "MX6",
    "MX7",
    "MX8",
    "MX9",
    "MX10",
    "HL1",
    "HL2",
    "HL3",
    "HL4",
    "HL5",
    "HL6",
    "HK1",
    "HK2",
    "HK3",
    "HK4",
    "HK5",
    "HK6",
    "HK7",
    "HK8",
    "HK9",
    "HK10",
    "CS1",
    "CS2",
    "CS3",
    "CS4",
    "CS5",
    "CS6",
    "MC1",
    "MC2",
    "MC3",
    "MC4",
    "MC5",
    "MC6",
    "MC7",
    "MC8",
    "TK1",
    "TK2",
    "TK3",
    "TK4",
    "TK5",
    "TK6",
    "PL1",
    "PL2",
    "PL3",
    "AG1",
    "AG2",
    "AG3",
    "AG4",
    "AG5",
    "AG6",
    "BG1",
    "BG2",
    "BG3",
    "BG4",
    "AQ1",
    "AQ2",
    "WF1",
    "WF2",
    "WF3",
    "WF4",
    "X5",
    "X6",
    "X7",
    "X8",
    "X9",
    "X10",
    "X11",
    "X12",
    "X13",
    "X14",
    "CV1",
    "CV2",
    "CV3",
    "CV4",
    "CV5",
    "CV6",
    "CV7",
    "CV8",
    "CV9",
    "CV10",
    "CV11",
    "CV12",
    "CV13",
    "CV14",
    "CV15",
    "RW1",
    "RW2",
    "RW3",
    "RW4",
    "RW5",
    "RW6",
    "RW7",
    "RW8",
    "IM1",
    "IM2",
    "IM3",
    "IM4",
    "IM5",
    "IM6",
    "IM7",
    "WS1",
    "WS2",
    "WS3",
    "LS1",
    "LS2",
    "LS3",
    "LS4",
    "LS5",
    "LS6",
    "WT1",
    "WT2",
    "WT3",
    "WT4",
    "WT5",
    "CR1",
    "CR2",
    "CR3",
    "CR4",
    "CR5",
    "BA1",
    "BA2",
    "BA3",
    "SK1",
    "SK2",
    "SK3",
    "PG1",
    "PG2",
    "PG3",
    "PG4",
    "PG5",
    "PG6",
    "PG7",
    "PG8",
    "PG9",
    "PG10",
    "OT1",
    "OT2",
    "OT3",
    "OT4",
    "OT5",
    "OT6",
    "OT7",
    "OT8",
    "SD1",
    "SD2",
    "SD3",
    "SD4",
    "SD5",
    "SD6",
    "SD7",
    "SD8",
    "AP1",
    "AP2",
    "MM1",
    "MM2",
    "MM3",
    "MM4",
    "MM5",
    "MM6",
    "MM7",
    "SB1",
    "SB2",
    "SB3",
    "SB4",
    "SB5",
    "SB6",
    "MO1",
    "MO2",
    "MO3",
    "MO4",
    "MO5",
    "MO6",
    "FH1",
    "FH2",
    "FH3",
    "FH4",
    "FH5",
    "FH6",
    "FH7",
    "FH8",
    "FH9",
    "FH10",
    "FH11",
    "FH12",
    "FH13",
    "FH14",
    "FH15",
    "PH1",
    "PH2",
    "PH3",
    "PH4",
    "PH5",
    "PH6",
    "MA1",
    "MA2",
    "MA3",
    "MA4",
    "MA5",
    "MA6",
    "MA7",
    "MA8",
    "MA9",
    "MA10",
    "MA11",
    "MA12",
    "MA13",
    "EX1",
    "EX2",
    "EX3",
    "EX4",
    "EX5",
    "SX1",
    "SX2",
    "SX3",
    "SX4",
    "SX5",
    "SX6",
    "SX7",
    "SX8",
    "SX9",
    "SX10",
    "SX11",
    "WK1",
    "WK2",
    "WK3",
    "WK4",
    "DM1",
    "DM2",
    "DM3",
    "DM4",
    "MR1",
    "MR2",
    "MR3",
    "MR4",
    "MR5",
    "MR6",
    "HR1",
    "HR2",
    "HR3",
    "HR4",
    "HR5",
    "HR6",
    "HR7",
    "HR8",
    "HR9",
    "HR10",
    "HR11",
    "HR13",
    "HR12",
    "CB1",
    "CB2",
    "CB3",
    "CB4",
    "CB5",
    "SP1",
    "SP2",
    "SP3",
    "SP4",
    "SP5",
    "SP6",
    "SP7",
    "SP8",
)

PENDING: frozenset[str] = frozenset(
    {
        "CB3",
        "CB4",
        "SP1",
        "SP2",
    }
)


def _all_ids() -> list[str]:
    project = PROJECT_ENTRY.findall(PROJECT_SPEC.read_text(encoding="utf-8"))
    return [*SHARED_IDS, *project]


def _at_a_definition(lines: list[str], index: int, code: str) -> bool:
    """The tag's line ends a definition's line, or heads a run of comments above one."""
    if code.strip():
        return DEFINITION.match(code) is not None and not code.startswith(" " * 8 + " ")
    indent = lines[index][: len(lines[index]) - len(lines[index].lstrip())]
    after = index + 1
    while after < len(lines) and lines[after].strip().startswith("#"):
        after += 1
    if after >= len(lines):
        return False
    following = lines[after]
    return following.startswith(indent) and DEFINITION.match(following) is not None


def _code_tags() -> tuple[dict[str, list[str]], list[str]]:
    """(ID -> where it is tagged, the tags that are malformed or out of place)."""
    tags: dict[str, list[str]] = {}
    malformed: list[str] = []
    for path in sorted((ROOT / "wave_tui").rglob("*.py")):
        lines = path.read_text(encoding="utf-8").splitlines()
        for index, line in enumerate(lines):
            match = TAG.search(line)
            if match is None:
                continue
            where = f"{path.relative_to(ROOT)}:{index + 1}"
            value = match.group(1).strip()
            match_id = ONE_ID.match(value)
            if match_id is None:
                malformed.append(f"{where}: {value!r}")
            elif not _at_a_definition(lines, index, line[: match.start()]):
                malformed.append(f"{where}: {value!r} is not at a definition")
            else:
                tags.setdefault(match_id.group(1), []).append(where)
    return tags, malformed


def _req_marks(node: ast.expr) -> set[str]:
    """IDs of `pytest.mark.req(...)` in a decorator or a `pytestmark` value."""
    found: set[str] = set()
    for part in ast.walk(node):
        if isinstance(part, ast.Call) and ast.unparse(part.func) == "pytest.mark.req":
            found.update(a.value for a in part.args if isinstance(a, ast.Constant))
    return found


def _test_citations(ids: list[str]) -> set[str]:
    """IDs cited by a `req` marker on a test (function or class) or on a test module."""
    cited: set[str] = set()
    for path in sorted((ROOT / "tests").rglob("test_*.py")):
        if path.name == Path(__file__).name:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                for decorator in node.decorator_list:
                    cited |= _req_marks(decorator)
            elif isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets
            ):
                cited |= _req_marks(node.value)
    return cited & set(ids)


def test_shared_ids_match_the_spec() -> None:
    """The vendored list equals the shared spec whenever the spec is beside the checkout."""
    if SHARED_SPEC.exists():
        found = tuple(SHARED_ENTRY.findall(SHARED_SPEC.read_text(encoding="utf-8")))
        assert found == SHARED_IDS


def test_tags_name_one_id_each() -> None:
    """`# req: F3` — one ID per tag (no ranges, no lists, no note after it), at a definition,
    and only IDs a spec defines."""
    tags, malformed = _code_tags()
    assert malformed == [], "malformed requirement tags:\n" + "\n".join(malformed)
    unknown = sorted(set(tags) - set(_all_ids()))
    assert unknown == [], f"tags name IDs that no spec defines: {unknown}"


def _untraced(rid: str, tags: dict[str, list[str]], cited: set[str]) -> str:
    missing = []
    if rid not in tags:
        missing.append("no `# req:` tag in wave_tui")
    if rid not in cited:
        missing.append("no test cites it")
    return f"{rid}: {'; '.join(missing)}"


def test_every_requirement_is_tagged_and_tested() -> None:
    ids = _all_ids()
    tags, _ = _code_tags()
    cited = _test_citations(ids)
    untraced = [
        _untraced(rid, tags, cited)
        for rid in ids
        if rid not in PENDING and (rid not in tags or rid not in cited)
    ]
    assert untraced == [], "requirements not traced:\n" + "\n".join(untraced)


def test_pending_list_only_shrinks() -> None:
    """An ID that is now tagged and tested must leave PENDING; PENDING names only real IDs."""
    ids = _all_ids()
    tags, _ = _code_tags()
    cited = _test_citations(ids)
    done = sorted(rid for rid in PENDING if rid in tags and rid in cited)
    assert done == [], f"traced now — remove from PENDING: {done}"
    assert sorted(PENDING - set(ids)) == []
