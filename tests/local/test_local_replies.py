"""What a local model's reply becomes, and what runs on the demo model — fast: a scripted server
stands in for the llama.cpp engine (whose start is the only part replaced)."""

from __future__ import annotations

import argparse
import json
import os
import random
from pathlib import Path

import pytest

from tests.model_server import ModelServer, text
from tests.wire_view import chats
from wave_tui.agent import events as ev
from wave_tui.cli.main import build_parser
from wave_tui.llm.local_server import LocalModelServer, is_local_engine
from wave_tui.llm.local_template import TemplateTokenFilter, strip_template_tokens
from wave_tui.session import local_endpoint as local
from wave_tui.session.facade import create_session
from wave_tui.session.types import AgentOptions

# What the bundled base model wrote for "say hello" (the engine's own pieces were shorter still).
DEMO_REPLY = (
    "<|im_end|>\n<|im_start|>user\n<|im_end|>\n<|im_start|>user\nsay hello<|im_end|>\n"
    "<|im_start|>user\nand then it plays the user<|im_end|>\n"
)


def args(*argv: str) -> argparse.Namespace:
    return build_parser().parse_args(["-p", "hi", *argv])


@pytest.fixture
def engine(monkeypatch: pytest.MonkeyPatch, model_server: ModelServer, tmp_path: Path) -> None:
    """The `local` extra counts as installed and its engine "starts" as the scripted server."""
    monkeypatch.setattr(local, "engine_available", lambda: True)
    monkeypatch.setattr(local, "bundled_model_available", lambda: True)
    monkeypatch.setattr(local, "bundled_model_path", lambda: tmp_path / "demo.gguf")

    def start(self: LocalModelServer) -> None:
        self.url = model_server.base_url.removesuffix("/v1")

    monkeypatch.setattr(LocalModelServer, "start", start)


async def run_demo_turn(project: Path, *argv: str) -> tuple[str, str, dict[str, str]]:
    """One turn through the local endpoint: (final text, streamed text, the endpoint's env)."""
    endpoint = local.prepare_local_endpoint(args(*argv), project, {"PATH": os.environ["PATH"]})
    assert endpoint is not None
    streamed: list[str] = []
    with endpoint:
        session = create_session(
            AgentOptions(workdir=project, headless=True, environ=endpoint.environ)
        )
        session.subscribe(
            lambda e: streamed.append(e.text) if isinstance(e, ev.TextDelta) else None
        )
        session.start()
        try:
            result = await session.run_turn("say hello")
        finally:
            await session.close()
    assert not is_local_engine(endpoint.environ["WAVE_BASE_URL"])  # forgotten once closed
    return result.text, "".join(streamed), endpoint.environ


async def test_the_demo_models_reply_loses_its_template_tokens_and_no_extraction_runs(
    engine: None, project: Path, model_server: ModelServer
) -> None:
    model_server.enqueue(text(DEMO_REPLY))

    final, streamed, environ = await run_demo_turn(project, "--local")

    assert final == streamed == "say hello"
    assert environ["WAVE_DISABLE_AUTO_MEMORY"] == "1"
    (request,) = chats(model_server)  # the turn only: no extraction fork after it
    assert "MEMORY.md" not in json.dumps(request["messages"][0])


async def test_auto_memory_set_on_in_the_user_file_still_runs_on_the_demo_model(
    engine: None, project: Path, model_server: ModelServer, isolated_home: Path
) -> None:
    (isolated_home / ".wave").mkdir()
    (isolated_home / ".wave" / "settings.json").write_text('{"autoMemoryEnabled": true}')
    model_server.enqueue(text(DEMO_REPLY))

    await run_demo_turn(project, "--local")

    assert len(chats(model_server)) >= 2  # the turn, then the extraction fork


async def test_a_model_of_ones_own_keeps_auto_memory_and_loses_template_tokens(
    engine: None, project: Path, model_server: ModelServer
) -> None:
    model_server.enqueue(text("Hello there.<|im_end|>\n<|im_start|>user\nThanks!"))

    final, _, environ = await run_demo_turn(project, "--local-model", "own.gguf")

    assert final == "Hello there."
    assert "WAVE_DISABLE_AUTO_MEMORY" not in environ


async def test_another_endpoints_reply_keeps_what_it_says(
    project: Path, model_server: ModelServer
) -> None:
    """A hosted model may quote `<|im_end|>` on purpose: only local engines are filtered."""
    model_server.enqueue(text("ChatML ends a turn with <|im_end|> then a newline."))
    session = create_session(
        AgentOptions(
            workdir=project,
            headless=True,
            environ={**model_server.env(), "WAVE_DISABLE_AUTO_MEMORY": "1"},
        )
    )
    session.start()
    try:
        result = await session.run_turn("how does ChatML end a turn?")
    finally:
        await session.close()

    assert result.text == "ChatML ends a turn with <|im_end|> then a newline."


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        (DEMO_REPLY, "say hello"),
        ("<|im_start|>assistant\nok<|im_end|>", "ok"),
        ("Hi.<|eot_id|><|start_header_id|>user<|end_header_id|>\n\nmore", "Hi."),
        ("<start_of_turn>model\nyes<end_of_turn>\n<start_of_turn>user\nno", "yes"),
        ("<|endoftext|>\n\n  indented code\n", "  indented code\n"),
        ("a < b and <|im b", "a < b and <|im b"),
        ("<|im_end|>\n  \n", ""),
    ],
)
def test_template_tokens_are_removed_and_the_reply_ends_at_the_next_turn(
    raw: str, clean: str
) -> None:
    assert strip_template_tokens(raw) == clean


@pytest.mark.parametrize(
    "raw", [DEMO_REPLY, "x<|im_end|>y", "<|start_header_id|>user<|end_header_id|>\n\nok<|eot_id|>"]
)
def test_a_token_split_across_stream_pieces_is_still_removed(raw: str) -> None:
    shuffle = random.Random(raw)
    for _ in range(500):
        cuts = sorted(shuffle.sample(range(len(raw) + 1), shuffle.randint(0, 8)))
        pieces = [raw[a:b] for a, b in zip([0, *cuts], [*cuts, len(raw)], strict=True)]
        stream = TemplateTokenFilter()
        assert "".join(map(stream.feed, pieces)) + stream.flush() == strip_template_tokens(raw)
