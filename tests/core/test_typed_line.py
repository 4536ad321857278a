"""verify's shortcut for canonical lines (``exchange/typed_line.py``): a line is proven canonical by re-encoding
the typed values verify decodes anyway. Each way a line can differ from its canonical bytes is performed on a
real event, its hash recomputed where the change touches what is hashed (a careful cheat: only the canonical
check is left to catch it), and refused with the message it had before the shortcut; the shortcut never
answers yes where ``is_canonical`` says no."""

from __future__ import annotations

import re
from collections.abc import Callable

import msgspec
import pytest

from combatlog.commands.record import encode_record
from combatlog.errors import VerificationFailed
from combatlog.events.canonical import canonical, is_canonical
from combatlog.events.envelope import decode_envelope, seal
from combatlog.exchange.typed_line import typed_line
from combatlog.exchange.verify import ChainVerifier, segments_of
from combatlog.projections.streams import resolve_stream
from combatlog.rulesets import load_ruleset
from combatlog.store import open_store
from combatlog.wiring import standard
from tests.core.helpers import duel, hit

NOT_CANONICAL = "not the canonical JSON of an event"
BIG = b"9007199254740992"  # 2**53


@pytest.fixture(scope="module")
def combat() -> tuple[object, object, list[bytes]]:
    """A freeform duel: seq 2 joins Aldo (hp 12), seq 5 rolls die hit/Bo/5/4 for a command naming it.

    Its hashes, command ids and times are random, and a line holding a run of 16 decimal digits (a hash's hex
    does, a few times in a hundred) is left to the full check by design (``typed_line``: a number that large
    may be beyond 2**53), so the tests below, which start from lines that take the shortcut, would fail by
    chance: the duel is played again until none does (each try fails with odds of a few in a hundred)."""
    from combatlog.events.canonical import _DIGITS_ONLY, _SIXTEEN_DIGITS

    for _ in range(50):
        store = open_store(":memory:")
        duel(store)
        hit(store, "duel", "Bo", 5, label="hit/Bo/5/4")
        meta = resolve_stream(store, "duel")
        lines = [row.body for row in store.read_stream(meta.id, 1, 100)]
        if not any(_SIXTEEN_DIGITS in line.translate(_DIGITS_ONLY) for line in lines[1:]):  # (the genesis's prev is
            # 64 zeros: it never takes the shortcut, its set-up being free-form)
            return store, meta, lines
    raise AssertionError("50 duels in a row held a run of 16 digits")


def refusal(combat: tuple[object, object, list[bytes]], index: int, line: bytes) -> str:
    """The message verify gives for the log with its line ``index`` replaced by ``line``."""
    store, meta, lines = combat
    verifier = ChainVerifier(segments_of(store, meta), wiring=standard())  # type: ignore[arg-type]
    with pytest.raises(VerificationFailed) as info:
        for i, body in enumerate([*lines[:index], line, *lines[index + 1:]]):
            verifier.feed(body, f"duel#{i + 1}")
        verifier.finish()
    return str(info.value)


def rehashed(line: bytes) -> bytes:
    """``line`` with its hash recomputed over what it now says."""
    env = decode_envelope(line)
    return line.replace(env.hash.encode(), env.computed_hash().encode())


def in_data(old: bytes, new: bytes) -> Callable[[bytes], bytes]:
    """A change of the payload's bytes only (the command, before it, may hold the same text)."""
    def change(line: bytes) -> bytes:
        at = line.index(b'"data":')
        return line[:at] + line[at:].replace(old, new, 1)
    return change


def in_command(old: bytes, new: bytes) -> Callable[[bytes], bytes]:
    def change(line: bytes) -> bytes:
        at, end = line.index(b'"command":'), line.index(b'"command_id":')
        return line[:at] + line[at:end].replace(old, new, 1) + line[end:]
    return change


def swap_type_and_v(line: bytes) -> bytes:
    return re.sub(rb'("type":"[^"]*"),("v":1)}$', rb"\2,\1}", line)


# (what, line index, change, rehash, what verify says)
ATTACKS = [
    ("whitespace between members", 1, lambda b: b.replace(b',"command_id"', b', "command_id"'), False, NOT_CANONICAL),
    ("whitespace in the payload", 1, in_data(b'"hp":12', b'"hp": 12'), True, NOT_CANONICAL),
    ("whitespace in the command", 1, in_command(b'"hp":12', b'"hp":\n12'), True, NOT_CANONICAL),
    ("a line break at the end", 1, lambda b: b + b"\n", False, NOT_CANONICAL),
    ("members out of order", 1, swap_type_and_v, False, NOT_CANONICAL),
    ("payload members out of order", 1, in_data(b'"hp":12,"name":"Aldo"', b'"name":"Aldo","hp":12'), True, NOT_CANONICAL),
    ("an escape JCS does not write (envelope)", 1, lambda b: b.replace(b'"actor":"gm"', b'"actor":"\\u0067m"'), False,
     NOT_CANONICAL),
    ("an escape JCS does not write (payload)", 1, in_data(b'"Aldo"', b'"\\u0041ldo"'), True, NOT_CANONICAL),
    ("an escaped solidus (command)", 4, in_command(b'"hit/Bo', b'"hit\\/Bo'), True, NOT_CANONICAL),
    ("an escaped solidus (payload)", 4, in_data(b'"hit/Bo', b'"hit\\/Bo'), True, NOT_CANONICAL),
    ("a float in the payload", 1, in_data(b'"hp":12', b'"hp":12.0'), True, NOT_CANONICAL),
    ("a float in the command", 1, in_command(b'"hp":12', b'"hp":1.2e1'), True, NOT_CANONICAL),
    ("a float in the envelope", 1, lambda b: b.replace(b'"v":1}', b'"v":1.0}'), False, NOT_CANONICAL),
    ("2**53 as the seq", 1, lambda b: b.replace(b'"seq":2,', b'"seq":' + BIG + b","), True, NOT_CANONICAL),
    ("2**53 in the payload", 1, in_data(b'"hp":12', b'"hp":' + BIG), True, NOT_CANONICAL),
    ("-2**53 in the command", 1, in_command(b'"hp":12', b'"hp":-' + BIG), True, NOT_CANONICAL),
    ("a duplicate key (envelope)", 1, lambda b: b.replace(b'"actor":"gm",', b'"actor":"gm","actor":"gm",'), False,
     NOT_CANONICAL),
    ("a duplicate key (payload)", 1, in_data(b'"hp":12,', b'"hp":12,"hp":12,'), True, NOT_CANONICAL),
    ("a duplicate key (command)", 1, in_command(b'"hp":12,', b'"hp":12,"hp":12,'), True, NOT_CANONICAL),
    ("nesting 40 deep in the payload", 1, in_data(b'"hp":12,', b'"hp":12,"x":' + b"[" * 40 + b"]" * 40 + b","), True,
     NOT_CANONICAL),
    ("nesting 100,000 deep", 1, lambda b: b.replace(b'"v":1}', b'"v":1,"x":' + b"[" * 100_000 + b"]" * 100_000 + b"}"),
     False, NOT_CANONICAL),
    # canonical JSON, but not an envelope: refused by the typed decode, as before the shortcut
    # canonical JSON whose command record the rules cannot read: the shortcut does not decode it, re-deciding
    # does, and refuses it with its own message, as before the shortcut
    ("a command the ruleset does not have", 1, in_command(b'"freeform.Join"', b'"freeform.Win"'), True,
     "seq 2: recorded command 'freeform.Win' is not a freeform command"),
    ("a command argument of the wrong type", 1, in_command(b'"hp":12', b'"hp":"12"'), True,
     "seq 2: recorded command freeform.Join: Expected `int | null`, got `str` - at `$.hp`"),
    ("an unknown envelope field", 1, lambda b: b.replace(b'"v":1}', b'"v":1,"zz":1}'), False,
     "not a valid event envelope: Object contains unknown field `zz`"),
]


@pytest.mark.parametrize("what,index,change,rehash,says", ATTACKS, ids=[a[0] for a in ATTACKS])
def test_a_line_that_is_not_canonical_is_refused_as_before(combat, what, index, change, rehash, says) -> None:  # type: ignore[no-untyped-def]
    _store, _meta, lines = combat
    ruleset = load_ruleset("freeform")
    assert typed_line(lines[index], ruleset) is not None  # the untouched line takes the shortcut
    forged = change(lines[index])
    assert forged != lines[index]
    if rehash:
        forged = rehashed(forged)
    assert typed_line(forged, ruleset) is None
    assert is_canonical(forged) is (says != NOT_CANONICAL)
    message = refusal(combat, index, forged)
    assert says in message and f"duel#{index + 1}" in message


def test_every_event_line_of_a_log_takes_the_shortcut_and_verifies(combat) -> None:  # type: ignore[no-untyped-def]
    store, meta, lines = combat
    ruleset = load_ruleset("freeform")
    assert typed_line(lines[0], ruleset) is None  # the genesis's set-up is free-form: the full check judges it
    assert all(typed_line(line, ruleset) is not None for line in lines[1:])
    verifier = ChainVerifier(segments_of(store, meta), wiring=standard())
    for i, body in enumerate(lines):
        verifier.feed(body, f"duel#{i + 1}")
    assert verifier.finish().ok


def test_keys_are_ordered_by_utf16_code_units_not_code_points() -> None:
    """U+E000 sorts before U+1F600 by code point, after it by UTF-16 code unit (a surrogate pair, D83D DE00):
    JCS orders by the latter. The shortcut accepts only the JCS order, as ``is_canonical`` does."""
    from combatlog.rulesets.magic_realm import commands as mrc
    from combatlog.rulesets.magic_realm import events as mre

    ruleset = load_ruleset("magic_realm")
    hirelings = {"\ue000": "a", "\U0001f600": "b"}
    record = encode_record("magic_realm", mrc.Deploy(character="c", hirelings=hirelings))
    env = seal(stream="s", seq=2, prev="ab" * 32, event=mre.Deployed(character="c", hirelings=hirelings), actor="gm",
               command_id="c1", recorded_at="2026-01-01T00:00:00Z", command=record)
    good = canonical(env)
    assert good.index("\U0001f600".encode()) < good.index("\ue000".encode())  # JCS: the surrogate pair first
    assert is_canonical(good) and typed_line(good, ruleset) is not None
    by_code_point = msgspec.json.Encoder(order="sorted").encode(hirelings)  # U+E000 first
    assert by_code_point.index("\ue000".encode()) < by_code_point.index("\U0001f600".encode())
    jcs = msgspec.json.encode({"\U0001f600": "b", "\ue000": "a"})
    for forged in (good.replace(b'"hirelings":' + jcs, b'"hirelings":' + by_code_point, 1),  # the command's
                   good.replace(b'"hirelings":' + jcs, b'"hirelings":' + by_code_point)):  # and the payload's
        assert forged != good
        forged = rehashed(forged)
        assert not is_canonical(forged) and typed_line(forged, ruleset) is None


def test_the_hashed_part_cut_from_a_line_is_the_envelopes_own(combat) -> None:  # type: ignore[no-untyped-def]
    """The shortcut cuts ``hash`` and ``sigs`` out of the line instead of encoding the hashed part: for plain,
    signed and placed envelopes (a placement holds ``prev``, ``seq`` and ``sigs`` keys of its own; a payload and
    a command may hold ``hash``, ``sigs``, ``prev`` and ``stream`` keys) the part cut is ``Envelope.hashed_part``
    byte for byte, and the envelope is the one decoded."""
    from combatlog.events.envelope import Signature
    from combatlog.rulesets.magic_realm import commands as mrc
    from combatlog.rulesets.magic_realm import events as mre

    _store, _meta, lines = combat
    keys = {"a": "0", "hash": "a", "placed": "b", "prev": "c", "sigs": "d", "stream": "e"}  # each after a comma
    record = encode_record("magic_realm", mrc.Deploy(character="c", hirelings=keys))
    deployed = seal(stream="s", seq=3, prev="ab" * 32, event=mre.Deployed(character="c", hirelings=keys),
                    actor="gm", command_id="c1", recorded_at="2026-01-01T00:00:00Z", command=record)
    sig = Signature(signer="alice", key="k" * 16, sig="s" * 86)
    cases = [(load_ruleset("freeform"), decode_envelope(line)) for line in lines[1:]]
    cases += [(load_ruleset("magic_realm"), env) for env in (
        deployed, deployed.with_sigs((sig,)), deployed.with_sigs((sig, sig)).placed_at(seq=9, prev="cd" * 32))]
    for ruleset, env in cases:
        line = canonical(env)
        proven = typed_line(line, ruleset)
        assert proven is not None, line
        assert proven.hashed == env.hashed_part()
        assert proven.env == env

