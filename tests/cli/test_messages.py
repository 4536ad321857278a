"""Messages people read: who and what a step waits for, who lacks a shield, documents cited, reveals and
summaries in words, the dice ledger's verbs, the missile parry."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import msgspec
import pytest
from msgspec import inspect as mi

from combatlog.errors import ExitStatus
from tests.cli.inproc import InProcessCli
from tests.conftest import REPO

EXAMPLES = REPO / "docs" / "examples"
SRC = REPO / "src" / "combatlog"


@pytest.fixture
def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> InProcessCli:
    monkeypatch.chdir(REPO)
    return InProcessCli(tmp_path / "log.db", monkeypatch, capsys)


def _giant_and_goblins(tmp_path: Path, upto: int, **bk: Any) -> Path:
    """The first ``upto`` commands of the giant-and-goblins example, the Black Knight changed by ``bk``."""
    setup = json.loads((EXAMPLES / "magic_realm/giant-and-goblins.json").read_text())
    setup["characters"][0].update(bk)
    (tmp_path / "setup.json").write_text(json.dumps(setup))
    lines = [line for line in (EXAMPLES / "magic_realm/giant-and-goblins.cmds").read_text().splitlines()
             if line and not line.startswith("#")]
    lines[0] = lines[0].replace("--setup giant-and-goblins.json", f"--setup {tmp_path / 'setup.json'}")
    script = tmp_path / "start.cmds"
    script.write_text("\n".join(lines[:upto]) + "\n")
    return script


def test_a_command_out_of_its_step_says_what_the_combat_waits_for_and_from_whom(
    cli: InProcessCli, tmp_path: Path,
) -> None:
    cli("run", "-q", str(_giant_and_goblins(tmp_path, 2)))  # created; alice has lured, bob has not
    early = cli("mr", "resolve", "giant-goblins", ok=False)
    assert early.code == ExitStatus.ILLEGAL
    assert ("resolving the Melee Step: not yet: the combat is at luring of round 1, waiting for bob (amazon) "
            "(lure denizens or pass: mr lure)") in early.err
    assert "belongs to" not in early.err
    cli("run", "-q", str(_giant_and_goblins(tmp_path, 4)))  # both lured, random assignment done
    late = cli("mr", "lure", "giant-goblins", "bk", ok=False)
    assert ("luring: too late for round 1: the combat is at deployment, waiting for bob (amazon) and alice (bk) "
            "(deploy hirelings / charge or pass: mr deploy)") in late.err


def test_playing_a_shield_he_does_not_have_names_him(cli: InProcessCli, tmp_path: Path) -> None:
    cli("run", "-q", str(_giant_and_goblins(tmp_path, 12, armor=[])))  # the Black Knight without armor
    result = cli("mr", "play", "giant-goblins", "bk", "--attack", "smash", "--fight", "F3", "--maneuver", "charge",
                 "--move", "M3", "--shield", "thrust", ok=False)
    assert result.code == ExitStatus.INVALID
    assert "bk has no active shield to play (--shield)" in result.err


def test_messages_cite_only_documents_that_are_in_docs() -> None:
    cited: set[str] = set()
    for path in SRC.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert "pbem_trust" not in text, f"{path} cites pbem_trust, which is not in docs/"
        cited |= set(re.findall(r"docs/([\w.-]+\.md)", text))
    missing = sorted(name for name in cited if not (REPO / "docs" / name).exists())
    assert not missing, f"cited but not in docs/: {missing}"
    from combatlog.rulesets.magic_realm.sealed import SEED_RULE

    assert "docs/trust.md" in SEED_RULE and '"Magic Realm plays"' in SEED_RULE
    assert "## Magic Realm plays" in (REPO / "docs/trust.md").read_text().replace("### ", "## ")


def _sample(t: Any, depth: int = 0) -> Any:
    """A value of type ``t`` with two entries in every dict and list, so that nested data shows."""
    match t:
        case mi.StrType():
            return "x"
        case mi.IntType():
            return 2
        case mi.BoolType():
            return True
        case mi.UnionType():
            return next((_sample(u, depth) for u in t.types if not isinstance(u, mi.NoneType)), None)
        case mi.ListType() | mi.VarTupleType() | mi.SetType() | mi.FrozenSetType():
            return [_sample(t.item_type, depth + 1)] * 2 if depth < 4 else []
        case mi.TupleType():
            return [_sample(x, depth + 1) for x in t.item_types]
        case mi.DictType():
            return {"k1": _sample(t.value_type, depth + 1), "k2": _sample(t.value_type, depth + 1)} if depth < 4 else {}
        case mi.StructType():
            return {f.encode_name: _sample(f.type, depth + 1) for f in t.fields}
        case mi.AnyType():
            return {"plays": {"bk": {"attack": 3, "fight": "F6"}}, "side": "x"}
        case mi.LiteralType():
            return t.values[0]
    return None


def test_summaries_print_words_not_json_or_python_dicts() -> None:
    from combatlog.events.base import registered, tag_of
    from combatlog.rulesets import available, load_ruleset

    checked = 0
    for name in available():
        ruleset = load_ruleset(name)
        core = [cls for tag, cls in registered().items() if tag.startswith("core.")]
        for cls in [*ruleset.event_types, *core]:
            data = {f.encode_name: _sample(f.type) for f in mi.type_info(cls).fields}
            event = msgspec.convert({**data, "type": tag_of(cls)}, cls)
            text = ruleset.summarize(event)
            assert not re.search(r"[{}]|\[['\"]|': |\":", text), f"{name} {tag_of(cls)}: {text}"
            checked += 1
    assert checked > 100


def test_a_magic_realm_reveal_and_target_summary_in_words() -> None:
    from combatlog.events.core import OrdersRevealed
    from combatlog.rulesets import load_ruleset
    from combatlog.rulesets.magic_realm import events as e

    mr = load_ruleset("magic_realm")
    plays = {"plays": {"amazon": {"attack": 1, "fight": "F6", "maneuver": 2, "move": "M1", "shield": 3}}}
    assert mr.summarize(OrdersRevealed(player="bob", step="r1/plays", orders=plays, nonce="00")) == \
        "bob reveals step r1/plays: amazon: attack thrust with F6, maneuver dodge with M1, shield in box 3"
    assert mr.summarize(OrdersRevealed(player="bob", step="r1/assign", orders={}, nonce="00")) == \
        "bob reveals step r1/assign: no orders, a nonce for the joint dice"
    targets = e.TargetsChosen(character="amazon", target="goblin-1", hirelings={"lancer-1": "giant"})
    assert mr.summarize(targets) == "amazon targets goblin-1, hirelings lancer-1->giant"


def test_the_dice_ledger_says_parries(cli: InProcessCli) -> None:
    cli("run", "-q", str(EXAMPLES / "classic_fantasy/duel.cmds"))
    rolls = cli("dice", "duel", "--json").json()["rolls"]  # type: ignore[index]
    purposes = {r["purpose"] for r in rolls if "/parry" in r["label"] or "/evade" in r["label"]}
    assert "Brom parries" in purposes and not any(p.endswith("parrys") for p in purposes), purposes


def test_a_missile_parried_without_a_shield() -> None:
    from combatlog.errors import IllegalCommand
    from tests.rulesets.classic_fantasy.cfi_support import Combat, fighter

    bow = {"name": "shortbow", "damage": "1d6", "size": "S", "types": ["impaling"], "force": "M",
           "range": [10, 50, 100], "load": 1}
    fight = Combat(fighter("A", "a", weapons=[bow]), fighter("D", "b", shield="heater"))
    fight.round({"r1/init/A": 9, "r1/init/D": 1})
    fight.attack("A", "D", {"r1/a1/attack": 30})
    with pytest.raises(IllegalCommand, match=r"only shields parry missiles, and D's longsword is not a shield"):
        fight.parry("D", {"r1/a1/parry": 40}, weapon="longsword")
