"""Read of an image file: the image part the model gets, its one text line, the chat's summary
(IM1, IM7). Decoding runs in a thread; every bad file is one tool error."""

from __future__ import annotations

import asyncio
from pathlib import Path

from wave_tui.files.images import EncodedImage, ImageError, encode_image
from wave_tui.llm.types import ImagePart
from wave_tui.tools.base import ToolError, ToolResult


def image_part(encoded: EncodedImage) -> ImagePart:
    return ImagePart(
        name=encoded.name,
        media_type=encoded.media_type,
        data=encoded.data,
        width=encoded.width,
        height=encoded.height,
        original_width=encoded.original_width,
        original_height=encoded.original_height,
        byte_size=encoded.byte_size,
    )


def size_line(image: ImagePart) -> str:
    """`shot.png, 4000×3000 (sent as 2000×1500 PNG, 312 KB)`: the chat's and the model's line."""
    kind = image.media_type.removeprefix("image/").upper()
    sent = f"{image.width}×{image.height} {kind}, {max(1, round(image.byte_size / 1024))} KB"
    original = f"{image.original_width}×{image.original_height}"
    return f"{image.name}, {original} (sent as {sent})"


async def load_image_part(path: Path) -> ImagePart:
    """The image at `path` as a part, or a ToolError saying why it cannot be one."""
    try:
        encoded = await asyncio.to_thread(encode_image, path)
    except ImageError as exc:
        raise ToolError(str(exc)) from exc
    except FileNotFoundError as exc:
        raise ToolError(f"File does not exist: {path}") from exc
    except IsADirectoryError as exc:
        raise ToolError(f"{path} is a directory, not a file.") from exc
    return image_part(encoded)


# req: IM1
async def read_image(path: Path) -> ToolResult:
    image = await load_image_part(path)
    return ToolResult(
        content=f"Image {path}: {size_line(image)}",
        summary=f"Read image {size_line(image)}",
        context_paths=[path],
        images=[image],
    )
