"""Logs of Magic Realm version 1 (docs/rules.md, "The rules digest").

Version 2 changed no event, only what the fold derives from them (issue 38): simultaneous hits on one armor
piece add up, the ARCHER advantage rolls one die on the Missile Table, ``part_side`` is checked. So the
version-1 digest is listed in ``MagicRealm.earlier_digests``: such a log verifies and imports, its commands
re-decided and its events folded under version 2's rules.

The fixtures (tests/fixtures/README.md) are docs/examples/magic_realm/giant-and-goblins.cmds and
bashkar-ambush.cmds as they stood at 9943ce8, played and exported by that build (version 1): real bytes,
frozen. The first has no simultaneous armor hit and no ARCHER shot, so it reads as version 1 recorded it. In
the second a level-4 Woods Girl shoots her Light Bow with two dice, as version 1 rolled; version 2 rolls
one die there (MR 8.4.9 Bowmen, ARCHER), so re-deciding refuses the recorded 2d6 die, naming it: the fix
applies to old logs too, as any fix does.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import msgspec

from tests.conftest import Cli

FIXTURES = Path(__file__).parents[2] / "fixtures"
GOBLINS = FIXTURES / "magic-realm-version1-giant-goblins.jsonl"
BASHKARS = FIXTURES / "magic-realm-version1-bashkars.jsonl"
VERSION_1 = "3774db10b2cd7b9cfea655f150f80cdeb4ba8c20af2f13007abbeeab7e0dbe2b"


def test_the_fixtures_are_version_1s() -> None:
    from combatlog.rulesets import load_ruleset

    for fixture in (GOBLINS, BASHKARS):
        header = msgspec.json.decode(fixture.read_bytes().split(b"\n")[0])
        assert (header["ruleset_version"], header["rules_digest"]) == ("1", VERSION_1)
    mr = load_ruleset("magic_realm")
    assert mr.info.version == "2" and mr.rules_digest() != VERSION_1 and VERSION_1 in mr.earlier_digests


def test_a_version_1_log_verifies_imports_and_reads_the_same(tmp_path: Path) -> None:
    cli = Cli(tmp_path / "log.db", tmp_path)
    bundle = tmp_path / "giant-goblins.jsonl"
    shutil.copy(GOBLINS, bundle)
    report = cli("verify", str(bundle), "--json").json()
    assert report["ok"] and report["head_seq"] == 61  # type: ignore[index]
    assert any("earlier revision of the magic_realm rules (version 1" in n for n in report["notes"])  # type: ignore[index]
    assert not any("not re-decided" in n for n in report["notes"])  # type: ignore[index]
    assert report["rules_revision"].startswith("version 1") and report["rules_digest_matches"]  # type: ignore[index]
    cli("import", str(bundle))
    stored = cli("verify", "giant-goblins", "--json").json()
    assert stored["ok"] and stored["head_hash"] == report["head_hash"]  # type: ignore[index]
    # test_golden's hand-checked outcome, as version 1 recorded it and this build folds it
    ledger = cli("mr", "ledger", "giant-goblins", "--json").json()
    assert ledger["totals"]["amazon"]["fame"] == "15"  # type: ignore[index]
    assert ledger["totals"]["bk"] == {"fame": "13", "notoriety": "11", "gold": "12"}  # type: ignore[index]


def test_a_version_1_archer_shot_with_two_dice_is_refused(tmp_path: Path) -> None:
    cli = Cli(tmp_path / "log.db", tmp_path)
    bundle = tmp_path / "bashkars.jsonl"
    shutil.copy(BASHKARS, bundle)
    refused = cli("verify", str(bundle), ok=False)
    said = refused.err + refused.out
    assert refused.code != 0 and "the rules roll 1d6 here, die 'r1/missile/wg' is 2d6" in said
    assert cli("import", str(bundle), ok=False).code != 0
