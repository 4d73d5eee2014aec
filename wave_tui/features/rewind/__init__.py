"""Sessions you can undo: file checkpoints before every Write/Edit, the rewind of code and
conversation, forks, and the session catalog `wave sessions` reads (list, show, delete)."""
