"""The attacks of the security review, performed end to end through the CLI.

Each test writes a forged file (or types a hostile command) as a cheating player
would, runs ``combatlog import`` / ``verify`` / the command in a subprocess, and
asserts a clear refusal and a log left exactly as it was.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from tests.conftest import REPO, Cli
from tests.security.forge import log_fingerprint, read, reforge, seq_of, with_header, write
from tests.trust.pbem import batch_cut, key_home, signed_duel, truncated


@pytest.fixture(scope="module")
def alice_laid(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """alice's log and export, played by the real CLI once for the module (each test gets a copy)."""
    root = tmp_path_factory.mktemp("alice-laid")
    cli = Cli(root / "alice.db", REPO, {"COMBATLOG_HOME": str(root / "alice-keys")})
    cli("new", "duel", "--ruleset", "freeform")
    cli("freeform", "join", "duel", "Aldo", "--side", "red", "--hp", "12")
    cli("freeform", "join", "duel", "Bo", "--side", "blue", "--hp", "10")
    cli("freeform", "round", "duel")
    cli("freeform", "act", "duel", "Aldo", "lunges", "--roll", "1d20")
    cli("freeform", "damage", "duel", "Bo", "1d8", "--reason", "sword")
    cli("note", "duel", "a quiet ruling")
    cli("export", "duel", "-o", str(root / "duel.jsonl"))
    return root


@pytest.fixture
def alice(tmp_path: Path, alice_laid: Path) -> Cli:
    """The player who made the combat: a local-dice freeform duel, exported to duel.jsonl (her own copy)."""
    shutil.copytree(alice_laid, tmp_path, dirs_exist_ok=True)
    return Cli(tmp_path / "alice.db", REPO, {"COMBATLOG_HOME": str(tmp_path / "alice-keys")})


@pytest.fixture
def bob(tmp_path: Path) -> Cli:
    """The receiving player, with an empty log."""
    return Cli(tmp_path / "bob.db", REPO, {"COMBATLOG_HOME": str(tmp_path / "bob-keys")})


def refused(cli: Cli, path: Path, *expected: str) -> str:
    """``import`` and ``verify`` both refuse ``path`` naming ``expected``; the receiver's log is unchanged."""
    before = log_fingerprint(cli.db)
    for command in ("import", "verify"):
        result = cli(command, str(path), ok=False)
        assert result.code != 0, f"{command} accepted the forgery"
        assert "error[internal]" not in result.err and "bug in combatlog" not in result.err, result.err
        for text in expected:
            assert text in result.err, f"{command}: {text!r} not in {result.err!r}"
    assert log_fingerprint(cli.db) == before
    return result.err


# -- 1. a forged header must not poison the receiver -------------------------------------------


def test_a_header_whose_genesis_segment_forks_from_itself_is_refused_and_the_honest_file_still_imports(
        tmp_path: Path, alice: Cli, bob: Cli) -> None:
    honest = tmp_path / "duel.jsonl"
    lines = read(honest)
    stream = json.loads(lines[0])["stream"]

    def self_parent(header: dict) -> None:  # type: ignore[type-arg]
        header["segments"][0]["parent"] = stream

    poisoned = write(tmp_path / "poisoned.jsonl", with_header(lines, self_parent))
    refused(bob, poisoned, "starts with a fork")
    assert bob("list", "--json").json() == []
    bob("import", str(honest))  # nothing was left behind to make the honest file "diverge"
    assert len(bob("log", "duel", "--json").json()) == 9  # type: ignore[arg-type]


def test_a_header_that_renames_or_retypes_the_combat_is_refused(tmp_path: Path, alice: Cli, bob: Cli) -> None:
    lines = read(tmp_path / "duel.jsonl")

    def rename(name: str):  # type: ignore[no-untyped-def]
        def mutate(header: dict) -> None:  # type: ignore[type-arg]
            header["name"] = header["segments"][0]["name"] = name
        return mutate

    def retype(header: dict) -> None:  # type: ignore[type-arg]
        header["ruleset"] = header["segments"][0]["ruleset"] = "osric"

    refused(bob, write(tmp_path / "a.jsonl", with_header(lines, rename("evil"))),
            "the genesis names the combat 'duel', the header 'evil'")
    refused(bob, write(tmp_path / "b.jsonl", with_header(lines, rename("duel\x1b[2Jbob-wins"))),
            "no control characters")
    refused(bob, write(tmp_path / "c.jsonl", with_header(lines, retype)), "genesis names ruleset freeform")


def test_a_header_whose_forks_loop_is_refused(tmp_path: Path, alice: Cli, bob: Cli) -> None:
    alice("fork", "duel", "--at", "5", "--as", "whatif")
    alice("export", "whatif", "-o", str(tmp_path / "whatif.jsonl"))
    lines = read(tmp_path / "whatif.jsonl")

    def loop(header: dict) -> None:  # type: ignore[type-arg]
        header["segments"][0]["id"] = header["segments"][1]["id"]
        header["segments"][0]["parent"] = header["segments"][1]["id"]

    refused(bob, write(tmp_path / "loop.jsonl", with_header(lines, loop)), "the header")
    bob("import", str(tmp_path / "whatif.jsonl"))
    assert {r["name"] for r in bob("list", "--json").json()} == {"duel", "whatif"}  # type: ignore[union-attr]


def test_an_incremental_bundle_naming_another_ruleset_is_refused(tmp_path: Path, alice: Cli, bob: Cli) -> None:
    bob("import", str(tmp_path / "duel.jsonl"))
    alice("note", "duel", "one more")
    alice("export", "duel", "--since", "8", "-o", str(tmp_path / "more.jsonl"))

    def retype(header: dict) -> None:  # type: ignore[type-arg]
        header["ruleset"] = header["segments"][0]["ruleset"] = "magic_realm"

    forged = write(tmp_path / "more-forged.jsonl", with_header(read(tmp_path / "more.jsonl"), retype))
    refused(bob, forged, "magic_realm")


def test_a_stream_table_poisoned_by_an_older_version_gives_an_error_not_a_hang(tmp_path: Path, alice: Cli) -> None:
    conn = sqlite3.connect(alice.db)
    with conn:  # what the forged header of the review left behind: the combat forks from itself
        conn.execute("UPDATE streams SET parent = id, fork_seq = 1")
    conn.close()
    for args in (("log", "duel"), ("verify", "duel"), ("export", "duel", "-o", str(tmp_path / "x.jsonl")),
                 ("note", "duel", "hello")):
        result = alice(*args, ok=False)  # the runner's own timeout (120 s) would fail a hang
        assert result.code != 0 and "loop or nest" in result.err, result.err


# -- 2. every field of a die is checked against its notation and limits ---------------------------


def test_a_local_die_outside_its_notation_is_refused(tmp_path: Path, alice: Cli, bob: Cli) -> None:
    lines = read(tmp_path / "duel.jsonl")
    die = seq_of(lines, lambda d: d.get("type") == "core.dice_rolled" and d["notation"] == "1d20")

    def faces_57(d: dict) -> None:  # type: ignore[type-arg]
        d.update(faces=[57], total=57)

    def sides_57(d: dict) -> None:  # type: ignore[type-arg]
        d.update(faces=[57], total=57, sides=57)

    def too_many_sides(d: dict) -> None:  # type: ignore[type-arg]
        d.update(notation="1d5000", sides=5000, faces=[4321], total=4321)

    refused(bob, write(tmp_path / "a.jsonl", reforge(lines, {die: faces_57})), "faces [57] do not fit 1d20")
    refused(bob, write(tmp_path / "b.jsonl", reforge(lines, {die: sides_57})),
            "says 1d20 but records 1 dice of 57 sides")
    refused(bob, write(tmp_path / "c.jsonl", reforge(lines, {die: too_many_sides})), "between 2 and 1000 sides")


def test_a_joint_die_resealed_with_more_sides_is_refused(tmp_path: Path, bob: Cli) -> None:
    """Bob re-seals his own joint die (seq 11) as sides=988 and re-signs it with his own key."""
    with key_home(tmp_path / "keys"):
        store, signers, _ = signed_duel(tmp_path)
        from tests.trust.pbem import export

        full = export(store, tmp_path / "duel.jsonl")
        lines = truncated(full, batch_cut(full, 13))  # up to #12: the last batch (#11-#12) is bob's

    def resealed(d: dict) -> None:  # type: ignore[type-arg]
        assert d["type"] == "core.dice_rolled" and d["notation"] == "1d20"
        d.update(sides=988, faces=[988], total=988)

    with key_home(tmp_path / "keys"):
        forged = reforge(lines, {11: resealed}, signers={"bob": signers["bob"]})
    bob.env["COMBATLOG_HOME"] = str(tmp_path / "keys")
    refused(bob, write(tmp_path / "forged.jsonl", forged), "seq 11", "says 1d20 but records 1 dice of 988 sides")


# -- 4. chosen dice by choosing labels ---------------------------------------------------------------


def test_free_rolls_cannot_use_joint_dice(tmp_path: Path) -> None:
    from tests.trust.pbem import pair

    alice, bob = pair(tmp_path)
    before = log_fingerprint(alice.cli.db)
    result = alice("roll", "duel", "1d20", "--label", "r1/Aldo/attack-45", ok=False)
    assert result.code == 4 and "a free roll cannot use joint dice" in result.err
    assert log_fingerprint(alice.cli.db) == before


# -- 5. nesting and sizes ----------------------------------------------------------------------------


def test_deeply_nested_orders_are_refused_before_anything_is_appended(tmp_path: Path) -> None:
    from tests.trust.pbem import pair

    alice, _ = pair(tmp_path)
    before = log_fingerprint(alice.cli.db)
    deep = '{"a":' * 400 + "1" + "}" * 400
    result = alice("seal", "commit", "duel", "--step", "r1", "--orders-json", deep, ok=False)
    assert result.code == 3 and "nested deeper than 32 levels" in result.err
    assert log_fingerprint(alice.cli.db) == before


def test_a_deeply_nested_set_up_or_huge_note_is_refused(tmp_path: Path, alice: Cli) -> None:
    setup = tmp_path / "deep.json"
    setup.write_text('{"x":' * 40 + "1" + "}" * 40)
    before = log_fingerprint(alice.db)
    result = alice("new", "deep", "--ruleset", "freeform", "--setup", str(setup), ok=False)
    assert result.code == 3 and "nested deeper than 32 levels" in result.err
    result = alice("note", "duel", "x" * 20_001, ok=False)
    assert result.code == 3 and "at most 20000 characters" in result.err
    assert log_fingerprint(alice.db) == before


def test_an_event_nested_deeper_than_the_limit_is_refused_on_import(tmp_path: Path, alice: Cli, bob: Cli) -> None:
    lines = read(tmp_path / "duel.jsonl")
    deep: object = 1
    for _ in range(400):
        deep = {"a": deep}

    def smuggle(d: dict) -> None:  # type: ignore[type-arg]
        d["extra"] = deep  # payloads tolerate unknown fields: a place to hide a bomb

    refused(bob, write(tmp_path / "deep.jsonl", reforge(lines, {2: smuggle})), "values nest at most 32 levels")


# -- 6. another player's command cannot be silently skipped -------------------------------------------


def test_a_command_id_reused_by_another_player_is_refused(tmp_path: Path, alice: Cli) -> None:
    alice("--command-id", "c-1", "note", "duel", "alice speaks", "--as", "alice")
    before = log_fingerprint(alice.db)
    result = alice("--command-id", "c-1", "note", "duel", "bob speaks", "--as", "bob", ok=False)
    assert result.code == 4 and "was already used by alice" in result.err and "nothing was recorded" in result.err
    assert log_fingerprint(alice.db) == before
    again = alice("--command-id", "c-1", "note", "duel", "alice speaks", "--as", "alice")  # a retry is fine
    assert "already recorded" in again.out


def test_two_players_running_the_same_command_file_both_record(tmp_path: Path, alice: Cli) -> None:
    script = tmp_path / "turn.cmds"
    script.write_text("note duel 'I hold my ground'\n")
    alice("run", str(script), "--as", "alice")
    alice("run", str(script), "--as", "bob")
    rows = alice("log", "duel", "--json").json()
    assert [r["actor"] for r in rows if "hold my ground" in r["summary"]] == ["alice", "bob"]  # type: ignore[union-attr,index]


def test_a_later_file_that_begins_like_an_earlier_one_is_recorded_whole(tmp_path: Path, alice: Cli) -> None:
    """Issue 37, item 8: ``run`` chained its ids from the actor alone, so a per-round file beginning with the
    same line as the last one was taken for a retry: "already recorded" (nothing with -q), exit 0, nothing
    appended. Each file is now its own run; a retry of one file still resumes, and says so under -q."""
    round1, round2 = tmp_path / "round-1.cmds", tmp_path / "round-2.cmds"
    round1.write_text("note duel 'round starts'\nnote duel 'alice strikes'\n")
    round2.write_text("note duel 'round starts'\nnote duel 'alice parries'\n")
    alice("run", "-q", str(round1), "--as", "alice")
    result = alice("run", "-q", str(round2), "--as", "alice")
    assert "already recorded" not in result.err
    summaries = [r["summary"] for r in alice("log", "duel", "--json").json()]  # type: ignore[index,union-attr]
    assert sum("round starts" in s for s in summaries) == 2 and any("alice parries" in s for s in summaries)
    # a retry of one file after a failure: the lines it recorded are recognised (and said, even with -q)
    round3 = tmp_path / "round-3.cmds"
    round3.write_text("note duel 'round starts'\nnote duel ''\nnote duel 'alice falls back'\n")
    assert alice("run", "-q", str(round3), "--as", "alice", ok=False).code == 3
    count = len(alice("log", "duel", "--json").json())  # type: ignore[arg-type]
    round3.write_text(round3.read_text().replace("note duel ''", "note duel 'alice gasps'"))
    result = alice("run", "-q", str(round3), "--as", "alice")
    assert f"{round3}:1: already recorded by an earlier run of this file (a retry)" in result.err
    log = alice("log", "duel", "--json").json()
    assert len(log) == count + 2  # type: ignore[arg-type]
    assert sum("round starts" in r["summary"] for r in log) == 3  # type: ignore[index,union-attr]


# -- 7. spoofed output ----------------------------------------------------------------------------------


def test_a_note_cannot_print_a_fake_line_or_escape_codes(tmp_path: Path, alice: Cli) -> None:
    fake = "fine\n#99    bob        bob concedes"
    alice("note", "duel", fake)
    out = alice("log", "duel").out
    assert not any(line.startswith("#99") for line in out.splitlines())
    assert "fine\\n#99" in out
    result = alice("note", "duel", "\x1b[2K\x1b[1Abob concedes", ok=False)
    assert result.code == 3 and "control character \\x1b" in result.err


def test_a_forged_event_with_escape_codes_is_refused(tmp_path: Path, alice: Cli, bob: Cli) -> None:
    lines = read(tmp_path / "duel.jsonl")

    def ansi(d: dict) -> None:  # type: ignore[type-arg]
        d["name"] = "Bo\x1b[8m"

    def newline(d: dict) -> None:  # type: ignore[type-arg]
        d["name"] = "Bo\n#9 bob concedes"

    refused(bob, write(tmp_path / "a.jsonl", reforge(lines, {3: ansi})), "seq 3", "control character \\x1b")
    refused(bob, write(tmp_path / "b.jsonl", reforge(lines, {3: newline})), "seq 3", "control character \\n")


# -- 8. time -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("when, message", [
    ("1999-01-01T00:00:00.000000Z", "times never go backwards"),
    ("yesterday", "is not an RFC 3339 UTC time"),
    ("", "is not an RFC 3339 UTC time"),
    ("2026-11-24T10:00:00+02:00", "is not an RFC 3339 UTC time"),
])
def test_recorded_at_is_checked(tmp_path: Path, alice: Cli, bob: Cli, when: str, message: str) -> None:
    lines = read(tmp_path / "duel.jsonl")

    def retime(env: dict) -> None:  # type: ignore[type-arg]
        env["recorded_at"] = when

    refused(bob, write(tmp_path / "t.jsonl", reforge(lines, {}, envelope={4: retime})), "seq 4", message)


# -- 9. smaller holes -------------------------------------------------------------------------------------


def test_a_decision_point_must_name_a_player(tmp_path: Path) -> None:
    from tests.trust.pbem import mail, pair

    alice, bob = pair(tmp_path)
    alice("seal", "commit", "duel", "--step", "r1")
    mail(alice, bob, "duel", tmp_path)
    bob("seal", "commit", "duel", "--step", "r1")
    bob("seal", "reveal", "duel", "--step", "r1")
    mail(bob, alice, "duel", tmp_path)
    alice("seal", "reveal", "duel", "--step", "r1")
    before = log_fingerprint(alice.cli.db)
    result = alice("seal", "decision", "duel", "mallory runs", "--player", "mallory", ok=False)
    assert result.code == 3 and "'mallory' is not a player of this combat" in result.err
    assert log_fingerprint(alice.cli.db) == before


def test_a_co_signature_is_refused(tmp_path: Path, bob: Cli) -> None:
    """Bob adds his valid signature to alice's join (seq 2): signatures sit outside the hash, so an
    extra one proves nothing; an event is signed by its actor alone."""
    with key_home(tmp_path / "keys"):
        store, signers, _ = signed_duel(tmp_path, rolls=False)
        from combatlog.exchange.bundle import export_lines
        from combatlog.projections.streams import resolve_stream

        from combatlog.events.envelope import Signature, decode_envelope, encode_envelope
        from combatlog.trust.keys import KeySigner
        from combatlog.trust.players import signed_message

        lines = list(export_lines(store, resolve_stream(store, "duel")))
        env = decode_envelope(lines[2])
        key = KeySigner("bob")
        extra = Signature(signer="bob", key=key.fingerprint, sig=key.sign(signed_message(env.hash)))
        lines[2] = encode_envelope(env.with_sigs(env.sigs + (extra,)))
    bob.env["COMBATLOG_HOME"] = str(tmp_path / "keys")
    refused(bob, write(tmp_path / "cosigned.jsonl", lines), "seq 2", "signed by its actor alone")


def test_the_equivocation_proof_is_checked_by_verify(tmp_path: Path) -> None:
    from tests.trust.pbem import equivocated

    alice, _bob, path = equivocated(tmp_path)
    assert alice("import", str(path), ok=False).code == 9
    proof = tmp_path / "second.jsonl.equivocation-2.jsonl"
    checked = alice("verify", str(proof), "--json").json()
    assert checked["ok"] and checked["author"] == "bob" and checked["seq"] == 2  # type: ignore[index]
    assert "proof holds: bob" in alice("verify", str(proof)).out
    # the proof names bob's two events; replacing one by an event bob did not sign breaks it
    lines = read(proof)
    lines[3] = lines[2].replace(b'"hp":10', b'"hp":11')
    result = alice("verify", str(write(tmp_path / "bad-proof.jsonl", lines)), ok=False)
    assert result.code != 0 and "does not match its hash" in result.err


# -- internal errors where a clean refusal belongs -------------------------------------------------------


def test_huge_numbers_and_bad_command_files_get_clean_errors(tmp_path: Path, alice: Cli) -> None:
    for args in (("show", "duel", "--at", "99999999999999999999999"),
                 ("replay", "duel", "--from", "99999999999999999999999"),
                 ("fork", "duel", "--at", "99999999999999999999999", "--as", "w")):
        result = alice(*args, ok=False)
        assert result.code == 2 and "too large" in result.err, result.err
    script = tmp_path / "bad.cmds"
    script.write_bytes(b"note duel fine\nnote duel caf\xe9\n")
    before = log_fingerprint(alice.db)
    result = alice("run", str(script), ok=False)
    assert result.code == 3 and "bad.cmds:2: not UTF-8 text" in result.err
    assert log_fingerprint(alice.db) == before
