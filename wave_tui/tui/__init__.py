"""The Textual app: screens, widgets and the event bridge to the agent facade (Textual lives only here)."""
