"""Every set-up key a ruleset reads is documented in its docs page, in a table row.

The keys are taken from the code that reads the set-up, not from a list kept by hand: in the
modules named below, every string literal used as a key on a set-up object (``X.get("k")``,
``X["k"]``, ``"k" in X``, ``set(X) - {"k", ...}``, a reader call ``f(X, "k", ...)``, and a ``for k in ("a", "b")`` loop whose ``k``
is used as such a key), where ``X`` names a set-up object (a variable or attribute name listed per
ruleset), plus the key constants the validators check against (allowed-key sets, option tables,
characteristics and skill names). A key is documented when it appears, in backticks, in the first
cell of a table row of the ruleset's page (``| `characters[].horse` | ... |``).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "combatlog" / "rulesets"
KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")  # a key, not a message or a place ("setup.pieces")

# ruleset -> (docs page, modules reading the set-up, names of set-up objects, key constants "module:NAME")
RULESETS: dict[str, tuple[str, tuple[str, ...], frozenset[str], tuple[str, ...]]] = {
    "magic_realm": (
        "docs/magic_realm.md",
        ("magic_realm/setup.py", "magic_realm/ruleset.py", "magic_realm/plays.py"),
        # setup: the set-up; entry: a character or denizen; it: an item; a: an artifact (or an armor
        # piece); extra: pieces; m, w, h: pieces; clearing: the clearing (read by the spells' checks)
        frozenset({"setup", "entry", "it", "a", "extra", "m", "w", "h", "clearing"}),
        ("magic_realm/setup.py:OPTIONS",),
    ),
    "classic_fantasy": (
        "docs/classic_fantasy.md",
        ("classic_fantasy/setup.py",),
        # spec: a combatant (or a weapon spec); d: a location; w: a weapon; armour/value: armour points
        frozenset({"setup", "spec", "chars_in", "d", "w", "armour", "value"}),
        ("classic_fantasy/setup.py:OPTIONS", "classic_fantasy/setup.py:CHARS", "classic_fantasy/setup.py:KNOWN_SKILLS",
         "classic_fantasy/setup.py:COMBATANT_KEYS", "classic_fantasy/setup.py:WEAPON_KEYS",
         "classic_fantasy/setup.py:LOCATION_KEYS", "classic_fantasy/setup.py:ARMOUR_KEYS"),
    ),
    "osric": (
        "docs/osric.md",
        ("osric/setup.py", "osric/evolve.py"),
        # raw: a combatant; entry: a weapon; item: an attack form
        frozenset({"setup", "raw", "entry", "item"}),
        ("osric/setup.py:OPTIONS", "osric/setup.py:CHARACTER_KEYS", "osric/setup.py:MONSTER_KEYS"),
    ),
    "argad": (
        "docs/argad.md",
        ("argad/ruleset.py", "argad/figures.py"),
        frozenset({"setup", "entry"}),
        ("argad/figures.py:KEYS", "argad/options.py:CHOICES"),
    ),
}


def _receiver(node: ast.AST, names: frozenset[str]) -> bool:
    return (isinstance(node, ast.Name) and node.id in names) or \
        (isinstance(node, ast.Attribute) and node.attr in names)


def _strings(node: ast.AST) -> list[str]:
    if isinstance(node, (ast.Set, ast.Tuple, ast.List)):
        return [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return []


def keys_read(tree: ast.AST, names: frozenset[str]) -> set[str]:
    """The string keys read from set-up objects (see the module docstring)."""
    found: set[str] = set()

    def key_nodes(node: ast.AST) -> list[ast.AST]:
        """Key expressions used on a set-up object inside ``node``."""
        out: list[ast.AST] = []
        for n in ast.walk(node):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "get" \
                    and _receiver(n.func.value, names) and n.args:
                out.append(n.args[0])
            elif isinstance(n, ast.Call) and len(n.args) >= 2 and _receiver(n.args[0], names):
                out.append(n.args[1])  # a reader such as _int(entry, "level", 4, ...)
            elif isinstance(n, ast.Subscript) and _receiver(n.value, names):
                out.append(n.slice)
            elif isinstance(n, ast.Compare) and len(n.ops) == 1 and isinstance(n.ops[0], (ast.In, ast.NotIn)) \
                    and _receiver(n.comparators[0], names):
                out.append(n.left)
        return out

    for key in key_nodes(tree):
        if isinstance(key, ast.Constant) and isinstance(key.value, str) and KEY.match(key.value):
            found.add(key.value)
    for node in ast.walk(tree):
        # set(setup) - {"a", "b"}: the keys a validator allows
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Sub) and isinstance(node.left, ast.Call) \
                and isinstance(node.left.func, ast.Name) and node.left.func.id == "set" and node.left.args \
                and _receiver(node.left.args[0], names):
            found.update(_strings(node.right))
        # for key in ("a", "b"): ... X.get(key) / X[key] / key in X
        if isinstance(node, ast.For) and isinstance(node.target, ast.Name) and _strings(node.iter):
            var = node.target.id
            if any(isinstance(k, ast.Name) and k.id == var for stmt in node.body for k in key_nodes(stmt)):
                found.update(_strings(node.iter))
    return found


def constant_keys(spec: str) -> set[str]:
    module, name = spec.split(":")
    tree = ast.parse((SRC / module).read_text())
    for node in tree.body:
        target = node.target if isinstance(node, ast.AnnAssign) else \
            (node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else None)
        if isinstance(target, ast.Name) and target.id == name and node.value is not None:
            value = node.value
            if isinstance(value, ast.Dict):
                return {k.value for k in value.keys if isinstance(k, ast.Constant)}
            if isinstance(value, ast.BinOp):  # KNOWN_SKILLS = set(SKILL_BASES) | {"acrobatics"}
                return constant_keys(f"{module}:{value.left.args[0].id}") | set(_strings(value.right))  # type: ignore[attr-defined]
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) \
                    and value.func.id in ("frozenset", "set") and value.args:  # COMBATANT_KEYS = frozenset({...})
                value = value.args[0]
            keys = set(_strings(value))
            assert keys, f"{spec}: the extractor reads no key from it (a form it does not know)"
            return keys
    raise AssertionError(f"no constant {spec}")


def setup_keys(ruleset: str) -> set[str]:
    _page, modules, names, constants = RULESETS[ruleset]
    keys: set[str] = set()
    for module in modules:
        keys |= keys_read(ast.parse((SRC / module).read_text()), names)
    for spec in constants:
        keys |= constant_keys(spec)
    return keys


def documented(page: str) -> set[str]:
    """Every name in backticks in the first cell of a row of a table headed ``| key |`` or ``| option |``."""
    out: set[str] = set()
    lines = (ROOT / page).read_text(encoding="utf-8").splitlines()
    header = ""
    for previous, line in zip([""] + lines, lines):
        if not line.startswith("|"):
            header = ""
            continue
        if line.startswith("|---"):
            header = previous.strip("| ").split(" | ", 1)[0]
            continue
        if header not in ("key", "option"):
            continue
        first = line[2:].split(" | ", 1)[0]
        for code in re.findall(r"`([^`]+)`", first):
            out.update(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", code))
    return out


def test_the_extractor_reads_keys_the_way_validators_use_them() -> None:
    src = ('def f(setup, entry, other):\n'
           '    unknown = set(setup) - {"a", "b"}\n'
           '    x = entry.get("c", 1) + entry["d"] + other["not_me"] + _int(entry, "i", 0)\n'
           '    if "e" in entry: pass\n'
           '    for key in ("f", "g"):\n'
           '        if key in setup: pass\n'
           '    for key in ("h",):\n'
           '        print(key)\n')
    assert keys_read(ast.parse(src), frozenset({"setup", "entry"})) == {"a", "b", "c", "d", "e", "f", "g", "i"}


def test_known_keys_are_found() -> None:
    # keys a review found undocumented, and some read only outside setup.py
    assert {"horse", "part_side", "assigned", "color_magic", "first_round_of_day"} <= setup_keys("magic_realm")
    assert {"fatigue", "legs", "impale_size", "all", "STR", "first_aid", "knockback"} <= setup_keys("classic_fantasy")
    assert {"players", "engaged", "damage_large", "never_surprised", "monster_death"} <= setup_keys("osric")
    assert {"refuse_recoil", "ground", "note", "wound_location"} <= setup_keys("argad")


@pytest.mark.parametrize("ruleset", sorted(RULESETS))
def test_every_setup_key_is_documented(ruleset: str) -> None:
    missing = sorted(setup_keys(ruleset) - documented(RULESETS[ruleset][0]))
    assert not missing, f"{RULESETS[ruleset][0]} has no table row for the set-up key(s) {missing}"


def test_freeform_reads_no_setup_key() -> None:
    tree = ast.parse((SRC / "freeform" / "ruleset.py").read_text())
    assert not keys_read(tree, frozenset({"setup"}))
