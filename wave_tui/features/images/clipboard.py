"""Images the user gives the app without typing `@path` (IM2, IM3): a pasted image file path
(terminal drag-and-drop too) and Ctrl+V of a clipboard image through `wl-paste` (Wayland) or
`xclip` (X11), saved under `~/.wave/pasted-images/` and referenced as `@path`."""

from __future__ import annotations

import asyncio
import os
import shlex
import shutil
import time
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import unquote, urlparse

from wave_tui.config.records import record
from wave_tui.files.images import IMAGE_SUFFIXES, is_image_path

CLIPBOARD_TIMEOUT_S = 5.0
MAX_CLIPBOARD_BYTES = 64 * 1024 * 1024
NO_TOOL = (
    "Ctrl+V pastes a clipboard image with wl-paste (Wayland) or xclip (X11): "
    "neither is installed (install wl-clipboard or xclip)"
)
_TYPE_SUFFIX = {media: suffix for suffix, media in reversed(IMAGE_SUFFIXES.items())}


@record
class ClipboardPaste:
    """What Ctrl+V gave: an `@path` to insert, or the one line saying why there is none."""

    reference: str | None = None
    problem: str | None = None


def reference_of(path: Path) -> str:
    """`@path` as the input takes it (spaces escaped), followed by a space."""
    return "@" + str(path).replace(" ", "\\ ") + " "


def _as_path(text: str, root: Path) -> Path | None:
    raw = text.strip()
    if not raw or "\n" in raw:
        return None
    if raw.startswith("file://"):
        raw = unquote(urlparse(raw).path)
    else:
        try:
            words = shlex.split(raw)  # 'quoted paths' and back\ slashed spaces
        except ValueError:
            return None
        if len(words) != 1:
            return None
        raw = words[0]
    path = (root / Path(raw).expanduser()).resolve()
    return path if is_image_path(path) and path.is_file() else None


# req: IM2
def pasted_image_reference(text: str, root: Path) -> str | None:
    """A pasted image file path as `@path`, or None when the paste is anything else."""
    path = _as_path(text, root)
    return reference_of(path) if path is not None else None


def clipboard_command(environ: Mapping[str, str]) -> tuple[list[str], list[str]] | None:
    """(list the clipboard's types, read one type) for the tool this desktop has, or None."""
    if environ.get("WAYLAND_DISPLAY") and shutil.which("wl-paste", path=environ.get("PATH")):
        return ["wl-paste", "--list-types"], ["wl-paste", "--no-newline", "--type"]
    if shutil.which("xclip", path=environ.get("PATH")):
        return (
            ["xclip", "-selection", "clipboard", "-t", "TARGETS", "-o"],
            ["xclip", "-selection", "clipboard", "-o", "-t"],
        )
    return None


async def _run(argv: list[str], environ: Mapping[str, str]) -> tuple[int, bytes, bytes]:
    process = await asyncio.create_subprocess_exec(
        *argv,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=dict(environ),
    )
    try:
        out, err = await asyncio.wait_for(process.communicate(), CLIPBOARD_TIMEOUT_S)
    except TimeoutError:
        process.kill()
        await process.wait()
        return 1, b"", b"timed out"
    return process.returncode or 0, out, err


# req: IM3
async def paste_clipboard_image(
    folder: Path, environ: Mapping[str, str] | None = None
) -> ClipboardPaste:
    """The clipboard's image saved in `folder`, as an `@path`; else one line why not."""
    env = dict(environ if environ is not None else os.environ)
    command = clipboard_command(env)
    if command is None:
        return ClipboardPaste(problem=NO_TOOL)
    list_types, read_type = command
    try:
        code, out, err = await _run(list_types, env)
        types = out.decode("utf-8", "replace").split()
        media = next((t for t in types if t in _TYPE_SUFFIX), None)
        if code != 0 or media is None:
            return ClipboardPaste(problem="the clipboard holds no image")
        code, data, err = await _run([*read_type, media], env)
    except OSError as exc:
        return ClipboardPaste(problem=f"{list_types[0]} failed: {exc}")
    if code != 0 or not data:
        reason = err.decode("utf-8", "replace").strip().splitlines()[:1] or ["no data"]
        return ClipboardPaste(problem=f"{read_type[0]} could not read the image: {reason[0]}")
    if len(data) > MAX_CLIPBOARD_BYTES:
        return ClipboardPaste(problem="the clipboard image is larger than 64 MiB")
    path = folder / f"paste-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}{_TYPE_SUFFIX[media]}"
    await asyncio.to_thread(_save, path, data)
    return ClipboardPaste(reference=reference_of(path))


def _save(path: Path, data: bytes) -> None:
    """A new file, whole or not at all (written beside it, then renamed)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.tmp")
    partial.write_bytes(data)
    os.replace(partial, path)
