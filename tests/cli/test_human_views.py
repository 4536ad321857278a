"""Human views stay human (issue #20, item 5): trust plumbing (nonce chains and links, acknowledgements)
is summed up in one line in ``log``, ``explain`` and mail bodies, ``--all`` lists it, ``--json`` keeps
everything, and no 64-hex field reaches a person.

The combat is the signed freeform duel of tests/trust/test_nonce_chains.py (alice and bob pinned, joint
dice, nonce chains), built in-process; the views are read through the real CLI in a subprocess.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.conftest import Cli, REPO
from tests.trust.pbem import key_home
from tests.trust.test_nonce_chains import _Duel

HEX64 = re.compile(r"[0-9a-f]{64}")


def _duel_with_plumbing(tmp_path: Path) -> Cli:
    from combatlog.rulesets.freeform import commands as ff
    from combatlog.trust.commands import Acknowledge

    with key_home(tmp_path / "home"):
        d = _Duel(tmp_path)  # #1 genesis, #2-#3 joins, #4-#5 chains of alice and bob
        d.link("alice", "r1")  # #6
        d.link("bob", "r1")  # #7
        d.do("alice", ff.StartRound())  # #8
        d.do("alice", ff.Act(who="Aldo", action="strikes", roll="1d20"))  # #9-#10: the roll and the act
        d.do("bob", Acknowledge())  # #11
    return Cli(tmp_path / "log.db", REPO, {"COMBATLOG_HOME": str(tmp_path / "home")})


def test_log_folds_plumbing_into_one_line_and_all_lists_it(tmp_path: Path) -> None:
    cli = _duel_with_plumbing(tmp_path)
    text = cli("log", "duel", "--no-pager").out
    assert not HEX64.search(text)
    assert "core.link_revealed" not in text and "gives nonce" not in text
    # the one line: what was left out (counted by hand above: #4, #5, #6, #7, #11) and how to list it
    assert text.splitlines()[-1] == ("(+5 trust events: nonce chains of alice, bob; nonces for r1 from alice, bob; "
                                     "acknowledgements by bob; `combatlog log duel --all` lists them)")
    assert "Aldo strikes" in text or "strikes" in text
    every = cli("log", "duel", "--no-pager", "--all").out
    assert not HEX64.search(every)
    assert "alice gives nonce 1 of their chain to the joint dice of r1" in every
    assert "bob acknowledges the log up to #10" in every
    assert "trust events" not in every
    # --json stays complete: every event, the link itself included
    rows = json.loads(cli("log", "duel", "--json").out)
    assert [r["seq"] for r in rows] == list(range(1, 12))
    assert any(HEX64.fullmatch(r["data"].get("link", "")) for r in rows if r["type"] == "core.link_revealed")


def test_a_roll_says_whose_die_what_for_and_where_it_came_from(tmp_path: Path) -> None:
    cli = _duel_with_plumbing(tmp_path)
    line = next(x for x in cli("log", "duel", "--no-pager").out.splitlines() if x.startswith("#9 "))
    assert "drawn from the joint seed" in line and "(die " in line and "1d20" in line
    assert "[signed by alice]" in line


def test_explain_and_the_mail_leave_plumbing_to_one_line(tmp_path: Path) -> None:
    cli = _duel_with_plumbing(tmp_path)
    text = cli("explain", "duel").out
    assert not HEX64.search(text) and "nonce chain" not in text.split("(+")[0]
    assert text.splitlines()[-1].startswith("(+5 trust events: ") and "`combatlog explain duel --all`" in text
    assert "trust events" not in cli("explain", "duel", "--all").out  # freeform derives no step from them
    body = cli("mail", "duel", "--for", "bob", "--since", "0").out
    told = body[:body.index("The bundle")]
    assert not HEX64.search(told)
    assert "link_revealed" not in told and "acknowledges" not in told
    assert "Also trust plumbing the bundle carries: nonce chains of alice, bob; nonces for r1 from alice, bob;" in \
        " ".join(told.split())
