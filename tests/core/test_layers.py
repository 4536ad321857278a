"""Dependency direction (design.md): only cli/ imports typer; only store/ imports database drivers."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "combatlog"


def imports_of(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_only_cli_imports_typer_or_click() -> None:
    offenders = [str(p.relative_to(SRC)) for p in SRC.rglob("*.py")
                 if {"typer", "click"} & imports_of(p) and p.relative_to(SRC).parts[0] not in ("cli", "tools")]
    assert not offenders


def test_only_store_imports_database_drivers() -> None:
    offenders = [str(p.relative_to(SRC)) for p in SRC.rglob("*.py")
                 if {"sqlite_utils", "psycopg", "sqlite3"} & imports_of(p) and p.relative_to(SRC).parts[0] != "store"]
    assert not offenders


def test_rulesets_do_not_import_commands_store_or_cli() -> None:
    offenders = []
    for p in (SRC / "rulesets").rglob("*.py"):
        tree = ast.parse(p.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(
                    ("combatlog.cli", "combatlog.store", "combatlog.commands.handler", "combatlog.exchange")):
                offenders.append(f"{p.relative_to(SRC)}: {node.module}")
    assert not offenders
