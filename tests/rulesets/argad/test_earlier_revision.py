"""Logs of an earlier revision of the Argad rules (docs/rules.md, "The rules digest").

tests/fixtures/argad-version1.jsonl is docs/examples/argad/warrior-vs-goblins.cmds (the seed's worked example, a
warrior against six Goblins) played by the build of 8bd8166 (Argad version 1, before ``argad hold`` added the
event ``argad.held`` and so changed the rules digest) and exported by it: real bytes of that build, frozen
(tests/fixtures/README.md). This build lists version 1's digest in ``Argad.earlier_digests``: it reads such a log
and re-decides its commands under its own rules. A digest it does not list is still refused.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import msgspec

from combatlog.events.canonical import canonical
from tests.conftest import Cli
from tests.trust.pbem import rechain, write_lines

FIXTURE = Path(__file__).parents[2] / "fixtures" / "argad-version1.jsonl"
VERSION_1 = "33a7f0e2f2d0002bcda56d856f6a40186a74c0524ea6eae66ee451c1fee42491"


def _lines() -> list[bytes]:
    return FIXTURE.read_bytes().split(b"\n")[:-1]


def _with_header_digest(lines: list[bytes], digest: str) -> list[bytes]:
    """The header made to agree with a genesis whose digest was changed (its check recomputed)."""
    from combatlog.exchange.bundle import Header, _header_check

    header = msgspec.structs.replace(msgspec.json.decode(lines[0], type=Header), rules_digest=digest)
    return [canonical(msgspec.structs.replace(header, check=_header_check(header))), *lines[1:]]


def test_the_fixture_is_version_1s() -> None:
    from combatlog.rulesets import load_ruleset

    header = msgspec.json.decode(_lines()[0])
    assert (header["ruleset_version"], header["rules_digest"]) == ("1", VERSION_1)
    argad = load_ruleset("argad")
    assert argad.rules_digest() != VERSION_1 and VERSION_1 in argad.earlier_digests


def test_a_version_1_log_verifies_imports_and_reads_the_same(tmp_path: Path) -> None:
    cli = Cli(tmp_path / "log.db", tmp_path)
    bundle = tmp_path / "goblins.jsonl"
    shutil.copy(FIXTURE, bundle)
    report = cli("verify", str(bundle), "--json").json()
    assert report["ok"] and report["head_seq"] == 27  # type: ignore[index]
    assert any("earlier revision of the argad rules (version 1" in n for n in report["notes"])  # type: ignore[index]
    assert not any("not re-decided" in n for n in report["notes"])  # type: ignore[index]
    # the report says which revision it was read as (the digest is not this build's, but it was re-decided)
    assert report["rules_revision"].startswith("version 1") and report["rules_digest_matches"]  # type: ignore[index]
    cli("import", str(bundle))
    stored = cli("verify", "goblins", "--json").json()
    assert stored["ok"] and stored["head_hash"] == report["head_hash"]  # type: ignore[index]
    assert stored["rules_revision"] == report["rules_revision"]  # type: ignore[index]
    # the seed's outcome, as version 1 recorded it and this build folds it: the warrior killed Gob D (turn 1) and
    # Gob A (turn 2), then fell
    figures = {f["name"]: f["status"] for f in cli("show", "goblins", "--json").json()["state"]["figures"]}  # type: ignore[index]
    assert [name for name, status in figures.items() if status == "dead"] == ["warrior", "gob-a", "gob-d"]


def test_a_digest_this_build_does_not_list_is_refused_unless_allowed(tmp_path: Path) -> None:
    other = "0" * 64  # a build whose rules this one does not know

    def digest(data: dict) -> None:  # type: ignore[type-arg]
        data["rules_digest"] = other

    bundle = write_lines(tmp_path / "other.jsonl", _with_header_digest(rechain(_lines(), 1, digest), other))
    cli = Cli(tmp_path / "log.db", tmp_path)
    refused = cli("verify", str(bundle), ok=False)
    assert refused.code != 0 and "rules digest 000000000000" in refused.err + refused.out
    assert "--allow-rules-mismatch" in refused.err + refused.out
    allowed = cli("verify", str(bundle), "--allow-rules-mismatch", "--json").json()
    assert allowed["ok"] and not allowed["rules_digest_matches"]  # type: ignore[index]
    assert allowed["rules_revision"] == ""  # type: ignore[index]  (not read as a revision: not re-decided)
    assert any("commands not re-decided" in n for n in allowed["notes"])  # type: ignore[index]


def test_claiming_the_earlier_revision_does_not_skip_the_rules(tmp_path: Path) -> None:
    """A forger keeps version 1's digest and gives the warrior's first blow a +3 his command never asked for
    (seq 5, argad.struck, mod 0 in the fixture): re-chained, the file's hashes hold, and re-deciding the
    recorded command under this build's rules produces mod 0, so verify and import refuse it."""
    def bonus(data: dict) -> None:  # type: ignore[type-arg]
        assert data["type"] == "argad.struck" and data["mod"] == 0
        data["mod"] = 3

    bundle = write_lines(tmp_path / "forged.jsonl", rechain(_lines(), 5, bonus))
    cli = Cli(tmp_path / "log.db", tmp_path)
    refused = cli("verify", str(bundle), ok=False)
    assert refused.code != 0 and "does not re-decide to the recorded events" in refused.err + refused.out
    assert cli("import", str(bundle), ok=False).code != 0
    assert "goblins" not in cli("list").out
