"""One emulator per provider quirk, each refusing with the body that provider really sends."""

from __future__ import annotations

import itertools
import json
from typing import Any

from tests.providers.emulator import Emulator, Rejection, Rule, Seen, Style

__all__ = ["Rule"]


def _openai_error(
    message: str, *, code: str | None, param: str | None = None, kind: str = "invalid_request_error"
) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "param": param, "code": code}}


def _vllm_error(message: str) -> dict[str, Any]:
    return {
        "object": "error",
        "message": message,
        "type": "BadRequestError",
        "param": None,
        "code": 400,
    }


# -- DeepSeek thinking mode / Kimi: reasoning must come back on tool-call turns ---------------
def missing_reasoning(seen: Seen) -> Rejection | None:
    for index, m in enumerate(seen.messages):
        if m.get("role") == "assistant" and m.get("tool_calls") and "reasoning_content" not in m:
            return 400, _openai_error(
                f"Missing `reasoning_content` field in the assistant message at message index "
                f"{index}. For more information, please refer to "
                "https://api-docs.deepseek.com/guides/thinking_mode#tool-calls",
                code="invalid_request_error",
            )
    return None


def deepseek() -> Emulator:
    return Emulator(rules=[missing_reasoning], style=Style(usage="deepseek"))


# -- Mistral (and vLLM serving a Mistral/Gemma template): strict role order -------------------
def strict_roles(seen: Seen) -> Rejection | None:
    roles = [m.get("role") for m in seen.messages]
    for before, after in itertools.pairwise(roles):
        if before == "tool" and after == "user":
            return 400, {
                "object": "error",
                "message": "Unexpected role 'user' after role 'tool'",
                "type": "invalid_request_message_order",
                "param": None,
                "code": "3230",
            }
        if before == after == "user":
            return 400, _vllm_error(
                "Conversation roles must alternate user/assistant/user/assistant/..."
            )
    return None


def mistral() -> Emulator:
    return Emulator(rules=[strict_roles])


# -- Groq: the system message must be a string --------------------------------------------------
def string_system(seen: Seen) -> Rejection | None:
    first = seen.messages[0] if seen.messages else {}
    if first.get("role") == "system" and not isinstance(first.get("content"), str):
        return 400, _openai_error(
            "'messages.0' : for 'role:system' the following must be satisfied"
            "[('messages.0.content' : value must be a string)]",
            code=None,
        )
    return None


def groq() -> Emulator:
    return Emulator(rules=[string_system])


# -- Ollama: index 0 for every call, the name in every delta, num_ctx from /api/show ----------
OLLAMA_SHOW = {
    "parameters": 'num_ctx 8192\nstop "<end_of_turn>"',
    "model_info": {"general.architecture": "gemma3", "gemma3.context_length": 131072},
    "details": {"family": "gemma3"},
}


def ollama() -> Emulator:
    return Emulator(
        style=Style(
            tool_index="zero",
            repeat_name=True,
            reasoning_field="reasoning",
            fingerprint="fp_ollama",  # Ollama's OpenAI layer stamps every chunk so
        ),
        post_routes={"/api/show": OLLAMA_SHOW},
    )


def no_tools_model(seen: Seen) -> Rejection | None:
    if seen.body.get("tools"):
        return 400, {
            "error": {
                "message": f"registry.ollama.ai/library/{seen.body.get('model')}"
                " does not support tools",
                "type": "api_error",
                "param": None,
                "code": None,
            }
        }
    return None


# -- Azure OpenAI: deployment path, api-version query, api-key header ---------------------------
AZURE_PATH = "/openai/deployments/gpt4o/chat/completions"


def azure_auth(seen: Seen) -> Rejection | None:
    if seen.query.get("api-version") != ["2024-10-21"]:
        return 404, {"error": {"code": "404", "message": "Resource not found"}}
    if seen.headers.get("api-key") != "azure-secret":
        return 401, {
            "error": {
                "code": "401",
                "message": "Access denied due to invalid "
                "subscription key or wrong API endpoint. Make sure to provide a "
                "valid key for an active subscription and use a correct regional "
                "API endpoint for your resource.",
            }
        }
    return None


def azure() -> Emulator:
    return Emulator(rules=[azure_auth], chat_path=AZURE_PATH)


# -- LM Studio / old Azure: no usage in the stream ----------------------------------------------
def lm_studio() -> Emulator:
    return Emulator(style=Style(usage="none"))


# -- OpenAI o-series / GPT-5: max_completion_tokens, default temperature only ------------------
def reasoning_model_params(seen: Seen) -> Rejection | None:
    if "max_tokens" in seen.body:
        return 400, _openai_error(
            "Unsupported parameter: 'max_tokens' is not supported with this model. "
            "Use 'max_completion_tokens' instead.",
            code="unsupported_parameter",
            param="max_tokens",
        )
    if seen.body.get("temperature", 1) != 1:
        return 400, _openai_error(
            f"Unsupported value: 'temperature' does not support {seen.body['temperature']} with "
            "this model. Only the default (1) value is supported.",
            code="unsupported_value",
            param="temperature",
        )
    return None


def openai_reasoning() -> Emulator:
    return Emulator(rules=[reasoning_model_params])


# -- vLLM: max_model_len, tool choice off, <think> inline ---------------------------------------
VLLM_WINDOW = 8192


def vllm_prompt_tokens(seen: Seen) -> int:
    """The emulator's token count: the rendered template holds the messages and the tools."""
    return len(json.dumps([seen.messages, seen.body.get("tools") or []])) // 4


def vllm_window_of(window: int) -> Rule:
    """The max_model_len rule for a server started with `--max-model-len window`."""

    def rule(seen: Seen) -> Rejection | None:
        prompt = vllm_prompt_tokens(seen)
        asked = int(seen.body.get("max_tokens") or seen.body.get("max_completion_tokens") or 0)
        if prompt + asked > window:
            return 400, _vllm_error(
                f"This model's maximum context length is {window} tokens. However, you requested "
                f"{prompt + asked} tokens ({prompt} in the messages, {asked} in the completion). "
                "Please reduce the length of the messages or completion."
            )
        return None

    return rule


vllm_window = vllm_window_of(VLLM_WINDOW)


def vllm_no_auto_tools(seen: Seen) -> Rejection | None:
    if seen.body.get("tools"):
        return 400, _vllm_error(
            '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set'
        )
    return None


def vllm(window: int = VLLM_WINDOW) -> Emulator:
    return Emulator(rules=[vllm_window_of(window)], style=Style(inline_think=True))


# -- llama.cpp server: context size, tools without --jinja --------------------------------------
def llamacpp_context(seen: Seen) -> Rejection | None:
    prompt = len(json.dumps(seen.messages)) // 4
    if prompt > 2048:
        return 400, {
            "error": {
                "code": 400,
                "message": "the request exceeds the available context size, try increasing it",
                "type": "exceed_context_size_error",
                "n_prompt_tokens": prompt,
                "n_ctx": 2048,
            }
        }
    return None


def llamacpp_no_jinja(seen: Seen) -> Rejection | None:
    if seen.body.get("tools"):
        return 500, {
            "error": {
                "code": 500,
                "message": "tools param requires --jinja flag",
                "type": "server_error",
            }
        }
    return None


# -- a server that counts more tokens than it says (CV11) ---------------------------------------
def dense_window_of(window: int, density: float) -> Rule:
    """A `window`-token server whose tokenizer counts `density` tokens per emulated one, and
    whose refusal names the window but not the prompt's size (some proxies shorten it so)."""

    def rule(seen: Seen) -> Rejection | None:
        if int(vllm_prompt_tokens(seen) * density) > window:
            return 400, _openai_error(
                f"This model's maximum context length is {window} tokens. Please reduce the "
                "length of the messages.",
                code="context_length_exceeded",
            )
        return None

    return rule
