"""A command's batch travels whole (issue: verify and import re-decide every batch).

Since engine 0.2 each ruleset command's events are one batch (consecutive envelopes sharing a
``command_id``), the command recorded on its first envelope (``commands/record.py``), and every
machine re-decides the batch (``exchange/redecide.py``). An honest bundle runs from the receiver's
head, which is always a batch boundary; so a bundle that ends inside a batch, or begins inside one,
is a forgery. Each attack is performed as a hostile player would (the real CLI on two machines, a
modified client where the CLI would refuse) and refused by ``verify`` and ``import`` on the victim's
machine, whose log stays byte for byte as it was. A fork is the one cut allowed inside a batch: a
what-if may begin between a command's die and what the rules did with it.

The duel: alice and bob pinned, local dice, no referee (so a ruling such as damage is any pinned
player's: freeform/authority.py); Aldo is alice's, Bo bob's. ``freeform damage duel Bo 2d6`` is
one batch of two events: the die ``r1/Bo/damage`` (carrying the command) and ``ff.hp_changed``.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from tests.trust.pbem import Seat, batch_cut, key_home, mail, pair, seats_built_once, truncated, write_lines

D = "duel"


def rows(seat: Seat) -> list[tuple[Any, ...]]:
    """Every event row of ``seat``'s log, every stream."""
    with sqlite3.connect(seat.cli.db) as db:
        return db.execute("SELECT stream, seq, hash, body FROM events ORDER BY stream, seq").fetchall()


def refused_by(victim: Seat, path: Path, *expected: str) -> None:
    """``verify FILE`` and ``import FILE`` both fail as a verification failure naming ``expected``; the
    victim's log is unchanged."""
    before = rows(victim)
    for verb in ("verify", "import"):
        out = victim(verb, str(path), ok=False)
        assert out.code == 8 and out.err.startswith("error[verify_failed]: "), (verb, out.code, out.err)
        for text in expected:
            assert text in out.err, (verb, text, out.err)
    assert rows(victim) == before, "a refused bundle changed the victim's log"


def lines_of(path: Path) -> list[bytes]:
    return path.read_bytes().split(b"\n")[:-1]


def duel(tmp_path: Path) -> tuple[Seat, Seat]:
    """Both joined, round 1 begun, alice and bob holding the same log (seqs 1-4). Made once per test run and
    copied (tests/trust/pbem.py ``seats_built_once``)."""

    def build(root: Path) -> tuple[Seat, Seat]:
        alice, bob = pair(root, D, dice="local")
        alice("freeform", "join", D, "Aldo", "--side", "red", "--hp", "12", "--player", "alice")
        mail(alice, bob, D, root)
        bob("freeform", "join", D, "Bo", "--side", "blue", "--hp", "10", "--player", "bob")
        bob("freeform", "round", D)
        mail(bob, alice, D, root)
        return alice, bob

    alice, bob = seats_built_once(tmp_path, "batches-duel", build)
    return alice, bob


def damage_batch(bob: Seat, tmp_path: Path) -> tuple[Path, list[bytes]]:
    """bob rolls the damage Aldo's axe does to Bo; the bundle alice lacks (since her head), and its lines."""
    bob("freeform", "damage", D, "Bo", "2d6", "--reason", "Aldo's axe")
    path = tmp_path / "honest-damage.jsonl"
    bob("export", D, "--since", "4", "-o", str(path))
    lines = lines_of(path)
    assert [json.loads(line)["type"] for line in lines[1:]] == ["core.dice_rolled", "ff.hp_changed"]
    assert len({json.loads(line)["command_id"] for line in lines[1:]}) == 1  # one batch
    return path, lines


def hp(seat: Seat, who: str) -> int:
    participants = seat("show", D, "--json").json()["state"]["participants"]  # type: ignore[index]
    return int(next(p["hp"] for p in participants if p["name"] == who))


def test_a_bundle_that_ends_inside_a_batch_is_refused(tmp_path: Path) -> None:
    # bob keeps the die, so that the roll looks made, and cuts the ff.hp_changed after it: Bo would keep his
    # hit points. The header is rewritten to match (truncated); the die's own signature, bob's, stays valid.
    alice, bob = duel(tmp_path)
    honest, lines = damage_batch(bob, tmp_path)
    die, damage = (json.loads(line)["seq"] for line in lines[1:])
    assert batch_cut(lines, damage) == 4  # the batch is die + damage: the only honest cuts are 4 and 6
    forged = write_lines(tmp_path / "cut-tail.jsonl", truncated(lines, die))
    refused_by(alice, forged, f"seq {die}: bob's freeform ChangeHp does not re-decide to the recorded events: "
                              "the rules also produce ff.hp_changed, which the log lacks")
    # the whole batch is accepted, and Bo takes what the die says
    before = hp(alice, "Bo")
    alice("import", str(honest))
    rolled = json.loads(lines[1])["data"]["total"]
    assert hp(alice, "Bo") == before - rolled


def _append_to_batch(seat: Seat, event: Any, command_id: str) -> None:
    """A modified client chains ``event`` on ``seat``'s head under ``command_id`` (an earlier batch's), signed by
    the seat's key, with no command record: as if it were the rest of that batch."""
    from combatlog.events.envelope import encode_envelope, seal
    from combatlog.projections.streams import resolve_stream
    from combatlog.store import open_store
    from combatlog.store.base import NewRow
    from combatlog.trust.players import make_signer

    store = open_store(str(seat.cli.db))
    try:
        meta = resolve_stream(store, D)
        head = store.head(meta.id)
        with key_home(seat.home):
            env = make_signer(seat.name)(seal(stream=meta.id, seq=head.seq + 1, prev=head.hash, event=event,
                                              actor=seat.name, command_id=command_id))
        # (the store's own key against a command run twice is another: under the batch's, it would do nothing)
        store.append(meta.id, [NewRow(env.seq, env.type, env.hash, encode_envelope(env))],
                     expected_version=head.seq, command_id="modified-client")
    finally:
        store.close()


def test_a_bundle_that_begins_inside_a_batch_is_refused(tmp_path: Path) -> None:
    # alice holds bob's whole damage batch. bob's modified client then chains an ff.hp_changed giving Bo his
    # hit points back under that batch's command_id, as if the batch went on, and mails it since her head.
    from combatlog.rulesets.freeform.events import HpChanged

    alice, bob = duel(tmp_path)
    honest, lines = damage_batch(bob, tmp_path)
    alice("import", str(honest))
    last = json.loads(lines[-1])
    _append_to_batch(bob, HpChanged(who="Bo", delta=-last["data"]["delta"], reason="Aldo's axe"), last["command_id"])
    path = tmp_path / "tail.jsonl"
    bob("export", D, "--since", str(alice.head(D)), "-o", str(path))
    tail = lines_of(path)
    assert json.loads(tail[0])["since"] == last["seq"] and json.loads(tail[1])["command_id"] == last["command_id"]
    refused_by(alice, path, f"seq {last['seq'] + 1}: ff.hp_changed was produced by no recorded command")
    # bob's own machine, which holds the whole batch, re-decides it with the extra event and refuses it too
    out = bob("verify", D, ok=False)
    first = json.loads(lines[1])["seq"]
    assert out.code == 8 and (f"seq {first}-{last['seq'] + 1}: bob's freeform ChangeHp does not re-decide to the "
                              f"recorded events: seq {last['seq'] + 1} (ff.hp_changed) is not what the rules produce "
                              "(they produce nothing more)") in out.err, out.err


def test_a_fork_cut_inside_a_batch_verifies(tmp_path: Path) -> None:
    # What if the damage die had been rolled and then the blow parried? alice forks right after the die
    # (inside bob's batch); the fork holds the parent's part of the batch (a prefix of what the rules
    # produce), and anyone can verify it.
    alice, bob = duel(tmp_path)
    honest, lines = damage_batch(bob, tmp_path)
    alice("import", str(honest))
    die = json.loads(lines[1])["seq"]
    alice("fork", D, "--at", str(die), "--name", "parried", "--reason", "the blow parried after all")
    alice("note", "parried", "Bo parries")
    path = tmp_path / "parried.jsonl"
    alice("export", "parried", "-o", str(path))
    fork = [json.loads(line) for line in lines_of(path)[1:]]
    assert [e["type"] for e in fork if e["seq"] in (die, die + 1)] == ["core.dice_rolled", "core.forked"]
    assert alice("verify", "parried", "--json").json()["ok"]  # type: ignore[index]
    carol = Seat("carol", tmp_path)
    carol("keys", "new", "carol")
    report = carol("verify", str(path), "--json").json()
    assert report["ok"] and report["head_seq"] == die + 2  # type: ignore[index]
    carol("import", str(path))
    assert carol("verify", "parried", "--json").json()["ok"]  # type: ignore[index]



def test_an_event_by_another_player_inside_a_command_is_refused(tmp_path: Path) -> None:
    """Authority is checked for the actor of a command's first event: a forger who slips an event under
    another author (re-signed with that author's own key: a colluding or careless player) into the middle
    of the batch must not borrow it. bob's Act in the signed duel is #11 (die) and #12 (ff.action_taken);
    #12 is rewritten as alice's, re-hashed, re-chained and signed by alice, the header made to match."""
    import msgspec
    import pytest

    from combatlog.errors import VerificationFailed
    from combatlog.events.canonical import canonical
    from combatlog.events.envelope import decode_envelope, encode_envelope
    from combatlog.exchange.bundle import _header_check
    from combatlog.wiring import verify_file
    from tests.trust.pbem import export, signed_duel

    with key_home(tmp_path / "keys"):
        store, signers, _do = signed_duel(tmp_path)
        lines = export(store, tmp_path / "all.jsonl")
        envs = [decode_envelope(line) for line in lines[1:13]]
        assert (envs[10].actor, envs[11].actor) == ("bob", "bob") and envs[10].command_id == envs[11].command_id
        out, prev = [], envs[0].prev
        for env in envs:
            env = msgspec.structs.replace(env, prev=prev, actor="alice" if env.seq == 12 else env.actor, sigs=())
            env = signers[env.actor](msgspec.structs.replace(env, hash=env.computed_hash()))
            prev = env.hash
            out.append(encode_envelope(env))
        head = json.loads(truncated(lines, 12)[0])
        head["head_hash"] = prev
        head["check"] = _header_check(head)
        forged = write_lines(tmp_path / "mixed.jsonl", [canonical(head), *out])
        with pytest.raises(VerificationFailed) as refused:
            verify_file(forged)
    assert "seq 12: an event by alice inside bob's command (seq 11): one command's events have one author" \
        in str(refused.value)
