"""Telemetry: OpenTelemetry traces, metrics and events of the agent (004 §16).

Off by default. `wiring.install_telemetry_if_on` asks `switch` (no OpenTelemetry import, nothing
else of this package) and only when telemetry is on imports its configuration (`config`), the
SDK and its exporters (`runtime`, `jsonl`) and the loop hooks (`hooks`, `watchers`).
"""
