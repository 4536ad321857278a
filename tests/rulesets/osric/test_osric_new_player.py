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
    as one to her player (status --mine: the legal moves, ``trust.offers.moves_of``)."""
    from combatlog.errors import IllegalCommand
    from combatlog.trust.offers import moves_of
    from combatlog.wiring import deciding

    t = Bridge()
    t.do(c.StartRound())
    t.do(c.Declare(side="party", declarations=(P("Tam=melee"), P("Wulf=parry"), P("Mira=melee@gnoll2"))))
    t.do(c.Declare(side="raiders", declarations=(P("ogre=parry"), P("gnoll1=parry"), P("gnoll2=close@Mira"))))
    t.do(c.RollInitiative(), **{"r1/initiative/party": 2, "r1/initiative/raiders": 5})
    t.do(c.Close(who="gnoll2", target="Mira"))
    s = t.state()
    assert "closed with Mira this round" in _what(s, "Mira")
    meta = t.store.get_stream(t.store.list_streams()[0].id)
    moves = moves_of(t.store, meta, state_at(t.store, meta), "gm", wiring=deciding())[1]
    mira = [m for m in moves if m.what.startswith("Mira: ")]
    assert len(mira) == 1 and "gnoll2 closed with Mira this round" in mira[0].what
    lines = [x for m in moves for x in (m.command, *m.options)]
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


def test_ending_a_round_with_declared_attacks_due_records_them_forgone() -> None:
    """OSRIC Combat: First Party Acts / Second Party Acts: a declared action the timeline passes can no longer
    be taken; osric end-round with the gnolls' attacks still due records each as forgone, with why, before
    "round 1 ends" (osric.actions_forgone), shown in the timeline and explain."""
    from combatlog.rulesets.osric import events as e

    t = Bridge()
    t.do(c.StartRound())
    t.do(c.Declare(side="party", declarations=(P("Tam=parry"), P("Wulf=parry"), P("Mira=parry"))))
    t.do(c.Declare(side="raiders", declarations=(P("ogre=parry"), P("gnoll1=melee"), P("gnoll2=melee"))))
    t.do(c.Engage(a="Tam", b="gnoll1"))
    t.do(c.Engage(a="Mira", b="gnoll2"))
    t.do(c.RollInitiative(), **{"r1/initiative/party": 4, "r1/initiative/raiders": 3})
    t.do(c.EndRound())
    texts = [x.text for x in t.state().log]
    assert "gnoll1 forgoes the declared melee: round 1 ended before it was taken" in texts
    assert "gnoll2 forgoes the declared melee: round 1 ended before it was taken" in texts
    meta = t.store.get_stream(t.store.list_streams()[0].id)
    kinds = [type(x.event).__name__ for x in t.store.read(meta.id)] if hasattr(t.store, "read") else []
    assert not kinds or kinds[-2:] == ["ActionsForgone", "RoundEnded"]
    from combatlog.rulesets.osric.views import summarize

    ev = e.ActionsForgone(round=1, forgone=(e.Forgone(who="gnoll1", action="melee", why="round 1 ended"),))
    assert summarize(ev) == "forgone: gnoll1 melee (round 1 ended)"


def test_a_log_begun_under_version_1_re_decides_without_the_forgone_event() -> None:
    """docs/rules.md, The rules digest: version 1 (before osric.actions_forgone) is an earlier revision this
    build reads; its commands re-decide as recorded, so ending a round there records no forgone actions."""
    import msgspec

    from combatlog.dice.port import DicePort
    from combatlog.rulesets.osric import RULESET
    from combatlog.rulesets.osric.evolve import VERSION_1_DIGESTS

    assert VERSION_1_DIGESTS[0] in RULESET.earlier_digests
    assert RULESET.rules_digest() not in VERSION_1_DIGESTS
    t = Bridge()
    t.do(c.StartRound())
    t.do(c.Declare(side="party", declarations=(P("Tam=parry"), P("Wulf=parry"), P("Mira=parry"))))
    t.do(c.Declare(side="raiders", declarations=(P("ogre=parry"), P("gnoll1=melee"), P("gnoll2=melee"))))
    t.do(c.Engage(a="Tam", b="gnoll1"))
    t.do(c.RollInitiative(), **{"r1/initiative/party": 4, "r1/initiative/raiders": 3})
    s = t.state()
    assert s.forgone_events
    port = DicePort(scheme="local", actor="gm", labels_taken=set())
    assert [type(x).__name__ for x in RULESET.decide(s, c.EndRound(), port)] == ["ActionsForgone", "RoundEnded"]
    old = msgspec.structs.replace(s, forgone_events=False)
    assert [type(x).__name__ for x in RULESET.decide(old, c.EndRound(), port)] == ["RoundEnded"]


def test_the_report_opens_with_the_fight_and_draws_no_empty_surprise_chart() -> None:
    """The HTML report: the rules digest and the head hash come at the end (Integrity), not before any
    fight; an OSRIC combat whose surprise was never checked has no surprise segments to chart."""
    from combatlog.pictures.report import report_html

    t = Bridge()
    t.do(c.StartRound())
    meta = t.store.get_stream(t.store.list_streams()[0].id)
    html = report_html(t.store, meta, None)
    digest = t.state() and meta and html.index('id="integrity"')
    from combatlog.rulesets.osric import RULESET

    assert html.index(RULESET.rules_digest()) > digest and html.index('id="round-') < digest
    assert "Surprise segments: who acts when" not in html


def test_one_struck_down_in_its_segment_cannot_flee() -> None:
    """Found by a random playout (ford, seed 4): orc1, struck down in its own segment, was offered a flight
    that decided to nothing ("the command records nothing"). OSRIC Combat: Fleeing from Combat: a flight is a
    move away; a combatant below 1 hp moves nowhere (a simultaneous blow lands, a flight does not)."""
    from combatlog.errors import IllegalCommand

    t = Bridge()
    t.do(c.StartRound())
    t.do(c.Declare(side="party", declarations=(P("Tam=melee"), P("Wulf=parry"), P("Mira=parry"))))
    t.do(c.Declare(side="raiders", declarations=(P("ogre=parry"), P("gnoll1=flee"), P("gnoll2=parry"))))
    t.do(c.Engage(a="Tam", b="gnoll1"))
    # a tie (3, 3): both sides act in segment 3; Tam cuts gnoll1 down, whose flight is then refused
    t.do(c.RollInitiative(), **{"r1/initiative/party": 3, "r1/initiative/raiders": 3})
    t.do(c.Damage(who="gnoll1", amount="11"))
    try:
        t.do(c.Flee(who="gnoll1"))
    except IllegalCommand as exc:
        assert exc.rule == "OSRIC Combat: Fleeing from Combat" or "cannot act" in exc.message
    else:
        raise AssertionError("a downed gnoll fled")
