"""Work that spans turns: tasks, plan mode, background commands, subagent commands and their notices."""
