"""Property: no number that came from a die can be changed, and no die swapped, in any ruleset.

Every example combat in docs/examples is played and exported; then a forger changes one
whole number, or one die label an event names, with every hash, the chain and the header
recomputed, so that only the rules' dice binding stands in the way (these examples pin no
players: there are no signatures to break). ``verify`` must refuse every change to a
dice-derived number and every swapped label.

The test classifies every whole number the examples' events carry, by event type and
field, as derived from a die (``DICE_DERIVED``, read from the event definitions) or decided
by a player or the referee (``DECIDED``). A new number in an event fails this test until
someone says which it is, so a dice copy cannot slip in unbound.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Callable
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from combatlog.cli.app import main
from combatlog.errors import VerificationFailed
from combatlog.wiring import verify_file
from tests.conftest import REPO
from tests.security.forge import read, reforge, write

EXAMPLES = sorted((REPO / "docs" / "examples").glob("*/*.cmds"))

Data = dict[str, Any]
# (event type, field) -> when the number came from a die (always, or only when the event names one)
DICE_DERIVED: dict[tuple[str, str], Callable[[Data], bool]] = {
    ("osric.attack_rolled", "roll"): lambda d: True,
    ("osric.attack_rolled", "damage"): lambda d: True,  # 0 on a miss: a forged hit must fail too
    ("osric.attack_rolled", "target_roll"): lambda d: True,
    ("osric.initiative_rolled", "rolls.*"): lambda d: True,
    ("osric.surprise_checked", "rolls.*"): lambda d: True,
    ("osric.morale_checked", "roll"): lambda d: True,
    ("osric.assassination_attempted", "roll"): lambda d: True,
    ("osric.damage_applied", "amount"): lambda d: bool(d.get("label")),
    ("osric.healing_applied", "amount"): lambda d: bool(d.get("label")),
    ("ff.hp_changed", "delta"): lambda d: bool(d.get("dice")),
}
DECIDED = {
    "argad.moved": {"turn"}, "argad.phase_started": {"turn"}, "argad.turn_ended": {"turn"}, "argad.held": {"turn"},
    "argad.turn_started": {"turn"}, "argad.shot": {"cover", "mod", "need", "range_cm", "turn"},
    "argad.struck": {"mod", "ranks[]", "turn"},
    "cfi.round_started": {"round"},
    "ff.participant_joined": {"hp"}, "ff.round_started": {"round"}, "ff.round_ended": {"round"},
    "ff.hp_changed": {"delta"},  # a number typed in (no die named): the dice case is in DICE_DERIVED
    "mr.denizens_assigned": {"round"}, "mr.melee_resolved": {"round"}, "mr.melee_started": {"round"},
    "mr.plays_made": {"attack", "maneuver", "part_attack", "place.*", "round", "shield", "hirelings.*"},
    "mr.targets_chosen": {"positions.*"},
    "osric.action_noted": {"segment"}, "osric.actions_declared": {"declarations[].casting", "round"},
    "osric.attack_rolled": {"mod", "routine", "segment"}, "osric.casting_begun": {"casting", "segment"},
    "osric.charged": {"segment"}, "osric.closed": {"segment"}, "osric.retreated": {"segment"},
    "osric.fled": {"segment"}, "osric.spell_declined": {"segment"},
    "osric.damage_applied": {"amount"}, "osric.healing_applied": {"amount"},  # typed in, no label
    "osric.morale_checked": {"modifier"}, "osric.assassination_attempted": {"chance", "segment"},
    "osric.round_started": {"round"}, "osric.round_ended": {"round"}, "osric.segment_reached": {"segment"},
    "osric.initiative_rolled": {"round"},
}
_KEYED = {"rolls", "place", "hirelings", "positions"}  # maps whose keys are names, not fields


def _numbers(value: Any, path: str = "", key: tuple[Any, ...] = ()) -> list[tuple[str, tuple[Any, ...]]]:
    """(field pattern, key path) of every whole number in a payload."""
    if isinstance(value, bool):
        return []
    if isinstance(value, int):
        return [(path, key)]
    out: list[tuple[str, tuple[Any, ...]]] = []
    if isinstance(value, dict):
        for k, v in value.items():
            if k == "type":
                continue
            sub = f"{path}.*" if path in _KEYED else (f"{path}.{k}" if path else k)
            out += _numbers(v, sub, (*key, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _numbers(v, f"{path}[]", (*key, i))
    return out


def _set(data: Data, key: tuple[Any, ...], value: int) -> None:
    target: Any = data
    for k in key[:-1]:
        target = target[k]
    target[key[-1]] = value


def _get(data: Data, key: tuple[Any, ...]) -> Any:
    for k in key:
        data = data[k]
    return data


@pytest.fixture(scope="module")
def exports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("examples")
    out: dict[str, Path] = {}
    for cmds in EXAMPLES:
        db = root / f"{cmds.stem}.db"
        name = re.search(r"^new (\S+)", cmds.read_text(), re.M).group(1)  # type: ignore[union-attr]
        path = root / f"{cmds.stem}.jsonl"
        for argv in (["--db", str(db), "run", "-q", str(cmds)], ["--db", str(db), "export", name, "-o", str(path)]):
            try:
                with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
                    main(argv)
            except SystemExit as exc:
                assert not exc.code, f"{argv}: exit {exc.code}"
        verify_file(path)  # the honest export verifies
        out[f"{cmds.parent.name}/{cmds.stem}"] = path
    return out


def _events(path: Path) -> list[Data]:
    return [json.loads(line) for line in read(path)[1:]]


def _refused(lines: list[bytes], tmp: Path, what: str) -> str:
    forged = write(tmp / "forged.jsonl", lines)
    with pytest.raises(VerificationFailed) as err:
        verify_file(forged)
    assert "error[internal]" not in str(err.value), what
    return str(err.value)


def test_every_number_in_the_examples_is_classified(exports: dict[str, Path]) -> None:
    unclassified = set()
    for path in exports.values():
        for env in _events(path):
            data = env["data"]
            if data["type"].startswith("core."):
                continue
            for field, _key in _numbers(data):
                if (data["type"], field) not in DICE_DERIVED and field not in DECIDED.get(data["type"], ()):
                    unclassified.add((data["type"], field))
    assert not unclassified, f"say whether these come from a die or a decision: {sorted(unclassified)}"


@pytest.mark.parametrize("example", [f"{p.parent.name}/{p.stem}" for p in EXAMPLES])
def test_every_dice_derived_number_is_bound(exports: dict[str, Path], example: str, tmp_path: Path) -> None:
    """Each kind of dice-derived number in the example, changed at up to three places, is refused."""
    lines = read(exports[example])
    seen: dict[tuple[str, str], int] = {}
    for env in _events(exports[example]):
        data = env["data"]
        for field, key in _numbers(data):
            kind = (data["type"], field)
            derived = DICE_DERIVED.get(kind)
            if derived is None or not derived(data) or seen.get(kind, 0) >= 3:
                continue
            seen[kind] = seen.get(kind, 0) + 1
            value = _get(data, key)
            forged = reforge(lines, {env["seq"]: lambda d, key=key, value=value: _set(d, key, value + 1)})
            message = _refused(forged, tmp_path, f"{kind} at seq {env['seq']}")
            assert f"seq {env['seq']}" in message


@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_a_die_swapped_for_another_is_refused(exports: dict[str, Path], tmp_path: Path, data: st.DataObject) -> None:
    """An event's die label replaced by the label of another die of the same combat is refused."""
    example = data.draw(st.sampled_from(sorted(exports)))
    events = _events(exports[example])
    labels = [e["data"]["label"] for e in events if e["data"]["type"] == "core.dice_rolled"]
    naming = [(e, path) for e in events if not e["data"]["type"].startswith("core.")
              for path in _label_paths(e["data"], set(labels))]
    if not naming:
        return  # Magic Realm events name no die: the rules find them by label (covered per ruleset)
    env, key = data.draw(st.sampled_from(naming))
    old = _get(env["data"], key)
    other = data.draw(st.sampled_from([label for label in labels if label != old]))
    lines = read(exports[example])
    forged = reforge(lines, {env["seq"]: lambda d: _set(d, key, other)})
    _refused(forged, tmp_path, f"{old} -> {other}")


def _label_paths(value: Any, labels: set[str], key: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if isinstance(value, str):
        return [key] if value in labels else []
    out: list[tuple[Any, ...]] = []
    if isinstance(value, dict):
        for k, v in value.items():
            out += _label_paths(v, labels, (*key, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _label_paths(v, labels, (*key, i))
    return out
