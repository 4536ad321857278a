"""Keys pinned by an imported combat against the key home (docs/trust.md, "Keys and signatures").

The attack: mallory writes a combat that pins a key of his own under the name ``bob`` (and one under
alice's own name) and mails it to alice. ``verify`` alone cannot tell: every signature checks against
the keys the genesis pins. alice's key home holds the key bob gave her out of band, so her ``import``
refuses the combat, leaving her log byte for byte as it was; ``--trust-new-key`` accepts it knowingly.
A combat pinning a key for alice's own name that she does not hold is imported with a warning.

Each player has his own key home and log; everything goes through the CLI.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.trust.test_my_move import Seat


def _players(root: Path) -> tuple[Seat, Seat, Seat]:
    alice, bob, mallory = Seat(root, "alice"), Seat(root, "bob"), Seat(root, "mallory")
    alice("keys", "new", "alice")
    bob("keys", "new", "bob")
    bob("keys", "export", "bob", "-o", str(root / "bob.pub"))
    alice("keys", "import", str(root / "bob.pub"))  # checked with bob out of band
    return alice, bob, mallory


def test_a_combat_pinning_another_key_for_a_known_player_is_refused(tmp_path: Path) -> None:
    alice, _bob, mallory = _players(tmp_path)
    alice("new", "mine", "--ruleset", "freeform")  # alice's log is not empty: it must stay as it is
    mallory("keys", "new", "bob")  # mallory's own key, under bob's name
    mallory("keys", "export", "bob", "-o", str(tmp_path / "fake-bob.pub"))
    mallory("keys", "new", "mallory")
    mallory("keys", "import", str(tmp_path / "bob.pub"), "--name", "real-bob")
    mallory("new", "duel", "--ruleset", "freeform", "--player", "mallory", "--player", "bob", "--as", "bob")
    mallory("freeform", "join", "duel", "Bo", "--side", "blue", "--hp", "10", "--as", "bob")
    mallory("export", "duel", "-o", str(tmp_path / "duel.jsonl"))
    assert mallory("verify", str(tmp_path / "duel.jsonl")).code == 0  # the forgery verifies on its own
    before = alice.db.read_bytes()
    refused = alice("import", str(tmp_path / "duel.jsonl"), ok=False)
    assert refused.code == 4
    assert "duel.jsonl pins a key different from the one in your key home for bob" in refused.err
    assert "base_hash" not in refused.err  # the file is named, its bytes are not printed
    assert "--trust-new-key" in refused.err and "nothing was imported" in refused.err
    assert alice.db.read_bytes() == before  # the refusal changed nothing
    assert [r["name"] for r in json.loads(alice("list", "--json").out)] == ["mine"]
    # accepted knowingly: imported, with the warning
    taken = alice("import", str(tmp_path / "duel.jsonl"), "--trust-new-key", "--json")
    assert json.loads(taken.out)["appended"] == {"duel": 2}
    assert "accepted with --trust-new-key" in taken.err and "bob" in taken.err
    # the same combat again (a later bundle of it) is not refused: it was accepted once
    mallory("note", "duel", "more", "--as", "bob")
    mallory("export", "duel", "-o", str(tmp_path / "duel-2.jsonl"))
    assert alice("import", str(tmp_path / "duel-2.jsonl")).code == 0


def test_a_combat_pinning_another_key_under_my_own_name_is_refused(tmp_path: Path) -> None:
    alice, bob, mallory = _players(tmp_path)
    mallory("keys", "new", "alice")  # "alice", but mallory's key
    mallory("keys", "import", str(tmp_path / "bob.pub"))
    mallory("new", "duel", "--ruleset", "freeform", "--player", "alice", "--player", "bob", "--as", "alice")
    mallory("export", "duel", "-o", str(tmp_path / "duel.jsonl"))
    refused = alice("import", str(tmp_path / "duel.jsonl"), ok=False)
    assert refused.code == 4 and "for alice (pinned ed25519:" in refused.err
    # bob, who never got alice's key, cannot compare: he is not refused (he should check the fingerprints
    # that seal status shows with alice, docs/trust.md step 3)
    assert bob("import", str(tmp_path / "duel.jsonl")).code == 0


def test_a_combat_pinning_a_key_for_me_that_i_do_not_hold_is_imported_with_a_warning(tmp_path: Path) -> None:
    # carol's machine: she plays as "carol" but her log pins a "dave" whose secret key is on another machine
    carol, dave = Seat(tmp_path, "carol"), Seat(tmp_path, "dave")
    carol("keys", "new", "carol")
    dave("keys", "new", "dave")
    dave("keys", "export", "dave", "-o", str(tmp_path / "dave.pub"))
    carol("keys", "import", str(tmp_path / "dave.pub"))
    carol("new", "duel", "--ruleset", "freeform", "--player", "carol", "--player", "dave")
    carol("export", "duel", "-o", str(tmp_path / "duel.jsonl"))
    # on a machine whose user acts as dave (--as) but holds only dave's public key
    viewer = Seat(tmp_path, "viewer")
    viewer("keys", "import", str(tmp_path / "dave.pub"))
    warned = viewer("import", str(tmp_path / "duel.jsonl"), "--as", "dave")
    assert "warning:" in warned.err and "pins a key for dave" in warned.err and "no secret key for dave" in warned.err
    # the warning names the file, as every import message does; it printed the whole bundle as a bytes literal
    assert "duel.jsonl pins a key for dave" in warned.err and "base_hash" not in warned.err, warned.err
    assert "appended 1 events" in warned.out
    # dave himself, with his key: no warning
    quiet = dave("import", str(tmp_path / "duel.jsonl"))
    assert quiet.err == "" and quiet.code == 0
