"""Defects a new player hit, each fixed with the rule it follows (seed 003, the OSRIC combat chapter)."""

from __future__ import annotations

from typing import Any

from combatlog.projections.fold import state_at
from combatlog.rulesets.osric import commands as c
from combatlog.rulesets.osric.commands import parse_declaration as P
from combatlog.rulesets.osric.views import pending
from combatlog.store import open_store
from combatlog.wiring import create_combat, execute
from tests.conftest import REPO

BRIDGE = REPO / "docs" / "examples" / "osric" / "bridge.json"


class Bridge:
    """The bridge example (Tam, Wulf, Mira against the ogre and two gnolls), nobody engaged at first."""

    def __init__(self) -> None:
        import json

        self.store = open_store("memory:")
        create_combat(self.store, "bridge", "osric", actor="gm", setup=json.loads(BRIDGE.read_text()), dice="manual")

    def do(self, command: Any, **faces: int) -> None:
        execute(self.store, "bridge", command, actor="gm", manual_faces={k: (v,) for k, v in faces.items()})

    def state(self) -> Any:
        meta = self.store.get_stream(self.store.list_streams()[0].id)
        return state_at(self.store, meta).state

    def round_1(self, party: tuple[str, ...], raiders: tuple[str, ...]) -> None:
        self.do(c.StartRound())
        self.do(c.Declare(side="party", declarations=tuple(P(x) for x in party)))
        self.do(c.Declare(side="raiders", declarations=tuple(P(x) for x in raiders)))
        # party 4, raiders 3: the party acts in segment 3, the raiders in 4 (OSRIC Combat: Determine Initiative)
        self.do(c.RollInitiative(), **{"r1/initiative/party": 4, "r1/initiative/raiders": 3})


def _what(state: Any, who: str) -> str:
    return next(p.what for p in pending(state) if p.who == who)


def test_a_melee_declared_out_of_reach_is_not_listed_as_an_attack_due() -> None:
    """OSRIC Combat: Melee Attack: melee is against an opponent within 10 ft; a gnoll that declared melee but
    stands engaged with nobody is not "melee in segment 4": its attack would be refused (osric attack: not
    engaged in melee); status says so and what is open to it."""
    t = Bridge()
    t.round_1(("Tam=melee", "Wulf=melee", "Mira=melee"), ("ogre=melee", "gnoll1=melee", "gnoll2=melee"))
    t.do(c.Engage(a="Tam", b="ogre"))
    s = t.state()
    assert _what(s, "Tam") == "melee in segment 3 (next attack die r1/Tam/atk1)"
    assert "in melee range of no opponent" in _what(s, "Wulf") and "close" in _what(s, "Wulf")


def test_after_a_close_the_closed_upon_is_not_offered_an_attack_it_may_not_make() -> None:
    """OSRIC Combat: Closing into Combat: the opponent closed upon cannot attack the closer until the next
    round. gnoll2 closes with Mira (raiders first: raiders 5, party 2); Mira's declared melee at gnoll2 is no
    longer listed as an attack due ("melee at gnoll2 in segment 5"), which osric attack refuses, nor offered
    as one to her player (status --mine)."""
    from combatlog.errors import IllegalCommand
    from combatlog.rulesets.osric.moves import my_moves

    t = Bridge()
    t.do(c.StartRound())
    t.do(c.Declare(side="party", declarations=(P("Tam=melee"), P("Wulf=parry"), P("Mira=melee@gnoll2"))))
    t.do(c.Declare(side="raiders", declarations=(P("ogre=parry"), P("gnoll1=parry"), P("gnoll2=close@Mira"))))
    t.do(c.RollInitiative(), **{"r1/initiative/party": 2, "r1/initiative/raiders": 5})
    t.do(c.Close(who="gnoll2", target="Mira"))
    s = t.state()
    assert "closed with Mira this round" in _what(s, "Mira")
    lines = [m.command for m in my_moves(s, "party", "bridge", referee=False)]
    assert not any("osric attack bridge Mira" in x for x in lines) and any("osric close bridge Mira" in x
                                                                          for x in lines)
    try:
        t.do(c.Attack(who="Mira"))
    except IllegalCommand as exc:
        assert exc.rule == "OSRIC Combat: Closing into Combat"
    else:
        raise AssertionError("Mira's attack on gnoll2 was taken")


def test_a_side_named_by_a_plural_declares_in_agreement() -> None:
    """The timeline's words: "raiders declare", "party declares"."""
    t = Bridge()
    t.round_1(("Tam=melee", "Wulf=melee", "Mira=melee"), ("ogre=melee", "gnoll1=melee", "gnoll2=melee"))
    texts = [x.text for x in t.state().log]
    assert "raiders declare: ogre melee" in texts and "party declares: Tam melee" in texts
    assert not any("raiders declares" in x for x in texts)
