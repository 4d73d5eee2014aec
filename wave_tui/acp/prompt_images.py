"""Image blocks of an ACP prompt, as image files the message attaches.

An image the client sends (pasted or dropped into its prompt) is saved where the app keeps the
images pasted with Ctrl+V (`~/.wave/pasted-images/`), named by its content, and attached as an
`@path` mention: the same path as an `@img.png` typed in the app (resized, encoded once, sent
to a model that sees images as an image part).
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import hashlib
from pathlib import Path
from typing import Any

import acp

from wave_tui.config.fileio import atomic_write_bytes
from wave_tui.files.images import IMAGE_SUFFIXES

_SUFFIX_OF_TYPE = {media: suffix for suffix, media in reversed(IMAGE_SUFFIXES.items())}


def _decoded(block: Any) -> tuple[bytes, str]:
    suffix = _SUFFIX_OF_TYPE.get(block.mime_type)
    if suffix is None:
        kinds = ", ".join(sorted(_SUFFIX_OF_TYPE))
        raise acp.RequestError.invalid_params(
            {"prompt": f"image type {block.mime_type!r} is not supported ({kinds})"}
        )
    try:
        return base64.b64decode(block.data, validate=True), suffix
    except (binascii.Error, ValueError) as exc:
        raise acp.RequestError.invalid_params({"prompt": "an image's data is not base64"}) from exc


def _save(folder: Path, name: str, data: bytes) -> Path:
    path = folder / name
    if not path.is_file():  # named by its content: the same image is there already
        atomic_write_bytes(path, data)
    return path


# req: MA12
async def prompt_images(blocks: list[Any], folder: Path) -> list[Path]:
    """The prompt's image blocks saved in `folder`, in their order; a block wave cannot read
    is the request's error (invalid params), before anything is saved."""
    images = [_decoded(block) for block in blocks if getattr(block, "type", None) == "image"]
    paths = []
    for data, suffix in images:
        name = f"acp-{hashlib.sha256(data).hexdigest()[:16]}{suffix}"
        paths.append(await asyncio.to_thread(_save, folder, name, data))
    return paths
