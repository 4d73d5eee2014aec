"""Project settings that widen what runs without asking (allow rules, a wider starting mode, the
sandbox): held back until trusted where the store asks (app, SDK, ACP), applied on the invoker's
trust in `wave -p`; narrowing keys always apply; a changed value asks again."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.config.conftest import WriteSettings
from wave_tui.config.paths import WavePaths
from wave_tui.config.settings import SettingsStore
from wave_tui.config.trust import NOT_TRUSTED_YET, TrustStore
from wave_tui.session import project_trust
from wave_tui.session.factory import create_service_with_extensions
from wave_tui.session.types import AgentOptions

pytestmark = pytest.mark.req("HR11")

USER = {
    "permissions": {"allow": ["Read"], "defaultMode": "acceptEdits"},
    "sandbox": {"enabled": True},
}
PROJECT = {
    "permissions": {"allow": ["Bash"], "deny": ["WebFetch"], "defaultMode": "bypassPermissions"},
    "sandbox": {"enabled": False, "writablePaths": ["/srv"]},
}


def _held_lines(store: SettingsStore) -> list[str]:
    return [p for p in store.current().problems if NOT_TRUSTED_YET in p and "permissions" in p]


def test_widening_keys_wait_for_trust_and_narrowing_keys_apply(
    paths: WavePaths, write_settings: WriteSettings
) -> None:
    write_settings(paths.user_settings, USER)
    write_settings(paths.project_settings, PROJECT)
    store = SettingsStore(paths, {})
    settings = store.current()
    assert settings.permissions.allow == ("Read",)
    assert settings.permissions.deny == ("WebFetch",)  # a deny rule narrows: always applies
    assert settings.permissions.default_mode == "acceptEdits"  # the user's, not the project's
    assert settings.sandbox.enabled is True and settings.sandbox.writable_paths == []
    (line,) = _held_lines(store)
    for name in ("permissions.allow", "permissions.defaultMode", "sandbox.enabled"):
        assert name in line
    (request,) = [r for r in store.trust_needed() if r.kind == "permissions"]
    assert "permissions.allow=Bash" in request.items
    assert 'sandbox.writablePaths=["/srv"]' in request.items
    assert store.settings_trust_needed() is None  # nothing of the credentials' group is set
    assert all("sandbox" not in layer.data for layer in store.layers() if layer.scope != "user")

    TrustStore(paths.trust_file).record(request)
    settings = store.current()
    assert settings.permissions.allow == ("Read", "Bash")
    assert settings.permissions.default_mode == "bypassPermissions"
    assert settings.sandbox.enabled is False and settings.sandbox.writable_paths == ["/srv"]
    assert _held_lines(store) == [] and store.trust_needed() == []


def test_a_narrower_mode_from_the_project_applies_untrusted(
    paths: WavePaths, write_settings: WriteSettings
) -> None:
    write_settings(paths.project_settings, {"permissions": {"defaultMode": "plan"}})
    store = SettingsStore(paths, {})
    assert store.current().permissions.default_mode == "plan"
    assert store.trust_needed() == []


def test_wave_p_keeps_the_invokers_trust_but_not_for_the_credentials(
    paths: WavePaths, write_settings: WriteSettings
) -> None:
    write_settings(paths.project_settings, {**PROJECT, "env": {"WAVE_BASE_URL": "http://x/v1"}})
    store = SettingsStore(paths, {}, trust="invoker")
    settings = store.current()
    assert settings.permissions.allow == ("Bash",)
    assert settings.sandbox.enabled is False
    assert settings.base_url is None  # the endpoint still waits for trust in `-p`
    assert [r.kind for r in store.trust_needed()] == ["settings"]


def test_trusting_the_credentials_in_the_app_carries_to_wave_p(
    paths: WavePaths, write_settings: WriteSettings
) -> None:
    write_settings(paths.project_settings, {**PROJECT, "env": {"WAVE_BASE_URL": "http://x/v1"}})
    trust = TrustStore(paths.trust_file)
    for request in SettingsStore(paths, {}).trust_needed():  # the app lists both groups
        trust.record(request)
    assert SettingsStore(paths, {}, trust="invoker").current().base_url == "http://x/v1"


def test_a_changed_value_during_the_session_is_held_and_said(
    paths: WavePaths, write_settings: WriteSettings
) -> None:
    write_settings(paths.project_settings, {"permissions": {"allow": ["Bash(npm test)"]}})
    store = SettingsStore(paths, {})
    (request,) = store.trust_needed()
    TrustStore(paths.trust_file).record(request)
    assert store.current().permissions.allow == ("Bash(npm test)",)
    store.new_problems()

    write_settings(paths.project_settings, {"permissions": {"allow": ["Bash(npm test)", "Bash"]}})
    assert store.current().permissions.allow == ()
    (notice,) = store.new_problems()
    assert NOT_TRUSTED_YET in notice and "permissions.allow" in notice


async def test_the_app_lists_them_in_the_trust_prompt_and_applies_them_once_trusted(
    project: Path, write_settings: WriteSettings
) -> None:
    paths = WavePaths.for_workdir(project)
    write_settings(paths.project_settings, {"permissions": {"allow": ["Bash(make)"]}})
    service, _ = create_service_with_extensions(AgentOptions(workdir=project, environ={}))
    try:
        assert service.store.current().permissions.allow == ()
        (request,) = [r for r in project_trust.trust_requests(service) if r.kind == "permissions"]
        assert request.items == ("permissions.allow=Bash(make)",)
        await project_trust.grant_trust(service, request)
        assert service.store.current().permissions.allow == ("Bash(make)",)
        assert [r for r in project_trust.trust_requests(service) if r.kind == "permissions"] == []
    finally:
        await service.destroy()
