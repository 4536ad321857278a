"""Issue #19 item 5: bounds before work. Each attack of the issue, performed through the CLI on separate
key homes and logs (alice and bob, ``tests/trust/pbem.py``), inside every limit that was stated before:
each is refused with a clear error, or bounded, and the receiver's log is compared row by row before
and after (``log_fingerprint``: events, held bundles and superseded evidence).

The server's attacks (event streams, X-Forwarded-For) are in ``test_bounds_server.py``.
"""

from __future__ import annotations

import datetime as dt
import json
import shutil
import tracemalloc
from pathlib import Path

import msgspec
import pytest

from combatlog.events.canonical import canonical
from combatlog.events.envelope import Envelope, Signature, decode_envelope, encode_envelope
from combatlog.exchange import armour as arm
from tests.security.forge import log_fingerprint, read, reforge, with_header, write
from tests.security.test_inbox_attacks import held_of
from tests.trust.pbem import Seat, duel_with_bundles, key_home


def refused(seat: Seat, *args: str, code: int, says: str) -> str:
    before = log_fingerprint(seat.dir / "log.db")
    result = seat(*args, ok=False)
    assert result.code == code, (result.code, result.err, result.out)
    assert says in result.err, result.err
    assert "error[internal]" not in result.err, result.err
    assert log_fingerprint(seat.dir / "log.db") == before, "a refused import changed the log"
    return result.err


def signer_of(seat: Seat):  # type: ignore[no-untyped-def]
    """Signs an envelope with ``seat``'s own key, as a modified client of that player would."""
    from combatlog.trust.keys import KeySigner
    from combatlog.trust.players import signed_message

    with key_home(seat.home):
        key = KeySigner(seat.name)

    def sign(env: Envelope) -> Envelope:
        return env.with_sigs((Signature(signer=seat.name, key=key.fingerprint,
                                        sig=key.sign(signed_message(env.hash))),))
    return sign


def rebuilt(env: Envelope, sign, **fields) -> bytes:  # type: ignore[no-untyped-def]
    """``env`` with ``fields`` changed, its hash recomputed and re-signed."""
    env = msgspec.structs.replace(env, **fields)
    env = msgspec.structs.replace(env, hash=env.computed_hash())
    return encode_envelope(sign(env.with_sigs(())))


def bundle(template: list[bytes], events: list[bytes], *, since: int, base_hash: str) -> list[bytes]:
    """A bundle header (its check digest recomputed) over ``events``, resting on ``since``/``base_hash``."""
    last = decode_envelope(events[-1]) if events else None

    def mutate(h: dict) -> None:  # type: ignore[type-arg]
        h.update(since=since, base_hash=base_hash, count=len(events),
                 head_seq=last.seq if last else since, head_hash=last.hash if last else base_hash)
    return with_header([template[0]], mutate) + events


@pytest.fixture
def game(tmp_path: Path) -> tuple[Seat, Seat, dict[str, Path]]:
    """alice and bob play a signed duel; bob holds #1. alice's bundles: #2-#3 and #4-#5. (tests/trust/pbem.py ``duel_with_bundles``)"""
    return duel_with_bundles(tmp_path)


# -- 1. armoured blocks: one running budget for a whole message ---------------------------------------


def honest_blocks(count: int, size: int) -> str:
    """``count`` armoured blocks that each honestly declare ``size`` bytes (blanks: they compress to
    almost nothing, so the message is small and only inflating them costs memory)."""
    data = b" " * (size - 1) + b"\n"
    return "".join(arm.armour(data, combat="duel", first=2, last=3) + "\n" for _ in range(count))


def test_honest_large_blocks_are_not_all_inflated_the_message_has_one_budget(game, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The attack (issue #19): four blocks that honestly declare 40 MiB each (under the 256 MiB a block
    could declare) were all inflated and held before any check: 160 MiB for a message of a few KiB, about
    33 GB at the stated limits. Now the blocks of one message inflate to at most 64 MiB together, and a
    block whose declared size does not fit what is left is refused before it is decoded."""
    alice, bob, files = game
    message = tmp_path / "bomb.txt"
    message.write_text(honest_blocks(4, 40 << 20))
    assert message.stat().st_size < 1 << 20
    err = refused(bob, "import", str(message), code=8, says="more than the 25165824 left of this message's budget")
    assert err.count("left of this message's budget") == 3  # blocks 2, 3 and 4, never decoded
    # in-process, measured: what the reader holds is the one block that fits, not 4 x 40 MiB
    from combatlog.exchange.sources import read_input

    tracemalloc.start()
    try:
        found = read_input(str(message))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert [item.data is not None for item in found] == [True, False, False, False]
    # one 40 MiB bundle, and its copy while its chunks are joined; 4 x 40 MiB (and more) before
    assert peak < 2 * (40 << 20) + (8 << 20), peak


def test_many_messages_in_one_import_share_one_budget(tmp_path: Path) -> None:
    """An inbox of many such messages (1000 files) would multiply the budget: all the bundles of one
    import hold at most MAX_IMPORT_BYTES together; past it, an input is refused before it is inflated."""
    from combatlog.exchange import sources

    paths = []
    for n in range(3):
        path = tmp_path / f"m{n}.txt"
        path.write_text(honest_blocks(1, 30 << 20))
        paths.append(path)
    budget = sources.Budget(50 << 20)  # a small budget stands for the 1 GiB one
    found = [item for p in paths for item in sources.read_input(str(p), budget=budget)]
    assert [item.data is not None for item in found] == [True, False, False]
    assert "more than the 20971520 left of this message's budget" in str(found[1].error)


# -- 2. the event size limit on every path: evidence of a superseded branch ---------------------------------


def test_a_huge_event_resting_on_a_superseded_event_is_not_stored(game, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The attack: a bundle resting on an event this log superseded in a merge is kept as evidence, and
    that path skipped the 1 MiB event limit: a 24 MiB event was stored whole. Now evidence obeys the
    limit like the log (and no row larger than an event is ever built for a store)."""
    alice, bob, files = game
    bob("freeform", "join", "duel", "Bo", "--side", "blue", "--hp", "10")  # bob's own #2 and #3
    bob("note", "duel", "bob's own #3")
    bob("export", "duel", "--since", "1", "-o", str(tmp_path / "bob.jsonl"))
    bob("import", str(files["b1"]))  # merged: alice's #2-#3 first, bob's superseded and re-applied
    superseded = json.loads(bob("superseded", "duel", "--json").out)
    assert superseded, "the merge kept bob's branch as evidence"
    bobs = read(tmp_path / "bob.jsonl")
    base = decode_envelope(bobs[-1])  # bob's superseded #3
    template = decode_envelope(read(files["b2"])[1])  # an event of alice's (#4), to re-use
    data = json.loads(bytes(template.data))
    data["text"] = "x" * (24 << 20)
    huge = rebuilt(template, signer_of(alice), prev=base.hash, data=msgspec.Raw(canonical(data)))
    forged = write(tmp_path / "huge.jsonl", bundle(bobs, [huge], since=3, base_hash=base.hash))
    assert forged.stat().st_size > 24 << 20
    refused(bob, "import", str(forged), code=8, says="an event is at most 1048576 bytes")


# -- 3. held bundles: pinned signers only, capped per sender, dropped when superseded ----------------------


def test_junk_bundles_from_a_non_player_are_not_held_and_an_honest_one_still_is(game, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The attack: 64 unsigned junk bundles from a non-player (mallory), each resting on a made-up far
    event, were held forever; the combat was then full, alice's honest early bundle was refused, and
    `status` showed false "waiting for" lines. Now only events signed by a pinned player are held, and a
    bundle with no events never is."""
    alice, bob, files = game
    template = read(files["b2"])
    first = decode_envelope(template[1])
    junk = []
    for n in range(3):  # three stand for the 64: each is refused the same way
        since = 100 + n
        env = msgspec.structs.replace(first, seq=since + 1, actor="mallory", prev=f"{n:064x}")
        env = msgspec.structs.replace(env, hash=env.computed_hash()).with_sigs(())
        junk.append(write(tmp_path / f"junk{n}.jsonl", bundle(template, [encode_envelope(env)], since=since,
                                                               base_hash=f"{n:064x}")))
    for path in junk:
        refused(bob, "import", str(path), code=8, says="not held: seq 10")
    assert "'mallory', who is not a pinned player" in bob("import", str(junk[0]), ok=False).err
    empty = write(tmp_path / "empty.jsonl", bundle(template, [], since=500, base_hash="e" * 64))
    refused(bob, "import", str(empty), code=8, says="the bundle holds no events: there is nothing to hold")
    assert held_of(bob) == []
    # alice's honest early bundle is held, and status says only the truth
    assert "held until #2-#3 of duel arrive" in bob("import", str(files["b2"])).out
    status = bob("status", "duel", "--json").json()
    assert [(h["events"], h["waiting_for"]) for h in status["held"]] == [("#4-#5", "#2-#3")]  # type: ignore[index]


def test_held_bundles_are_capped_per_sender(game, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    """One pinned player cannot fill the combat's room for early bundles: at most MAX_HELD_PER_SENDER
    (16) from one sender; set to 1 here, a second early bundle of alice's is refused, not held."""
    from combatlog.exchange import inbox
    from combatlog.wiring import receive
    from combatlog.exchange.sources import read_input
    from combatlog.store import open_store

    alice, bob, files = game
    monkeypatch.setattr(inbox, "MAX_HELD_PER_SENDER", 1)
    extra = bob.dir.parent / "b2b.jsonl"
    alice("export", "duel", "--since", "4", "-o", str(extra))  # #5 alone: another bundle, also early
    store = open_store(str(bob.dir / "log.db"))
    try:
        first = receive(store, read_input(str(files["b2"])))
        second = receive(store, read_input(str(extra)))
    finally:
        store.close()
    assert [o.status for o in first] == ["held"]
    refusal = next(o for o in second if o.where == str(extra))
    assert refusal.status == "refused" and "holds 1 bundles from alice" in str(refusal.error)
    assert len(held_of(bob)) == 1


def test_a_held_bundle_whose_base_is_superseded_is_dropped_with_a_clear_message(game, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """alice's #4 rests on her #3 "A"; the #3 that reaches bob is another one, "B" (alice's machine
    rewound and played again). The held bundle then waits for nothing: dropped, saying so."""
    alice, bob, files = game
    alt = Seat("alice", tmp_path / "alt")  # alice's keys on a copy of her log at #2
    shutil.copytree(alice.home, alt.home)
    b1 = read(files["b1"])
    join = decode_envelope(b1[1])  # alice's #2, shared by both of her histories
    note = decode_envelope(b1[2])
    other3 = rebuilt(note, signer_of(alt), data=msgspec.Raw(canonical({**json.loads(bytes(note.data)),
                                                                        "text": "B"})))
    other = write(tmp_path / "other.jsonl", bundle(b1, [b1[1], other3], since=1, base_hash=join.prev))
    assert "held until #2-#3 of duel arrive" in bob("import", str(files["b2"])).out
    before = [row for row in log_fingerprint(bob.dir / "log.db") if "held_bundles" not in row]
    result = bob("import", str(other), ok=False)
    assert "duel: appended 2 events" in result.out, result.out
    assert "a held bundle (#4-#5) was dropped: it rests on #3, and this log now holds another #3" in result.err
    assert "error[internal]" not in result.err and held_of(bob) == []
    after = [row for row in log_fingerprint(bob.dir / "log.db") if "held_bundles" not in row]
    assert set(before) <= set(after) and bob.head("duel") == 3  # only the two events the bundle brought


# -- 4. time: one far-future recorded_at would stamp every later event --------------------------------------


@pytest.mark.parametrize("ahead, accepted", [(dt.timedelta(days=3000 * 365), False),
                                             (dt.timedelta(minutes=11), False),
                                             (dt.timedelta(minutes=5), True)])
def test_a_recorded_at_from_the_future_is_refused(game, tmp_path: Path, ahead: dt.timedelta, accepted: bool) -> None:  # type: ignore[no-untyped-def]
    """The attack: alice's #2 recorded in year 9999; times never go backwards along the chain, so every
    later event by anyone would have to say 9999. Now a time more than 10 minutes (MAX_CLOCK_SKEW) ahead
    of the receiver's clock is refused at import (and verify); 5 minutes ahead is a clock's drift."""
    alice, bob, files = game
    now = dt.datetime.now(dt.timezone.utc)
    when = "9999-12-31T23:59:59Z" if ahead.days > 1000 else (now + ahead).strftime("%Y-%m-%dT%H:%M:%SZ")

    def retime(env: dict) -> None:  # type: ignore[type-arg]
        env["recorded_at"] = when
    forged = write(tmp_path / "future.jsonl", reforge(read(files["b1"]), {}, {"alice": signer_of(alice)},
                                                      envelope={2: retime, 3: retime}))
    if accepted:
        assert "appended 2 events" in bob("import", str(forged)).out
        return
    err = refused(bob, "import", str(forged), code=8, says=f"seq 2: recorded at {when}, later than this machine's "
                                                           "clock allows (at most 10 minutes ahead of it")
    assert "time from the future is refused" in err
    result = bob("verify", str(forged), "--db", str(bob.dir / "log.db"), ok=False)
    assert result.code == 8 and "later than this machine's clock allows" in result.err


def test_the_write_path_never_follows_a_far_future_head(monkeypatch: pytest.MonkeyPatch) -> None:
    """A head recorded in the future (a log written before this bound, or a clock set back since) is
    never copied forward beyond the skew: the next write is refused, saying why."""
    from combatlog.errors import InvalidCommand
    from combatlog.events import envelope

    ahead = (dt.datetime.now(dt.timezone.utc) + dt.timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%S.000000Z")
    with pytest.raises(InvalidCommand, match="the log's last event is recorded at .* later than this machine"):
        envelope.recorded_after(ahead)
    near = (dt.datetime.now(dt.timezone.utc) + dt.timedelta(minutes=2)).strftime("%Y-%m-%dT%H:%M:%S.000000Z")
    assert envelope.recorded_after(near) == near  # within the skew: the chain still never goes back


# -- 5. nesting depth, checked before parsing -----------------------------------------------------------


def test_a_header_nested_100000_deep_is_refused_not_an_internal_error(game, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The attack: an import header nested 100,000 deep ended in error[internal] (RecursionError in the
    decoder). Now every JSON text from outside is scanned for its depth, without recursion, first."""
    alice, bob, files = game
    lines = read(files["b1"])
    deep = write(tmp_path / "deep.jsonl", [b'{"format":' + b"[" * 100_000 + b"]" * 100_000 + b"}", *lines[1:]])
    refused(bob, "import", str(deep), code=8, says="the header is not canonical JSON")
    event = write(tmp_path / "deep-event.jsonl", [lines[0], b"[" * 100_000 + b"]" * 100_000, lines[2]])
    refused(bob, "import", str(event), code=8, says="not the canonical JSON of an event")
    result = bob("verify", str(deep), ok=False)
    assert result.code == 8 and "error[internal]" not in result.err, result.err


def test_deep_orders_and_set_ups_are_refused_before_parsing(game, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    alice, bob, files = game
    refused(bob, "seal", "commit", "duel", "--step", "r1", "--orders-json", "[" * 50_000 + "]" * 50_000, code=3,
            says="the orders are nested deeper than 32 levels")
    setup = tmp_path / "deep-setup.json"
    setup.write_text('{"x": ' + "[" * 100_000 + "]" * 100_000 + "}")
    result = bob.cli("new", "other", "--ruleset", "osric", "--setup", str(setup), ok=False)
    assert result.code == 3 and "nested deeper than 32 levels" in result.err, result.err
    assert "error[internal]" not in result.err
