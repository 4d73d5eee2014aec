"""`wave --local` (for `cli` and `tui`): start the offline llama.cpp server and point the normal client at it.

Both `wave -p` and the full-screen app call `prepare_local_endpoint`; it decides whether a local
model is wanted (the flag, settings `"local": true`, `WAVE_LOCAL=1`, or nothing else configured),
starts it, and hands back the environment that routes the agent to it.
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import field
from pathlib import Path
from typing import Literal

from wave_tui.config.paths import WavePaths
from wave_tui.config.records import record
from wave_tui.config.settings import ENV_DISABLE_AUTO_MEMORY, EffectiveSettings, SettingsStore
from wave_tui.llm.local_demo import forget_demo_engine, register_demo_engine
from wave_tui.llm.local_server import (
    BUNDLED_FILE_NAME,
    BUNDLED_MAX_OUTPUT_TOKENS,
    BUNDLED_MODEL_NAME,
    CUSTOM_MAX_OUTPUT_TOKENS,
    DEFAULT_CONTEXT_TOKENS,
    INSTALL_HINT,
    LocalModelError,
    LocalModelServer,
    bundled_model_available,
    bundled_model_path,
    cache_dir,
    engine_available,
    forget_local_engine,
    register_local_engine,
)

ENV_LOCAL = "WAVE_LOCAL"
LOCAL_API_KEY = "local"
EXIT_NOT_INSTALLED = 2
DEMO_NOTE = "a tiny base model without chat training: replies are echoes, for wiring demos only"
DEMO_MEMORY_NOTE = (
    "no memory extraction on it (autoMemoryEnabled: true in ~/.wave/settings.json turns it on)"
)

Reason = Literal["asked", "default"]

__all__ = [
    "DEMO_NOTE",
    "LocalEndpoint",
    "LocalModelError",
    "LocalUnavailable",
    "local_reason",
    "prepare_local_endpoint",
]


class LocalUnavailable(LocalModelError):
    """A local model was asked for but cannot run here; the message says what to install."""

    exit_code = EXIT_NOT_INSTALLED


@record(frozen=False)
class LocalEndpoint:
    """A running local model and the environment that points wave-tui at it."""

    server: LocalModelServer
    reason: Reason
    bundled: bool
    environ: dict[str, str] = field(default_factory=dict, repr=False)

    @property
    def base_url(self) -> str:
        return self.server.base_url

    @property
    def model_name(self) -> str:
        return self.server.model_name

    @property
    def status_label(self) -> str:
        """Short text for a status bar, e.g. `local: gemma-3-270m (demo quality)`."""
        return f"local: {self.model_name}" + (" (demo quality)" if self.bundled else "")

    @property
    def banner(self) -> str | None:
        """One line for stderr when the local model was not asked for, or is the demo one."""
        if self.reason == "default":
            which = (
                f"the bundled {self.model_name} ({DEMO_NOTE})" if self.bundled else self.model_name
            )
            return (
                f"wave: no model endpoint is configured, so this runs offline on {which}; "
                "to use a real one set WAVE_BASE_URL, WAVE_API_KEY and WAVE_MODEL"
                + self._memory_note
            )
        if self.bundled:
            return f"wave: local model {self.model_name}: {DEMO_NOTE}" + self._memory_note
        return None

    @property
    def _memory_note(self) -> str:
        """Said, not left to be found: the demo model runs no memory extraction by default."""
        if self.bundled and self.environ.get(ENV_DISABLE_AUTO_MEMORY):
            return f"; {DEMO_MEMORY_NOTE}"
        return ""

    def close(self) -> None:
        if self.server.url is not None:
            forget_local_engine(self.server.base_url)
            forget_demo_engine(self.server.base_url)
        self.server.stop()

    def __enter__(self) -> LocalEndpoint:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


# req: UX6
def local_reason(
    args: argparse.Namespace,
    settings: EffectiveSettings,
    environ: Mapping[str, str],
    settings_files: Iterable[Path] = (),
) -> Reason | None:
    """Why a local model should run, or None. Asking beats configuration beats the default."""
    env_flag = (environ.get(ENV_LOCAL) or "").strip().lower()
    asked = getattr(args, "local", None)
    if asked or getattr(args, "local_model", None) or env_flag in ("1", "true", "yes"):
        return "asked"
    if env_flag in ("0", "false", "no") or settings.local is False:
        return None
    if settings.local:
        return "asked"
    configured = settings.base_url or settings.model or getattr(args, "model", None)
    if configured or not engine_available():
        return None
    if settings.problems and _unreadable_file_names_endpoint(settings_files):
        return None  # the settings error is shown instead of a demo model standing in
    if settings.local_model or bundled_model_available():
        return "default"
    return None


ENDPOINT_KEYS = ("WAVE_BASE_URL", "WAVE_MODEL", '"model"')


def _unreadable_file_names_endpoint(files: Iterable[Path]) -> bool:
    """A settings file that does not parse but names an endpoint: the user configured one."""
    for path in files:
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        try:
            json.loads(text)
        except ValueError:
            if any(key in text for key in ENDPOINT_KEYS):
                return True
    return False


@record(frozen=False)
class LocalPlan:
    """A local model that is wanted, not started yet: `start()` (blocking) runs it."""

    reason: Reason
    bundled: bool
    model_name: str
    context_tokens: int
    max_output_tokens: int
    environ: dict[str, str] = field(repr=False)
    model_path: Path | None = None  # None: the bundled model, assembled on first use

    @property
    def status_label(self) -> str:
        return f"local: {self.model_name}" + (" (demo quality)" if self.bundled else "")

    # req: UX14
    def first_use(self) -> bool:
        """True when the bundled model must first be assembled (a few hundred MB, once)."""
        return self.model_path is None and not bundled_model_cached()

    def start(self) -> LocalEndpoint:
        """Assemble the bundled model if needed, start the server (a few seconds)."""
        path = self.model_path or bundled_model_path()
        server = LocalModelServer(
            path,
            model_name=self.model_name,
            context_tokens=self.context_tokens,
            max_output_tokens=self.max_output_tokens,
        )
        server.start()
        register_local_engine(server.base_url)  # its replies lose leaked template tokens
        if self.bundled:
            register_demo_engine(server.base_url)  # brief requests: an answer in seconds
        overrides = {
            "WAVE_BASE_URL": server.base_url,
            "WAVE_MODEL": self.model_name,
            "WAVE_API_KEY": LOCAL_API_KEY,
            # Compaction must trigger before the server's context window overflows.
            "WAVE_MAX_INPUT_TOKENS": str(self.context_tokens),
        }
        return LocalEndpoint(server, self.reason, self.bundled, {**self.environ, **overrides})


def plan_local_endpoint(
    args: argparse.Namespace,
    workdir: Path,
    environ: Mapping[str, str] | None = None,
    settings: EffectiveSettings | None = None,
) -> LocalPlan | None:
    """Whether a local model is wanted and which (quick: nothing starts). Raises
    LocalUnavailable when it was asked for but is not installed. `settings`, when given, are
    the ones in force for `workdir` and `environ` (a caller that has a store already)."""
    env = dict(os.environ if environ is None else environ)
    paths = WavePaths.for_workdir(workdir)
    if settings is None:
        settings = SettingsStore(paths, env).current()
    reason = local_reason(args, settings, env, paths.settings_files)
    if reason is None:
        return None
    if not engine_available():
        raise LocalUnavailable(f"--local needs the offline model engine: {INSTALL_HINT}")
    context = settings.max_input_tokens or DEFAULT_CONTEXT_TOKENS
    model_arg = getattr(args, "local_model", None) or settings.local_model
    if model_arg:
        path = Path(model_arg).expanduser()
        if not path.is_absolute():
            path = (workdir / path).resolve()
        return LocalPlan(reason, False, path.stem, context, CUSTOM_MAX_OUTPUT_TOKENS, env, path)
    if not bundled_model_available():
        raise LocalUnavailable(
            f"no local model: pass --local-model PATH.gguf, or {INSTALL_HINT} for the demo one"
        )
    if not env.get(ENV_DISABLE_AUTO_MEMORY):
        # The demo model cannot write a memory: an extraction on it is ~50 s of CPU for
        # nothing. Off by default; `autoMemoryEnabled` in ~/.wave/settings.json still wins (S6).
        env[ENV_DISABLE_AUTO_MEMORY] = "1"
    return LocalPlan(reason, True, BUNDLED_MODEL_NAME, context, BUNDLED_MAX_OUTPUT_TOKENS, env)


def bundled_model_cached() -> bool:
    return (cache_dir() / BUNDLED_FILE_NAME).is_file()


def prepare_local_endpoint(
    args: argparse.Namespace,
    workdir: Path,
    environ: Mapping[str, str] | None = None,
    settings: EffectiveSettings | None = None,
) -> LocalEndpoint | None:
    """Start the local model if one is wanted (blocks a few seconds), else return None.

    Raises LocalUnavailable when it was asked for but is not installed, and LocalModelError
    when it fails to start. Close the result (it is a context manager) to stop the server;
    it also stops at interpreter exit, and dies with this process in any case.
    """
    plan = plan_local_endpoint(args, workdir, environ, settings)
    return plan.start() if plan is not None else None
