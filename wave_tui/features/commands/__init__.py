"""User-provided commands: custom slash commands, skills, `!cmd` and `@path` in a message."""
