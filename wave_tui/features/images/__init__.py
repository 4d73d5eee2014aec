"""Images in a session: `@img.png` in a prompt, a pasted path or clipboard image, and the
`vision` subagent for a model that cannot see (IM2, IM3, IM5)."""
