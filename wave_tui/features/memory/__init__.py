"""Memory in the loop: the auto-memory, injection, freshness and duplicate hooks, the extraction fork, `@path` reads, `/init` and `/context`."""
