"""Worktrees: `EnterWorktree` / `ExitWorktree`, `wave --worktree NAME`, the worktree hooks."""
