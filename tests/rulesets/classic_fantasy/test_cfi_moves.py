"""Classic Fantasy and the legal-moves framework: defects the random playouts found (each citing its rule),
and the offered moves' command lines parsing into exactly the proposed commands."""

from __future__ import annotations

from tests.rulesets.classic_fantasy.cfi_support import Combat, fighter
from combatlog.rulesets.classic_fantasy import commands as c

INIT = {"r1/init/A": 9, "r1/init/D": 1}  # A 22, D 14: A acts first


def test_an_interrupted_turn_without_action_points_passes_on() -> None:
    # CFI Ch.8 Interrupt: the interrupted Turn continues after the delayed Action; CFI Ch.8 Turns: a
    # participant with no Action Points left takes no Turn. D spends his last Action Point parrying the
    # Interrupt's attack, so his Turn does not resume: the Round is over (no one else has any left).
    fight = Combat(fighter("A", "a"), fighter("D", "b"))
    fight.round(INIT)
    assert fight.who("A").ap == 2 and fight.who("D").ap == 2
    fight.act("A", "delay")
    fight.attack("D", "A", {"r1/a2/attack": 95}, moving=True)
    fight.parry("A", {"r1/a2/parry": 95})  # both fail: nothing lands
    assert fight.state.turn == "D" and fight.who("D").ap == 1 and fight.who("A").ap == 1
    fight.act("A", "interrupt")
    fight.attack("A", "D", {"r1/a3/attack": 95})
    fight.parry("D", {"r1/a3/parry": 95})
    assert fight.who("D").ap == 0 and fight.who("A").ap == 0
    assert fight.state.turn == "" and fight.state.interrupted == ""
    fight.round({})  # the next Round starts without forcing


# -- every proposed command line parses into exactly the proposed command -----------------------------------

def _kind(state) -> str:  # type: ignore[no-untyped-def]
    """The kind of decision the state waits for (a reaction, Special Effects, a Turn, between rounds),
    and whether a blow just resolved is open to Luck."""
    ex = state.exchange
    return (ex.stage if ex is not None else "turn" if state.turn else "between") + ("+luck" if state.undo else "")


def test_each_candidate_argv_parses_into_its_command(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """For states of each kind reached in random playouts, every candidate's argv, run through the CLI, makes
    exactly the candidate's command (compared as the stored command record, commands/record.py); the command is
    caught before it is executed, so that every candidate is parsed, the illegal ones too."""
    import json
    import random

    from combatlog.cli.rulesets import classic_fantasy as cli
    from combatlog.commands.record import encode_record
    from combatlog.projections.fold import state_at
    from combatlog.rulesets.classic_fantasy.candidates import candidates
    from combatlog.store import open_store
    from tests.playouts import SETUPS, InProcess, _pick

    caught: list[object] = []
    monkeypatch.setattr(cli, "run_command", lambda _ctx, _stream, command, **_kw: caught.append(command))
    seen: set[tuple[str, str]] = set()
    checked = 0
    for setup in SETUPS["classic_fantasy"]:
        for seed in range(2):
            run = InProcess(tmp_path / f"{setup.name}{seed}.db", tmp_path / "keys")
            for line in setup.lines:
                assert run(*line)[0] == 0
            rng = random.Random(seed)
            for _ in range(60):
                store = open_store(str(run.db))
                meta = next(m for m in store.list_streams() if m.name == setup.name)
                state = state_at(store, meta).state
                store.close()
                if state.ended:
                    break
                if (setup.name, _kind(state)) not in seen:
                    seen.add((setup.name, _kind(state)))
                    for cand in candidates(state, setup.name):
                        caught.clear()
                        code, _out, err = run(*cand.argv)
                        assert code == 0 and len(caught) == 1, (cand.argv, err)
                        assert encode_record("classic_fantasy", caught[0]) == \
                            encode_record("classic_fantasy", cand.command), cand.argv
                        checked += 1
                monkeypatch.setattr(cli, "run_command", _real_run)
                listing = json.loads(run("moves", setup.name, "--json", "--limit", "100000")[1])
                assert run(*_pick(listing["moves"], rng)["argv"])[0] == 0
                monkeypatch.setattr(cli, "run_command", lambda _ctx, _stream, command, **_kw: caught.append(command))
    kinds = {k for _s, k in seen}
    assert {"defence", "effects", "turn", "between"} <= {k.split("+")[0] for k in kinds}, seen
    assert any(k.endswith("+luck") for k in kinds), seen
    assert checked > 300


def _real_run(*args, **kwargs):  # type: ignore[no-untyped-def]
    from combatlog.cli.common import run_command

    return run_command(*args, **kwargs)


def test_a_luck_reroll_that_wins_special_effects_rolls_the_blow_afresh() -> None:
    # CFI Ch.7 Cheat Fate, on the defence roll of the blow just resolved: D's parry (30, a success, like A's
    # attack: no Special Effects) is re-rolled to 95, a failure, so A wins one Special Effect and the exchange
    # waits for it (CFI Ch.8 Special Effects). The blow's location and damage dice were drawn when it first
    # resolved, and a label is drawn once: the blow now rolls under r1/a1/luck/... (it was stuck before,
    # every choice of effect refused for drawing r1/a1/location again).
    fight = Combat(fighter("A", "a"), fighter("D", "b", weapons=["dagger"]))
    fight.round(INIT)
    fight.attack("A", "D", {"r1/a1/attack": 30}, moving=True)
    fight.parry("D", {"r1/a1/parry": 30, "r1/a1/location": 2, "r1/a1/damage": 4, "r1/a1/dm": 1})
    assert fight.state.exchange is None
    fight.run(c.UseLuck(who="D", roll="defence"), {"r1/a1/defence-luck": 95})
    ex = fight.state.exchange
    assert ex is not None and ex.stage == "effects" and ex.count == 1 and ex.prefix == "luck/"
    fight.effects("A", (), {"r1/a1/luck/location": 2, "r1/a1/luck/damage": 1, "r1/a1/luck/dm": 1})
    assert fight.state.exchange is None
    assert fight.who("D").loc("right leg").hp < fight.who("D").loc("right leg").max_hp


def test_no_interrupt_without_action_points() -> None:
    # CFI Ch.8 Delay and Interrupt: the Interrupt spends the Action Points held. A delays, then spends them
    # on a Parry; with none left he may not take the Turn (it would be a Turn without Action Points).
    import pytest

    from combatlog.errors import IllegalCommand

    fight = Combat(fighter("A", "a", action_points=1), fighter("D", "b"))
    fight.round(INIT)
    fight.act("A", "delay")
    fight.attack("D", "A", {"r1/a2/attack": 95}, moving=True)
    fight.parry("A", {"r1/a2/parry": 95})
    assert fight.who("A").ap == 0 and fight.who("A").delaying and fight.state.turn == "D"
    with pytest.raises(IllegalCommand, match="no Action Points"):
        fight.act("A", "interrupt")
