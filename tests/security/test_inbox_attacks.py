"""Bad input to ``import``, performed through the CLI: every case is refused with a clear error or held.

Bundles arrive by mail in any order, pasted, quoted, twice, damaged, or from a
cheat. Each test plays one case as a player's machine would meet it and checks
the answer and that nothing is appended that should not be (``log_fingerprint``:
every row of the log, held bundles included).
"""

from __future__ import annotations

import base64
import json
import zlib
from pathlib import Path

import pytest

from combatlog.exchange import armour as arm
from combatlog.exchange.armour import armour
from tests.conftest import REPO, Cli
from tests.security.forge import log_fingerprint, read, with_header, write
from tests.trust.pbem import Seat, duel_with_bundles


def armoured(path: Path) -> str:
    """The armoured block of a bundle file, as ``mail`` writes it."""
    data = path.read_bytes()
    header = json.loads(data.split(b"\n", 1)[0])
    return armour(data, combat=header["name"], first=header["since"] + 1, last=header["head_seq"])


def events_of(seat: Seat) -> list[str]:
    return [row for row in log_fingerprint(seat.dir / "log.db") if "held_bundles" not in row]


def held_of(seat: Seat) -> list[str]:
    return [row for row in log_fingerprint(seat.dir / "log.db") if "held_bundles" in row]


@pytest.fixture
def game(tmp_path: Path) -> tuple[Seat, Seat, dict[str, Path]]:
    """alice and bob play a signed duel; bob holds #1. Bundles of alice's: #2-#3, #4-#5, and #2-#5. (tests/trust/pbem.py ``duel_with_bundles``)"""
    return duel_with_bundles(tmp_path)


def refused(seat: Seat, *args: str, code: int, says: str) -> str:
    before = log_fingerprint(seat.dir / "log.db")
    result = seat(*args, ok=False)
    assert result.code == code, (result.code, result.err, result.out)
    assert says in result.err, result.err
    assert "error[internal]" not in result.err
    assert log_fingerprint(seat.dir / "log.db") == before, "a refused import changed the log"
    return result.err


# -- out of order: held, then applied --------------------------------------------------------------


def test_a_bundle_out_of_order_is_held_durably_then_applied_when_its_predecessor_arrives(game) -> None:  # type: ignore[no-untyped-def]
    alice, bob, files = game
    before = events_of(bob)
    early = bob("import", str(files["b2"]))
    assert "duel #4-#5: held until #2-#3 of duel arrive" in early.out
    assert events_of(bob) == before and len(held_of(bob)) == 1  # nothing appended, one bundle kept
    status = bob("status", "duel", "--json").json()
    assert status["seq"] == 1 and status["held"][0]["events"] == "#4-#5"  # type: ignore[index]
    assert status["held"][0]["waiting_for"] == "#2-#3"  # type: ignore[index]
    assert "held: bundle #4-#5 (from " in bob("status", "duel").out
    # a later import, in another process: the predecessor arrives and both are applied, in order
    late = bob("import", str(files["b1"]))
    assert "duel: appended 2 events" in late.out and "held bundle from" in late.out
    assert bob.head("duel") == 5 and held_of(bob) == []
    assert bob("status", "duel", "--json").json()["held"] == []  # type: ignore[index]
    assert bob.verify("duel")["head_hash"] == alice.verify("duel")["head_hash"]


def test_several_bundles_in_one_message_apply_whatever_their_order(game, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    alice, bob, files = game
    message = tmp_path / "round.txt"
    message.write_text("Bob,\n\nthe last two packets, newest first:\n\n" + armoured(files["b2"]) + "\nand\n\n"
                       + armoured(files["b1"]) + "\n-- alice\n")
    result = bob("import", str(message), "--json").json()
    assert [b["status"] for b in result["bundles"]] == ["applied", "applied"]  # type: ignore[index]
    assert result["appended"] == {"duel": 4} and result["held"] == []  # type: ignore[index]
    assert bob.head("duel") == 5 and held_of(bob) == []


def test_an_inbox_folder_and_standard_input_in_any_order(game, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    alice, bob, files = game
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    (inbox / "1-newest.txt").write_text(armoured(files["b2"]))
    (inbox / ".hidden").write_text("not read")
    result = bob.cli("import", "-", "--inbox", str(inbox), "--as", "bob", stdin=armoured(files["b1"]))
    assert result.code == 0 and bob.head("duel") == 5, result.err
    assert "standard input, block 1 (line 1): duel: appended 2 events" in result.out


# -- duplicates ----------------------------------------------------------------------------------


def test_a_duplicate_changes_nothing(game, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    alice, bob, files = game
    message = tmp_path / "twice.txt"
    message.write_text(armoured(files["b1"]) + "\n> " + "> ".join(armoured(files["b1"]).splitlines(True)))
    result = bob("import", str(message))
    assert "duel: appended 2 events" in result.out and "the same bundle as" in result.out and "skipped" in result.out
    again = bob("import", str(files["b1"]))
    assert "already up to date (the bundle ends at #3, this log at #3)" in again.out and bob.head("duel") == 3
    both = bob("import", str(files["b2"]), str(files["b2"]))  # the same file given twice
    assert "appended 2 events" in both.out and "skipped" in both.out and bob.head("duel") == 5


def test_a_held_bundle_arriving_again_is_kept_once(game) -> None:  # type: ignore[no-untyped-def]
    alice, bob, files = game
    bob("import", str(files["b2"]))
    assert "held already" in bob("import", str(files["b2"])).out
    assert len(held_of(bob)) == 1


# -- damaged or forged blocks ---------------------------------------------------------------------


def test_a_truncated_armoured_block_is_refused_and_changes_nothing(game, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    alice, bob, files = game
    lines = armoured(files["b1"]).splitlines()
    cut = write(tmp_path / "cut.txt", [line.encode() for line in lines[:len(lines) // 2]])
    refused(bob, "import", str(cut), code=8, says="truncated: the block has no END line")
    lost = write(tmp_path / "lost.txt", [line.encode() for line in lines[:7] + lines[8:]])
    refused(bob, "import", str(lost), code=8, says="the checksum does not match")


def test_an_altered_armoured_block_is_refused_and_changes_nothing(game, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    alice, bob, files = game
    text = armoured(files["b1"])
    line = text.splitlines()[7]
    altered = tmp_path / "altered.txt"
    altered.write_text(text.replace(line, line[:5] + ("Q" if line[5] != "Q" else "R") + line[6:]))
    err = refused(bob, "import", str(altered), code=8, says="the checksum does not match")
    assert "altered.txt, block 1 (line 1)" in err


def test_a_block_recomputed_around_a_changed_event_is_refused_by_verification(game, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A cheat who re-armours a changed bundle passes the checksum (anyone can compute it), not the hashes."""
    alice, bob, files = game
    data = files["b1"].read_bytes().replace(b"Aldo waits at the ford", b"Aldo flees from the ford")
    forged = tmp_path / "forged.txt"
    forged.write_text(armour(data, combat="duel", first=2, last=3))
    refused(bob, "import", str(forged), code=8, says="hash does not match the content")


def test_a_zip_bomb_is_refused_without_inflating_it(game, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    alice, bob, files = game
    bomb = zlib.compress(b"{" + b" " * (200 << 20), 9)  # 200 MiB of blanks in ~200 KiB
    headers = ["Version: 1", "Combat: duel", "Events: 2-3", "Size: 4000"]
    body = base64.b64encode(bomb).decode()
    check = base64.b64encode(arm._checksum(headers, bomb)).decode()
    path = tmp_path / "bomb.txt"
    path.write_text("\n".join([arm.BEGIN, *headers, "", *(body[i:i + 64] for i in range(0, len(body), 64)),
                               "=" + check, arm.END]) + "\n")
    refused(bob, "import", str(path), code=8, says="decompresses to more than the 4000 bytes its Size header declares")
    path.write_text(path.read_text().replace("Size: 4000", f"Size: {arm.MAX_BUNDLE_BYTES + 1}"))
    refused(bob, "import", str(path), code=8, says="a bundle in a message is at most")


def test_a_message_without_a_bundle_is_a_clear_error(game, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    alice, bob, files = game
    path = tmp_path / "chat.txt"
    path.write_text("see you thursday\n")
    refused(bob, "import", str(path), code=3, says="no combatlog bundle found")
    refused(bob, "import", code=3, says="nothing to import")


def test_a_deeply_nested_or_huge_email_is_refused_cleanly(game, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    alice, bob, files = game
    nested = ["MIME-Version: 1.0"]
    for i in range(300):
        nested += [f'Content-Type: multipart/mixed; boundary="b{i}"', "", f"--b{i}"]
    eml = tmp_path / "nested.eml"
    eml.write_text("\n".join(nested) + "\n")
    result = bob("import", str(eml), ok=False)
    assert result.code in (3, 8) and "error[internal]" not in result.err, result.err


# -- bundles for another combat, and forged held bundles ---------------------------------------------


def test_a_bundle_for_another_combat_is_refused(game, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    alice, bob, files = game
    carol = Cli(tmp_path / "carol.db", REPO, {"COMBATLOG_HOME": str(tmp_path / "carol-keys")})
    carol("new", "duel", "--ruleset", "freeform")  # another combat that happens to be called duel too
    carol("note", "duel", "elsewhere")
    carol("export", "duel", "--since", "1", "-o", str(tmp_path / "carol-2.jsonl"))
    carol("export", "duel", "-o", str(tmp_path / "carol-all.jsonl"))
    err = refused(bob, "import", str(tmp_path / "carol-2.jsonl"), code=6,
                  says="which this log does not have; import the full export first")
    assert "the combat named duel here is another one" in err
    refused(bob, "import", str(tmp_path / "carol-all.jsonl"), code=3,
            says="this log already has a combat named duel")
    assert "--name" in bob("import", str(tmp_path / "carol-all.jsonl"), ok=False).err
    assert "(new here)" in bob("import", str(tmp_path / "carol-all.jsonl"), "--name", "carols-duel").out


def test_a_bundle_whose_lines_were_altered_is_not_held(game, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """What is held is checked as far as it can be without its predecessor: garbage is refused, not kept."""
    alice, bob, files = game
    lines = read(files["b2"])
    lines[1] = lines[1].replace(b"the river rises", b"the river falls")
    refused(bob, "import", str(write(tmp_path / "bad.jsonl", lines)), code=8,
            says="does not hash or chain as its place in the bundle needs")
    moved = with_header(read(files["b2"]), lambda h: h.update(base_hash="0" * 64))  # rests on a made-up hash
    refused(bob, "import", str(write(tmp_path / "moved.jsonl", moved)), code=8, says="does not hash or chain")


def test_a_bundle_whose_signature_was_altered_is_refused_before_it_is_held(game, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A signature sits outside the hash, so the chain of a bundle with a forged signature still checks
    while it would wait: the signature is checked with the keys the genesis pins before holding
    (issue #19 item 5: held bundles only from pinned signers)."""
    alice, bob, files = game
    lines = read(files["b2"])
    env = json.loads(lines[1])
    sig = base64.b64decode(env["sigs"][0]["sig"])
    env["sigs"][0]["sig"] = base64.b64encode(bytes([sig[0] ^ 1]) + sig[1:]).decode()
    lines[1] = json.dumps(env, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    forged = write(tmp_path / "forged-sig.jsonl", lines)
    refused(bob, "import", str(forged), code=8, says="not held: seq 4: the signature of alice is not valid")
    assert held_of(bob) == []


def test_a_held_bundle_whose_base_arrives_after_a_concurrent_move_merges(game) -> None:  # type: ignore[no-untyped-def]
    """bob played #2-#3 himself while alice's #2-#3 were in the mail, and her #4-#5 arrived first (held).
    When her #2-#3 arrive the logs merge (docs/trust.md, "Concurrent moves": at #2 alice goes first),
    bob's two events are placed after hers (unchanged, still signed by him), and the held bundle then applies
    too."""
    alice, bob, files = game
    bob("import", str(files["b2"]))  # held: it rests on alice's #3
    bob("freeform", "join", "duel", "Bo", "--side", "blue", "--hp", "10")  # bob plays #2 and #3 himself
    bob("note", "duel", "bob's own #3")
    result = bob("import", str(files["b1"]))
    assert "merged at #1" in result.out and "placed bob's" in result.out
    assert held_of(bob) == []
    # genesis, alice's four (her #4-#5 merged in too, again first at #4), bob's two placed after them
    assert bob.head("duel") == 7
    log = bob("log", "duel", "--json").json()
    assert [e["actor"] for e in log] == ["alice"] * 5 + ["bob"] * 2  # type: ignore[index]
    assert bob.verify("duel")["ok"]


def test_held_bundles_are_bounded_per_combat(game, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    from combatlog.exchange import inbox
    from combatlog.wiring import receive
    from combatlog.exchange.sources import read_input
    from combatlog.store import open_store

    alice, bob, files = game
    monkeypatch.setattr(inbox, "MAX_HELD", 1)
    alice("note", "duel", "one more")
    extra = bob.dir.parent / "b3.jsonl"
    alice("export", "duel", "--since", "4", "-o", str(extra))
    store = open_store(str(bob.dir / "log.db"))
    try:
        first = receive(store, read_input(str(files["b2"])))
        second = receive(store, read_input(str(extra)))
    finally:
        store.close()
    assert [o.status for o in first] == ["held"]
    assert {o.where: o.status for o in second} == {f"held bundle from {files['b2']}": "still_held", str(extra): "refused"}
    assert "already holds 1 bundles" in str(next(o.error for o in second if o.error))
    assert len(held_of(bob)) == 1
