"""`wave --acp`: wave as an Agent Client Protocol agent on stdio (Zed, Toad, …)."""
