"""The « Argad ! » moves worth proposing (``Ruleset.candidates``; commands/legal.py keeps the legal ones).

Proposed, each with every argument filled in and its argv exactly as ``combatlog argad ...`` parses it
into the same command (cli/rulesets/argad.py):

- the procedure: start the next game turn, end the open one, and once no enemy is left (after a game
  turn, or figures gone), end the combat (a ruling: "SIDE wins");
- movement, for each figure on the table: a plain move, staying still (``--stationary``), crossing an
  obstacle (``--crossing``), a mounted charge (``--charge``), and where the options make it matter, out
  of command (``--out-of-command``, option ``command_radius``) and the ground a Dwarf stands on
  (``--ground mineral|other``);
- shooting, for each figure with a missile weapon: alone, and with every other shooter of its side and
  weapon as one volley; at each enemy, at each pair of enemies (when there are at most four) and at the
  whole enemy group (when there are more than two); at each range. Where the seed gives the threshold
  the table's need is used; where it does not, the shot is the referee's reading of the generic shooting
  table, offered as ``--need N`` for each N of its legal range (``shooting.NEED_RANGE``). Shooting into a
  melee is offered at 5 cm, alone and with a small friend close to the target;
- melee, for each enemy: each figure that may still strike alone, from each rank (2 to 6, above a friend
  in contact when one can be named) and, for a lone H2 creature, splitting its 2D6 on two enemies; and
  every figure of a side striking at the same step rolling together from the first rank, and with the
  staff weapons among them from the second rank. Other groupings (every subset of a step's figures,
  every mix of ranks) are the same decision with fewer dice: leaving them out keeps the list to a few
  hundred moves while every figure, rank and target is still offered;
- holding: each figure's blow, and a whole side's (``--side``);
- rulings: a figure leaving the fight (``remove``, reason "fled"), and the recoil policy of a figure that
  may refuse recoils (a +H or larger creature, a Dwarf).

The rulings' argv give their options before the figure (``argad remove S --reason fled gob-a``): the CLI
reads them so as well, and a random playout (tests/playouts.py), which draws a decision by the words before
the first option, draws "a figure flees" as one decision rather than one per figure.

Not proposed: adding a figure (its profile is the referee's to write, not a choice among a few), the
tactical facts of the table (``--cover``, ``--idle``, ``--mod``/``--why``, other distances in cm), and the
notes (``--note``, ``--outcome``): they describe the table, not a decision. Nor is breaking off a fight
while both sides stand (``argad end`` then is the referee's call, its outcome in his words): the list
offers the end once the rules' fight is over, and a figure's flight (``remove``) meanwhile.

Legality is ``decide``'s alone: figures are grouped here by side and strike step (the rules' data), and
``decide.still_to_strike`` only chooses who forms a whole step's pool; every candidate is checked there.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations

from combatlog.rulesets.argad import commands as c
from combatlog.rulesets.argad import melee as ml
from combatlog.rulesets.argad import shooting as sh
from combatlog.rulesets.argad import tables as t
from combatlog.rulesets.argad.decide import no_enemy_left, still_to_strike
from combatlog.rulesets.argad.state import ArgadState, Figure, Turn
from combatlog.rulesets.base import Candidate

INTO_MELEE_CM = 5
MAX_RANK = 6


def candidates(state: ArgadState, stream: str) -> Iterator[Candidate]:
    if state.ended:
        return
    active = [f for f in state.figures.values() if f.active]
    sides = sorted({f.side for f in active})
    turn = state.turn
    if turn is None:
        yield Candidate(command=c.StartTurn(), argv=("argad", "turn", stream),
                        text=f"start game turn {state.turns_done + 1}")
        if no_enemy_left(state):
            outcome = f"{sides[0]} wins" if sides else "no figure is left on the table"
            yield Candidate(command=c.EndCombat(outcome=outcome), argv=("argad", "end", stream, "--outcome", outcome),
                            text=f"end the combat: {outcome} (a ruling)")
    else:
        yield Candidate(command=c.EndTurn(), argv=("argad", "end-turn", stream),
                        text=f"end game turn {turn.number} (deaths and survival rolls)")
        yield from _moves(state, stream, active)
        yield from _shots(state, stream, active)
        yield from _strikes(state, turn, stream, active)
        yield from _holds(stream, active, sides)
    yield from _rulings(stream, active)


# -- movement --------------------------------------------------------------------------


def _moves(state: ArgadState, stream: str, active: list[Figure]) -> Iterator[Candidate]:
    for fig in active:
        name = fig.name
        variants: list[tuple[c.Move, tuple[str, ...], str]] = [
            (c.Move(figure=name), (), "moves"),
            (c.Move(figure=name, stationary=True), ("--stationary",), "stays still"),
            (c.Move(figure=name, crossing=True), ("--crossing",), "moves across an obstacle"),
        ]
        if fig.mounted:
            variants.append((c.Move(figure=name, charge=True), ("--charge",), "charges"))
        if state.options.on("command_radius"):
            variants.append((c.Move(figure=name, out_of_command=True), ("--out-of-command",),
                             "moves beyond 20 cm of its chiefs"))
        if fig.mineral_species:
            for ground in ("mineral", "other"):
                variants.append((c.Move(figure=name, ground=ground), ("--ground", ground),
                                 f"moves onto {'solid mineral' if ground == 'mineral' else 'other'} ground"))
        for command, flags, words in variants:
            yield Candidate(command=command, argv=("argad", "move", stream, name, *flags), text=f"{name} {words}",
                            piece=name, group=f"move {name}")


# -- shooting --------------------------------------------------------------------------


def _volleys(active: list[Figure]) -> list[tuple[str, ...]]:
    """Each shooter alone, and each side's shooters of one weapon together (when more than one)."""
    shooters = [f for f in active if f.missile and sh.shooting_die(f)]
    out: list[tuple[str, ...]] = [(f.name,) for f in shooters]
    together: dict[tuple[str, str], list[str]] = {}
    for f in shooters:
        together.setdefault((f.side, f.missile), []).append(f.name)
    out.extend(tuple(names) for names in together.values() if len(names) > 1)
    return out


def _target_groups(enemies: list[str]) -> list[tuple[str, ...]]:
    out: list[tuple[str, ...]] = [(e,) for e in enemies]
    if len(enemies) <= 4:
        out.extend(combinations(enemies, 2))
    if len(enemies) > 2:
        out.append(tuple(enemies))
    return out


def _shots(state: ArgadState, stream: str, active: list[Figure]) -> Iterator[Candidate]:
    for volley in _volleys(active):
        first = state.figures[volley[0]]
        enemies = [f.name for f in active if f.side != first.side]
        friends = [f.name for f in active if f.side == first.side and f.name not in volley]
        who = ", ".join(volley)
        verb = "shoots" if len(volley) == 1 else "shoot"
        for targets in _target_groups(enemies):
            at = tuple(a for x in targets for a in ("--at", x))
            aim = " + ".join(targets)
            for range_ in t.RANGES:
                for need, need_words in _needs(state, first.missile, range_, targets):
                    need_argv = ("--need", str(need)) if need else ()
                    base = c.Shoot(shooters=volley, targets=targets, range=range_, need=need)
                    yield Candidate(command=base,
                                    argv=("argad", "shoot", stream, *volley, *at, "--range", range_, *need_argv),
                                    text=f"{who} {verb} at {aim} at {range_} range{need_words}",
                                    piece=volley[0], group=f"shoot {who} at {aim}")
                    if range_ != "short":
                        continue
                    into = ("--into-melee", "--range-cm", str(INTO_MELEE_CM))
                    yield Candidate(
                        command=c.Shoot(shooters=volley, targets=targets, need=need, into_melee=True,
                                        range_cm=INTO_MELEE_CM),
                        argv=("argad", "shoot", stream, *volley, *at, "--range", range_, *need_argv, *into),
                        text=f"{who} {verb} at {aim} in a melee, {INTO_MELEE_CM} cm away{need_words}",
                        piece=volley[0], group=f"shoot {who} at {aim}")
                    for friend in friends[:1]:
                        yield Candidate(
                            command=c.Shoot(shooters=volley, targets=targets, need=need, into_melee=True,
                                            range_cm=INTO_MELEE_CM, friends=(friend,)),
                            argv=("argad", "shoot", stream, *volley, *at, "--range", range_, *need_argv, *into,
                                  "--friend", friend),
                            text=f"{who} {verb} at {aim} in a melee, {INTO_MELEE_CM} cm away, {friend} close to "
                                 f"the target{need_words}",
                            piece=volley[0], group=f"shoot {who} at {aim}")


def _needs(state: ArgadState, weapon: str, range_: str, targets: tuple[str, ...]) -> list[tuple[int, str]]:
    """The need given with the shot: none where the seed's cells give it for every target; else each value of
    the referee's reading of the generic shooting table (``--need N``, its armour 5 column for armour 6+)."""
    if all(t.shooting_need(weapon, range_, state.figures[x].shooting_armour) is not None for x in targets):
        return [(0, "")]
    low, high = sh.NEED_RANGE
    return [(n, f", needing {n} (the referee's reading of the generic shooting table)") for n in range(low, high + 1)]


# -- melee -----------------------------------------------------------------------------


def _strikes(state: ArgadState, turn: Turn, stream: str, active: list[Figure]) -> Iterator[Candidate]:
    ready = [f for f in active if still_to_strike(state, turn, f)]
    steps: dict[tuple[str, int], list[Figure]] = {}
    for fig in ready:
        steps.setdefault((fig.side, ml.tier_of(state, fig)[0]), []).append(fig)
    for fig in ready:
        enemies = [f.name for f in active if f.side != fig.side]
        front = _front(state, fig, active)
        for target in enemies:
            yield _strike(stream, ((fig, 1),), (target,), "")
            if _staff(fig):
                for rank in range(2, MAX_RANK + 1):
                    yield _strike(stream, ((fig, rank),), (target,), front)
        if fig.strength == "H2":
            for pair in combinations(enemies, 2):
                yield _strike(stream, ((fig, 1),), pair, "")
    for (side, _tier), figures in steps.items():
        if len(figures) < 2:
            continue
        enemies = [f.name for f in active if f.side != side]
        staff = [f for f in figures if _staff(f)]
        for target in enemies:
            yield _strike(stream, tuple((f, 1) for f in figures), (target,), "")
            if staff and len(staff) < len(figures):
                front = next((f.name for f in figures if not _staff(f) and not _two_handed(f)), "")
                yield _strike(stream, tuple((f, 2 if _staff(f) else 1) for f in figures), (target,), front)


def _staff(fig: Figure) -> bool:
    return t.melee_weapons()[fig.weapon].staff and not fig.mounted


def _two_handed(fig: Figure) -> bool:
    return t.melee_weapons()[fig.weapon].two_handed


def _front(state: ArgadState, fig: Figure, active: list[Figure]) -> str:
    """A friend whose shoulders ``fig`` may strike above (first in the set-up's order), or ''."""
    return next((f.name for f in active if f.side == fig.side and f.name != fig.name and not _two_handed(f)), "")


def _strike(stream: str, pool: tuple[tuple[Figure, int], ...], targets: tuple[str, ...], over: str) -> Candidate:
    names = tuple(f.name for f, _ in pool)
    ranks = tuple(r for _, r in pool)
    ranked = any(r != 1 for r in ranks)
    over = over if ranked else ""
    words = [f"{f.name}@{r}" if r != 1 else f.name for f, r in pool]
    at = tuple(a for x in targets for a in ("--at", x))
    argv = ("argad", "strike", stream, *words, *at, *(("--over", over) if over else ()))
    who = ", ".join(f"{f.name} (rank {r})" if r != 1 else f.name for f, r in pool)
    verb = "strikes" if len(pool) == 1 else "strike"
    aim = " and ".join(targets)
    above = f", above {over}'s shoulders" if over else ""
    split = ", splitting 2D6" if len(targets) == 2 else ""
    return Candidate(command=c.Strike(attackers=names, targets=targets, ranks=ranks if ranked else (), over=over),
                     argv=argv, text=f"{who} {verb} {aim}{above}{split}", piece=names[0],
                     group=f"strike {' '.join(names)}")


# -- holding and rulings ---------------------------------------------------------------


def _holds(stream: str, active: list[Figure], sides: list[str]) -> Iterator[Candidate]:
    for side in sides:
        yield Candidate(command=c.Hold(side=side), argv=("argad", "hold", stream, "--side", side),
                        text=f"side {side} holds every blow it may still strike this turn", group=f"hold {side}")
    for fig in active:
        yield Candidate(command=c.Hold(figures=(fig.name,)), argv=("argad", "hold", stream, fig.name),
                        text=f"{fig.name} holds its blow this turn", piece=fig.name, group=f"hold {fig.side}")


def _rulings(stream: str, active: list[Figure]) -> Iterator[Candidate]:
    for fig in active:
        if t.STRENGTH_STEP[fig.strength] >= 1 or fig.mineral_species:
            refuse = not fig.refuse_recoil
            yield Candidate(command=c.SetRecoilPolicy(figure=fig.name, refuse=refuse),
                            argv=("argad", "recoil-policy", stream, "--refuse" if refuse else "--accept", fig.name),
                            text=f"{fig.name} {'refuses' if refuse else 'accepts'} the recoils it may refuse",
                            piece=fig.name)
    for fig in active:
        yield Candidate(command=c.Remove(figure=fig.name, reason="fled"),
                        argv=("argad", "remove", stream, "--reason", "fled", fig.name),
                        text=f"{fig.name} flees the fight (a ruling)")
