"""The Bash sandbox (SB1–SB6): bubblewrap around Bash's command, a seam of the permission policy.

`bwrap.py` builds the argv; `feature.py` is the session's sandbox (settings `sandbox`, the
policy's `CommandSandbox`, the retry of a blocked command, `/sandbox`, the one warning without
`bwrap`); `fork.py` sandboxes the extraction fork's Bash with only the memory folder writable.
"""
