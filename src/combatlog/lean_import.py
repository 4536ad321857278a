"""msgspec imported without ``typing_extensions``, for the CLI's start-up (``cli/app.py`` ``main``).

msgspec's helper module prefers ``typing_extensions.get_type_hints`` and falls back to ``typing``'s when it is
missing. Importing typing_extensions (and ``inspect``, ``ast``, ``dis`` and ``tokenize``, which it pulls in) was
~37 M instructions, ~15 ms, of every command's start: a sixth of a plain one's (docs/benchmarks.md). combatlog
annotates its msgspec types with ``typing`` only, where the two functions agree (tests/core/test_lean_msgspec.py
compares them on every type). Whoever imports typing_extensions later (typer, pydantic) gets it as usual.
"""

from __future__ import annotations

import os
import sys


def import_msgspec_without_typing_extensions() -> None:
    """Import msgspec with typing_extensions hidden meanwhile. Nothing is hidden when msgspec or typing_extensions
    is loaded already, or when COMBATLOG_FULL_MSGSPEC is set; a msgspec that cannot do without typing_extensions
    is forgotten and imported again, normally, by its next importer."""
    if "msgspec" in sys.modules or "typing_extensions" in sys.modules or os.environ.get("COMBATLOG_FULL_MSGSPEC"):
        return
    sys.modules["typing_extensions"] = None  # type: ignore[assignment]  # "import typing_extensions" fails
    try:
        import msgspec  # noqa: F401
    except ImportError:
        for name in [m for m in sys.modules if m == "msgspec" or m.startswith("msgspec.")]:
            del sys.modules[name]
    finally:
        if "typing_extensions" in sys.modules and sys.modules["typing_extensions"] is None:
            del sys.modules["typing_extensions"]
