"""Project settings keys that wait for the user's trust: the one list, and the filter over the
settings files that holds them back.

A repository's `.wave/settings.json` or `.wave/settings.local.json` is written by whoever
committed it. Some keys there would hand that person the user's credentials and conversation
(the endpoint, the API key, headers, the web search backend), turn telemetry and its content
opt-ins on towards their collector, or run their code in every shell wave starts (`BASH_ENV`,
`PATH`, `LD_PRELOAD`, git's program variables, …). Such keys from a non-user settings file apply
only once the user trusted this project for exactly that set (`~/.wave/trust.json`, kind
`settings`, a changed set asks again) — in the app, the SDK, ACP and `wave -p` alike: running
headless in a folder trusts its code, not a redirection of the user's own credentials. Until
then they are left out, named in one problem line.

The keys that widen what runs without asking (`widening.py`) are the second group, trusted
apart (kind `permissions`) because `wave -p` applies them on the invoker's trust.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from wave_tui.config.records import record
from wave_tui.config.trust import (
    NOT_TRUSTED_YET,
    TrustKind,
    TrustMode,
    TrustRequested,
    TrustStore,
)
from wave_tui.config.widening import TRUST_KIND as WIDENING_KIND
from wave_tui.config.widening import widening_items, without_widening

ENV_KEY = "env"
# Whole settings keys (camelCase, top level) a project may not set without trust: telemetry
# (switch, exporters, endpoint, headers, content opt-ins), the web search backend (its `url`
# from a project would receive the user's `apiKey`, merged from the user file, and the
# queries), and a credential helper's command.
GUARDED_FILE_KEYS = ("monitoring", "webSearch", "apiKeyHelper")
# Variables of a settings file's `env` block: where the model requests go and with what
# credentials, and the ones a shell, interpreter, loader or git reads to run a program.
GUARDED_ENV_NAMES = frozenset(
    {
        "WAVE_BASE_URL",
        "WAVE_API_KEY",
        "WAVE_CUSTOM_HEADERS",
        "WAVE_API_KEY_HELPER",
        "BASH_ENV",
        "ENV",
        "PATH",
        "SHELL",
        "SHELLOPTS",
        "BASHOPTS",
        "PS4",
        "PROMPT_COMMAND",
        "ZDOTDIR",
        "PYTHONPATH",
        "PYTHONSTARTUP",
        "PYTHONHOME",
        "PYTHONUSERBASE",
        "NODE_OPTIONS",
        "NODE_PATH",
        "PERL5OPT",
        "PERL5LIB",
        "PERLLIB",
        "RUBYOPT",
        "RUBYLIB",
        "JAVA_TOOL_OPTIONS",
        "_JAVA_OPTIONS",
        "JDK_JAVA_OPTIONS",
        "EDITOR",
        "VISUAL",
        "PAGER",
        "MANPAGER",
        "LESSOPEN",
        "LESSCLOSE",
        "BROWSER",
        "SSH_ASKPASS",
        "SUDO_ASKPASS",
        "HOME",
        "XDG_CONFIG_HOME",
    }
)
# Whole families: the dynamic loader's (`LD_PRELOAD`, `LD_AUDIT`, macOS `DYLD_*`), git's
# (`GIT_SSH_COMMAND`, `GIT_EXTERNAL_DIFF`, `GIT_ASKPASS`, `GIT_CONFIG_*`, …) and telemetry's.
GUARDED_ENV_PREFIXES = ("LD_", "DYLD_", "GIT_", "OTEL_")
TRUST_KIND: TrustKind = "settings"


def is_guarded_env(name: str) -> bool:
    """Whether a project's `env` entry `name` needs the user's trust."""
    upper = name.upper()
    return upper in GUARDED_ENV_NAMES or upper.startswith(GUARDED_ENV_PREFIXES)


def _shown(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)


def guarded_items(data: Mapping[str, Any]) -> list[str]:
    """The guarded keys one non-user settings file sets, as the trust prompt shows them (the
    value included: a changed value is a changed set)."""
    items = [f"{key}={_shown(data[key])}" for key in GUARDED_FILE_KEYS if key in data]
    env = data.get(ENV_KEY)
    if isinstance(env, Mapping):
        items += [f"env.{name}={_shown(v)}" for name, v in env.items() if is_guarded_env(name)]
    return items


def without_guarded(data: Mapping[str, Any]) -> dict[str, Any]:
    """`data` with its guarded keys left out."""
    kept = {key: value for key, value in data.items() if key not in GUARDED_FILE_KEYS}
    env = kept.get(ENV_KEY)
    if isinstance(env, Mapping):
        kept[ENV_KEY] = {name: v for name, v in env.items() if not is_guarded_env(name)}
    return kept


@record
class GuardedLayers:
    """The settings files' contents as they apply, and what was held back for trust."""

    layers: tuple[Mapping[str, Any], ...]
    held: tuple[str, ...]  # the guarded items left out (empty: all applied)
    requests: tuple[TrustRequested, ...]  # what to ask the user, one per kind held back
    problems: tuple[str, ...]  # one line per kind, naming what was left out


def _names(items: Iterable[str]) -> str:
    return ", ".join(dict.fromkeys(item.partition("=")[0] for item in items))


def _held(
    pairs: list[tuple[str, Mapping[str, Any]]],
    find: Callable[[Mapping[str, Any]], list[str]],
    kind: TrustKind,
    project: Path,
    trust_file: Path,
) -> TrustRequested | None:
    items = list(dict.fromkeys(i for scope, data in pairs if scope != "user" for i in find(data)))
    # Asked of the file, not of the front end: the caller decides which groups `-p` asks for.
    return TrustStore(trust_file, "ask").request(project, kind, items) if items else None


# req: HR12
# req: HR11
def guard_layers(
    layers: Iterable[tuple[str, Mapping[str, Any]]],
    project: Path,
    trust_file: Path,
    mode: TrustMode = "ask",
) -> GuardedLayers:
    """(scope, contents) lowest precedence first → the contents that apply: the guarded keys of
    every non-user file stay out unless the user trusted this project for that very set; so do
    the keys that widen what runs unasked, except where the invoker trusts (`wave -p`)."""
    pairs = list(layers)
    # `wave -p` trusts a folder's code and permissions, not a redirection of the user's own
    # credentials: the first group is asked for in every front end.
    guarded = _held(pairs, guarded_items, TRUST_KIND, project, trust_file)
    widening = None
    if mode == "ask":
        widening = _held(pairs, widening_items, WIDENING_KIND, project, trust_file)
    if guarded is None and widening is None:
        return GuardedLayers(tuple(data for _, data in pairs), (), (), ())
    kept: list[Mapping[str, Any]] = []
    for scope, data in pairs:
        if scope != "user" and guarded is not None:
            data = without_guarded(data)
        if scope != "user" and widening is not None:
            data = without_widening(data)
        kept.append(data)
    requests = tuple(r for r in (guarded, widening) if r is not None)
    problems: list[str] = []
    if guarded is not None:
        problems.append(
            f"project settings {_names(guarded.items)} ignored: {NOT_TRUSTED_YET} (they would "
            "choose where your credentials and conversation go, turn telemetry on, or run code)"
        )
    if widening is not None:
        problems.append(
            f"project settings {_names(widening.items)} ignored: {NOT_TRUSTED_YET} (they would "
            "let commands run without asking; trust the project in the app to apply them)"
        )
    held = tuple(item for request in requests for item in request.items)
    return GuardedLayers(tuple(kept), held, requests, tuple(problems))
