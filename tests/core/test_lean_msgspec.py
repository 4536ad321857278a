"""The CLI imports msgspec with typing_extensions hidden (combatlog/lean_import.py): msgspec then resolves
annotations with ``typing.get_type_hints`` instead of ``typing_extensions``'. The two must agree on every
msgspec type of combatlog, or an event would decode differently depending on what was imported first.

Each side runs in a fresh interpreter (the choice is made once, at msgspec's import): one as every command
runs, one with COMBATLOG_FULL_MSGSPEC set. Both import every module of combatlog and describe every
``msgspec.Struct`` subclass they define (``msgspec.inspect.type_info``, which resolves every annotation the
way decoding does); the descriptions must be identical."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.conftest import REPO

PROBE = r"""
import importlib, json, pkgutil, sys
import combatlog
from combatlog.lean_import import import_msgspec_without_typing_extensions
import_msgspec_without_typing_extensions()  # as cli/app.py does for every command
import msgspec, msgspec.inspect, msgspec._utils
resolver = msgspec._utils._get_type_hints.__module__
for info in pkgutil.walk_packages(combatlog.__path__, "combatlog."):
    if info.name.endswith("__main__"):  # runs the CLI
        continue
    try:
        importlib.import_module(info.name)
    except ImportError:  # an optional part whose dependency is missing: the same on both sides
        pass

def subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from subclasses(sub)

described = {}
for cls in subclasses(msgspec.Struct):
    if cls.__module__.startswith("combatlog."):
        try:
            text = repr(msgspec.inspect.type_info(cls))
        except Exception as exc:  # an annotation named for type checkers only (ports.Wiring): never decoded
            text = f"{type(exc).__name__}: {exc}"
        described[f"{cls.__module__}.{cls.__qualname__}"] = text
print(json.dumps({"resolver": resolver, "types": described}))
"""


def _describe(**env: str) -> dict[str, object]:
    environ = {k: v for k, v in os.environ.items() if k != "COMBATLOG_FULL_MSGSPEC"}
    proc = subprocess.run([sys.executable, "-c", PROBE], cwd=REPO, env={**environ, **env}, capture_output=True,
                          text=True, check=True, timeout=120)
    return json.loads(proc.stdout)  # type: ignore[no-any-return]


def test_both_ways_of_importing_msgspec_describe_every_combatlog_type_alike() -> None:
    lean, full = _describe(), _describe(COMBATLOG_FULL_MSGSPEC="1")
    assert lean["resolver"] == "typing" and full["resolver"] == "typing_extensions"  # each side took its path
    assert len(lean["types"]) > 250  # type: ignore[arg-type]  # every event, command, state and record type (284 now)
    described = [t for t in lean["types"].values() if not t.startswith("NameError")]  # type: ignore[attr-defined]
    assert len(described) > 250
    assert lean["types"] == full["types"]


def test_typing_extensions_is_still_there_for_whoever_imports_it_later() -> None:
    code = ("import sys; from combatlog.lean_import import import_msgspec_without_typing_extensions as lean; lean(); "
            "assert 'typing_extensions' not in sys.modules and 'msgspec' in sys.modules; "
            "import typing_extensions, typer; print(typing_extensions.__name__)")
    proc = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout.strip() == "typing_extensions", proc.stderr
