"""The CLI as a replica of a combat server: remotes, the HTTP client, push/pull/sync.

Standard library only (``urllib``): these modules load on ``push``/``pull`` and
must not slow the CLI's start-up. Nothing the server says is trusted: every
bundle it serves goes through the normal import (full verification).
"""
