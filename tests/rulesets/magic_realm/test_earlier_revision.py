"""Logs of Magic Realm version 1 (docs/rules.md, "The rules digest" and "The state digest").

Version 2 changed no event, only what the fold derives from them (issue 38): simultaneous hits on one armor
piece add up, the ARCHER advantage rolls one die on the Missile Table, ``part_side`` is checked. The version-1
digest is listed in ``MagicRealm.earlier_digests`` and version 1's two rules are kept behind
``MRState.revision`` (``MagicRealm.kept_revisions``): such a log verifies and imports, its commands re-decided
and its events folded under version 1's rules, as it was played; verify folds it under version 2's rules beside
them and says where they read it differently (a note: the log is never refused for a fix).

The fixtures (tests/fixtures/README.md) are docs/examples/magic_realm/giant-and-goblins.cmds and
bashkar-ambush.cmds as they stood at 9943ce8, played and exported by that build (version 1): real bytes,
frozen. The first has no simultaneous armor hit and no ARCHER shot, so it reads the same under both. In the
second a level-4 Woods Girl shoots her Light Bow with two dice, as version 1 rolled; version 2 rolls one die
there (MR 8.4.9 Bowmen, ARCHER): the log verifies as played, and verify names the die today's rules roll
otherwise. tests/corpus holds a version-1 log whose armor outcome version 2 reads differently.
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
    assert mr.info.version == "3" and mr.rules_digest() != VERSION_1 and VERSION_1 in mr.earlier_digests


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


def test_a_version_1_archer_shot_with_two_dice_verifies_as_played(tmp_path: Path) -> None:
    cli = Cli(tmp_path / "log.db", tmp_path)
    bundle = tmp_path / "bashkars.jsonl"
    shutil.copy(BASHKARS, bundle)
    report = cli("verify", str(bundle), "--json").json()
    assert report["ok"] and report["rules_revision"].startswith("version 1")  # type: ignore[index]
    notes = "\n".join(report["notes"])  # type: ignore[index]
    assert "keeps that revision's rules" in notes
    assert ("today's magic_realm rules (version 3) roll 1d6 for die 'r1/missile/wg', which the log rolled as 2d6 "
            "under version 1's rules") in notes
    cli("import", str(bundle))
    assert cli("verify", "bashkars").code == 0
    # re-decided under version 1's rules: the Woods Girl's shot is the 2d6 Missile Table roll she made
    explained = cli("explain", "bashkars").out
    assert "wg rolls" in explained and "(one die: ARCHER advantage)" not in explained


OGRES = Path(__file__).parents[2] / "corpus" / "magic_realm-ogres.jsonl"


def test_a_version_1_log_shows_the_outcome_as_played_and_where_version_2_differs(tmp_path: Path) -> None:
    # Played and exported by 9943ce8 (version 1; tests/corpus/README.md): two Ogres hit the Black Knight's Armor
    # (H) at the same time, T then H. Version 1 let the group's last result stand (damaged); version 2 adds
    # them up (destroyed). The log imports and verifies, shows the Armor damaged as the table saw it, and verify
    # names the batch where today's rules read it otherwise, with the difference.
    cli = Cli(tmp_path / "log.db", tmp_path)
    report = cli("verify", str(OGRES), "--json").json()
    assert report["ok"] and report["rules_revision"].startswith("version 1")  # type: ignore[index]
    assert report["today_differs_at"] == 10  # type: ignore[index]  (the Melee Step's resolution, seq 7-10)
    difference = report["today_difference"]  # type: ignore[index]
    assert 'characters.bk.armor[Armor].condition: "destroyed" today, "damaged" as played' in difference
    text = cli("verify", str(OGRES)).out
    assert ("today's magic_realm rules (version 3) read this log differently from seq 7-10 (gm's "
            "magic_realm.Resolve), round 1 on: ") in text
    assert "The log is shown as played, under version 1's rules" in text
    imported = cli("import", str(OGRES)).out
    assert "note: today's magic_realm rules (version 3) read this log differently from seq 7-10" in imported
    shown = cli("show", "ogres", "--json").json()
    bk = shown["state"]["characters"]["bk"]  # type: ignore[index]
    assert [(a["name"], a["condition"]) for a in bk["armor"]][:1] == [("Armor", "damaged")]
    assert cli("verify", "ogres", "--json").json()["today_differs_at"] == 10  # type: ignore[index]
