"""combatlog: an event-sourced, hash-chained combat log for tabletop games."""

__version__ = "0.1.0"

# Bumped whenever a fold could produce a different state from the same events
# (a rules fix, a new derived field). Snapshots are keyed by it, so a new engine
# never trusts a snapshot written by an old one.
ENGINE_VERSION = "0.1.0"
