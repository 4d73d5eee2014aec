"""What a context-length refusal says about the window (CV11): each server's wording, parsed."""

from __future__ import annotations

import json

import pytest

from wave_tui.llm.quirks import (
    completion_room,
    is_context_length,
    parse_error,
    stated_prompt_tokens,
    stated_window,
)

# The requirements this module checks beyond its tests' own markers.
pytestmark = pytest.mark.req("PV11")


def openai_body(message: str, code: str | None = "context_length_exceeded") -> bytes:
    error = {"message": message, "type": "invalid_request_error", "param": "messages", "code": code}
    return json.dumps({"error": error}).encode()


def vllm_body(message: str) -> bytes:
    return json.dumps(
        {"object": "error", "message": message, "type": "BadRequestError", "code": 400}
    ).encode()


CASES: dict[str, tuple[bytes, int | None, int | None]] = {
    "openai": (
        openai_body(
            "This model's maximum context length is 128000 tokens. However, your messages "
            "resulted in 130512 tokens. Please reduce the length of the messages."
        ),
        128000,
        130512,
    ),
    "vllm-old": (
        vllm_body(
            "This model's maximum context length is 9000 tokens. However, you requested 11960 "
            "tokens (11960 in the messages, 0 in the completion). Please reduce the length of "
            "the messages or completion."
        ),
        9000,
        11960,
    ),
    "vllm-new": (
        vllm_body(
            "This model's maximum context length is 9000 tokens. However, your request has "
            "11960 input tokens. Please reduce the length of the input messages."
        ),
        9000,
        11960,
    ),
    "vllm-decoder": (
        vllm_body(
            "The decoder prompt (length 11960) is longer than the maximum model length of 9000. "
            "Make sure that `max_model_len` is no smaller than the number of text tokens."
        ),
        9000,
        11960,
    ),
    "llama.cpp-fields": (
        json.dumps(
            {
                "error": {
                    "code": 400,
                    "message": "the request exceeds the available context size, try increasing it",
                    "type": "exceed_context_size_error",
                    "n_prompt_tokens": 11960,
                    "n_ctx": 9000,
                }
            }
        ).encode(),
        9000,
        11960,
    ),
    "llama.cpp-message": (
        json.dumps(
            {
                "error": {
                    "code": 400,
                    "message": "request (11960 tokens) exceeds the available context size "
                    "(9000 tokens), try increasing it",
                    "type": "exceed_context_size_error",
                }
            }
        ).encode(),
        9000,
        11960,
    ),
    "lm-studio": (
        json.dumps({"error": "Input length 11960 exceeds context length 9000"}).encode(),
        9000,
        11960,
    ),
    "anthropic-gateway": (
        openai_body("prompt is too long: 11960 tokens > 9000 maximum", code=None),
        9000,
        11960,
    ),
    "mistral": (
        openai_body(
            "Prompt contains 11960 tokens and 0 draft tokens, too large for model with 9000 "
            "maximum context length",
            code="3051",
        ),
        9000,
        11960,
    ),
    # Ollama states no number: its window is the /api/show probe's (PV11)
    "ollama": (
        json.dumps({"error": "the input length exceeds the context length"}).encode(),
        None,
        None,
    ),
}


@pytest.mark.req("CV11")
@pytest.mark.parametrize("name", list(CASES))
def test_cv11_a_context_length_refusal_states_the_window_in_each_wording(name: str) -> None:
    raw, window, prompt = CASES[name]
    info = parse_error(raw)
    assert is_context_length(info)
    assert stated_window(info) == window
    assert stated_prompt_tokens(info) == prompt


@pytest.mark.req("CV11")
def test_cv11_the_new_vllm_wording_leaves_room_for_a_smaller_completion() -> None:
    """vLLM's "'max_tokens' … is too large" names the prompt as input tokens: the client can
    still lower max_tokens to what is left instead of compacting."""
    info = parse_error(
        vllm_body(
            "'max_tokens' or 'max_completion_tokens' is too large: 8192. This model's maximum "
            "context length is 9000 tokens and your request has 1480 input tokens "
            "(8192 > 9000 - 1480)."
        )
    )
    assert completion_room(info) == 9000 - 1480
