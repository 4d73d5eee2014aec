"""The docs site (`mkdocs.yml`, `docs/`): its settings page is the generator's, every page of
its navigation exists, every relative link of the README and the pages lands on a file and an
anchor, nothing the README used to say was dropped, and `mkdocs build --strict` passes — and
fails on a broken anchor, so the CI step that runs it can fail."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from wave_tui.config.settings_doc import DOC_PATH, main, render

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
MKDOCS = Path(sys.executable).parent / "mkdocs"

# The README's two set-up commands, byte for byte: `.ci/run` and tests/test_readme.py hold the
# same, and a newcomer's copy-paste must keep working.
RUN_COMMAND = "python3 -m venv .venv && .venv/bin/pip install -e '.[local]' && .venv/bin/wave"
TEST_COMMAND = (
    "python3 -m venv .venv && .venv/bin/pip install -e '.[test,local]' && "
    ".venv/bin/python -m pytest -n auto -m 'not bench and not serial' && "
    ".venv/bin/python -m pytest -m serial"
)

# Every section heading of the README before the docs site (1,050 lines): each now heads a
# section of the README or of a page.
OLD_README_HEADINGS = (
    "Set up",
    "Keys",
    "Slash commands",
    "Command line",
    "Configuration",
    "How memory works",
    "Beyond the peers",
    "Images and web search",
    "Providers",
    "Scripting (`wave -p`)",
    "Hooks",
    "Custom commands",
    "Skills",
    "Worktrees, loops and background agents",
    "Workflows",
    "wave daemon",
    "MCP",
    "Python SDK",
    "Code intelligence (LSP)",
    "Telemetry (OpenTelemetry)",
    "Plugins",
    "Storage",
    "Sessions, rewind and checkpoints",
    "Architecture",
    "Performance",
)

# The root documents the site includes whole (docs/site_links.py).
ROOT_DOCUMENTS = ("README.md", "ARCHITECTURE.md", "CONTRIBUTING.md")

_FENCE = re.compile(r"^\s*```.*?^\s*```", re.S | re.M)
_CODE_SPAN = re.compile(r"(`+).+?\1", re.S)
_LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
_HEADING = re.compile(r"^(#{1,6}) (.+?)\s*$", re.M)


def _prose(text: str) -> str:
    """The Markdown without code blocks and code spans, whose brackets are not links."""
    return _CODE_SPAN.sub("", _FENCE.sub("", text))


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading, as `mkdocs.yml` makes the site's (pymdownx.slugs)."""
    text = re.sub(r"[^\w\- ]", "", heading.replace("`", "").strip().lower())
    return text.replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    return {_slug(title) for _, title in _HEADING.findall(_FENCE.sub("", _text(path)))}


def _text(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    # A page that includes a root document (`--8<-- "ARCHITECTURE.md"`) has its headings too.
    for name in re.findall(r'^--8<-- "([^"]+)"$', text, re.M):
        text += "\n" + (ROOT / name).read_text(encoding="utf-8")
    return text


def _nav_pages(nav: object) -> list[str]:
    if isinstance(nav, str):
        return [nav]
    if isinstance(nav, list):
        return [page for item in nav for page in _nav_pages(item)]
    if isinstance(nav, dict):
        return [page for value in nav.values() for page in _nav_pages(value)]
    raise AssertionError(f"unexpected nav entry {nav!r}")


def _mkdocs_config() -> dict[str, object]:
    # The toc's slugify is a `!!python/object/apply` tag only MkDocs' own loader builds.
    text = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    config = yaml.load(text, Loader=_IgnoreTags)
    assert isinstance(config, dict)
    return config


class _IgnoreTags(yaml.SafeLoader):
    pass


_IgnoreTags.add_multi_constructor("!", lambda loader, suffix, node: None)
_IgnoreTags.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, suffix, node: None)


def _documents() -> list[Path]:
    return [ROOT / name for name in ROOT_DOCUMENTS] + sorted(DOCS.rglob("*.md"))


def _setup_commands() -> list[str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Set up", 1)[1].split("\n## ", 1)[0]
    return [block.strip() for block in re.findall(r"```bash\n(.*?)```", section, re.S)]


def _build(config: Path, site: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    return subprocess.run(
        [str(MKDOCS), "build", "--strict", "-f", str(config), "-d", str(site)],
        cwd=config.parent,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.mark.req("CB5")
def test_the_settings_page_is_what_the_generator_writes(tmp_path: Path) -> None:
    """Run `python -m wave_tui.config.settings_doc` after changing the settings schema."""
    page = (ROOT / DOC_PATH).read_text(encoding="utf-8")
    assert Path("docs") / "settings.md" == DOC_PATH
    assert page == render()
    assert page.startswith("# Settings reference\n")

    target = tmp_path / "settings.md"
    assert main([str(target)]) == 0
    assert target.read_text(encoding="utf-8") == page


@pytest.mark.req("CB5")
def test_every_page_of_the_nav_exists_and_every_page_is_in_the_nav() -> None:
    config = _mkdocs_config()
    assert config["docs_dir"] == "docs" and config["strict"] is True
    pages = _nav_pages(config["nav"])
    assert len(pages) == len(set(pages))
    for page in pages:
        assert (DOCS / page).is_file(), f"mkdocs.yml names {page}, which docs/ does not have"
    on_disk = {p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md")}
    assert on_disk == set(pages)
    for must in ("index.md", "settings.md", "sdk.md", "performance.md", "layout.md", "cli.md"):
        assert must in pages


@pytest.mark.req("CB5")
def test_every_relative_link_lands_on_a_file_and_an_anchor() -> None:
    checked = 0
    for doc in _documents():
        for target in _LINK.findall(_prose(doc.read_text(encoding="utf-8"))):
            if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto:
                continue
            path_part, _, anchor = target.partition("#")
            path = (doc.parent / path_part).resolve() if path_part else doc
            where = f"{doc.relative_to(ROOT)} links to {target}"
            assert path.exists(), f"{where}: no such file"
            if anchor and path.suffix == ".md":
                assert anchor in _anchors(path), f"{where}: no such heading"
            checked += 1
    assert checked > 40  # the check saw the links (README, pages, sdk.md's)


@pytest.mark.req("CB5")
def test_the_readme_keeps_its_two_set_up_commands_and_points_to_the_site() -> None:
    assert _setup_commands()[:2] == [RUN_COMMAND, TEST_COMMAND]
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 220
    assert "mkdocs serve" in readme and "(docs/index.md)" in readme
    assert re.search(r"!\[[^\]]*\]\([^)]+\.svg\)", readme)  # the screenshot


@pytest.mark.req("CB5")
def test_every_section_of_the_old_readme_has_a_home() -> None:
    headings: set[str] = set()
    for doc in _documents():
        headings |= {title for _, title in _HEADING.findall(_FENCE.sub("", _text(doc)))}
    missing = [h for h in OLD_README_HEADINGS if h not in headings]
    assert missing == []


@pytest.mark.req("CB5")
def test_mkdocs_builds_the_site_strictly(tmp_path: Path) -> None:
    built = _build(ROOT / "mkdocs.yml", tmp_path / "site")
    assert built.returncode == 0, built.stderr
    assert (tmp_path / "site" / "settings" / "index.html").is_file()
    architecture = (tmp_path / "site" / "architecture" / "index.html").read_text(encoding="utf-8")
    assert "The layers" in architecture  # ARCHITECTURE.md included whole
    assert 'href="../layout/"' in architecture  # its `docs/layout.md` link mended


@pytest.mark.req("CB5")
def test_a_broken_anchor_fails_the_build(tmp_path: Path) -> None:
    copy = tmp_path / "repo"
    shutil.copytree(DOCS, copy / "docs")
    for name in ("mkdocs.yml", "ARCHITECTURE.md", "CONTRIBUTING.md"):
        shutil.copy(ROOT / name, copy / name)
    page = copy / "docs" / "cli.md"
    page.write_text(page.read_text(encoding="utf-8") + "\n[gone](memory.md#no-such-part)\n")

    built = _build(copy / "mkdocs.yml", tmp_path / "site")

    assert built.returncode != 0
    assert "no-such-part" in built.stderr
