"""Session tasks: a shared, locked task list and the four task tools (TK1, TK2)."""
