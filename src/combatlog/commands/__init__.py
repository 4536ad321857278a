"""Commands: the write path and the core commands."""
