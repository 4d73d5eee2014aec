"""Images through `wave -p`: Read of each format and size, `@img.png`, bad files, a model
that cannot see, the `vision` subagent, a provider's refusals, `--continue` (IM1, IM2, IM4–IM6)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests import image_files as img
from tests.model_server import ModelServer, error, text, tool_call
from tests.wave_cli import run_wave

MIB = 1024 * 1024


@pytest.fixture(autouse=True)
def no_auto_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    """No extraction fork adds requests after the turn (one test turns it back on)."""
    monkeypatch.setenv("WAVE_DISABLE_AUTO_MEMORY", "1")


def settings(home: Path, data: dict[str, object]) -> None:
    (home / ".wave").mkdir(exist_ok=True)
    (home / ".wave" / "settings.json").write_text(json.dumps(data))


def read_then_ok(server: ModelServer, name: str) -> None:
    server.enqueue(tool_call("Read", {"file_path": name}), text("seen"))


def tool_message(server: ModelServer) -> dict[str, object]:
    return next(m for m in server.requests[1].body["messages"] if m["role"] == "tool")


@pytest.mark.req("IM1")
def test_a_large_png_is_read_as_a_downscaled_image_part(
    model_server: ModelServer, project: Path
) -> None:
    img.screenshot_png(project / "shot.png", (4000, 3000))
    read_then_ok(model_server, "shot.png")
    proc = run_wave("-p", "look at shot.png", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    message = tool_message(model_server)
    (url,) = img.image_urls(message)
    kind, raw, image = img.decode(url)
    assert kind == "image/png" and image.size == (2000, 1500)
    assert len(raw) <= 5 * MIB
    # One text line naming the file and its original size.
    assert "shot.png, 4000×3000" in img.texts_of(message)
    assert "[image: shot.png, 4000×3000]" in img.texts_of(message)


@pytest.mark.req("IM1")
def test_a_noisy_photo_stays_under_five_mib(model_server: ModelServer, project: Path) -> None:
    img.noisy_png(project / "photo.png", (3000, 3000))
    read_then_ok(model_server, "photo.png")
    proc = run_wave("-p", "look", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    (url,) = img.image_urls(tool_message(model_server))
    _kind, raw, image = img.decode(url)
    assert max(image.size) <= 2000 and len(raw) <= 5 * MIB


@pytest.mark.req("IM1")
def test_jpeg_exif_orientation_gif_first_frame_and_webp(
    model_server: ModelServer, project: Path
) -> None:
    img.jpeg_rotated(project / "r.jpg")
    img.gif(project / "a.gif", [(255, 0, 0), (0, 0, 255), (0, 255, 0)])
    img.webp(project / "w.webp", (50, 40))
    model_server.enqueue(
        tool_call("Read", {"file_path": "r.jpg"}),
        tool_call("Read", {"file_path": "a.gif"}),
        tool_call("Read", {"file_path": "w.webp"}),
        text("seen"),
    )
    proc = run_wave("-p", "look", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    tools = [m for m in model_server.requests[3].body["messages"] if m["role"] == "tool"]
    decoded = [img.decode(img.image_urls(m)[0])[2] for m in tools]
    assert decoded[0].size == (200, 300)  # upright: EXIF said rotate 90°
    assert decoded[1].convert("RGB").getpixel((5, 5)) == (255, 0, 0)  # the first frame
    assert decoded[2].size == (50, 40)
    assert "r.jpg, 200×300" in img.texts_of(tools[0])


@pytest.mark.req("IM1")
def test_bad_images_are_one_tool_error_each(model_server: ModelServer, project: Path) -> None:
    img.png(project / "ok.png", (20, 20))
    good = (project / "ok.png").read_bytes()
    (project / "cut.png").write_bytes(good[: len(good) // 2])
    jpeg = project / "body.jpg"
    img.jpeg_rotated(jpeg)
    (project / "lying.png").write_bytes(good[:16] + jpeg.read_bytes()[16:])
    img.png_claiming(project / "bomb.png", (20000, 20000))
    img.gif(project / "long.gif", [(i % 256, 0, 0) for i in range(1000)], size=(2, 2))
    names = ["cut.png", "lying.png", "bomb.png", "long.gif"]
    model_server.enqueue(*[tool_call("Read", {"file_path": n}) for n in names], text("done"))
    proc = run_wave("-p", "look", cwd=project, server=model_server, timeout=60)
    assert proc.returncode == 0, proc.stderr
    tools = [m for m in model_server.requests[-1].body["messages"] if m["role"] == "tool"]
    assert len(tools) == 4
    for name, message in zip(names, tools, strict=True):
        content = message["content"]
        assert isinstance(content, str) and "\n" not in content.strip(), content
        assert name in content
    assert "decompression-bomb" in tools[2]["content"]
    assert "1000 frames" in tools[3]["content"]


@pytest.mark.req("IM2")
def test_at_image_in_a_prompt_attaches_it(model_server: ModelServer, project: Path) -> None:
    img.png(project / "ui.png", (64, 48))
    proc = run_wave("-p", "what is wrong in @ui.png?", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    user = model_server.requests[0].body["messages"][-1]
    assert user["role"] == "user"
    (url,) = img.image_urls(user)
    assert img.decode(url)[2].size == (64, 48)
    assert "what is wrong in @ui.png?" in img.texts_of(user)


@pytest.mark.req("IM4")
@pytest.mark.req("IM5")
def test_a_model_without_vision_gets_the_placeholder_only(
    model_server: ModelServer, project: Path, isolated_home: Path
) -> None:
    settings(isolated_home, {"models": {"test-model": {"capabilities": {"vision": False}}}})
    img.png(project / "ui.png", (64, 48))
    read_then_ok(model_server, "ui.png")
    proc = run_wave("-p", "see @ui.png", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    for request in model_server.requests:
        assert img.all_image_urls(request.body) == []
        assert "data:image" not in json.dumps(request.body)
    wire = json.dumps(model_server.requests[1].body, ensure_ascii=False)
    assert wire.count("[image: ui.png, 64×48: this model cannot see images]") == 2
    # No vision model configured: no `vision` subagent type either.
    agent = next(
        t for t in model_server.requests[0].body["tools"] if t["function"]["name"] == "Agent"
    )
    assert "vision" not in agent["function"]["parameters"]["properties"]["subagent_type"]["enum"]


def _model(name: str):  # type: ignore[no-untyped-def]
    return lambda body: body.get("model") == name


@pytest.mark.req("IM5")
@pytest.mark.req("IM4")
def test_the_vision_subagent_describes_images_on_the_vision_model(
    model_server: ModelServer, project: Path, isolated_home: Path
) -> None:
    settings(isolated_home, {"models": {"test-model": {"capabilities": {"vision": False}}}})
    img.png(project / "ui.png", (64, 48))
    model_server.enqueue(
        tool_call(
            "Agent",
            {"description": "describe ui", "prompt": "Describe ui.png", "subagent_type": "vision"},
        ),
        text("The screenshot shows a red panel."),
        when=_model("test-model"),
    )
    model_server.enqueue(
        tool_call("Read", {"file_path": "ui.png"}), text("A red 64×48 panel."), when=_model("smart")
    )
    proc = run_wave(
        "-p", "what does ui.png show?", cwd=project, server=model_server,
        env={"WAVE_VISION_MODEL": "smart"},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "The screenshot shows a red panel."
    main = [r for r in model_server.requests if r.body["model"] == "test-model"]
    vision = [r for r in model_server.requests if r.body["model"] == "smart"]
    agent = next(t for t in main[0].body["tools"] if t["function"]["name"] == "Agent")
    assert "vision" in agent["function"]["parameters"]["properties"]["subagent_type"]["enum"]
    assert [t["function"]["name"] for t in vision[0].body["tools"]] == ["Read"]
    (url,) = img.all_image_urls(vision[1].body)
    assert img.decode(url)[2].size == (64, 48)
    assert all(img.all_image_urls(r.body) == [] for r in main)
    last_tool = [m for m in main[-1].body["messages"] if m["role"] == "tool"][-1]
    assert "A red 64×48 panel." in img.texts_of(last_tool)


@pytest.mark.req("IM4")
def test_a_provider_refusing_images_is_learned_for_the_session(
    model_server: ModelServer, project: Path
) -> None:
    img.png(project / "ui.png", (64, 48))
    refusal = error(400, "This model does not support image input")
    model_server.enqueue(refusal, tool_call("Read", {"file_path": "ui.png"}), text("ok"))
    proc = run_wave("-p", "see @ui.png", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    first, retry, after_read = model_server.requests
    assert len(img.all_image_urls(first.body)) == 1
    assert img.all_image_urls(retry.body) == [] and img.all_image_urls(after_read.body) == []
    assert "[image: ui.png, 64×48: this model cannot see images]" in json.dumps(
        after_read.body, ensure_ascii=False
    )
    lines = [line for line in proc.stderr.splitlines() if "refused images" in line]
    assert len(lines) == 1, proc.stderr


@pytest.mark.req("IM1")
def test_a_provider_without_images_in_tool_messages_gets_them_in_the_next_user_part(
    model_server: ModelServer, project: Path
) -> None:
    img.png(project / "ui.png", (64, 48))
    refusal = error(400, "Invalid 'messages[3]'. Image URLs are only allowed for messages with role 'user', but this message with role 'tool' contains an image URL.")  # fmt: skip
    model_server.enqueue(tool_call("Read", {"file_path": "ui.png"}), refusal, text("ok"))
    proc = run_wave("-p", "look at it", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    retry = model_server.requests[2].body["messages"]
    tool_at = next(i for i, m in enumerate(retry) if m["role"] == "tool")
    assert img.image_urls(retry[tool_at]) == []
    assert "ui.png, 64×48" in img.texts_of(retry[tool_at])
    follows = retry[tool_at + 1]
    assert follows["role"] == "user" and len(img.image_urls(follows)) == 1
    assert "[image: ui.png, 64×48]" in img.texts_of(follows)


@pytest.mark.req("IM6")
def test_images_survive_continue_byte_for_byte(model_server: ModelServer, project: Path) -> None:
    img.noisy_png(project / "ui.png", (400, 300))
    read_then_ok(model_server, "ui.png")
    assert run_wave("-p", "look", cwd=project, server=model_server).returncode == 0
    (sent,) = img.image_urls(tool_message(model_server))
    (project / "ui.png").unlink()  # what --continue sends comes from the transcript
    proc = run_wave("--continue", "-p", "and again?", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    assert img.all_image_urls(model_server.requests[-1].body) == [sent]


@pytest.mark.req("IM6")
def test_the_extraction_fork_repeats_the_image_byte_for_byte(
    model_server: ModelServer, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.extraction_helpers import is_fork, is_main

    monkeypatch.delenv("WAVE_DISABLE_AUTO_MEMORY")
    img.noisy_png(project / "ui.png", (400, 300))
    model_server.enqueue(tool_call("Read", {"file_path": "ui.png"}), text("seen"), when=is_main)
    model_server.enqueue(text("Nothing worth saving."), when=is_fork)
    proc = run_wave("-p", "look", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    main = model_server.requests[1].body
    fork = next(r.body for r in model_server.requests if is_fork(r.body))
    assert fork["messages"][: len(main["messages"])] == main["messages"]
    assert img.all_image_urls(fork) == img.all_image_urls(main) != []


@pytest.mark.req("IM6")
def test_an_image_in_the_kept_tail_survives_compaction(
    model_server: ModelServer, project: Path
) -> None:
    env = {"WAVE_FAST_MODEL": "fast"}
    img.noisy_png(project / "ui.png", (400, 300))
    for prompt in ("first question", "second question", "what is in @ui.png?"):
        assert run_wave("--continue", "-p", prompt, cwd=project, server=model_server, env=env).returncode == 0  # fmt: skip
    (sent,) = img.all_image_urls(model_server.requests[-1].body)
    model_server.enqueue(text("THE-SUMMARY"), when=lambda body: body["model"] == "fast")
    proc = run_wave("--continue", "-p", "/compact", cwd=project, server=model_server, env=env)
    assert proc.returncode == 0, proc.stderr
    summary = model_server.requests[-1].body
    assert summary["model"] == "fast" and "data:image" not in json.dumps(summary)
    proc = run_wave("--continue", "-p", "and now?", cwd=project, server=model_server, env=env)
    assert proc.returncode == 0, proc.stderr
    after = model_server.requests[-1].body
    assert "THE-SUMMARY" in json.dumps(after)
    assert img.all_image_urls(after) == [sent]


@pytest.mark.req("IM1")
def test_context_counts_an_image_by_its_size_not_its_base64(
    model_server: ModelServer, project: Path
) -> None:
    img.noisy_png(project / "ui.png", (1200, 900))  # ~1,440 tokens; its base64 is ~1M chars
    assert run_wave("-p", "see @ui.png", cwd=project, server=model_server).returncode == 0
    proc = run_wave("context", "--json", "--continue", cwd=project)
    assert proc.returncode == 0, proc.stderr
    sources = json.loads(proc.stdout)["sources"]
    (conversation,) = [s for s in sources if s["kind"] == "conversation"]
    assert conversation["name"] == "2 messages, 1 image"
    assert 1440 <= conversation["tokens"] < 1600


@pytest.mark.req("IM2")
def test_an_image_name_over_text_is_not_attached_and_says_so(
    model_server: ModelServer, project: Path
) -> None:
    (project / "pic.gif").write_text("plain text, not a picture\n")
    proc = run_wave("-p", "see @pic.gif", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    body = json.dumps(model_server.requests[0].body)
    assert "plain text, not a picture" not in body and "data:image" not in body
    assert proc.stderr.strip() == (
        "wave: warning: not attached: pic.gif is not the PNG, JPEG, GIF or WebP image its name says it is."
    )
