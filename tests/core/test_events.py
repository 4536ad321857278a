"""Events: canonical bytes (RFC 8785), golden tags, no floats, upcasting on the read path."""

from __future__ import annotations

import typing
from pathlib import Path

import msgspec
import rfc8785
from hypothesis import given, settings
from hypothesis import strategies as st

from combatlog.events.base import decode_payload, registered
from combatlog.events.canonical import MAX_SAFE_INT, canonical, is_canonical
from combatlog.rulesets import available, load_ruleset

TAGS_DIR = Path(__file__).resolve().parents[1] / "golden_tags"

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-MAX_SAFE_INT, MAX_SAFE_INT) | st.text(),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5),
    max_leaves=30,
)


@given(json_values)
@settings(max_examples=300)
def test_canonical_bytes_equal_rfc8785(value: object) -> None:
    assert canonical(value) == rfc8785.dumps(value)
    assert is_canonical(canonical(value))


def test_is_canonical_rejects_whitespace_order_and_floats() -> None:
    assert not is_canonical(b'{"b":1, "a":2}')
    assert not is_canonical(b'{"b":1,"a":2}')
    assert is_canonical(b'{"a":2,"b":1}')
    assert not is_canonical(b'{"a":1.5}')
    assert not is_canonical(b'{"a":"\\u0041"}')  # JCS writes "A", not an escape


# Any JSON value, floats and integers beyond +-2**53 included, with strings that look like numbers.
risky_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | st.text() | st.sampled_from(["1.5", "2e3", "9007199254740993", "MR 8.4.3", "-0.0E+1"]),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5),
    max_leaves=30,
)


def reference_unsafe(value: object, depth: int = 0) -> bool:
    """The definition, recursively (values here are shallow): a float, an integer beyond +-2**53, or a list or
    object at depth MAX_DEPTH or more."""
    from combatlog.events.canonical import MAX_DEPTH

    if isinstance(value, bool) or value is None or isinstance(value, str):
        return False
    if isinstance(value, float):
        return True
    if isinstance(value, int):
        return abs(value) > MAX_SAFE_INT
    if depth >= MAX_DEPTH:
        return True
    items = value.values() if isinstance(value, dict) else value  # type: ignore[union-attr]
    return any(reference_unsafe(v, depth + 1) for v in items)  # type: ignore[union-attr]


@given(risky_values)
@settings(max_examples=400)
def test_unsafe_json_and_is_canonical_refuse_exactly_the_unsafe_numbers(value: object) -> None:
    # unsafe_json walks a level at a time on exact types (events/canonical.py): it must say what the definition
    # says, and is_canonical must refuse exactly the unsafe lines
    from combatlog.events.canonical import unsafe_json

    assert unsafe_json(value) is reference_unsafe(value)
    line = msgspec.json.encode(value, order="sorted")
    assert is_canonical(line) is (not reference_unsafe(value) and canonical(value) == line)


def test_unsafe_json_judges_subclasses_as_their_json_kind_and_refuses_depth() -> None:
    from combatlog.events.canonical import MAX_DEPTH, unsafe_json

    class Text(str): ...
    class Number(int): ...
    class Items(list): ...  # type: ignore[type-arg]
    class Fields(dict): ...  # type: ignore[type-arg]

    assert not unsafe_json(Fields(a=Items([Text("x"), Number(3), True, None])))
    assert unsafe_json(Items([Number(MAX_SAFE_INT + 1)])) and unsafe_json(Fields(a=Items([1.5])))
    assert unsafe_json({"a": object()}) and unsafe_json((1, 2))  # not JSON values
    nested: object = 1
    for _ in range(MAX_DEPTH):
        nested = [nested]
    assert not unsafe_json(nested) and unsafe_json([nested])  # MAX_DEPTH levels of lists, then one more
    deep: object = []
    for _ in range(100_000):
        deep = [deep]
    assert unsafe_json(deep)  # refused, not a RecursionError


def test_is_canonical_refuses_floats_and_large_integers_wherever_they_stand() -> None:
    # by hand: each number form of RFC 8259 that decodes to a float, and the first integers past 2**53 - 1
    for bad in (b'{"a":1.5}', b'{"a":[1,{"b":-0.5}]}', b'{"a":2e3}', b'{"a":2E+3}', b'{"a":-1.0e-2}', b'[1.0]',
                b'{"a":9007199254740992}', b'{"a":-9007199254740992}', b'{"a":123456789012345678901234567890}',
                b'{"1.5":2.5}', b'{"a":"x","b":0.1}'):
        assert not is_canonical(bad), bad
    for good in (b'{"a":9007199254740991}', b'{"a":-9007199254740991}', b'{"a":"1.5","b":"2e3"}',
                 b'{"1.5":15,"a":"9007199254740993"}', rb'{"a":"\\"}', rb'{"a":"\"1.5\"","b":1}', b'[]'):
        assert is_canonical(good), good


def _all_rulesets_loaded() -> dict[str, type]:
    for name in available():
        load_ruleset(name)
    return registered()


def test_every_tag_is_in_a_golden_list_and_none_disappeared() -> None:
    """A tag that disappears or changes breaks old logs: the golden lists catch it."""
    tags = set(_all_rulesets_loaded())
    golden: set[str] = set()
    for path in TAGS_DIR.glob("*.txt"):
        lines = [t for t in path.read_text().split() if t]
        assert lines == sorted(lines), f"{path.name} must be sorted"
        golden |= set(lines)
    namespaces_checked = {t.split(".")[0] for t in golden}
    missing = {t for t in golden if t not in tags and t.split(".")[0] in {x.split(".")[0] for x in tags}}
    assert not missing, f"tags listed in tests/golden_tags but no longer registered: {sorted(missing)}"
    unlisted = {t for t in tags if t not in golden}
    assert not unlisted, f"new tags must be added to tests/golden_tags/<ruleset>.txt: {sorted(unlisted)}"
    assert {"core", "ff"} <= namespaces_checked


def _annotation_has_float(tp: object) -> bool:
    if tp is float:
        return True
    return any(_annotation_has_float(arg) for arg in typing.get_args(tp))


def test_no_event_carries_a_float() -> None:
    """JCS formats floats differently from msgspec: events carry whole numbers only."""
    for tag, cls in _all_rulesets_loaded().items():
        hints = typing.get_type_hints(cls)
        for field in msgspec.structs.fields(cls):
            assert not _annotation_has_float(hints[field.name]), f"{tag}.{field.name} is a float"


def test_old_shape_is_upcast_on_the_read_path() -> None:
    load_ruleset("freeform")
    old = canonical({"type": "ff.hp_changed", "who": "Bo", "amount": 3, "heal": False, "reason": "x"})
    event = decode_payload("ff.hp_changed", 1, old)
    assert event.delta == -3  # type: ignore[attr-defined]
    healed = decode_payload("ff.hp_changed", 1, canonical({"type": "ff.hp_changed", "who": "Bo", "amount": 2, "heal": True}))
    assert healed.delta == 2  # type: ignore[attr-defined]


def test_a_type_switch_answers_as_the_isinstance_tests_it_replaces() -> None:
    # events/base.py TypeSwitch: the first listed class the value is an instance of, kept per exact type
    from combatlog.events.base import TypeSwitch
    from combatlog.events.core import Acknowledged, DiceRolled, Noted

    class Base:
        pass

    class Child(Base):
        pass

    switch = TypeSwitch(DiceRolled, Base, Child, Noted)
    for value in (Child(), Child(), Base(), Noted(text="x"), Acknowledged(player="a", upto=1, hash="h"), "text"):
        expected = next((cls for cls in switch.classes if isinstance(value, cls)), None)
        assert switch(value) is expected  # asked twice for Child: the kept answer is the same
    assert switch(Child()) is Base  # the first listed wins, as the first matching case would
