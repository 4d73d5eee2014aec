"""Guarded project settings keys: held back (and named once) until the user trusts the set, from
the store's merged settings and from its layers alike; the user's own file is never held."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.config.conftest import WriteSettings
from wave_tui.config.paths import WavePaths
from wave_tui.config.project_guard import is_guarded_env
from wave_tui.config.settings import SettingsStore
from wave_tui.config.trust import NOT_TRUSTED_YET, TrustStore
from wave_tui.session import project_trust
from wave_tui.session.factory import create_service_with_extensions
from wave_tui.session.types import AgentOptions

pytestmark = pytest.mark.req("HR12")

PROJECT_ENV = {
    "WAVE_BASE_URL": "http://127.0.0.1:9/v1",
    "GIT_SSH_COMMAND": "./pwn",
    "LD_PRELOAD": "./x.so",
    "NODE_OPTIONS": "--require ./x.js",
    "FOO": "kept",
}


def test_guarded_names_cover_the_families() -> None:
    for name in (
        "BASH_ENV",
        "PATH",
        "GIT_EXTERNAL_DIFF",
        "LD_AUDIT",
        "OTEL_EXPORTER_OTLP_ENDPOINT",
    ):
        assert is_guarded_env(name)
    for name in ("FOO", "WAVE_MODEL", "RUST_LOG"):
        assert not is_guarded_env(name)


def test_held_back_until_trusted_then_applied_live(
    paths: WavePaths, write_settings: WriteSettings
) -> None:
    write_settings(paths.user_settings, {"env": {"WAVE_BASE_URL": "http://user/v1", "PATH": "/u"}})
    write_settings(
        paths.local_settings,
        {"env": PROJECT_ENV, "monitoring": {"telemetry": {"enabled": True}}},
    )
    store = SettingsStore(paths, {})
    settings = store.current()
    assert settings.base_url == "http://user/v1"
    assert settings.env == {"WAVE_BASE_URL": "http://user/v1", "PATH": "/u", "FOO": "kept"}
    (problem,) = [p for p in settings.problems if NOT_TRUSTED_YET in p]
    assert "env.GIT_SSH_COMMAND" in problem and "monitoring" in problem
    assert all("monitoring" not in layer.data for layer in store.layers())
    request = store.settings_trust_needed()
    assert request is not None and "env.LD_PRELOAD=./x.so" in request.items
    TrustStore(paths.trust_file).record(request)
    settings = store.current()  # the trust file changed: rebuilt without a settings change
    assert settings.base_url == "http://127.0.0.1:9/v1"
    assert settings.env["NODE_OPTIONS"] == "--require ./x.js"
    assert store.settings_trust_needed() is None
    assert not [p for p in settings.problems if NOT_TRUSTED_YET in p]
    assert any("monitoring" in layer.data for layer in store.layers())


def test_the_user_file_is_never_held(paths: WavePaths, write_settings: WriteSettings) -> None:
    write_settings(paths.user_settings, {"env": {"BASH_ENV": "/u/rc", "WAVE_API_KEY": "k"}})
    store = SettingsStore(paths, {})
    assert store.current().env["BASH_ENV"] == "/u/rc"
    assert store.current().api_key == "k"
    assert store.settings_trust_needed() is None


async def test_the_app_lists_them_in_the_trust_prompt_and_applies_them_once_trusted(
    project: Path, write_settings: WriteSettings
) -> None:
    paths = WavePaths.for_workdir(project)
    write_settings(paths.project_settings, {"env": {"BASH_ENV": "./rc"}})
    service, _ = create_service_with_extensions(AgentOptions(workdir=project, environ={}))
    try:
        assert "BASH_ENV" not in service.store.current().env
        (request,) = [r for r in project_trust.trust_requests(service) if r.kind == "settings"]
        assert request.items == ("env.BASH_ENV=./rc",)
        await project_trust.grant_trust(service, request)
        assert service.store.current().env["BASH_ENV"] == "./rc"
        assert [r for r in project_trust.trust_requests(service) if r.kind == "settings"] == []
    finally:
        await service.destroy()
