"""The rulesets this engine knows, loaded lazily by name."""

from __future__ import annotations

import importlib
from typing import Any

from combatlog.errors import NotFound
from combatlog.rulesets.base import Ruleset

# name -> module exposing RULESET. Aliases help people type less.
KNOWN: dict[str, str] = {
    "freeform": "combatlog.rulesets.freeform",
    "magic_realm": "combatlog.rulesets.magic_realm",
    "classic_fantasy": "combatlog.rulesets.classic_fantasy",
    "osric": "combatlog.rulesets.osric",
    "argad": "combatlog.rulesets.argad",
}
ALIASES = {"mr": "magic_realm", "cfi": "classic_fantasy", "mythras": "classic_fantasy"}


def canonical_name(name: str) -> str:
    key = name.strip().lower().replace("-", "_")
    return ALIASES.get(key, key)


def load_ruleset(name: str) -> Ruleset[Any]:
    key = canonical_name(name)
    module_name = KNOWN.get(key)
    if module_name is None:
        raise NotFound(f"unknown ruleset {name!r}; known: {', '.join(available())}")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name and module_name.startswith(exc.name):
            raise NotFound(f"ruleset {key!r} is not installed in this build") from None
        raise
    ruleset: Ruleset[Any] = module.RULESET
    return ruleset


def available() -> list[str]:
    import importlib.util

    return [name for name, mod in KNOWN.items() if importlib.util.find_spec(mod) is not None]
