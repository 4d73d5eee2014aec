"""Telemetry: OpenTelemetry traces, metrics and events of the agent (004 §16).

Off by default. `wiring.install_telemetry_if_on` reads `config` (no OpenTelemetry import) and
only when telemetry is on imports the SDK (`runtime`), the exporters and the loop hooks (`hooks`).
"""
