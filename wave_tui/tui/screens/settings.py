"""The settings screen: auto memory switch, frequency and review, language, and the endpoint
(base URL, masked API key, model, fast model) with a "test connection" action (U4, S1–S6,
UX20). Hints come from the settings schema's descriptions."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any, cast

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.validation import Integer
from textual.widgets import Button, Input, Label, Static, Switch
from textual.worker import Worker

from wave_tui.config.settings import AUTO_MEMORY_FREQUENCY_MAX, AUTO_MEMORY_FREQUENCY_MIN
from wave_tui.session.types import EditableSettings, EndpointSettings
from wave_tui.tui.format import show_path
from wave_tui.tui.widgets.footer import Footer

if TYPE_CHECKING:
    from wave_tui.session.types import EndpointInUse, SettingInUse
    from wave_tui.tui.app import WaveApp

FREQUENCY_ERROR = (
    f"Enter a whole number from {AUTO_MEMORY_FREQUENCY_MIN} to {AUTO_MEMORY_FREQUENCY_MAX}."
)


FormValues = EditableSettings


# req: U4
class SettingsScreen(Screen[None]):
    BINDINGS = [
        Binding("ctrl+s", "save", "Save", id="save-settings"),
        Binding("ctrl+r", "revert", "Revert", id="revert-settings"),
        Binding("ctrl+t", "test_connection", "Test connection", id="test-connection"),
    ]

    def __init__(self) -> None:
        super().__init__(id="settings")
        self._loaded: FormValues | None = None
        self._endpoint: EndpointSettings | None = None  # as saved in the user file
        self._shown: EndpointSettings | None = None  # as put in the fields (values in use)

    @property
    def wave(self) -> WaveApp:
        return cast("WaveApp", self.app)

    def compose(self) -> ComposeResult:
        target = show_path(self.wave.paths.user_settings, self.wave.paths)
        session = self.wave.session
        with VerticalScroll(id="settings-form"):
            yield Static(
                Content.assemble(("Settings", "bold"), ("  saved to ", "$text-muted"), target),
                id="settings-title",
            )
            with Horizontal(classes="setting-row"):
                yield Label("Auto memory", classes="setting-label")
                yield Switch(id="auto-memory")
                yield Static("", id="auto-memory-state", classes="setting-hint")
            with Horizontal(classes="setting-row"):
                yield Label("Extract every N turns", classes="setting-label")
                yield Input(
                    id="frequency",
                    validators=[
                        Integer(
                            minimum=AUTO_MEMORY_FREQUENCY_MIN,
                            maximum=AUTO_MEMORY_FREQUENCY_MAX,
                            failure_description=FREQUENCY_ERROR,
                        )
                    ],
                    validate_on=["changed", "submitted"],
                    classes="setting-input",
                )
            yield Static("", id="frequency-error", classes="setting-error")
            with Horizontal(classes="setting-row"):
                yield Label("Review auto memories", classes="setting-label")
                yield Switch(id="auto-memory-review")
                yield Static(
                    Content(session.settings.help("autoMemoryReview")), classes="setting-hint"
                )
            with Horizontal(classes="setting-row"):
                yield Label("Language", classes="setting-label")
                yield Input(
                    id="language",
                    placeholder="model default (e.g. English, 中文)",
                    classes="setting-input",
                )
            yield Static(Content.styled("Endpoint", "bold"), classes="setting-section")
            with Horizontal(classes="setting-row -with-origin"):
                yield Label("Endpoint (base URL)", classes="setting-label")
                yield Input(
                    id="base-url",
                    placeholder=_example(session.settings.help("WAVE_BASE_URL")),
                    classes="setting-input",
                )
            yield Static("", id="base-url-origin", classes="setting-origin")
            with Horizontal(classes="setting-row -with-origin"):
                yield Label("API key", classes="setting-label")
                yield Input(
                    id="api-key",
                    password=True,
                    placeholder="stored in settings env (file mode 0600)",
                    classes="setting-input",
                )
            yield Static("", id="api-key-origin", classes="setting-origin")
            with Horizontal(classes="setting-row"):
                yield Label("Model", classes="setting-label")
                yield Input(id="model", placeholder="from WAVE_MODEL", classes="setting-input")
            yield Static("", id="model-note", classes="setting-hint")
            with Horizontal(classes="setting-row"):
                yield Label("Fast model", classes="setting-label")
                yield Input(
                    id="fast-model",
                    placeholder="side jobs; main model if empty",
                    classes="setting-input",
                )
            with Horizontal(classes="setting-row"):
                yield Button("Test connection (ctrl+t)", id="test-connection")
                yield Static("", id="connection-result", markup=False, classes="setting-hint")
            yield Static(
                Content.styled(
                    "Changes apply from the next turn of the running session.", "$text-muted"
                ),
                id="settings-effect",
            )
            with Horizontal(id="settings-buttons"):
                yield Button("Save (ctrl+s)", variant="primary", id="save")
                yield Button("Revert (ctrl+r)", id="revert")
        yield Footer()

    async def on_mount(self) -> None:
        await self._load_form()
        self.query_one("#auto-memory", Switch).focus()

    # -- form ----------------------------------------------------------------------------------
    async def _load_form(self) -> None:
        values = await self.wave.session.settings.read()
        self._loaded = values
        self.query_one("#auto-memory", Switch).value = values.auto_memory_enabled
        self.query_one("#frequency", Input).value = str(values.auto_memory_frequency)
        self.query_one("#language", Input).value = values.language
        self.query_one("#model", Input).value = values.model
        self.query_one("#auto-memory-review", Switch).value = values.auto_memory_review
        endpoint = await self.wave.session.settings.read_endpoint()
        in_use = await self.wave.session.settings.endpoint_in_use()
        self._endpoint = endpoint
        # The fields show what the agent uses, wherever it comes from; `_to_save` keeps an
        # untouched field from writing an environment value into the file.
        self._shown = replace(
            endpoint,
            base_url=in_use.base_url.value or endpoint.base_url,
            api_key=in_use.api_key.value or endpoint.api_key,
        )
        self.query_one("#base-url", Input).value = self._shown.base_url
        self.query_one("#api-key", Input).value = self._shown.api_key
        fast = self.query_one("#fast-model", Input)
        fast.value = endpoint.fast_model
        fast_in_use = self.wave.session.settings.fast_model_in_use()
        if fast_in_use and fast_in_use != endpoint.fast_model:
            # The field is what the file says; the model in use comes from the environment.
            fast.placeholder = f"in use: {fast_in_use} (WAVE_FAST_MODEL)"
        self._show_origins(in_use)
        self._show_switch_state(values.auto_memory_enabled)
        self._show_frequency_error(None)
        self._show_model_note()

    # req: UX20
    def _show_origins(self, in_use: EndpointInUse) -> None:
        saved_to = show_path(self.wave.paths.user_settings, self.wave.paths)
        for widget_id, setting in (
            ("#base-url-origin", in_use.base_url),
            ("#api-key-origin", in_use.api_key),
        ):
            self.query_one(widget_id, Static).update(Content(_origin_text(setting, saved_to)))

    def _show_switch_state(self, on: bool) -> None:
        self.query_one("#auto-memory-state", Static).update("on" if on else "off")

    def _show_frequency_error(self, message: str | None) -> None:
        error = self.query_one("#frequency-error", Static)
        error.update(Content(message or ""))
        error.display = message is not None

    def _show_model_note(self) -> None:
        typed = self.query_one("#model", Input).value.strip()
        effective = self.wave.session.settings.model_in_use()
        note = self.query_one("#model-note", Static)
        if effective and typed and effective != typed:
            note.update(Content(f"In use: {effective} (--model or WAVE_MODEL takes precedence)"))
        elif effective and not typed:
            note.update(Content(f"In use: {effective}"))
        else:
            note.update("")

    def on_switch_changed(self, event: Switch.Changed) -> None:
        self._show_switch_state(event.value)

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "frequency":
            result = event.validation_result
            failures = result.failure_descriptions if result and not result.is_valid else []
            self._show_frequency_error(failures[0] if failures else None)
        elif event.input.id == "model":
            self._show_model_note()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "save":
            self.action_save()
        elif event.button.id == "revert":
            self.action_revert()
        elif event.button.id == "test-connection":
            self.action_test_connection()

    # req: UX11
    def _form(self) -> FormValues | None:
        frequency_input = self.query_one("#frequency", Input)
        result = frequency_input.validate(frequency_input.value)
        if result is not None and not result.is_valid:
            self._show_frequency_error(result.failure_descriptions[0])
            return None
        try:
            frequency = int(frequency_input.value)
        except ValueError:
            self._show_frequency_error(FREQUENCY_ERROR)
            return None
        return FormValues(
            auto_memory_enabled=self.query_one("#auto-memory", Switch).value,
            auto_memory_frequency=frequency,
            language=self.query_one("#language", Input).value.strip(),
            model=self.query_one("#model", Input).value.strip(),
            auto_memory_review=self.query_one("#auto-memory-review", Switch).value,
        )

    def _endpoint_form(self) -> EndpointSettings:
        """The endpoint as the fields hold it (what a connection test uses)."""
        return EndpointSettings(
            base_url=self.query_one("#base-url", Input).value.strip(),
            api_key=self.query_one("#api-key", Input).value.strip(),
            model=self.query_one("#model", Input).value.strip(),
            fast_model=self.query_one("#fast-model", Input).value.strip(),
        )

    def _to_save(self, typed: EndpointSettings) -> EndpointSettings:
        """What the user file gets: a field the user did not touch keeps the file's value, so
        a value shown from the environment (or another file) is never copied into it."""
        saved, shown = self._endpoint, self._shown
        if saved is None or shown is None:
            return typed
        return replace(
            typed,
            base_url=saved.base_url if typed.base_url == shown.base_url else typed.base_url,
            api_key=saved.api_key if typed.api_key == shown.api_key else typed.api_key,
        )

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        self.wave.report_worker_failure(event)

    # -- actions -------------------------------------------------------------------------------
    def action_revert(self) -> None:
        self.run_worker(
            self._load_form(),
            group="settings-form",
            exclusive=True,
            exit_on_error=False,
            name="reading settings",
        )

    def action_save(self) -> None:
        values = self._form()
        if values is None:
            self.query_one("#frequency", Input).focus()
            self.notify("Not saved: fix the frequency first.", severity="error")
            return
        changes = _changes(self._loaded, values)
        typed = self._endpoint_form()
        endpoint = self._to_save(typed)
        endpoint_changed = endpoint != self._endpoint
        if endpoint_changed:
            changes.pop("model", None)  # written with the endpoint
        if not changes and not endpoint_changed:
            self.notify("Nothing changed.")
            return
        self.run_worker(
            self._save(values, changes, endpoint if endpoint_changed else None, typed),
            group="settings-save",
            exclusive=True,
            exit_on_error=False,
            name="saving settings",
        )

    async def _save(
        self,
        values: FormValues,
        changes: dict[str, Any],
        endpoint: EndpointSettings | None,
        typed: EndpointSettings,
    ) -> None:
        app = self.wave
        if changes:
            await app.session.settings.save(**changes)
        overridden: list[str] = []
        if endpoint is not None:
            await app.session.settings.save_endpoint(endpoint)
            self._endpoint = endpoint
            self._shown = typed
            in_use = await app.session.settings.endpoint_in_use()
            self._show_origins(in_use)
            overridden = _overridden(endpoint, in_use)
        self._loaded = values
        self._show_model_note()
        target = show_path(app.paths.user_settings, app.paths)
        if overridden:
            self.notify(
                f"Saved to {target}, but {' and '.join(overridden)} from the environment "
                "or another settings file stays in use.",
                severity="warning",
                markup=False,
            )
        else:
            self.notify(f"Saved to {target}. In effect from the next turn.", markup=False)

    # req: UX20
    def action_test_connection(self) -> None:
        result = self.query_one("#connection-result", Static)
        result.update("testing…")
        result.remove_class("-error")
        # The button sits below the fold of a small terminal (ctrl+t works from any field).
        self.call_after_refresh(result.scroll_visible, animate=False)
        self.run_worker(
            self._test_connection(self._endpoint_form()),
            group="settings-connection",
            exclusive=True,
            exit_on_error=False,
            name="testing the connection",
        )

    async def _test_connection(self, endpoint: EndpointSettings) -> None:
        model = endpoint.model or (self.wave.session.settings.model_in_use() or "")
        check = await self.wave.session.settings.test_connection(
            endpoint.base_url, endpoint.api_key, model
        )
        result = self.query_one("#connection-result", Static)
        result.update(check.message)
        result.set_class(not check.ok, "-error")
        self.call_after_refresh(result.scroll_visible, animate=False)


def _overridden(saved: EndpointSettings, in_use: EndpointInUse) -> list[str]:
    """The variables whose saved value is not the one in force (a higher source wins)."""
    pairs = ((saved.base_url, in_use.base_url), (saved.api_key, in_use.api_key))
    return [
        setting.variable
        for value, setting in pairs
        if value and setting.value != value and setting.origin != "unset"
    ]


def _origin_text(setting: SettingInUse, saved_to: str) -> str:
    """Where the value in the field above comes from (the field shows the value in use)."""
    if setting.origin == "environment":
        return f"In use: {setting.variable} from the environment (wins over {saved_to})"
    if setting.origin == "settings-file":
        if setting.file == saved_to:
            return f"In use: from {saved_to}"
        return f"In use: from {setting.file} (wins over {saved_to})"
    return f"Not set: no {setting.variable} in the environment or a settings file"


def _example(description: str) -> str:
    """`OpenAI-compatible endpoint, e.g. `http://…/v1`.` → `e.g. http://…/v1` (fits the field)."""
    _, sep, example = description.partition("e.g.")
    return f"e.g. {example.strip(' `.')}" if sep else description


def _changes(before: FormValues | None, after: FormValues) -> dict[str, Any]:
    """Only what the user changed is written; empty text fields remove their key."""
    changes: dict[str, Any] = {}
    names = (
        "auto_memory_enabled",
        "auto_memory_frequency",
        "auto_memory_review",
        "language",
        "model",
    )
    for name in names:
        new = getattr(after, name)
        if before is None or getattr(before, name) != new:
            changes[name] = new if new != "" else None
    return changes
