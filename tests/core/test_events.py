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
