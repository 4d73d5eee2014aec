"""The endpoint as the settings screen edits it: base URL and API key in `~/.wave/settings.json`
`env`, the models in `model` / `fastModel`; the file is kept at mode 0600 (it holds a key).
Also where the base URL and key in force come from (the environment, which settings file, or
nowhere), so the screen can show the value in use rather than an empty field."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from wave_tui.config.paths import WavePaths
from wave_tui.config.records import record
from wave_tui.config.settings import SettingsLayer, save_user_settings

OriginKind = Literal["environment", "settings-file", "unset"]


@record
class EndpointSettings:
    """The endpoint as written in `~/.wave/settings.json` (`env` and `model`/`fastModel`)."""

    base_url: str
    api_key: str
    model: str
    fast_model: str


SETTINGS_FILE_MODE = 0o600  # the file holds an API key


@record
class SettingInUse:
    """One endpoint variable as the agent uses it: its value and where that comes from."""

    variable: str  # WAVE_BASE_URL, WAVE_API_KEY
    value: str
    origin: OriginKind
    file: str = ""  # the settings file's label when `origin` is "settings-file"


@record
class EndpointInUse:
    base_url: SettingInUse
    api_key: SettingInUse


def endpoint_in_use(
    environ: Mapping[str, str], layers: Sequence[SettingsLayer], label: Callable[[Path], str]
) -> EndpointInUse:
    """The store's own precedence: the real environment, then the settings files' `env` blocks
    (the later file wins: local over project over user). `layers`: lowest precedence first."""

    def find(variable: str) -> SettingInUse:
        value = environ.get(variable, "")
        if value:
            return SettingInUse(variable, value, "environment")
        for layer in reversed(layers):
            block = layer.data.get("env")
            found = block.get(variable) if isinstance(block, Mapping) else None
            if isinstance(found, str) and found:
                return SettingInUse(variable, found, "settings-file", label(layer.path))
        return SettingInUse(variable, "", "unset")

    return EndpointInUse(find("WAVE_BASE_URL"), find("WAVE_API_KEY"))


def read_endpoint(paths: WavePaths) -> EndpointSettings:
    """Blocking: call from a thread."""
    raw = _read_json_object(paths)
    env = raw.get("env")
    env = env if isinstance(env, dict) else {}
    return EndpointSettings(
        base_url=str(env.get("WAVE_BASE_URL") or ""),
        api_key=str(env.get("WAVE_API_KEY") or ""),
        model=str(raw.get("model") or ""),
        fast_model=str(raw.get("fastModel") or ""),
    )


# req: UX20
def save_endpoint(paths: WavePaths, endpoint: EndpointSettings) -> None:
    raw = _read_json_object(paths)
    env = dict(raw.get("env") or {}) if isinstance(raw.get("env"), dict) else {}
    for key, value in (("WAVE_BASE_URL", endpoint.base_url), ("WAVE_API_KEY", endpoint.api_key)):
        if value.strip():
            env[key] = value.strip()
        else:
            env.pop(key, None)
    save_user_settings(
        paths,
        env=env or None,
        model=endpoint.model.strip() or None,
        fast_model=endpoint.fast_model.strip() or None,
    )
    paths.user_settings.chmod(SETTINGS_FILE_MODE)


def _read_json_object(paths: WavePaths) -> dict[str, Any]:
    try:
        data = json.loads(paths.user_settings.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}
