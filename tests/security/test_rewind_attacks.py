"""Issue #19, points 3 and 4, performed end to end through the CLI on separate machines.

Three machines (gm, alice, bob), each with its own log and key home, as in tests/trust/; files
stand for mails. Each attack is one a hostile player can make with the normal CLI and a copy of
her own machine (or, for the server, by pushing first); each must be refused with a clear error,
and the refusing machine's log must be unchanged row for row (``log_fingerprint``).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.security.forge import log_fingerprint
from tests.server.live import LiveServer
from tests.trust.pbem import Seat

NAMES = ("gm", "alice", "bob")  # the pinned order: at place n the player at index n mod 3 goes first


def table(root: Path, *options: str, names: tuple[str, ...] = NAMES, dice: str = "joint",
          remote: str = "") -> dict[str, Seat]:
    """Seats with keys, every public key imported everywhere; the first creates ``duel`` pinning all."""
    seats = {name: Seat(name, root) for name in names}
    for seat in seats.values():
        seat("keys", "new", seat.name)
        seat("keys", "export", seat.name, "-o", str(root / f"{seat.name}.pub"))
        if remote:
            seat("remote", "add", "origin", remote)
    for seat in seats.values():
        for other in seats.values():
            if other is not seat:
                seat("keys", "import", str(root / f"{other.name}.pub"))
    first = seats[names[0]]
    args = ["new", "duel", "--ruleset", "freeform", "--dice", dice]
    for name in names:
        args += ["--player", name]
    for opt in options:
        args += ["--option", opt]
    first(*args)
    return seats


def send(sender: Seat, receiver: Seat, root: Path, tag: str) -> Path:
    """``export --for RECEIVER`` from the sender's log, imported by the receiver (a mail)."""
    path = root / f"{sender.name}-{tag}-for-{receiver.name}.jsonl"
    sender("export", "duel", "--for", receiver.name, "-o", str(path))
    receiver("import", str(path))
    return path


def hp(seat: Seat, who: str) -> int:
    state = seat("show", "duel", "--json").json()
    return next(int(p["hp"]) for p in state["state"]["participants"]  # type: ignore[index]
                if p["name"] == who)


def refused(seat: Seat, *args: str, code: int, says: str) -> str:
    """Run ``args`` on ``seat``: refused with ``code`` and ``says`` in the error, the log unchanged."""
    before = log_fingerprint(seat.dir / "log.db")
    result = seat(*args, ok=False)
    assert result.code == code, (result.code, result.err, result.out)
    assert says in result.err, result.err
    assert "error[internal]" not in result.err
    assert log_fingerprint(seat.dir / "log.db") == before
    return result.err


# -- point 3: no rewinding -----------------------------------------------------------------


def test_a_branch_forking_before_what_its_author_acknowledged_is_refused_as_equivocation(tmp_path: Path) -> None:
    """The issue's attack: alice acknowledges bob's blow, then mails one event forking before it, at a
    place where the rotation puts her first (place 10 of [gm, alice, bob]: 10 mod 3 = 1, alice). Before
    the fix bob's import kept her branch, Aldo was back to 12 hp and bob's blow was "refused on
    re-apply"; now bob's and the gm's imports refuse it with a proof, and nothing changes."""
    s = table(tmp_path)
    gm, alice, bob = s["gm"], s["alice"], s["bob"]
    send(gm, alice, tmp_path, "1")
    alice("freeform", "join", "duel", "Aldo", "--side", "red", "--hp", "12")
    send(alice, bob, tmp_path, "1")
    bob("freeform", "join", "duel", "Bo", "--side", "blue", "--hp", "10")
    while bob.head("duel") % 3:  # up to #9 (or the next multiple of 3)
        bob("note", "duel", "the wind rises")
    fork = bob.head("duel")
    send(bob, alice, tmp_path, "2")
    send(bob, gm, tmp_path, "1")
    assert alice.head("duel") == fork
    shutil.copytree(alice.dir, tmp_path / "alice-at-fork")  # alice keeps a copy of her machine

    bob("freeform", "damage", "duel", "Aldo", "5", "--reason", "Bo's axe")  # bob's blow, #fork+1
    send(bob, alice, tmp_path, "3")
    alice("ack", "duel")  # alice signs the history with the blow in it
    send(alice, bob, tmp_path, "2")  # the gm has not heard of the blow yet: his log ends at #fork
    assert hp(bob, "Aldo") == 7 and bob.verify("duel")["acknowledged"]["alice"] == fork + 2

    # alice goes back to her copy and mails one event on #fork: a heal nobody ever saw her sign against
    shutil.rmtree(alice.dir)
    shutil.copytree(tmp_path / "alice-at-fork", alice.dir)
    alice("note", "duel", "Aldo ducks")
    rewound = tmp_path / "alice-rewound.jsonl"
    alice("export", "duel", "--since", str(fork), "-o", str(rewound))

    err = refused(bob, "import", str(rewound), code=9, says="error[equivocation]: rewind by alice")
    assert f"alice signed #{fork + 2} of this log's branch (core.acknowledged" in err
    assert f"parts from it at #{fork}" in err
    assert hp(bob, "Aldo") == 7 and bob.verify("duel")["head_seq"] == fork + 2
    proof = tmp_path / f"alice-rewound.jsonl.equivocation-{fork + 1}.jsonl"
    checked = gm("verify", str(proof))
    assert "proof holds: alice" in checked.out and "a rewind" in checked.out

    # the other way round: the gm, still at #fork, takes alice's rewound event first (to him it is
    # just her move); bob's mail then shows him the blow and alice's ack of it: refused, with a proof
    gm("import", str(rewound))
    main = tmp_path / "bob-main.jsonl"
    bob("export", "duel", "--since", str(fork), "-o", str(main))
    err = refused(gm, "import", str(main), code=9, says="error[equivocation]: rewind by alice")
    assert f"alice signed #{fork + 2} of the bundle's branch" in err
    assert gm("verify", str(tmp_path / f"bob-main.jsonl.equivocation-{fork + 1}.jsonl")).code == 0

    # the proof cannot be turned against an honest player: cut alice's ack from it, and it fails
    lines = proof.read_bytes().split(b"\n")[:-1]
    import json

    head = json.loads(lines[0])
    cut = lines[:2 + head["branch"]] + lines[2 + head["branch"]:-1]
    head["signed"] -= 1
    from combatlog.events.canonical import canonical

    forged = tmp_path / "cut.jsonl"
    forged.write_bytes(b"\n".join([canonical(head), *cut[1:]]) + b"\n")
    bad = gm("verify", str(forged), ok=False)
    assert bad.code != 0 and "does not hold" in bad.err, bad.err


def test_crossing_moves_still_merge_and_a_late_superseded_branch_is_not_a_rewind(tmp_path: Path) -> None:
    """The honest counterpart: alice and bob answer the same mail; alice's machine meets bob's branch,
    which goes first here, re-applies her move after it and signs on; her original mail then
    reaches bob late. Her branch loses the merge (nothing of bob's is rewound), so it is no rewind:
    it is kept as evidence, and everyone ends on one head."""
    s = table(tmp_path, names=("gm", "bob", "alice"))
    gm, alice, bob = s["gm"], s["alice"], s["bob"]
    send(gm, alice, tmp_path, "1")
    send(gm, bob, tmp_path, "1")
    gm("note", "duel", "the gm sets the scene")  # #2
    send(gm, alice, tmp_path, "2")
    send(gm, bob, tmp_path, "2")
    # both answer #2; at place 3 the order of [gm, bob, alice] is rotated by 3: gm, bob, alice: bob first
    alice("freeform", "join", "duel", "Aldo", "--side", "red", "--hp", "12")
    early = tmp_path / "alice-early.jsonl"
    alice("export", "duel", "--since", "2", "-o", str(early))
    bob("freeform", "join", "duel", "Bo", "--side", "blue", "--hp", "10")
    merged = send(bob, alice, tmp_path, "1")
    assert merged.exists()
    alice("note", "duel", "Aldo circles")
    send(alice, bob, tmp_path, "after")  # her re-applied join and a note, both signed on bob's branch
    out = bob("import", str(early))  # then her first mail, late: it loses, so it rewinds nothing
    assert "error" not in out.err and "already in this log" in out.out, out.out
    assert len(bob("superseded", "duel", "--json").json()["superseded"]) == 1  # type: ignore[index]
    assert alice.verify("duel")["head_hash"] == bob.verify("duel")["head_hash"]
    assert hp(bob, "Aldo") == 12 and hp(alice, "Bo") == 10


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    live = LiveServer(tmp_path, "--open")  # combatlog serve on 127.0.0.1, a free port
    yield live
    live.stop()


def test_a_pull_does_not_overturn_what_the_pinned_sequencer_signed(tmp_path: Path, server: LiveServer) -> None:
    """The combat is on a server and the sequencer is gm. bob's join reaches the gm by mail and the gm
    acknowledges it; alice pushes her own #2 to the server first. Before the fix bob's (and the gm's)
    pull kept "the branch the server ordered first", superseding the gm's signature; now the branch
    the sequencer signed stands on that path too: the pull is refused and nothing changes."""
    s = table(tmp_path, "sequencer=gm", remote=server.url)
    gm, alice, bob = s["gm"], s["alice"], s["bob"]
    gm("push", "duel")
    alice("pull", "duel")
    bob("pull", "duel")
    bob("freeform", "join", "duel", "Bo", "--side", "blue", "--hp", "10")  # #2, by mail only
    send(bob, gm, tmp_path, "1")
    gm("ack", "duel")  # #3: the sequencer saw bob's #2 first
    send(gm, bob, tmp_path, "1")
    alice("freeform", "join", "duel", "Aldo", "--side", "red", "--hp", "12")
    alice("push", "duel")  # the server's #2 is alice's: first come, first served there
    assert server.head(alice("list", "--json").json()[0]["id"])[0] == 2  # type: ignore[index]

    for seat in (bob, gm):
        err = refused(seat, "pull", "duel", code=4, says="which the sequencer gm signed (#3, core.acknowledged)")
        assert "nothing is pulled and this log is unchanged" in err and "(trust: no rewinding)" in err
        assert seat.verify("duel")["head_seq"] == 3
    refused(bob, "push", "duel", code=4, says="What the sequencer signed stands on every path")


# -- point 4: nonce chains that cannot be ground ------------------------------------------------


def test_no_release_while_another_player_holds_no_chain(tmp_path: Path) -> None:
    """The issue's point 4, first half: bob releases his chain while alice has none. A player with no
    chain counted as "still secret", so the release passed; alice could then commit a chain whose
    secret she tried offline until her dice suited her (881 tries for a d20 of 20 and 2d6 of 12).
    Now the release is refused when it is made, with the rule."""
    s = table(tmp_path, names=("alice", "bob"))
    alice, bob = s["alice"], s["bob"]
    send(alice, bob, tmp_path, "1")
    bob("seal", "chain", "duel")
    err = refused(bob, "seal", "release", "duel", code=4,
                  says="bob is the last player whose links are secret; alice holds no nonce chain yet")
    assert err.startswith("error[illegal]") and "(trust: nonce chains)" in err, err
    # once alice holds a chain of her own (committed before she saw bob's secret), bob may release
    send(bob, alice, tmp_path, "1")
    alice("seal", "chain", "duel")
    send(alice, bob, tmp_path, "1")
    bob("seal", "release", "duel")
    assert "only alice's links are still secret" in " ".join(bob.verify("duel")["notes"])


def test_a_forged_release_and_a_late_chain_are_refused_by_import_and_verify(tmp_path: Path) -> None:
    """The same attack by a modified client: bob's machine appends a signed release the write path
    would refuse, and mails it. alice's import refuses it (nothing appended), and verify of bob's own
    log reports it. Behind it, alice's ground late chain could never count: verify refuses a chain
    committed once every other player's links are public, whatever the order it arrives in."""
    from combatlog.events.core import ChainReleased
    from combatlog.store import open_store
    from combatlog.trust.players import make_signer
    from tests.trust.pbem import forge, key_home

    s = table(tmp_path, names=("alice", "bob"))
    alice, bob = s["alice"], s["bob"]
    send(alice, bob, tmp_path, "1")
    bob("seal", "chain", "duel")
    with key_home(bob.home):
        store = open_store(str(bob.dir / "log.db"))
        head = bob("seal", "status", "duel", "--json").json()["chains"]["bob"]  # type: ignore[index]
        assert head["released_at"] is None
        secret = next(v for k, v in _secrets(bob.dir / "log.db") if k.startswith("chain:"))
        forge(store, "duel", ChainReleased(player="bob", secret=secret), actor="bob", signer=make_signer("bob"))
        store.close()
    forged = tmp_path / "bob-forged.jsonl"
    bob("export", "duel", "--since", "1", "-o", str(forged))
    refused(alice, "import", str(forged), code=8, says="bob is the last player whose links are secret")
    bad = bob("verify", "duel", ok=False)
    assert bad.code == 8 and "alice holds no nonce chain yet" in bad.err, bad.err


def _secrets(db: Path) -> list[tuple[str, str]]:
    import sqlite3

    conn = sqlite3.connect(db)
    try:
        return [(str(k), bytes(v).decode()) for k, v in conn.execute("SELECT name, value FROM secrets")]
    finally:
        conn.close()


def test_a_rewind_proof_holds_only_as_written(tmp_path: Path) -> None:
    """The proof of a rewind (in-process, for speed): alice signed #7-#10 and acknowledged #13 of the duel
    (see ``signed_duel``), then signs a note on #5 (a log is cut between command batches, never inside
    one), where the rotation of [alice, bob] puts her first at #6.
    The import refuses it and writes the proof; every way a forger could bend the proof (drop the
    event she signed, swap the branches, alter a line, cut a count) makes ``verify_evidence`` refuse
    it cleanly, never an internal error."""
    import json

    import pytest

    from combatlog.errors import VerificationFailed
    from combatlog.events.canonical import canonical
    from combatlog.events.core import Noted
    from combatlog.wiring import import_file
    from combatlog.trust.evidence import Equivocation, verify_evidence
    from tests.security.forge import read, write
    from tests.trust.pbem import appended, export, key_home, signed_duel, truncated

    with key_home(tmp_path / "keys"):
        store, signers, _do = signed_duel(tmp_path)
        lines = export(store, tmp_path / "all.jsonl")
        assert json.loads(lines[13])["actor"] == "alice" and json.loads(lines[12])["actor"] == "bob"
        fork = appended(truncated(lines, 5), Noted(text="Aldo ducks"), actor="alice", signer=signers["alice"])
        bundle = write(tmp_path / "fork.jsonl", fork)
        before = [r.hash for r in store.read_stream(store.list_streams()[0].id, 1)]
        with pytest.raises(Equivocation) as err:
            import_file(store, bundle)
        assert "rewind by alice: alice signed #" in str(err.value)
        assert [r.hash for r in store.read_stream(store.list_streams()[0].id, 1)] == before
    proof = tmp_path / "fork.jsonl.equivocation-6.jsonl"
    report = verify_evidence(proof)
    assert (report.proof, report.author, report.seq) == ("rewind", "alice", 6)

    good = read(proof)
    head = json.loads(good[0])
    branch, signed = good[2:2 + head["branch"]], good[2 + head["branch"]:]

    def header(**change: object) -> bytes:
        return canonical({**head, **change})

    bent = {  # the forged proof -> what the refusal says
        # the other branch cut before alice's first event on it (#7): only bob's reveal (#6) is left
        "signed nothing of the other branch": [header(signed=1), good[1], *branch, *signed[:1]],
        "is not begun by alice": [header(branch=head["signed"], signed=head["branch"]), good[1], *signed, *branch],
        "counts do not match": [header(branch=head["branch"] + 1), *good[1:]],
        "does not hash or chain": [*good[:-1], good[-1].replace(b'"upto":12', b'"upto":11')],
        "is not begun by bob": [header(author="bob"), *good[1:]],
        "counts do not match ": [good[0], *good[2:]],
        "canonical JSON": [good[0] + b" ", *good[1:]],
    }
    for says, forged in bent.items():
        with pytest.raises(VerificationFailed) as refused_proof:
            verify_evidence(write(tmp_path / "bent.jsonl", forged))
        assert says.strip() in str(refused_proof.value), (says, str(refused_proof.value))
