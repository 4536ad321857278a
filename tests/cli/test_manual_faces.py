"""Manual dice from the command line: every missing --face named at once, a stray --face refused."""

from __future__ import annotations

from combatlog.errors import ExitStatus
from tests.conftest import REPO, Cli

DUEL = str(REPO / "docs/examples/classic_fantasy/duel.json")


def test_missing_faces_are_listed_together_and_a_stray_face_is_refused(cli: Cli) -> None:
    cli("new", "b", "--ruleset", "cfi", "--setup", DUEL, "--dice", "manual")
    none = cli("cfi", "round", "b", ok=False)
    assert none.code == ExitStatus.INVALID
    assert ("no faces given for 2 labels, in the order rolled: 'r1/init/Brom' (1d10), 'r1/init/Grak' (1d10); "
            "add --face r1/init/Brom=... --face r1/init/Grak=...") in none.err
    one = cli("cfi", "round", "b", "--face", "r1/init/Grak=4", ok=False)
    assert "no faces given for 'r1/init/Brom' (1d10)" in one.err and "Grak" not in one.err
    typo = cli("cfi", "round", "b", "--face", "r1/init/Brom=7", "--face", "r1/init/Grak=4",
               "--face", "r1/init/Grek=3", ok=False)
    assert typo.code == ExitStatus.INVALID
    assert "--face r1/init/Grek: this command does not roll that label (it rolled r1/init/Brom, r1/init/Grak)" \
        in typo.err
    assert cli("list", "--json").json()[0]["head_seq"] == 1  # nothing was appended
    cli("cfi", "round", "b", "--face", "r1/init/Brom=7", "--face", "r1/init/Grak=4")
    assert cli("list", "--json").json()[0]["head_seq"] > 1
