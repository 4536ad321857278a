"""Secret declarations (OSRIC Combat: Declare Spells and General Actions: every side declares before
initiative, and "monsters' actions are not to be tailored to the players' declared actions").

(a) At one table (no pinned players) a side's declarations are concealed from a viewer of the other
side until every side has declared, in every view, through the real CLI. (b) The sealed-orders hooks
(``check_orders``, ``sealed_required``) and the reveal applied by ``evolve``, in-process on a combat
without pinned players (the trust layer's commit-reveal then needs only the step's ``required`` list),
so no keys are involved; the two-machine flow with pinned players is tests/trust/test_osric_sealed.py.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from combatlog.wiring import execute
from combatlog.errors import IllegalCommand, InvalidCommand
from combatlog.rulesets.osric import commands as c
from combatlog.trust.api import CommitOrders, RevealOrders
from tests.conftest import REPO, Cli
from tests.rulesets.osric.osric_helpers import FIGHTER, MAGE, Fight, orc

FORD = REPO / "docs" / "examples" / "osric" / "ford.json"
PARTY = ("Brom=melee", "Halvaine=spell:sleep:1", "Ael=missile:long bow@orc2")


def _declared_party(cli: Cli, setup: Path) -> None:
    cli("new", "ford", "--ruleset", "osric", "--setup", str(setup), "--dice", "manual")
    cli("osric", "round", "ford")
    cli("osric", "declare", "ford", "party", *PARTY)


def _views(cli: Cli, *who: str, full: bool = True) -> dict[str, Any]:
    """The views of the combat as ``who`` (``--as``; nothing: the default actor gm); ``full``: all of them,
    else ``log``, ``show`` and ``replay``."""
    as_ = ("--as", *who) if who else ()
    log = cli("log", "ford", "--json", *as_).json()
    show = cli("show", "ford", "--json", *as_).json()
    out = {
        "log": {r["seq"]: r for r in log},  # type: ignore[union-attr]
        "declared": {r["name"]: r["declared"] for r in show["state"]["combatants"]},  # type: ignore[index]
        "show": json.dumps(show),
        "replay": {r["seq"]: r for r in cli("replay", "ford", "--json", *as_).json()["events"]},  # type: ignore[index]
    }
    if not full:
        return out
    return out | {
        "explain": json.dumps(cli("explain", "ford", "--json", *as_).json()),
        "timeline": cli("osric", "timeline", "ford", *as_).out + json.dumps(
            cli("osric", "timeline", "ford", "--json", *as_).json()),
        "table": cli("osric", "table", "ford", *as_).out,
    }


def _hidden(v: dict[str, Any]) -> bool:
    """The party's declarations (seq 3) appear nowhere in these views."""
    log, replay = v["log"][3], v["replay"][3]
    assert log["type"] == "osric.actions_declared"
    blind = (log["data"] is None and "concealed" in log["summary"] and replay["concealed"] and not replay["steps"]
             and v["declared"]["Halvaine"] == "")
    leaks = [k for k in ("show", "explain", "timeline", "table") if k in v and "sleep" in v[k]]
    assert blind == (not leaks), leaks
    return blind


def test_the_other_side_sees_nothing_until_every_side_has_declared(cli: Cli) -> None:
    """Default mapping (docs/osric.md, Players and sides): a player named like a side plays it."""
    _declared_party(cli, FORD)
    assert _hidden(_views(cli, "orcs"))
    assert _hidden(_views(cli, "carol", full=False))  # a spectator on no side
    assert not _hidden(_views(cli, "party"))  # the declaring side
    assert not _hidden(_views(cli, full=False))  # the referee (default actor gm): everything
    cli("osric", "declare", "ford", "orcs", "--rest", "melee")
    orcs = _views(cli, "orcs", full=False)
    assert not _hidden(orcs) and orcs["declared"]["Halvaine"] == "Halvaine spell sleep (1 segment(s))"


def test_players_named_in_the_setup_see_their_own_side(cli: Cli, tmp_path: Path) -> None:
    setup = json.loads(FORD.read_text())
    setup["players"] = {"party": ["alice", "carol"], "orcs": ["bob"]}
    path = tmp_path / "ford-players.json"
    path.write_text(json.dumps(setup))
    _declared_party(cli, path)
    assert _hidden(_views(cli, "bob", full=False))
    assert _hidden(_views(cli, "party", full=False))  # the mapping replaces the default
    assert not _hidden(_views(cli, "alice", full=False)) and not _hidden(_views(cli, "carol", full=False))


def test_the_setup_refuses_a_player_on_two_sides() -> None:
    with pytest.raises(InvalidCommand, match="named twice"):
        Fight([FIGHTER, orc(1)], players={"party": ["alice"], "orcs": ["alice"]})


# -- the sealed-orders hooks, in-process --------------------------------------------------------


def _sealed_fight(**setup: Any) -> Fight:
    """Brom and Halvaine (party) against orc1 and orc2; round 1 open. No pinned players: the players
    are the sides' names (the default mapping), and the step's required list comes from the hook."""
    f = Fight([FIGHTER, MAGE, orc(1), orc(2)], engaged=[["Brom", "orc1"], ["Halvaine", "orc2"]], **setup)
    f.do(c.StartRound())
    return f


def _commit(f: Fight, who: str, orders: dict[str, Any], step: str = "r1/declare") -> Any:
    return execute(f.store, "t", CommitOrders(step=step, orders=orders), actor=who)


def test_a_commit_is_checked_by_the_rules_of_declare() -> None:
    f = _sealed_fight()
    sleep = {"who": "Halvaine", "action": "spell", "spell": "sleep", "casting": 1}
    # Brom carries a long sword and a dagger: nothing that can be set against a charge (OSRIC Combat: Set
    # Weapon against Charge lists spears, lances, pole arms and tridents)
    with pytest.raises(IllegalCommand) as err:
        _commit(f, "party", {"side": "party", "declarations": [{"who": "Brom", "action": "set"}, sleep]})
    assert "set against a charge" in str(err.value) and err.value.rule.startswith("OSRIC Combat: Set")
    with pytest.raises(InvalidCommand, match="declare an action for Brom"):
        _commit(f, "party", {"side": "party", "declarations": [sleep]})
    with pytest.raises(IllegalCommand, match="orcs does not declare for party"):
        _commit(f, "orcs", {"side": "party", "declarations": [sleep], "rest": "melee"})
    with pytest.raises(IllegalCommand, match="not the open round's declarations"):
        _commit(f, "party", {"side": "party", "declarations": [sleep], "rest": "melee"}, step="r2/declare")
    with pytest.raises(IllegalCommand, match="caller of party: commit its declarations"):
        _commit(f, "party", {})
    assert len(f.state.sealed) == 0  # nothing was appended
    out = _commit(f, "party", {"side": "party", "declarations": [sleep], "rest": "melee"})
    # the hook named both sides' callers as the players who must commit before anyone reveals
    assert out.events[0].event.required == ("party", "orcs")
    assert f.state.sealed["r1/declare"].waiting() == [("orcs", "commit")]
    # sealed orders bind: no plain declaration beside them; initiative waits for the reveals
    with pytest.raises(IllegalCommand, match="party's declarations are sealed"):
        f.do(c.Declare(side="party", declarations=(), rest="melee"))
    with pytest.raises(IllegalCommand, match="must declare first"):
        f.do(c.RollInitiative())


def test_a_sealed_melee_target_under_random_targeting_is_refused_and_a_revealed_one_dropped() -> None:
    """Seed 003 "Melee Attack": facing several opponents the target is random. Under the option
    melee_target=random (the default) a declared melee target the attack would not strike (Brom is
    engaged with orc1 alone; orc2 would be ignored) is refused before sealing, naming the option; sealed
    --anyway (or by a client that skipped the check), the reveal keeps the melee without the target, with
    a note (the reveal is lenient, as for any revealed order)."""
    f = _sealed_fight()
    sleep = {"who": "Halvaine", "action": "spell", "spell": "sleep", "casting": 1}
    brom = {"who": "Brom", "action": "melee", "target": "orc2"}
    with pytest.raises(IllegalCommand, match=r"Brom=melee@orc2: under the option melee_target=random.*Brom is "
                                             r"engaged with orc1 alone.*the reveal would drop the target"):
        _commit(f, "party", {"side": "party", "declarations": [brom, sleep]})
    assert len(f.state.sealed) == 0
    execute(f.store, "t", CommitOrders(step="r1/declare", orders={"side": "party", "declarations": [brom, sleep]},
                                       anyway=True), actor="party")
    _commit(f, "orcs", {"side": "orcs", "declarations": [], "rest": "melee"})
    execute(f.store, "t", RevealOrders(step="r1/declare"), actor="orcs")
    execute(f.store, "t", RevealOrders(step="r1/declare"), actor="party")
    assert [(d.who, d.action, d.target) for d in f.state.declared["party"]] == [("Brom", "melee", ""),
                                                                                ("Halvaine", "spell", "")]
    assert any(t.startswith("party's sealed declarations: Brom=melee@orc2: under the option melee_target=random")
               and t.endswith("Brom's melee stands without the target") for t in f.texts())
    # under melee_target=declared the same order is sealed, target and all
    g = _sealed_fight(options={"melee_target": "declared"})
    _commit(g, "party", {"side": "party", "declarations": [brom, sleep]})
    assert g.state.sealed["r1/declare"].waiting() == [("orcs", "commit")]


def test_a_revealed_order_becomes_the_declarations_and_is_applied_by_the_rules() -> None:
    """Between commit and reveal the referee puts Halvaine to sleep (OSRIC Combat: Sleeping Opponent: she
    cannot act): her sealed spell is dropped with a note, the rest stands as declared."""
    f = _sealed_fight()
    sleep = {"who": "Halvaine", "action": "spell", "spell": "sleep", "casting": 1}
    _commit(f, "party", {"side": "party", "declarations": [sleep], "rest": "melee"})
    _commit(f, "orcs", {"side": "orcs", "declarations": [], "rest": "melee"})
    f.do(c.SetCondition(who="Halvaine", condition="sleeping", reason="a sleep spell from the dark"))
    execute(f.store, "t", RevealOrders(step="r1/declare"), actor="orcs")
    execute(f.store, "t", RevealOrders(step="r1/declare"), actor="party")
    s = f.state
    assert [(d.who, d.action) for d in s.declared["party"]] == [("Brom", "melee")]
    assert [(d.who, d.action) for d in s.declared["orcs"]] == [("orc1", "melee"), ("orc2", "melee")]
    assert any("Halvaine cannot act" in t for t in f.texts())
    f.do(c.RollInitiative(), **{"r1__initiative__party": 3, "r1__initiative__orcs": 4})
    assert s.sealed["r1/declare"].complete
