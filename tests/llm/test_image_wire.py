"""Images on the wire (IM1, IM4): data-URL parts with their label, the placeholder for a model
that cannot see, images moved out of tool messages, estimates by size."""

from __future__ import annotations

import base64
import io

import pytest
from PIL import Image

from wave_tui.llm.adapt import WireAdapter
from wave_tui.llm.images import images_after_tools, without_images
from wave_tui.llm.quirks import ErrorInfo
from wave_tui.llm.types import ImagePart, Message
from wave_tui.llm.usage import estimate_prompt_tokens
from wave_tui.llm.wire import wire_messages


def part(size: tuple[int, int] = (1500, 1000)) -> ImagePart:
    raw = io.BytesIO()
    Image.effect_noise(size, 60).convert("RGB").save(raw, format="JPEG", quality=95)
    data = base64.b64encode(raw.getvalue()).decode()
    return ImagePart(
        name="shot.jpg", media_type="image/jpeg", data=data, width=size[0], height=size[1],
        original_width=size[0] * 2, original_height=size[1] * 2, byte_size=len(raw.getvalue()),
    )  # fmt: skip


def conversation(image: ImagePart) -> list[Message]:
    return [
        Message.user("look"),
        Message(role="assistant", tool_calls=[{"id": "c1", "name": "Read", "arguments": "{}"}]),
        Message(role="tool", tool_call_id="c1", content="Image shot.jpg", images=[image]),
    ]


@pytest.mark.req("IM1")
def test_an_estimate_counts_an_image_by_its_size() -> None:
    image = part()
    body = {"messages": wire_messages(conversation(image)), "tools": []}
    assert len(image.data) > 400_000  # by characters this would be >100k tokens
    assert 2000 <= estimate_prompt_tokens(body) <= 2100  # 1500×1000 / 750 and a few words


@pytest.mark.req("IM4")
def test_the_placeholder_replaces_the_image_and_its_label() -> None:
    wire = without_images(wire_messages(conversation(part())))
    assert wire[-1]["content"] == [
        {"type": "text", "text": "Image shot.jpg"},
        {"type": "text", "text": "[image: shot.jpg, 3000×2000: this model cannot see images]"},
    ]


@pytest.mark.req("IM1")
def test_tool_images_follow_as_the_next_user_part_and_join_the_next_prompt() -> None:
    messages = [*conversation(part()), Message.user("and?")]
    wire = images_after_tools(wire_messages(messages))
    assert wire[2]["content"] == [{"type": "text", "text": "Image shot.jpg"}]
    follows = wire[3]
    assert follows["role"] == "user"
    assert [p["type"] for p in follows["content"]] == ["text", "image_url", "text"]
    assert follows["content"][-1] == {"type": "text", "text": "and?"}


@pytest.mark.req("IM4")
def test_a_refusal_without_images_in_the_body_teaches_nothing() -> None:
    adapter = WireAdapter()
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    assert adapter.learn(ErrorInfo("model does not support image input"), body) is False
    assert adapter.blind_models == set()
