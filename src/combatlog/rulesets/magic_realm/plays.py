"""Validation of the players' choices: actions (MR 001), targets (MR 8.4.2), the
secret plays (MR 8.4.5) and fatigue (MR 001 Fatigue Step).

Impossible input (an unknown or already-used chit, a wrong box) is an error;
a play that the rules cancel (effort limit, strength) is accepted and cancelled
when the plays are revealed (MR 8.4.5 'illegal plays are cancelled').
"""

from __future__ import annotations

import msgspec

from combatlog.errors import IllegalCommand, InvalidCommand
from combatlog.rulesets.magic_realm import commands as c
from combatlog.rulesets.magic_realm import rules as q
from combatlog.rulesets.magic_realm.data import letter, spell_def
from combatlog.rulesets.magic_realm.fatigue import RULE as FATIGUE_RULE
from combatlog.rulesets.magic_realm.fatigue import check_wounds, options, owed, played_text
from combatlog.rulesets.magic_realm.magic import committed, in_effect, peaceful, refuse_protected, resolve_targets
from combatlog.rulesets.magic_realm.melee import _fill
from combatlog.rulesets.magic_realm.spells import MODELLED, working_spell
from combatlog.rulesets.magic_realm.state import Character, Chit, MRState
from combatlog.rulesets.magic_realm.work import Work

ONE_USE = "MR 8.4.5 one use"
PREVENT = "MR 8.4.4 Preventing Attacks"


def _chit(state: MRState, cid: str, ref: str, actions: tuple[str, ...], rule: str) -> Chit:
    char = state.characters[cid]
    chit = char.chit(ref)
    if chit is None:
        chits = ", ".join(f"{x.id} {x.label}" for x in char.chits)
        raise InvalidCommand(f"{cid} has no chit {ref!r} (use the id when labels repeat; chits: {chits})")
    if chit.action not in actions:
        raise IllegalCommand(f"{chit.id} {chit.label} is not a {'/'.join(actions)} chit", rule=rule)
    if chit.status != "active":
        raise IllegalCommand(f"{chit.id} {chit.label} is {chit.status}", rule=rule)
    if chit.id in state.used.get(cid, ()):
        raise IllegalCommand(f"{chit.id} {chit.label} was already played this round", rule=ONE_USE)
    spell = committed(state, cid).get(chit.id)
    if spell:
        raise IllegalCommand(f"{chit.id} {chit.label} is committed to his {spell}, still in effect: it cannot be "
                             "used until the spell ends", rule="MR 8.4.3")
    return chit


def _item(char: Character, name: str) -> tuple[str, int]:
    for i, w in enumerate(char.weapons):
        if w.name.lower() == name.lower():
            return "weapon", i
    for i, a in enumerate(char.armor):
        if a.name.lower() == name.lower() and a.condition != "destroyed":
            return "armor", i
    items = [w.name for w in char.weapons] + [a.name for a in char.armor if a.condition != "destroyed"]
    raise InvalidCommand(f"{char.name} has no item {name!r} (items: {', '.join(items) or 'none'})")


def check_actions(state: MRState, cmd: c.Act) -> None:
    """One action per character who did not charge (MR 001 Actions)."""
    char = state.characters[cmd.character]
    rule = "MR 001 Actions"
    kind = cmd.kind
    if kind == "none":
        return
    if kind == "alert":
        if char.weapon is None:
            raise IllegalCommand("no active weapon to alert", rule=rule)
        # MR 8.4.7: "He can play Fight chits and Gloves cards to turn over his weapon counter".
        # Decision: a Gloves card obeys the Fight chit's strength rule (MR 8.4.5) with its own strength.
        chit = _chit(state, cmd.character, cmd.chit, ("FIGHT", "BERSERK", "GLOVES"), rule)
        if chit.strength < char.weapon.weight:
            raise IllegalCommand(f"{chit.label} is weaker than the {char.weapon.name} "
                                 f"({letter(char.weapon.weight)})", rule="MR 8.4.5 strength restrictions")
        return
    if kind in ("run", "fly"):
        if char.holding:
            # Decision: leaving the clearing would end the assignment that MR 8.4.7 keeps "until either they
            # or their target are killed".
            raise IllegalCommand(f"{cmd.character} is transmorphized and red side up: he stays assigned to "
                                 f"{char.holding}", rule="MR 8.4.7")
        if q.red_on_sheet(state, cmd.character):
            raise IllegalCommand("a red-side-up Tremendous monster holds him: no running or flying away",
                                 rule="MR 8.4.7")
        if kind == "fly":
            # MR 001 Actions: "run or fly away"; a Fly chit flies (MR 8.4.7 names Fly chits). Decision: the
            # seeds give no speed test, so flying away succeeds as running away does; the Fly chit obeys the
            # Move chit's strength rule (MR 8.4.5: strength at least the weight of every item carried).
            if cmd.horse:
                raise IllegalCommand("a horse runs, it does not fly: fly away with a Fly chit (--chit)", rule=rule)
            chit = _chit(state, cmd.character, cmd.chit, ("FLY",), rule)
            if chit.strength < q.items_weight(char):
                raise IllegalCommand(f"{chit.label} is weaker than his heaviest item "
                                     f"({letter(q.items_weight(char))})", rule="MR 8.4.5 strength restrictions")
            return
        if cmd.horse:
            if char.horse is None or not char.horse.alive or cmd.horse not in ("trot", "gallop"):
                raise IllegalCommand("no living horse to run with (--horse trot|gallop)", rule=rule)
            return
        # A Boots card runs like a Move chit (MR 8.4.7 lists it with them), with the same strength rule.
        chit = _chit(state, cmd.character, cmd.chit, ("MOVE", "BOOTS"), rule)
        if chit.strength < q.items_weight(char):
            raise IllegalCommand(f"{chit.label} is weaker than his heaviest item "
                                 f"({letter(q.items_weight(char))})", rule="MR 8.4.5 strength restrictions")
        return
    if kind == "cast":
        _check_cast(state, cmd)
        return
    if kind in ("activate", "deactivate", "abandon"):
        if not cmd.items or (kind != "abandon" and len(cmd.items) != 1):
            raise IllegalCommand(f"{kind} needs {'one item' if kind != 'abandon' else 'items'}", rule=rule)
        for name in cmd.items:
            what, i = _item(char, name)
            if kind == "activate" and what == "weapon" and char.weapon is not None:
                raise IllegalCommand("only one weapon can be active; deactivate the other first",
                                     rule="MR 8.4.5 weapons")
        return
    raise InvalidCommand(f"unknown action {kind!r}: none, alert, run, fly, cast, activate, deactivate, abandon")


def _check_cast(state: MRState, cmd: c.Act) -> None:
    """Casting: a recorded spell with a Magic chit of its type, or a Spell card in an active Artifact
    or Spell Book (MR 8.4.3), and the spell's colour magic (MR 001 Actions)."""
    char = state.characters[cmd.character]
    rule = "MR 001 Actions"
    if cmd.spell not in MODELLED:
        raise IllegalCommand(f"{cmd.spell!r}: only these spells are modelled: {', '.join(MODELLED)}",
                             rule="MR 8.4.4")
    d = spell_def(cmd.spell)
    if cmd.items:
        if cmd.chit or len(cmd.items) != 1:
            raise InvalidCommand("cast either with a MAGIC chit (--chit) or with one Artifact / Spell Book (--item)")
        item = next((a for a in char.artifacts if a.name.lower() == cmd.items[0].lower()), None)
        if item is None or not item.active:
            have = ", ".join(a.name for a in char.artifacts if a.active) or "none"
            raise IllegalCommand(f"{char.name} has no active Artifact or Spell Book {cmd.items[0]!r} ({have})",
                                 rule="MR 8.4.3")
        if cmd.spell not in item.spells:
            raise IllegalCommand(f"the {item.name} holds no {cmd.spell} (it holds {', '.join(item.spells) or 'none'})",
                                 rule="MR 8.4.3")
        if in_effect(state, cmd.character, cmd.spell, item.name):
            raise IllegalCommand(f"the {item.name}'s {cmd.spell} is still in effect: its Spell card is on its "
                                 "target until the spell ends", rule="MR 8.4.3")
    else:
        if cmd.spell not in char.spells:
            raise IllegalCommand(f"{char.name} has not recorded {cmd.spell} (setup: spells)", rule=rule)
        if in_effect(state, cmd.character, cmd.spell) >= char.spells.count(cmd.spell):
            raise IllegalCommand(f"his {cmd.spell} is still in effect: it cannot be cast again until it ends "
                                 "(a duplicate in another spell box could be)", rule="MR 8.4.3")
        chit = _chit(state, cmd.character, cmd.chit, ("MAGIC",), rule)
        if chit.magic_type != d.magic_type:
            raise IllegalCommand(f"{cmd.spell} needs a MAGIC {d.magic_type} chit, not {chit.label}", rule=rule)
    colours = [x.strip() for x in state.clearing.get("color_magic", "").split(",") if x.strip()]
    if (d.color == "any" and not colours) or (d.color != "any" and d.color not in colours):
        raise IllegalCommand(f"{cmd.spell} needs {d.color} magic; the clearing has "
                             f"{', '.join(colours) or 'none'} (setup: clearing.color_magic)", rule=rule)
    need = {"Lightning Bolt": "mountain", "Roof Collapses": "cave"}.get(cmd.spell)
    if need and state.clearing.get("type") != need:
        raise IllegalCommand(f"{cmd.spell} can only be cast in a {need} clearing", rule="MR spells")


def _attackable(state: MRState, pid: str) -> bool:
    if pid in state.characters:
        return q.alive(state, pid)
    d = state.denizens.get(pid)
    return d is not None and d.alive and not d.parent


def check_targets(state: MRState, cmd: c.Target) -> tuple[str, ...]:
    """Target selection for the character and his hirelings (MR 8.4.2); returns his spell's targets."""
    char = state.characters[cmd.character]
    rule = "MR 8.4.2"
    where = q.sheets(state)
    cast = next((s for s in state.spells if s.caster == cmd.character and s.status == "cast"), None)
    chosen: tuple[str, ...] = ()
    if cast is not None:
        d = spell_def(cast.spell)
        chosen = resolve_targets(state, cmd.character, cast.spell, d.target, cmd.spell_targets)
        refuse_protected(state, chosen)
        if d.attack is not None and peaceful(state, cmd.character):
            raise IllegalCommand(f"{cmd.character} is under Peace: he cannot attack, not even with an Attack spell",
                                 rule=PREVENT)
        for t in chosen:
            if t != cmd.character:  # he can always cast a spell on himself (MR 8.4.2)
                _hidden_ok(state, char, t)
    elif cmd.spell_targets:
        raise IllegalCommand(f"{cmd.character} cast no spell this round", rule=rule)
    if char.holding and char.present and cmd.target != char.holding and q.alive(state, char.holding):
        raise IllegalCommand(f"{cmd.character} is transmorphized and red side up: he stays assigned to "
                             f"{char.holding} until he or it is killed (mr target ... {char.holding})",
                             rule="MR 8.4.7")
    if cmd.target:
        if not char.present:
            raise IllegalCommand("a character who is not in the clearing picks no target for himself", rule=rule)
        if not _attackable(state, cmd.target) or cmd.target == cmd.character:
            raise IllegalCommand(f"{cmd.target} is not a character or denizen in the clearing he can attack "
                                 "(heads and clubs cannot be attacked)", rule="MR 8.4.2 / MR 8.4.7")
        if peaceful(state, cmd.character):
            raise IllegalCommand(f"{cmd.character} is under Peace: he cannot specify a target while it lasts",
                                 rule=PREVENT)
        if cmd.character in state.charges and cmd.target != state.charges[cmd.character]:
            raise IllegalCommand(f"he charged {state.charges[cmd.character]}: that is the only target he can "
                                 "attack", rule=rule)
        _hidden_ok(state, char, cmd.target)
        if cast is not None and cmd.target not in chosen:
            raise IllegalCommand("a spellcaster puts his Attention chit on one of his spell's targets", rule=rule)
    mine = q.hirelings_of(state, cmd.character)
    for hid in mine:
        if where.get(hid) != hid:
            continue
        attackers = [p for p in q.on_sheet(state, hid, where) if p in state.denizens and not state.denizens[p].parent]
        if hid not in cmd.hirelings and not peaceful(state, hid):
            raise IllegalCommand(f"{hid} is attacked on its own sheet and must choose a target among "
                                 f"{', '.join(attackers)}", rule=rule)
    for hid, tid in cmd.hirelings.items():
        if peaceful(state, hid):
            raise IllegalCommand(f"{hid} is under Peace: it cannot attack", rule=PREVENT)
        if hid not in mine or where.get(hid) != hid:
            raise IllegalCommand(f"{hid} is not a hireling of {cmd.character} on its own sheet", rule=rule)
        attackers = q.on_sheet(state, hid, where)
        if tid not in attackers or (tid in state.denizens and state.denizens[tid].parent):
            raise IllegalCommand(f"{hid} must target one of the attackers on its sheet: {', '.join(attackers)}",
                                 rule=rule)
    movable = _positionable(state, mine, where)
    for pid, box in cmd.positions.items():
        if pid not in movable:
            raise IllegalCommand(f"{cmd.character} cannot position {pid} (he can position: "
                                 f"{', '.join(sorted(movable)) or 'nothing'})", rule=rule)
        if box not in (1, 2, 3):
            raise InvalidCommand("positions are 1, 2 or 3")
    return chosen


def _positionable(state: MRState, mine: list[str], where: dict[str, str]) -> set[str]:
    """What a character positions at target selection: every attacker on his hirelings' own sheets
    (MR 8.4.2: "puts the hireling's target in the Maneuver boxes and puts the other attackers in the
    Attack circles"; MR 001: "distribute all denizens ... on the sheets of their minions"), monster heads
    and clubs included (they attack separately, MR 8.4.7); not a hired monster's own head or club, which
    is placed with its plays (``--hireling-box``). And his hirelings on uncontrolled denizens' sheets
    (``mine``: his hirelings, which ``check_targets`` has just asked for)."""
    out: set[str] = set()
    for hid in mine:
        sheet = where.get(hid)
        if sheet == hid:
            out.update(p for p in q.on_sheet(state, hid, where) if state.denizens[p].parent != hid)
        elif sheet in state.denizens and q.sheet_kind(state, sheet) == "denizen":
            out.add(hid)
    for pid in list(out):
        d = state.denizens[pid]
        if d.horse is not None and d.horse.alive:
            out.add(d.horse.id)
    return out


def _hidden_ok(state: MRState, char: Character, target: str) -> None:
    t = state.characters.get(target)
    if t is not None and t.hidden and not char.found_hidden:
        raise IllegalCommand(f"{target} is hidden and {char.name} has not found hidden enemies today",
                             rule="MR 8.4.2")


def check_play(state: MRState, cmd: c.Play) -> tuple[str, str]:
    """The secret plays (MR 8.4.5); returns the chit ids."""
    char = state.characters[cmd.character]
    rule = "MR 8.4.5"
    for v, what in ((cmd.attack, "attack circle"), (cmd.maneuver, "maneuver square"), (cmd.shield, "shield box")):
        if v not in (0, 1, 2, 3):
            raise InvalidCommand(f"{what} is 1, 2 or 3 (thrust/charge, swing/dodge, smash/duck)")
    spell = working_spell(state, cmd.character)
    fight = move = ""
    if not char.present and (cmd.attack or cmd.fight or cmd.maneuver or cmd.move or cmd.horse or cmd.shield
                             or cmd.part_attack):
        raise IllegalCommand("he is not in the clearing: he only places his hirelings", rule=rule)
    if char.form is not None:
        _check_form_play(state, cmd, char)
        _check_place(state, cmd)
        return "", ""
    if cmd.part_attack or cmd.part_side:
        raise InvalidCommand("--part-attack and --part-side are for characters transmorphized into a Tremendous "
                             "monster with a head or club")
    if cmd.fight:
        if spell is not None:
            raise IllegalCommand(f"his {spell.spell} came to life this round: no weapon or Fight chit attack",
                                 rule=rule)
        fight = _chit(state, cmd.character, cmd.fight, ("FIGHT", "BERSERK"), rule).id
        if cmd.attack and not state.targets.get(cmd.character):
            raise IllegalCommand("he selected no target this round", rule="MR 8.4.2")
        if not cmd.attack and cmd.alert_only not in ("", "alert", "unalert"):
            raise InvalidCommand("--alert-only is alert or unalert")
    elif cmd.attack and (spell is None or spell_def(spell.spell).attack is None):
        raise IllegalCommand("an attack needs a Fight chit (or an Attack spell that came to life)", rule=rule)
    if cmd.move and cmd.horse:
        raise IllegalCommand("one maneuver: a Move chit or the horse", rule=rule)
    if cmd.move:
        if not cmd.maneuver:
            raise InvalidCommand("a Move chit goes in a maneuver square (--maneuver 1|2|3)")
        # MR 8.4.7 / 8.4.8: a Move chit or a Boots card maneuvers (its time is the maneuver time); the
        # strength rule is applied to both at the reveal (MR 8.4.5).
        chit = _chit(state, cmd.character, cmd.move, ("MOVE", "DUCK", "BOOTS"), rule)
        if chit.action == "DUCK" and cmd.maneuver != 3:
            raise IllegalCommand(f"{chit.label} can only be played in the Duck square", rule=rule)
        if chit.id == fight:
            raise IllegalCommand("a chit can be played once per round", rule=ONE_USE)
        move = chit.id
    elif cmd.horse:
        if char.horse is None or not char.horse.alive or cmd.horse not in ("trot", "gallop"):
            raise IllegalCommand("no living horse to maneuver with (--horse trot|gallop)", rule=rule)
        if q.red_on_sheet(state, cmd.character):
            raise IllegalCommand("a red-side-up Tremendous monster holds him: he cannot play a horse",
                                 rule="MR 8.4.7")
        if not cmd.maneuver:
            raise InvalidCommand("the horse goes in a maneuver square (--maneuver 1|2|3)")
    elif cmd.maneuver:
        raise InvalidCommand("a maneuver needs a Move chit (--move) or the horse (--horse)")
    shield = [a for a in char.armor if a.kind == "shield" and a.active and a.condition != "destroyed"]
    if shield and char.present and not cmd.shield:
        raise IllegalCommand(f"{cmd.character}'s {shield[0].name} is active: it must be played in a box, every round "
                             "(--shield 1|2|3)", rule=rule)
    if cmd.shield and not shield:
        raise InvalidCommand(f"{cmd.character} has no active shield to play (--shield)")
    _check_place(state, cmd)
    return fight, move


def void_chits(state: MRState, cmd: c.Play) -> tuple[str, ...]:
    """The chits a revealed play that the rules void puts in Used This Round (MR 8.4.5: "Illegal plays are
    cancelled and have no effect, and the chits that were played are put in their owner's Used This Round
    box. They cannot be played again that round and their effort asterisks do count towards their owner's
    effort limit and fatigue").

    *Decision:* the chits played are those named as his Fight and Move chits that he could put on his
    Melee Section: his own, active, not played already this round and not committed to a spell in effect
    (whatever slot they were put in). A reference to anything else (no such chit, a fatigued or wounded
    chit, one already in Used This Round), or any chit while he is out of the clearing or transmorphized
    (he plays no chits then, MR 8.4.7), played nothing and counts for nothing."""
    char = state.characters[cmd.character]
    if not char.present or char.form is not None:
        return ()
    used = state.used.get(cmd.character, ())
    bound = committed(state, cmd.character)
    out: list[str] = []
    for ref in (cmd.fight, cmd.move):
        chit = char.chit(ref) if ref else None
        if chit is not None and chit.status == "active" and chit.id not in used and chit.id not in bound \
                and chit.id not in out:
            out.append(chit.id)
    return tuple(out)


def _check_form_play(state: MRState, cmd: c.Play, char: Character) -> None:
    """A character transmorphized into a Tremendous monster plays the monster's attack and maneuver
    values (MR 8.4.7: "Characters transmorphized into Tremendous monsters follow many of the same rules in
    combat as untransmorphized Tremendous monsters").

    Decision: he plays no Fight or Move chit, no weapon and no horse: his attack circle and maneuver
    square take the monster counter's values (time, harm, length; move time), which have no effort
    asterisks and no strength to check; an active shield must still be played (MR 8.4.5).
    """
    rule = "MR 8.4.7"
    form = char.form
    assert form is not None
    if cmd.fight or cmd.move or cmd.horse or cmd.alert_only:
        raise IllegalCommand(f"{char.name} is transmorphized into {form.name}: he attacks and maneuvers with the "
                             "monster's values (--attack, --maneuver), not with chits or a horse", rule=rule)
    if cmd.attack and working_spell(state, cmd.character) is not None:
        raise IllegalCommand("his spell came to life this round: no normal attack", rule="MR 8.4.5")
    if cmd.attack and not state.targets.get(cmd.character):
        raise IllegalCommand("he selected no target this round", rule="MR 8.4.2")
    face = char.form_face()
    if cmd.attack and (face is None or face.harm is None):
        raise IllegalCommand(f"this side of {form.name} has no attack", rule=rule)
    if cmd.part_attack not in (0, 1, 2, 3):
        raise InvalidCommand("--part-attack is 1, 2 or 3 (thrust, swing, smash)")
    if cmd.part_side not in ("", "light", "dark"):
        raise InvalidCommand("--part-side is light or dark")
    if (cmd.part_attack or cmd.part_side) and not form.parts:
        raise InvalidCommand(f"{form.name} has no head or club")
    if cmd.part_attack and not cmd.attack:
        raise IllegalCommand("the head or club attacks the body's target: play --attack too", rule=rule)
    if cmd.maneuver and (face is None or face.move_time is None):
        raise IllegalCommand(f"this side of {form.name} has no maneuver", rule=rule)
    shield = [a for a in char.armor if a.kind == "shield" and a.active and a.condition != "destroyed"]
    if shield and char.present and not cmd.shield:
        raise IllegalCommand(f"{cmd.character}'s {shield[0].name} is active: it must be played in a box, every round "
                             "(--shield 1|2|3)", rule="MR 8.4.5")
    if cmd.shield and not shield:
        raise InvalidCommand(f"{cmd.character} has no active shield to play (--shield)")


def _check_place(state: MRState, cmd: c.Play) -> None:
    """Counters on his section go in the red boxes, as many boxes filled as possible,
    a monster apart from its head or club (MR 8.4.2, 8.4.7)."""
    where = q.sheets(state)
    mine = q.on_sheet(state, cmd.character, where) if where and state.characters[cmd.character].present else []
    horses = {state.denizens[p].horse.id for p in mine  # type: ignore[union-attr]
              if state.denizens[p].horse is not None} if cmd.place else set()
    for pid, box in cmd.place.items():
        if pid not in mine and pid not in horses:
            raise IllegalCommand(f"{pid} is not on {cmd.character}'s sheet (there: {', '.join(mine) or 'nothing'})",
                                 rule="MR 8.4.5")
        if box not in (1, 2, 3):
            raise InvalidCommand("red boxes are 1, 2 or 3")
    if mine:  # (nothing on his section, the usual case: nothing to fill)
        final = _fill(mine, dict(cmd.place), Work(state, 0))
        counters = [p for p in mine]
        used = {final[p] for p in counters}
        if len(used) < min(3, len(counters)):
            raise IllegalCommand(f"fill as many red boxes as possible: {len(counters)} counters use only "
                                 f"{len(used)} box(es)", rule="MR 001 Attacks/Maneuvers")
        for p in counters:
            parent = state.denizens[p].parent
            if parent and parent in final and final[parent] == final[p]:
                raise IllegalCommand(f"{p} cannot share a red box with {parent}", rule="MR 8.4.7")
    if not cmd.hirelings:
        return  # what follows checks the boxes he gave his hirelings
    mine_h = [h for h in q.hirelings_of(state, cmd.character) if where.get(h) == h]
    allowed = set(mine_h) | {state.denizens[h].horse.id for h in mine_h  # type: ignore[union-attr]
                             if state.denizens[h].horse is not None}
    parts = {d.id: d.parent for d in state.denizens.values() if d.parent in mine_h and d.alive}
    allowed |= set(parts)
    for part, body in parts.items():
        if cmd.hirelings.get(part) and cmd.hirelings.get(part) == cmd.hirelings.get(body, 1):
            raise IllegalCommand(f"{part} cannot share a red box with {body}", rule="MR 8.4.7")
    for key, box in cmd.hirelings.items():
        if key not in allowed:
            raise IllegalCommand(f"{key} is not a hireling (or its horse) defending its own sheet "
                                 f"({', '.join(sorted(allowed)) or 'none'})", rule="MR 8.4.5")
        if box not in (1, 2, 3):
            raise InvalidCommand("red boxes are 1, 2 or 3")


def check_fatigue(state: MRState, cmd: c.Fatigue) -> tuple[tuple[str, ...], str, tuple[str, ...]]:
    """The player's fatigue and wounds must be one of the legal choices (MR 001 Fatigue Step)."""
    char = state.characters[cmd.character]
    ids = lambda refs: tuple(_any_chit(char, r) for r in refs)  # noqa: E731
    fat, wounds = ids(cmd.fatigue), ids(cmd.wounds)
    change = _any_chit(char, cmd.change) if cmd.change else ""
    need, types = owed(char, state.used.get(cmd.character, ()))
    opts = options(char, need, types)
    match = next((o for o in opts if sorted(o.fatigue) == sorted(fat) and o.change == change), None)
    if match is None:
        listed = "; ".join(o.text(char) for o in opts[:12])
        raise IllegalCommand(f"{char.name} owes {need} asterisk(s) (played: {played_text(types)}; each type is paid "
                             f"with its own chits); legal choices: {listed}", rule=FATIGUE_RULE)
    after = list(char.chits)
    for k, ch in enumerate(after):
        if ch.id in fat:
            after[k] = msgspec.structs.replace(ch, status="fatigued")
        if ch.id == change:
            after[k] = msgspec.structs.replace(ch, status="active")
    why = check_wounds(char, tuple(after), char.wounds, match.shortfall, wounds)
    if why:
        raise IllegalCommand(why, rule=FATIGUE_RULE)
    return fat, change, wounds


def _any_chit(char: Character, ref: str) -> str:
    chit = char.chit(ref)
    if chit is None:
        raise InvalidCommand(f"{char.name} has no chit {ref!r} (chits: "
                             f"{', '.join(f'{x.id} {x.label}' for x in char.chits)})")
    return chit.id
