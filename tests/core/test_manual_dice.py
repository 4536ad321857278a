"""Manual dice on the write path: every missing face listed at once, stray faces refused, and no event
decided on a placeholder face ever appended."""

from __future__ import annotations

from typing import Any

import pytest

from combatlog.wiring import execute
from combatlog.dice.port import DicePort
from combatlog.errors import IllegalCommand, InvalidCommand
from combatlog.events.core import Noted
from combatlog.projections.fold import state_at
from combatlog.projections.streams import resolve_stream
from combatlog.rulesets.freeform import commands as ff
from combatlog.rulesets.freeform import RULESET
from combatlog.store.memory import MemoryStore
from tests.core.helpers import duel


class Watched(MemoryStore):
    """A store that records every append it is asked for."""

    def __init__(self) -> None:
        super().__init__()
        self.appends: list[Any] = []

    def append(self, *args: Any, **kwargs: Any) -> Any:
        self.appends.append(args)
        return super().append(*args, **kwargs)


def _head(store: MemoryStore) -> int:
    return state_at(store, resolve_stream(store, "duel")).core.head_seq


@pytest.fixture
def store() -> Watched:
    s = Watched()
    duel(s)
    s.appends.clear()
    return s


def _decide_with(monkeypatch: pytest.MonkeyPatch, decide: Any) -> None:
    monkeypatch.setattr(type(RULESET), "decide", lambda self, state, command, dice: decide(dice))


def test_every_missing_label_is_listed_in_the_order_rolled(store: Watched, monkeypatch: pytest.MonkeyPatch) -> None:
    def decide(dice: DicePort) -> list[Any]:
        first = dice.roll("r1/a", "1d20")
        dice.roll("r1/b", "2d6")
        dice.roll("r1/c", "1d8")
        return [Noted(text=f"a rolled {first.total}")]

    _decide_with(monkeypatch, decide)
    with pytest.raises(InvalidCommand) as error:
        execute(store, "duel", ff.EndRound(), actor="gm", manual_faces={"r1/b": (2, 3)})
    message = str(error.value)
    assert "no faces given for 2 labels, in the order rolled: 'r1/a' (1d20), 'r1/c' (1d8)" in message
    assert "--face r1/a=... --face r1/c=..." in message
    assert store.appends == []


@pytest.mark.parametrize("swallow", [False, True])
def test_an_event_built_from_a_placeholder_face_is_never_appended(
    store: Watched, monkeypatch: pytest.MonkeyPatch, swallow: bool,
) -> None:
    # A decide that uses the faces it gets (and even one that catches every error around the roll):
    # the placeholder's total reaches an event, which the write path must still refuse.
    def decide(dice: DicePort) -> list[Any]:
        try:
            roll = dice.roll("r1/damage", "1d8")
        except Exception:
            if not swallow:
                raise
            return [Noted(text="no roll")]
        return [Noted(text=f"Bo loses {roll.total}")]

    _decide_with(monkeypatch, decide)
    before = _head(store)
    with pytest.raises(InvalidCommand, match="no faces given for 'r1/damage'"):
        execute(store, "duel", ff.EndRound(), actor="gm")
    assert store.appends == [] and _head(store) == before


def test_an_error_after_a_placeholder_reports_the_missing_faces(store: Watched, monkeypatch: pytest.MonkeyPatch) -> None:
    def decide(dice: DicePort) -> list[Any]:
        roll = dice.roll("r1/attack", "1d20")
        if roll.total < 15:  # the placeholder's value leads the rules astray
            raise IllegalCommand("the attack misses and nothing can follow", rule="test")
        return []

    _decide_with(monkeypatch, decide)
    with pytest.raises(InvalidCommand, match="no faces given for 'r1/attack'"):
        execute(store, "duel", ff.EndRound(), actor="gm")
    assert store.appends == []
    with pytest.raises(IllegalCommand, match="misses"):  # with the face given, the rules' own error
        execute(store, "duel", ff.EndRound(), actor="gm", manual_faces={"r1/attack": (3,)})


def test_a_rule_that_rolls_until_a_face_stops_at_the_limit(store: Watched, monkeypatch: pytest.MonkeyPatch) -> None:
    def decide(dice: DicePort) -> list[Any]:
        n = 0
        while True:  # re-roll forever on the placeholder
            n += 1
            dice.roll(f"r1/again{n}", "1d6")

    _decide_with(monkeypatch, decide)
    with pytest.raises(InvalidCommand, match="and maybe more"):
        execute(store, "duel", ff.EndRound(), actor="gm")
    assert store.appends == []


def test_a_face_for_a_label_not_rolled_is_refused(store: Watched) -> None:
    with pytest.raises(InvalidCommand, match=r"--face r1/Bo/damge: this command does not roll that label "
                                             r"\(it rolled r1/Bo/damage\)"):
        execute(store, "duel", ff.ChangeHp(who="Bo", amount="1d8"), actor="gm",
                manual_faces={"r1/Bo/damage": (5,), "r1/Bo/damge": (5,)})
    with pytest.raises(InvalidCommand, match="it rolled no dice"):
        execute(store, "duel", ff.EndRound(), actor="gm", manual_faces={"r1/x": (1,)})
    with pytest.raises(InvalidCommand, match="local scheme; --face goes with manual dice"):
        execute(store, "duel", ff.ChangeHp(who="Bo", amount="1d8"), actor="gm", scheme="local",
                manual_faces={"r1/Bo/damage": (5,)})
    assert store.appends == []
    execute(store, "duel", ff.ChangeHp(who="Bo", amount="1d8"), actor="gm", manual_faces={"r1/Bo/damage": (5,)})
    assert len(store.appends) == 1


def test_the_port_alone_still_stops_at_the_first_missing_face() -> None:
    port = DicePort(scheme="manual", actor="a", labels_taken=())
    with pytest.raises(InvalidCommand, match="no faces given for 'x'"):
        port.roll("x", "1d6")
    collecting = DicePort(scheme="manual", actor="a", labels_taken=(), collect_missing=True)
    collecting.roll("x", "1d6")
    with pytest.raises(InvalidCommand, match="no faces given for 'x'"):
        collecting.check_complete()
