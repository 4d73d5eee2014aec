"""The last step before a body goes on the wire, and what the client learns from rejections.

Every request path (main loop, extraction fork, compaction, fast model) goes through
`WireAdapter.prepare`, so each provider rule lives here once and the transcript stays as it is.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from wave_tui.llm.images import (
    has_images,
    images_after_tools,
    refuses_images,
    refuses_tool_images,
    without_images,
)
from wave_tui.llm.options import TOKEN_PARAMS, LearnedParams
from wave_tui.llm.quirks import (
    ErrorInfo,
    completion_room,
    is_role_order,
    misses_reasoning,
    stated_window,
    unsupported_param,
)
from wave_tui.llm.wire import REASONING_FIELD, bridge_roles, plain_system

REASONING_FIELDS = ("reasoning_content", "reasoning")


class WireAdapter:
    def __init__(self) -> None:
        self._params: dict[str, LearnedParams] = {}
        # Sent back under the name the provider streams it as.
        # req: PV2
        self.reasoning_field = REASONING_FIELD
        self._fill_reasoning = False
        # A chat template that wants user / assistant to alternate (learned from its refusal).
        self.strict_roles = False
        # Models that refused images (sent placeholders from then on), and a provider that takes
        # images only in user messages; each learned from one refusal, said in one line.
        self.blind_models: set[str] = set()
        self.tool_images_in_user = False
        self.lessons: list[str] = []

    def read_reasoning(self, delta: Mapping[str, Any]) -> str:
        """Reasoning text of a delta or message under either name (req: PV1)."""
        for name in REASONING_FIELDS:
            value = delta.get(name)
            if isinstance(value, str) and value:
                self.reasoning_field = name
                return value
        return ""

    # req: PV6
    # req: CV5
    # req: PV10
    def prepare(self, body: Mapping[str, Any]) -> dict[str, Any]:
        out = dict(body)
        out["stream"] = True
        out["stream_options"] = {"include_usage": True}
        messages = [m for m in out.get("messages") or [] if isinstance(m, dict)]
        if messages:
            messages[0] = plain_system(messages[0])
        model = str(out.get("model") or "")
        if has_images(messages):
            messages = self._images(model, messages)
        if self.strict_roles:
            messages = bridge_roles(messages)
        if self.reasoning_field != REASONING_FIELD or self._fill_reasoning:
            # Otherwise every assistant message already says it the provider's way: no walk.
            messages = [self._assistant(m) if m.get("role") == "assistant" else m for m in messages]
        out["messages"] = messages
        return self._params.setdefault(model, LearnedParams()).apply(out)

    # req: IM4
    def _images(self, model: str, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        if model in self.blind_models:
            return without_images(messages)
        if self.strict_roles or self.tool_images_in_user:
            # Strict chat templates render only text in a tool message.
            return images_after_tools(messages)
        return messages

    def _learn_images(self, info: ErrorInfo, body: dict[str, Any]) -> bool:
        messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
        if not has_images(messages):
            return False
        text = f"{info.code or ''} {info.message}"
        if refuses_tool_images(text) and not self.tool_images_in_user:
            self.tool_images_in_user = True
            return True
        model = str(body.get("model") or "")
        if refuses_images(text) and model not in self.blind_models:
            self.blind_models.add(model)
            self.lessons.append(
                f"{model or 'the model'} refused images: it gets a text placeholder for each "
                "image for the rest of this session"
            )
            return True
        return False

    def _assistant(self, message: dict[str, Any]) -> dict[str, Any]:
        if not message.get("tool_calls"):
            return message
        thought = message.get(REASONING_FIELD)
        if thought is None and self._fill_reasoning:
            thought = ""
        if thought is None:
            return message
        out = {k: v for k, v in message.items() if k != REASONING_FIELD}
        out[self.reasoning_field] = thought
        return out

    def learn(self, info: ErrorInfo, body: dict[str, Any]) -> bool:
        """Adjust for a 4xx answer that says how; True when the request is worth sending again."""
        if misses_reasoning(info.message) and not self._fill_reasoning:
            # Assistant messages of another model (or the fork) have no reasoning to send back.
            self._fill_reasoning = True
            self.reasoning_field = "reasoning_content"
            return True
        if self._learn_images(info, body):
            return True
        if is_role_order(info) and not self.strict_roles:
            self.strict_roles = True  # from now on for this endpoint: one refusal, not one a turn
            return True
        room = completion_room(info)  # vLLM: prompt + max_tokens > max_model_len
        if room is not None:
            learned = self._params.setdefault(str(body.get("model") or ""), LearnedParams())
            learned.window = stated_window(info)  # later requests are clamped before sending
            for name in TOKEN_PARAMS:
                value = body.get(name)
                if isinstance(value, int) and value > room:
                    body[name] = room
                    return True
        param = unsupported_param(info)
        if param is None:
            return False
        model = str(body.get("model") or "")
        return self._params.setdefault(model, LearnedParams()).learn(param)
