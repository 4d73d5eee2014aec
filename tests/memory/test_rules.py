"""Rule discovery, frontmatter, precedence, order and matching (R1, R3, R4, R6–R10, X4)."""

from __future__ import annotations

import os
from pathlib import Path

import pathspec
import pytest

from wave_tui.config.paths import WavePaths
from wave_tui.memory.rules import (
    RuleCache,
    discover_rules,
    expand_braces,
    parse_paths_value,
)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def warnings() -> list[str]:
    return []


def discover(paths: WavePaths, warnings: list[str], cache: RuleCache | None = None):
    return discover_rules(paths, warnings.append, cache)


def rules_dir(paths: WavePaths) -> Path:
    return paths.project_root / ".wave" / "rules"


@pytest.mark.req("R1")
def test_r1_recursive_md_files_load_as_rules(paths: WavePaths, warnings: list[str]) -> None:
    write(rules_dir(paths) / "style.md", "Use tabs.\n")
    write(rules_dir(paths) / "backend" / "db" / "sql.md", "Use CTEs.\n")
    write(rules_dir(paths) / "notes.txt", "not a rule\n")
    rules = discover(paths, warnings)
    assert [r.id for r in rules.active] == ["backend/db/sql.md", "style.md"]
    assert warnings == []


@pytest.mark.req("R10")
def test_r10_missing_and_empty_rules_dirs_are_fine(paths: WavePaths, warnings: list[str]) -> None:
    assert discover(paths, warnings).all == []
    rules_dir(paths).mkdir(parents=True)
    assert discover(paths, warnings).all == []
    assert warnings == []


@pytest.mark.req("X4")
def test_x4_rule_without_frontmatter_is_unconditional(
    paths: WavePaths, warnings: list[str]
) -> None:
    write(rules_dir(paths) / "plain.md", "Always be kind.\n")
    rules = discover(paths, warnings)
    (rule,) = rules.unconditional()
    assert rule.status == "always" and rule.body == "Always be kind.\n"
    assert rules.match(paths.project_root / "any" / "file.py") == []


@pytest.mark.req("R7")
def test_r7_symlinked_folder_and_file_are_followed(
    paths: WavePaths, warnings: list[str], tmp_path: Path
) -> None:
    shared = tmp_path / "shared-rules"
    write(shared / "team.md", "Team rule.\n")
    write(shared / "deep" / "x.md", "Deep rule.\n")
    lone = write(tmp_path / "lone.md", "---\npaths: ['*.py']\n---\nPython rule.\n")
    rules_dir(paths).mkdir(parents=True)
    os.symlink(shared, rules_dir(paths) / "shared")
    os.symlink(lone, rules_dir(paths) / "python.md")
    rules = discover(paths, warnings)
    assert {r.id for r in rules.active} == {"shared/team.md", "shared/deep/x.md", "python.md"}
    assert rules.get("python.md").patterns == ("*.py",)
    assert warnings == []


@pytest.mark.req("R7")
def test_r7_symlink_cycle_terminates_with_one_warning(
    paths: WavePaths, warnings: list[str]
) -> None:
    write(rules_dir(paths) / "a" / "rule.md", "A.\n")
    os.symlink(rules_dir(paths), rules_dir(paths) / "a" / "loop")
    cache = RuleCache()
    rules = discover(paths, warnings, cache)
    discover(paths, warnings, cache)  # re-discovery (next turn) does not repeat the warning
    assert [r.id for r in rules.active] == ["a/rule.md"]
    assert len(warnings) == 1 and "cycle" in warnings[0] and "a/loop" in warnings[0]


@pytest.mark.req("R7")
def test_r7_broken_symlink_skipped_rest_of_folder_loads(
    paths: WavePaths, warnings: list[str], tmp_path: Path
) -> None:
    write(rules_dir(paths) / "a.md", "A.\n")
    os.symlink(tmp_path / "missing.md", rules_dir(paths) / "b.md")
    write(rules_dir(paths) / "c.md", "C.\n")
    rules = discover(paths, warnings)
    assert [r.id for r in rules.active] == ["a.md", "c.md"]
    assert len(warnings) == 1 and "b.md" in warnings[0] and "broken symlink" in warnings[0]


@pytest.mark.req("R6")
def test_r6_block_scalar_paths(paths: WavePaths, warnings: list[str]) -> None:
    write(
        rules_dir(paths) / "api.md",
        "---\npaths: >-\n  src/api/**/*.ts,\n  lib/**/*.ts\n---\nAPI rule.\n",
    )
    (rule,) = discover(paths, warnings).active
    assert rule.status == "conditional"
    assert rule.patterns == ("src/api/**/*.ts", "lib/**/*.ts")


@pytest.mark.req("R6")
def test_r6_block_list_paths(paths: WavePaths, warnings: list[str]) -> None:
    write(
        rules_dir(paths) / "api.md",
        "---\npaths:\n  - src/api/**/*.ts\n  - 'tests/**/*.ts'\n---\nAPI rule.\n",
    )
    (rule,) = discover(paths, warnings).active
    assert rule.patterns == ("src/api/**/*.ts", "tests/**/*.ts")


@pytest.mark.req("R6")
def test_r6_inline_list_paths(paths: WavePaths, warnings: list[str]) -> None:
    write(rules_dir(paths) / "api.md", '---\npaths: ["src/**/*.ts", "lib/*.js"]\n---\nBody\n')
    (rule,) = discover(paths, warnings).active
    assert rule.patterns == ("src/**/*.ts", "lib/*.js")


@pytest.mark.req("R9")
def test_r9_comma_string_keeps_commas_inside_braces() -> None:
    patterns, error = parse_paths_value("src/**/*.{ts,tsx}, docs/*.md")
    assert error is None
    assert patterns == ["src/**/*.ts", "src/**/*.tsx", "docs/*.md"]


@pytest.mark.req("R6")
@pytest.mark.parametrize(
    "value", ["src/**/*.ts", "  ./src/*.py  ", "./", "", "   ", "a[b]c", "a\\b", "!gen/*", "}x"]
)
def test_r6_one_pattern_string_reads_as_the_same_one_item_list(value: str) -> None:
    """A string with nothing to split or expand (the usual `paths`) takes a shortcut; it must
    read as that one item given as a list, which goes through the general path."""
    assert parse_paths_value(value) == parse_paths_value([value])


@pytest.mark.req("R9")
def test_r9_brace_expansion_including_nested() -> None:
    assert expand_braces("{src,lib}/**/*.ts") == ["src/**/*.ts", "lib/**/*.ts"]
    assert expand_braces("{a,b/{c,d}}/x") == ["a/x", "b/c/x", "b/d/x"]
    assert expand_braces("plain/{single}/x") == ["plain/{single}/x"]
    assert expand_braces("broken/{a,b") == ["broken/{a,b"]


@pytest.mark.req("R9")
def test_r9_escaped_and_class_braces_stay_literal() -> None:
    assert expand_braces("\\{a,b}/*.md") == ["\\{a,b}/*.md"]
    assert expand_braces("docs/[{,}]*.md") == ["docs/[{,}]*.md"]
    patterns, error = parse_paths_value("docs/[,]x.md, src/*.ts")
    assert error is None and patterns == ["docs/[,]x.md", "src/*.ts"]


@pytest.mark.req("R9")
def test_r9_braced_bang_names_a_file_not_a_negation(paths: WavePaths, warnings: list[str]) -> None:
    write(rules_dir(paths) / "bang.md", "---\npaths: '{!gen,src}/*.ts'\n---\nBang.\n")
    rules = discover(paths, warnings)
    root = paths.project_root
    assert [p for _, p in rules.match(root / "!gen/a.ts")] == ["\\!gen/*.ts"]
    assert [p for _, p in rules.match(root / "src/a.ts")] == ["src/*.ts"]
    assert rules.match(root / "lib/a.ts") == []


@pytest.mark.req("R9")
def test_r9_brace_bomb_keeps_the_first_alternatives(paths: WavePaths, warnings: list[str]) -> None:
    write(rules_dir(paths) / "bomb.md", "---\npaths: '" + "{a,b}" * 20 + "'\n---\nBomb.\n")
    (rule,) = discover(paths, warnings).active
    assert rule.status == "conditional" and len(rule.patterns) == 256
    assert rule.patterns[:2] == ("a" * 20, "a" * 19 + "b")
    assert warnings == []


@pytest.mark.req("R9")
def test_r9_braces_nested_too_deep_are_reported(paths: WavePaths, warnings: list[str]) -> None:
    deep = "{a," * 40 + "b" + "}" * 40
    write(rules_dir(paths) / "deep.md", f"---\npaths: '{deep}'\n---\nDeep.\n")
    (rule,) = discover(paths, warnings).all
    problem = f"'paths' pattern '{deep}' nests braces more than 32 deep"
    assert rule.status == "inactive" and rule.reason == problem
    assert warnings == [f".wave/rules/deep.md: {problem}; rule not loaded"]


@pytest.mark.req("R9")
def test_r9_brace_rule_matches_both_expansions(paths: WavePaths, warnings: list[str]) -> None:
    write(rules_dir(paths) / "ts.md", "---\npaths: '{src,lib}/**/*.ts'\n---\nTS.\n")
    rules = discover(paths, warnings)
    root = paths.project_root
    assert [p for _, p in rules.match(root / "src/a/b.ts")] == ["src/**/*.ts"]
    assert [p for _, p in rules.match(root / "lib/c.ts")] == ["lib/**/*.ts"]
    assert rules.match(root / "other/c.ts") == []


@pytest.mark.req("R3", "R4")
def test_r3_r4_api_pattern_matches_only_api_files(paths: WavePaths, warnings: list[str]) -> None:
    write(rules_dir(paths) / "api.md", "---\npaths:\n  - src/api/**/*.ts\n---\nAPI.\n")
    rules = discover(paths, warnings)
    root = paths.project_root
    ((rule, pattern),) = rules.match(root / "src/api/user.ts")
    assert (rule.id, pattern) == ("api.md", "src/api/**/*.ts")
    assert rules.match(root / "src/ui/Button.tsx") == []
    assert rules.match(Path("src/api/v1/deep/user.ts"))  # relative to the project root


@pytest.mark.req("R4")
def test_r4_files_outside_project_root_match_nothing(
    paths: WavePaths, warnings: list[str], tmp_path: Path
) -> None:
    write(rules_dir(paths) / "md.md", "---\npaths: '*.md'\n---\nMarkdown.\n")
    rules = discover(paths, warnings)
    assert rules.match(paths.project_root / "docs/x.md")  # gitignore: any depth
    assert rules.match(tmp_path / "elsewhere" / "x.md") == []


@pytest.mark.req("R10")
def test_r10_unknown_scope_key_reported_and_rule_inactive(
    paths: WavePaths, warnings: list[str]
) -> None:
    write(rules_dir(paths) / "api.md", "---\nglobs: src/**/*.ts\n---\nAPI.\n")
    rules = discover(paths, warnings)
    assert rules.active == []
    (rule,) = rules.all
    assert rule.status == "inactive"
    assert rule.reason == "unknown frontmatter key 'globs' (did you mean 'paths'?)"
    assert warnings == [
        ".wave/rules/api.md: unknown frontmatter key 'globs' (did you mean 'paths'?); "
        "rule not loaded"
    ]


@pytest.mark.req("R10")
def test_r10_harmless_unknown_key_reported_rule_still_loads(
    paths: WavePaths, warnings: list[str]
) -> None:
    write(rules_dir(paths) / "a.md", "---\ntags: [x]\n---\nA.\n")
    (rule,) = discover(paths, warnings).active
    assert rule.status == "always"
    assert warnings == [".wave/rules/a.md: unknown frontmatter key 'tags' (ignored)"]


@pytest.mark.req("R10")
def test_r10_invalid_yaml_reported_others_load(paths: WavePaths, warnings: list[str]) -> None:
    write(rules_dir(paths) / "bad.md", "---\npaths: [unclosed\n---\nBad.\n")
    write(rules_dir(paths) / "good.md", "Good.\n")
    rules = discover(paths, warnings)
    assert [r.id for r in rules.active] == ["good.md"]
    bad = next(r for r in rules.all if r.id == "bad.md")
    assert bad.status == "inactive" and bad.reason.startswith("invalid YAML")
    assert len(warnings) == 1 and warnings[0].startswith(".wave/rules/bad.md: invalid YAML")


@pytest.mark.req("R8")
def test_r8_project_rule_overrides_same_id_user_rule(paths: WavePaths, warnings: list[str]) -> None:
    write(paths.home / ".wave" / "rules" / "style.md", "User style.\n")
    write(paths.home / ".wave" / "rules" / "only-user.md", "User only.\n")
    write(rules_dir(paths) / "style.md", "Project style.\n")
    rules = discover(paths, warnings)
    active = {r.id: r for r in rules.active}
    assert active["style.md"].scope == "project" and active["style.md"].body == "Project style.\n"
    assert active["only-user.md"].scope == "user"
    (overridden,) = [r for r in rules.all if r.status == "inactive"]
    assert overridden.scope == "user"
    assert overridden.reason == "overridden by .wave/rules/style.md"


@pytest.mark.req("R8")
def test_r8_wave_rule_overrides_claude_rule(paths: WavePaths, warnings: list[str]) -> None:
    write(paths.project_root / ".claude" / "rules" / "x.md", "Claude.\n")
    write(rules_dir(paths) / "x.md", "Wave.\n")
    write(paths.project_root / ".claude" / "rules" / "y.md", "Claude only.\n")
    rules = discover(paths, warnings)
    assert {r.id: r.body for r in rules.active} == {"x.md": "Wave.\n", "y.md": "Claude only.\n"}


@pytest.mark.req("R8")
def test_r8_priority_orders_rules_then_scope_then_id(paths: WavePaths, warnings: list[str]) -> None:
    write(rules_dir(paths) / "a.md", "A.\n")
    write(rules_dir(paths) / "b.md", "---\npriority: 10\n---\nB.\n")
    write(rules_dir(paths) / "c.md", "---\npriority: -1\n---\nC.\n")
    write(paths.home / ".wave" / "rules" / "0user.md", "U.\n")
    write(paths.home / ".wave" / "rules" / "top.md", "---\npriority: 99\n---\nT.\n")
    rules = discover(paths, warnings)
    assert [r.id for r in rules.unconditional()] == ["top.md", "b.md", "a.md", "0user.md", "c.md"]


@pytest.mark.req("R8")
def test_user_rules_match_project_files(paths: WavePaths, warnings: list[str]) -> None:
    """R8: user-level path rules work in every project."""
    write(paths.home / ".wave" / "rules" / "py.md", "---\npaths: '**/*.py'\n---\nPy.\n")
    rules = discover(paths, warnings)
    assert [r.id for r, _ in rules.match(paths.project_root / "pkg" / "m.py")] == ["py.md"]


def test_edited_rule_is_picked_up_on_rediscovery(paths: WavePaths, warnings: list[str]) -> None:
    cache = RuleCache()
    rule_file = write(rules_dir(paths) / "r.md", "Old.\n")
    assert discover(paths, warnings, cache).active[0].body == "Old.\n"
    rule_file.write_text("---\npaths: src/**\n---\nNew body.\n", encoding="utf-8")
    os.utime(rule_file, ns=(1, 2_000_000_000_000_000_000))
    rule = discover(paths, warnings, cache).active[0]
    assert (rule.body, rule.status) == ("New body.\n", "conditional")


def test_negated_pattern_excludes(paths: WavePaths, warnings: list[str]) -> None:
    write(rules_dir(paths) / "ts.md", "---\npaths: ['src/**/*.ts', '!src/gen/**']\n---\nTS.\n")
    rules = discover(paths, warnings)
    assert rules.match(paths.project_root / "src/a.ts")
    assert rules.match(paths.project_root / "src/gen/a.ts") == []


@pytest.mark.req("R3")
def test_r3_trie_matching_agrees_with_plain_pathspec(paths: WavePaths, warnings: list[str]) -> None:
    """The prefix index must never hide a match that gitignore semantics would give."""
    patterns = [
        "*.md",
        "/docs/*.md",
        "docs/",
        "src/**/x.py",
        "src/api/**/*.ts",
        "**/test_*.py",
        "a/*/c",
        "/top",
        "lib/[ab]/*.js",
        "src/api",
    ]
    for n, pattern in enumerate(patterns):
        write(rules_dir(paths) / f"r{n:02}.md", f"---\npaths: ['{pattern}']\n---\nR.\n")
    rules = discover(paths, warnings)
    files = [
        "README.md",
        "docs/a.md",
        "x/docs/a.md",
        "docs/sub/a.md",
        "src/x.py",
        "src/a/b/x.py",
        "src/api/user.ts",
        "src/api/v1/u.ts",
        "src/ui/Button.tsx",
        "tests/test_a.py",
        "test_b.py",
        "a/b/c",
        "a/b/c/d",
        "top",
        "top/x",
        "x/top",
        "lib/a/m.js",
        "lib/c/m.js",
        "src/api",
    ]
    for rel in files:
        got = sorted(rule.id for rule, _ in rules.match(paths.project_root / rel))
        want = sorted(
            f"r{n:02}.md"
            for n, p in enumerate(patterns)
            if pathspec.PathSpec.from_lines("gitignore", [p]).match_file(rel)
        )
        assert got == want, rel


@pytest.mark.req("R4")
def test_r4_a_pattern_is_compiled_only_once_it_could_match(
    paths: WavePaths, warnings: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """10k conditional rules cost nothing at a Read that no rule's folder holds: the matcher
    files patterns by their literal folders and compiles one the first time it is a candidate."""
    from wave_tui.memory import rule_match

    for n in range(50):
        write(rules_dir(paths) / f"r{n:02}.md", f"---\npaths: pkg{n}/**/*.ts\n---\nR{n}.\n")
    write(rules_dir(paths) / "any.md", "---\npaths: '**/*.md'\n---\nMD.\n")
    compiled: list[str] = []
    real = rule_match.gitignore_pattern
    monkeypatch.setattr(rule_match, "gitignore_pattern", lambda p: compiled.append(p) or real(p))
    rules = discover(paths, warnings)
    assert rules.match(paths.project_root / "notes.txt") == []
    assert compiled == ["**/*.md"]
    assert [r.id for r, _ in rules.match(paths.project_root / "pkg7/src/a.ts")] == ["r07.md"]
    assert compiled == ["**/*.md", "pkg7/**/*.ts"]


@pytest.mark.req("R4")
def test_r4_a_pattern_that_cannot_compile_matches_nothing(
    paths: WavePaths, warnings: list[str]
) -> None:
    """A trailing backslash is no gitignore pattern: its rule never matches, the others do (the
    first Read used to fail on it)."""
    write(rules_dir(paths) / "bad.md", '---\npaths: ["a\\\\", "b/**"]\n---\nBad.\n')
    rules = discover(paths, warnings)
    bad = rules.get("bad.md")
    assert bad is not None and bad.patterns == ("a\\", "b/**")
    assert rules.match(paths.project_root / "a") == []
    assert [r.id for r, _ in rules.match(paths.project_root / "b/x")] == ["bad.md"]


@pytest.mark.req("MX4")
def test_mx4_unquoted_star_value_loads(paths: WavePaths, warnings: list[str]) -> None:
    write(rules_dir(paths) / "tests.md", "---\npaths: **/*.test.ts\n---\nTest rule.\n")
    (rule,) = discover(paths, warnings).active
    assert rule.status == "conditional" and rule.patterns == ("**/*.test.ts",)
    assert warnings == []
    assert [r.id for r, _ in discover(paths, warnings).match(paths.project_root / "a/b.test.ts")]


@pytest.mark.req("MX4")
def test_mx4_unquoted_brace_value_loads(paths: WavePaths, warnings: list[str]) -> None:
    write(rules_dir(paths) / "ts.md", "---\npaths: {src,lib}/**/*.ts\n---\nTS rule.\n")
    (rule,) = discover(paths, warnings).active
    assert rule.patterns == ("src/**/*.ts", "lib/**/*.ts")
    assert warnings == []


@pytest.mark.req("MX4")
def test_mx4_unquoted_list_items_load(paths: WavePaths, warnings: list[str]) -> None:
    write(
        rules_dir(paths) / "ts.md",
        "---\nname: TS\npaths:\n  - **/*.ts\n  - 'docs/*.md'\n---\nTS rule.\n",
    )
    (rule,) = discover(paths, warnings).active
    assert rule.patterns == ("**/*.ts", "docs/*.md") and rule.name == "TS"


@pytest.mark.req("MX4")
def test_mx4_multiline_block_pattern_is_reported_not_conditional(
    paths: WavePaths, warnings: list[str]
) -> None:
    write(rules_dir(paths) / "blk.md", "---\npaths: |\n  src/*.ts\n  lib/*.ts\n---\nBody.\n")
    rules = discover(paths, warnings)
    (rule,) = rules.all
    assert rule.status == "inactive" and "can never match" in rule.reason
    assert rules.conditional() == []
    assert len(warnings) == 1 and "blk.md" in warnings[0] and "can never match" in warnings[0]


@pytest.mark.req("MX4")
def test_mx4_retry_keeps_the_original_error_for_truly_broken_yaml(
    paths: WavePaths, warnings: list[str]
) -> None:
    write(rules_dir(paths) / "bad.md", "---\npaths: **/*.ts\n  oops: [\n---\nBad.\n")
    (rule,) = discover(paths, warnings).all
    assert rule.status == "inactive" and rule.reason.startswith("invalid YAML")


# YAML tags as a rule file may spell them: safe_load refuses each one, so the rule is named in a
# warning and loads nowhere — never a pattern made of the tag's text.
TAGGED_PATHS = [
    'paths: !!python/object/apply:os.system ["touch /tmp/pwned"]',
    "paths: !!python/object/apply:os.system",
    "paths: !!python/name:os.system",
    "paths: !custom src/**/*.ts",
    "paths: !<tag:yaml.org,2002:python/object/apply:os.system> x",
    "paths: &anchor !!python/object/apply:os.system",
    "paths:\n  - src/*.ts\n  - !!python/object/apply:os.system",
    "paths:\n- !custom x",
    "name: !!python/object/new:dict\npaths: src/*.ts",
]


@pytest.mark.req("R6")
@pytest.mark.parametrize("frontmatter", TAGGED_PATHS)
def test_r6_a_yaml_tag_is_refused_and_the_rule_named(
    frontmatter: str, paths: WavePaths, warnings: list[str]
) -> None:
    write(rules_dir(paths) / "tagged.md", f"---\n{frontmatter}\n---\nBody.\n")

    rules = discover(paths, warnings)

    (rule,) = rules.all
    assert rule.status == "inactive" and rule.reason.startswith("invalid YAML"), rule.reason
    assert rules.conditional() == [] and rules.unconditional() == []
    assert len(warnings) == 1 and "tagged.md" in warnings[0], warnings


@pytest.mark.req("MX4")
def test_mx4_a_bang_inside_an_unquoted_glob_is_no_tag(
    paths: WavePaths, warnings: list[str]
) -> None:
    write(rules_dir(paths) / "neg.md", "---\npaths: **/!(vendor)/*.ts\n---\nTS rule.\n")
    (rule,) = discover(paths, warnings).active
    assert rule.patterns == ("**/!(vendor)/*.ts",) and warnings == []
