"""The core verbs through the real CLI (a subprocess), against PostgreSQL (issue 8: "every core verb works there")."""

from __future__ import annotations

from pathlib import Path

import pytest

from combatlog.store.pgtemp import TempPostgres
from tests.conftest import REPO, Cli

pytestmark = pytest.mark.postgres


def test_core_verbs_work_against_postgresql(pg_server: TempPostgres, tmp_path: Path) -> None:
    url = pg_server.url(schema=pg_server.new_schema("cli"))
    cli = Cli(url, REPO)  # type: ignore[arg-type]  # COMBATLOG_DB takes a URL as well as a path

    made = cli("new", "duel", "--ruleset", "freeform", "--dice", "manual", "--json").json()
    assert made["name"] == "duel" and made["head_seq"] == 1  # type: ignore[index]
    cli("freeform", "join", "duel", "Aldo", "--side", "red", "--hp", "12")
    cli("freeform", "join", "duel", "Bo", "--side", "blue", "--hp", "9")
    cli("freeform", "round", "duel")
    cli("freeform", "act", "duel", "Aldo", "swings at Bo", "--roll", "1d20+3", "--face", "r1/Aldo/act=14")
    cli("freeform", "damage", "duel", "Bo", "1d8", "--reason", "sword", "--face", "r1/Bo/damage=5")
    cli("note", "duel", "Bo disputes the reach", "--about", "Bo")
    # The same command id twice records once (idempotent retry).
    first = cli("--command-id", "retry-1", "note", "duel", "once", "--json").json()
    again = cli("--command-id", "retry-1", "note", "duel", "once", "--json").json()
    assert first["duplicate"] is False and again["duplicate"] is True  # type: ignore[index]
    assert again["first_seq"] == first["first_seq"]  # type: ignore[index]

    status = cli("status", "duel", "--json").json()
    # Aldo has acted in round 1; Bo has not, and the round is open.
    assert [p["who"] for p in status["pending"]] == ["Bo", "gm"]  # type: ignore[index]
    show = cli("show", "duel", "--json").json()
    hp = {p["name"]: p["hp"] for p in show["state"]["participants"]}  # type: ignore[index]
    assert hp == {"Aldo": 12, "Bo": 4}  # Bo: 9 hp - the 5 rolled on 1d8
    log = cli("log", "duel", "--json").json()
    # genesis, 2 joins, round, roll + act, roll + damage, note, the retried note once: 10 events
    assert [e["seq"] for e in log] == list(range(1, 11))  # type: ignore[union-attr]
    explain = cli("explain", "duel", "--json").json()
    assert "Bo loses 5 hp (9 -> 4): sword" in [s["text"] for s in explain["steps"]]  # type: ignore[index]
    replay = cli("replay", "duel", "--json").json()
    assert replay["to"] == 10 and replay["state"] == show["state"]  # type: ignore[index]
    dice = cli("dice", "duel", "--json").json()
    assert [(r["label"], r["faces"]) for r in dice["rolls"]] == [("r1/Aldo/act", [14]), ("r1/Bo/damage", [5])]  # type: ignore[index]
    assert "duel" in cli("list").out

    fork = cli("fork", "duel", "--at", "5", "--as", "duel-whatif", "--json").json()
    assert fork["fork_seq"] == 5  # type: ignore[index]
    cli("note", "duel-whatif", "what if Aldo had missed")
    listed = {r["name"]: r for r in cli("list", "--json").json()}  # type: ignore[union-attr]
    # the fork holds seq 6 (core.forked) and 7 (the note) after the parent's first 5
    assert listed["duel-whatif"]["parent"] == made["id"] and listed["duel-whatif"]["head_seq"] == 7  # type: ignore[index]

    assert cli("verify", "duel").out.startswith("ok: duel (freeform), events 1-10")
    verified = cli("verify", "duel-whatif", "--json").json()
    assert verified["ok"] is True and verified["head_seq"] == 7  # type: ignore[index]
    exported = tmp_path / "whatif.jsonl"
    cli("export", "duel-whatif", "-o", str(exported))
    assert cli("verify", str(exported), "--json").json()["ok"] is True  # type: ignore[index]

    # Import the fork's file into a second, empty PostgreSQL log: parent prefix and fork arrive whole.
    other = Cli(pg_server.url(schema=pg_server.new_schema("cli")), REPO)  # type: ignore[arg-type]
    report = other("import", str(exported), "--json").json()
    assert sorted(report["created"]) == ["duel", "duel-whatif"]  # type: ignore[index]
    assert other("import", str(exported), "--json").json()["up_to_date"] is True  # type: ignore[index]
    again_file = tmp_path / "again.jsonl"
    other("export", "duel-whatif", "-o", str(again_file))
    assert again_file.read_bytes() == exported.read_bytes()  # the same bytes came back out

    # Errors keep their codes and exit statuses on PostgreSQL too.
    missing = cli("show", "nope", ok=False)
    assert missing.code == 6 and "error[not_found]" in missing.err
    taken = cli("new", "duel", "--ruleset", "freeform", ok=False)
    assert taken.code == 3 and "already exists" in taken.err


def test_an_unreachable_server_is_reported_as_unavailable(tmp_path: Path) -> None:
    url = f"postgresql://nobody@/combatlog?host={tmp_path}&port=1&connect_timeout=2"
    result = Cli(url, REPO)("list", ok=False)  # type: ignore[arg-type]
    assert result.code == 11, result.err
    assert result.err.startswith("error[unavailable]: cannot connect to PostgreSQL")


def test_a_password_never_appears_in_messages(tmp_path: Path) -> None:
    url = f"postgresql://gm:hunter2@/combatlog?host={tmp_path}&port=1&connect_timeout=2"
    result = Cli(url, REPO)("list", ok=False)  # type: ignore[arg-type]
    assert result.code == 11 and "hunter2" not in result.err and "gm:***@" in result.err


def test_a_poisoned_header_leaves_no_stream_row_on_postgresql(pg_server: TempPostgres, tmp_path: Path) -> None:
    """The security review's first attack, on PostgreSQL, where a stream row cannot be removed afterwards:
    a header whose genesis segment forks from itself is refused before anything is stored, and the
    honest file then imports (tests/security/test_core_attacks.py does the same on SQLite)."""
    from tests.security.forge import read, with_header, write

    source = Cli(tmp_path / "source.db", REPO)
    source("new", "duel", "--ruleset", "freeform")
    source("note", "duel", "hello")
    source("export", "duel", "-o", str(tmp_path / "duel.jsonl"))
    lines = read(tmp_path / "duel.jsonl")
    stream = lines[0].split(b'"stream":"')[1].split(b'"')[0].decode()

    def self_parent(header: dict) -> None:  # type: ignore[type-arg]
        header["segments"][0]["parent"] = stream

    poisoned = write(tmp_path / "poisoned.jsonl", with_header(lines, self_parent))
    cli = Cli(pg_server.url(schema=pg_server.new_schema("poison")), REPO)  # type: ignore[arg-type]
    result = cli("import", str(poisoned), ok=False)
    assert result.code == 8 and "starts with a fork" in result.err
    assert cli("list", "--json").json() == []
    cli("import", str(tmp_path / "duel.jsonl"))
    assert [e["seq"] for e in cli("log", "duel", "--json").json()] == [1, 2]  # type: ignore[union-attr]
