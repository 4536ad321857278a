"""What ``combatlog --version`` prints: the release, the engine version (the log format: each combat's
genesis records the one that began it) and each ruleset's name and version.

The rulesets' versions are read from their sources (the ``name=`` and ``version=`` of the
``RulesetInfo(...)`` in each ``rulesets/*/ruleset.py``), neither imported nor parsed: importing the
five rulesets takes twice as long as the whole command otherwise does, parsing them a third as long
(tests/cli/test_startup.py). tests/cli/test_usage.py checks that what is read here is what the loaded
rulesets say.
"""

from __future__ import annotations

import re
from pathlib import Path

from combatlog import ENGINE_VERSION, __version__

RULESETS = Path(__file__).resolve().parents[1] / "rulesets"
NAME, VERSION = re.compile(r'\bname="([^"]+)"'), re.compile(r'\bversion="([^"]+)"')


def ruleset_versions() -> list[tuple[str, str]]:
    """(name, version) of every ruleset of this build, by name."""
    found = []
    for path in RULESETS.glob("*/ruleset.py"):
        text = path.read_text(encoding="utf-8")
        start = text.find("RulesetInfo(\n")
        name, version = NAME.search(text, start), VERSION.search(text, start)
        if start >= 0 and name and version:
            found.append((name.group(1), version.group(1)))
    return sorted(found)


def version_text() -> str:
    lines = [f"combatlog {__version__}", f"engine {ENGINE_VERSION} (the log format a new combat records)"]
    lines += [f"ruleset {name} {version}" for name, version in ruleset_versions()]
    return "\n".join(lines)
