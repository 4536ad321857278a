"""combatlog: an event-sourced, hash-chained combat log for tabletop games."""

__version__ = "0.3.0"  # the release (pyproject.toml says it too); the log format is ENGINE_VERSION

# Bumped whenever a fold could produce a different state from the same events
# (a rules fix, a new derived field). Snapshots are keyed by it, so a new engine
# never trusts a snapshot written by an old one.
ENGINE_VERSION = "0.3.0"
# Logs begun by this engine version or a later one record each ruleset command with its events, and
# ``verify`` re-decides every one (commands/record.py); older logs are verified without re-deciding.
COMMANDS_RECORDED_SINCE = (0, 2, 0)
# Logs begun by this engine version or a later one record, on the last envelope of each batch, the digest of the
# rules' state the batch leaves (projections/digest.py); ``verify`` compares it with its own fold.
STATE_RECORDED_SINCE = (0, 3, 0)
