"""Logs played under an earlier revision of Classic Fantasy, OSRIC and Argad that hold what today's rules refuse or
read differently (docs/rules.md, "Earlier revisions"; README.md here says which build wrote each and how).

Each one imports and verifies, shown as it was played (test_corpus.py compares its ``show --json``), with the note
naming the first command where today's rules differ; the same move in a combat of today's version is refused.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import Cli

HERE = Path(__file__).parent

# name -> (the revision read, the first batch where today's rules differ, what the note says there)
KEPT = {
    # Argad version 2 (release 0.1, 9943ce8): a longbow at medium range, --need 9 (refused since 2026-12-06, cb54f85)
    "argad-need-beyond-eight": ("version 2", "seq 3-6 (gm's argad.Shoot)",
                                "today's rules refuse Shoot: --need 9: the referee's reading of the generic shooting "
                                "table is a need from 2 to 8"),
    # OSRIC version 1 (4976794, before b4634db): the ogre's segment-5 blow before Brom's segment-2 action
    "osric-segment-order": ("version 1", "seq 8-10 (gm's osric.Attack)",
                            "ogre's action falls in segment 5, but Brom (party) must act first, in segment 2"),
    # OSRIC version 1 (4976794, before 28dacfa): Brom, between two orcs, declares the one he means to strike
    "osric-random-target": ("version 1", "seq 3 (gm's osric.Declare)",
                            "Brom=melee@orc2: under the option melee_target=random (the default) the target is "
                            "random, not declared"),
    # Classic Fantasy version 1 (release 0.1, 9943ce8): a Luck re-roll that wins Special Effects keeps the blow's
    # labels (the exchange then waits, stuck: the log ends there); today's fold rolls the blow afresh (03d7a9c)
    "classic_fantasy-luck-wins-effects": ("version 1", "seq 13-14 (gm's classic_fantasy.UseLuck)",
                                          'exchange.prefix: "luck/" today, "" as played'),
}


@pytest.mark.parametrize("name", sorted(KEPT))
def test_an_old_log_verifies_as_played_and_names_where_today_differs(name: str, tmp_path: Path) -> None:
    revision, where, what = KEPT[name]
    cli = Cli(tmp_path / "log.db", tmp_path)
    log = HERE / f"{name}.jsonl"
    report = cli("verify", str(log), "--json").json()
    assert report["ok"] and report["rules_revision"].startswith(revision), report  # type: ignore[index]
    assert report["today_differs_at"] == int(where.split()[1].split("-")[-1])  # type: ignore[index]
    note = next(n for n in report["notes"] if n.startswith("today's "))  # type: ignore[index]
    assert f"read this log differently from {where}" in note and what in note, note
    assert f"The log is shown as played, under {revision}'s rules" in note
    imported = cli("import", str(log))
    assert "read this log differently" in imported.out + imported.err
    played = json.loads((HERE / f"{name}.show.json").read_text())
    shown = cli("show", played["stream"], "--json").json()
    # as played, but for OSRIC's timeline of explanations, whose words changed since ("monsters declare" was
    # "monsters declares"; a declared target the draw overrides is now explained)
    for view in (shown, played):
        view["state"].pop("timeline", None)  # type: ignore[index, union-attr]
    assert shown == played


def _today(cli: Cli, tmp_path: Path, log: str, name: str) -> None:
    """A combat of today's version with the old log's set-up (from its genesis)."""
    lines = (HERE / log).read_text().splitlines()
    genesis = json.loads(json.loads(lines[1])["data"]) if isinstance(json.loads(lines[1])["data"], str) \
        else json.loads(lines[1])["data"]
    (tmp_path / "setup.json").write_text(json.dumps(genesis["setup"]))
    cli("new", name, "--ruleset", genesis["ruleset"], "--setup", "setup.json", "--dice", "manual")


def test_argad_today_refuses_a_need_beyond_eight(tmp_path: Path) -> None:
    cli = Cli(tmp_path / "log.db", tmp_path)
    _today(cli, tmp_path, "argad-need-beyond-eight.jsonl", "need")
    cli("argad", "turn", "need")
    refused = cli("argad", "shoot", "need", "archer", "--at", "gob", "--range", "medium", "--need", "9",
                  "--face", "t1/shoot/gob/archer=6", "--face", "t1/shoot/gob/reroll#1=3", ok=False)
    assert refused.code != 0 and "from 2 to 8" in refused.err


def test_osric_today_refuses_an_action_before_the_earlier_segment(tmp_path: Path) -> None:
    cli = Cli(tmp_path / "log.db", tmp_path)
    _today(cli, tmp_path, "osric-segment-order.jsonl", "order")
    cli("osric", "round", "order")
    cli("osric", "declare", "order", "party", "Brom=melee")
    cli("osric", "declare", "order", "monsters", "ogre=melee")
    cli("osric", "initiative", "order", "--face", "r1/initiative/party=5", "--face", "r1/initiative/monsters=2")
    refused = cli("osric", "attack", "order", "ogre", "--face", "r1/ogre/atk1=17", "--face", "r1/ogre/atk1/dmg=3",
                  ok=False)
    assert refused.code != 0 and "Brom (party) must act first, in segment 2" in refused.err


def test_osric_today_refuses_a_declared_target_the_attack_will_not_strike(tmp_path: Path) -> None:
    cli = Cli(tmp_path / "log.db", tmp_path)
    _today(cli, tmp_path, "osric-random-target.jsonl", "target")
    cli("osric", "round", "target")
    refused = cli("osric", "declare", "target", "party", "Brom=melee@orc2", ok=False)
    assert refused.code != 0 and "melee_target=random" in refused.err


def test_classic_fantasy_today_rolls_the_blow_afresh(tmp_path: Path) -> None:
    # today's rules (version 2) take the same Luck re-roll, and the exchange waits with the blow's dice to draw
    # afresh (r1/a1/luck/...), where version 1 kept its labels and stuck
    cli = Cli(tmp_path / "log.db", tmp_path)
    _today(cli, tmp_path, "classic_fantasy-luck-wins-effects.jsonl", "luck")
    for line in ("cfi round luck --face r1/init/A=9 --face r1/init/D=1",
                 "cfi attack luck A D --moving --face r1/a1/attack=30",
                 "cfi parry luck D --face r1/a1/parry=30 --face r1/a1/location=2 --face r1/a1/damage=4 --face r1/a1/dm=1",
                 "cfi luck luck D defence --face r1/a1/defence-luck=95"):
        cli(*line.split())
    chosen = cli("cfi", "effects", "luck", "A", "--face", "r1/a1/luck/location=2", "--face", "r1/a1/luck/damage=1",
                 "--face", "r1/a1/luck/dm=1")
    assert "r1/a1/luck/location" in chosen.out


def test_claiming_a_kept_revision_with_todays_digest_reads_todays_rules() -> None:
    # the revision is selected by the rules digest in the signed genesis: a genesis naming version 1 with this
    # build's digest is read under today's rules, not the old ones
    import msgspec

    from combatlog.events.core import CombatStarted
    from combatlog.rulesets import load_ruleset

    for name, old in (("argad", "2"), ("osric", "1"), ("classic_fantasy", "1"), ("magic_realm", "1")):
        ruleset = load_ruleset(name)
        digest = next(d for d, v in ruleset.kept_revisions.items() if v == old)
        genesis = msgspec.convert({"name": "x", "ruleset": name, "ruleset_version": old, "rules_digest": digest,
                                   "engine_version": "0.3.0", "setup": {}, "dice": "manual"}, CombatStarted,
                                  strict=False)
        assert ruleset.revision_of(genesis) == old
        assert ruleset.revision_of(msgspec.structs.replace(genesis, rules_digest=ruleset.rules_digest())) == ""
        assert ruleset.revision_of(msgspec.structs.replace(genesis, ruleset_version=ruleset.info.version)) == ""


def test_a_magic_realm_version_2_log_keeps_its_state_digests_and_its_rule(tmp_path: Path) -> None:
    """A pinned Magic Realm fight played by version 2 (9f42dfe, README.md): version 3 added the pass vote and two
    state fields, left out of the state digest at their defaults, so every batch's recorded digest still matches
    (no ``state_differs_at``) and today's rules read it alike; at round 2, where version 3 would offer each player a
    pass vote, the log keeps version 2's rule (``mr pass`` refused where players are pinned) and none is offered."""
    cli = Cli(tmp_path / "log.db", tmp_path)
    log = str(HERE / "magic_realm-v2-pinned.jsonl")
    report = cli("verify", log, "--json").json()
    assert report["ok"] and report["rules_revision"].startswith("version 2")  # type: ignore[index]
    assert report["state_differs_at"] == 0 and report["today_differs_at"] == 0  # type: ignore[index]
    cli("import", log)
    moves = cli("moves", "quiet", "--json", "--limit", "1000").json()["moves"]  # type: ignore[index]
    assert moves and not any(m["argv"][:2] == ["mr", "pass"] for m in moves)
