"""A corpus that guards history: logs of real fights played by earlier releases, each with the state it reached.

Every ``X.show.json`` here is ``combatlog show --json`` at the end of a fight, printed by the build that played
it; its log is ``X.jsonl`` here, or the fixture ``LOGS`` names (tests/corpus/README.md says which build played
what). Every build must either reproduce each one (import and verify it, and show the same state) or name the
rules revision that reads it differently (docs/rules.md, "The state digest"): a fix that changes what an old
fight shows, under a ruleset version that stayed the same, fails here.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import Cli

HERE = Path(__file__).parent
FIXTURES = HERE.parent / "fixtures"
LOGS = {  # logs kept in tests/fixtures rather than twice
    "magic_realm-giant-and-goblins": FIXTURES / "magic-realm-version1-giant-goblins.jsonl",
    "magic_realm-bashkar-ambush": FIXTURES / "magic-realm-version1-bashkars.jsonl",
    "freeform-schema1": FIXTURES / "freeform-schema1.jsonl",
}
CORPUS = sorted(p.name.removesuffix(".show.json") for p in HERE.glob("*.show.json"))


def log_of(name: str) -> Path:
    return LOGS.get(name, HERE / f"{name}.jsonl")


def test_the_corpus_is_whole_and_small() -> None:
    assert len(CORPUS) >= 12
    for name in CORPUS:
        assert log_of(name).is_file(), name
    size = sum(p.stat().st_size for p in HERE.iterdir() if p.is_file())
    assert size < 600_000, "keep the corpus to a few hundred KB"


@pytest.mark.parametrize("name", CORPUS)
def test_each_fight_reads_as_played_or_names_the_revision_that_reads_it_otherwise(name: str, tmp_path: Path) -> None:
    cli = Cli(tmp_path / "log.db", tmp_path)
    log = log_of(name)
    # a log begun by engine 0.1 (before command records) is read only when asked (docs/trust.md: no switch-off)
    accept = ("--accept-unrecorded",) if name == "freeform-schema1" else ()
    report = cli("verify", str(log), "--json", *accept).json()
    assert report["ok"], report  # type: ignore[index]
    cli("import", str(log), *accept)
    played = json.loads((HERE / f"{name}.show.json").read_text())
    shown = cli("show", played["stream"], "--json").json()
    if shown == played:
        return
    # Not the state it reached: only a log of an earlier revision of its rules may read otherwise, and verify
    # must say so (its rules_revision, and where today's rules differ when this build keeps the old ones).
    assert report["rules_revision"], (  # type: ignore[index]
        f"{name}: this build shows another state than the one the fight reached when it was played, and names no "
        "rules revision that reads it differently. A fix that changes an outcome raises the ruleset's version "
        "(docs/rules.md, \"The state digest\"); a change of the view only (a new field of show --json) updates "
        f"tests/corpus/{name}.show.json (README.md)")
