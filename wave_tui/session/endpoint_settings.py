"""The endpoint as the settings screen edits it: base URL and API key in `~/.wave/settings.json`
`env`, the models in `model` / `fastModel`; the file is kept at mode 0600 (it holds a key)."""

from __future__ import annotations

import json
from typing import Any

from wave_tui.config.paths import WavePaths
from wave_tui.config.records import record
from wave_tui.config.settings import save_user_settings


@record
class EndpointSettings:
    """The endpoint as written in `~/.wave/settings.json` (`env` and `model`/`fastModel`)."""

    base_url: str
    api_key: str
    model: str
    fast_model: str


SETTINGS_FILE_MODE = 0o600  # the file holds an API key


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
