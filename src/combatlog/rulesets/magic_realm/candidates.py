"""The Magic Realm moves worth proposing now (``Ruleset.candidates``; commands/legal.py keeps those that the
write path's authority check and ``decide`` accept, so nothing here judges legality).

Each step of the round proposes its deciders' choices with every argument filled in, and the argv is what
``combatlog mr ...`` (cli/rulesets/magic_realm.py) parses into that very command:

- luring: pass; lure each free denizen onto the character, all of them at once, or one onto each hireling;
- the steps the rules decide with dice (``mr assign``, ``mr melee``, ``mr resolve``);
- deployment: pass; charge each other character with each Move chit; send each unassigned hireling against
  each monster or native;
- actions: none; alert with each Fight chit or Gloves card; run with each Move chit, Boots card or the horse
  (trot or gallop); fly with each Fly chit; cast each recorded spell with each Magic chit, or from an Artifact
  or Spell Book; activate, deactivate or abandon each weapon and armor;
- target selection: no target, or each character and denizen he could attack, his hirelings attacked on
  their own sheets each given one of their attackers (in rotation), his spell's targets each alone;
- the secret plays, by parts: a play is attack circle x Fight chit x maneuver square x Move chit (or horse)
  x shield box, hundreds of combinations per character. So each attack option (each circle with each Fight
  chit, a Fight chit played only to alert or unalert the weapon) is proposed alone and completed by a
  maneuver option in rotation; each maneuver option (each square with each Move chit or Boots card, the
  horse trotting or galloping) alone and completed by an attack option in rotation; no attack and no
  maneuver; and each shield box once.
  Every candidate is a whole play (the shield, which must be played when active, always in a box), all of
  one character's share the group ``CHAR:plays``: a uniform pick among the group's moves gives every attack
  option and every maneuver option the same chance. Counters on his own sheet and his hirelings' boxes are
  left to the default filling (1, 2, 3 in the order of their ids), not enumerated;
- with pinned players the plays are sealed: ``mr play ... --seal`` (``CommitOrders`` exactly as the CLI
  builds it) for a player with one character still to play, and ``mr reveal`` once every side has sealed;
- the Fatigue Step: every legal payment (``fatigue.options``, at most 12) with, for each, a few legal choices
  of the chits to wound;
- the Elusive Cloak ruling (``mr concede``, both reasons), for a character who has the Cloak;
- with joint dice, ``mr seed`` where a seed step waits for contributions (``sealed.seed_command``: a chain link or a
  nonce; empty plays from a player with no character in the Melee Step); the referee's steps above contribute
  their taker's link first where it is the last one missing (``sealed.contributed_first``);
- ``mr pass``: a round in which every character passes (nobody uncontrolled left to fight), in one command; where
  players are pinned, each player's vote for each of his characters in the fight (and for all of them at once).

Not enumerated: ``--position`` at target selection and ``--place``/``--hireling-box`` in the plays (the
default filling is always legal), ``--part-attack``/``--part-side`` of a transmorphized character, several
items at once, and a player's sealed plays for several characters at once (``seal commit --orders-json``).
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations
from typing import Any

from combatlog.rulesets.base import Candidate
from combatlog.rulesets.magic_realm import commands as c
from combatlog.rulesets.magic_realm import rules as q
from combatlog.rulesets.magic_realm.data import DIRS, MANEUVERS
from combatlog.rulesets.magic_realm.fatigue import check_wounds, options, owed
from combatlog.rulesets.magic_realm.state import Character, Chit, MRState
from combatlog.rulesets.magic_realm.turns import deciders, unassigned_denizens

ATTACKS = {1: "thrusts", 2: "swings", 3: "smashes"}
MOVES = {1: "charges", 2: "dodges", 3: "ducks"}
MAX_FATIGUE_OPTIONS = 12
MAX_WOUND_CHOICES = 4


def candidates(state: MRState, stream: str) -> Iterator[Candidate]:
    if state.ended:
        return
    step = state.step
    mr = ("mr",)
    if step == "lure":
        for cid in deciders(state, "lure"):
            yield from _lure(state, stream, cid)
        yield Candidate(command=c.Assign(), argv=(*mr, "assign", stream),
                        text="random assignment of the denizens nobody lured (dice)")
    elif step == "deploy":
        for cid in deciders(state, "deploy"):
            yield from _deploy(state, stream, cid)
    elif step == "actions":
        for cid in deciders(state, "actions"):
            yield from _actions(state, stream, cid)
        yield Candidate(command=c.StartMelee(), argv=(*mr, "melee", stream),
                        text="start the Melee Step: draw the Attention chits (dice)")
    elif step == "targets":
        for cid in deciders(state, "targets"):
            yield from _targets(state, stream, cid)
    elif step == "plays":
        for cid in deciders(state, "plays"):
            yield from _plays(state, stream, cid)
    elif step == "resolve":
        yield Candidate(command=c.Resolve(), argv=(*mr, "resolve", stream),
                        text="reposition, change tactics and resolve the attacks (dice)")
    elif step == "fatigue":
        for cid in deciders(state, "fatigue"):
            yield from _fatigue(state, stream, cid)
    if state.players and any(not info.complete for info in state.sealed.values()):
        from combatlog.trust.commands import RevealOrders

        # the sealed plays once every side has sealed, or a nonce committed to a seed step
        yield Candidate(command=RevealOrders(step=""), argv=(*mr, "reveal", stream),
                        text="reveal what you sealed (every side has sealed)")
    if state.joint and state.players:
        yield from _seed(state, stream)
    if step in ("deploy", "actions", "targets", "plays", "resolve"):
        yield from _pass(state, stream)
    for cid, char in state.characters.items():
        if "Elusive Cloak" in char.items:
            for reason, why in (("no_chance", "nobody can kill the monster"),
                                ("declined", "the others decline to help")):
                yield Candidate(command=c.Concede(character=cid, reason=reason),
                                argv=(*mr, "concede", stream, cid, "--reason", reason),
                                text=f"ruling (Elusive Cloak): {cid} is killed, {why}", piece=cid,
                                group=f"{cid}:concede")


def _seed(state: MRState, stream: str) -> Iterator[Candidate]:
    """``mr seed`` (``sealed.seed_command``), where the joint dice wait for a seed step: before the referee's step
    (the random assignment, the Attention chits) once nobody decides anything more before its dice (a part
    given earlier would let the last decider foreknow them: the first mover reveals last); the empty plays at
    target selection and the plays (the trust layer takes them only from a player with no character in the
    Melee Step)."""
    from combatlog.rulesets.magic_realm.sealed import SEED_MOVES, parse_step, seed_command, seed_hint

    from combatlog.rulesets.magic_realm.decide import _labels
    from combatlog.rulesets.magic_realm.rounds import assign_randomly, start_melee

    step = state.step
    # (a referee's step that draws no die, every denizen lured or one character left, needs no seed)
    due = step in ("targets", "plays") or (
        step in ("lure", "actions") and not deciders(state, step)
        and bool(seed_hint(state, "lure" if step == "lure" else "run", "assign" if step == "lure" else "attention"))
        and bool(_labels(assign_randomly if step == "lure" else start_melee, state)))
    if not due:
        return
    from combatlog.trust.commands import RevealLink

    command = seed_command(state)
    name = command.step
    dice = {"assign": "of the random assignment", "attention": "of the Attention chits"}.get(
        (parse_step(name) or (0, ""))[1], "")
    if name.endswith("/plays"):
        what = "commit empty plays (a nonce for the round's joint dice)"
    else:
        what = f"joint dice{' ' + dice if dice else ''}: {SEED_MOVES['link' if isinstance(command, RevealLink) else 'commit']}"
    yield Candidate(command=command, argv=("mr", "seed", stream), text=f"{what} [step {name}]", group=f"seal:{name}")


def _lure(state: MRState, stream: str, cid: str) -> Iterator[Candidate]:
    base = ("mr", "lure", stream, cid)
    group = f"{cid}:lure"
    yield Candidate(command=c.Lure(character=cid), argv=base, text=f"{cid} lures nothing (passes)", piece=cid,
                    group=group)
    free = unassigned_denizens(state)
    for did in free:
        yield Candidate(command=c.Lure(character=cid, denizens=(did,)), argv=(*base, did),
                        text=f"{cid} lures {q.name(state, did)}", piece=cid, group=group)
    if len(free) > 1:
        yield Candidate(command=c.Lure(character=cid, denizens=tuple(free)), argv=(*base, *free),
                        text=f"{cid} lures every free denizen: {', '.join(free)}", piece=cid, group=group)
    for hid in q.hirelings_of(state, cid):
        for did in free:
            yield Candidate(command=c.Lure(character=cid, hirelings={did: hid}),
                            argv=(*base, "--by", f"{did}={hid}"),
                            text=f"{cid}'s hireling {hid} lures {q.name(state, did)}", piece=cid, group=group)


def _deploy(state: MRState, stream: str, cid: str) -> Iterator[Candidate]:
    base = ("mr", "deploy", stream, cid)
    group = f"{cid}:deploy"
    char = state.characters[cid]
    yield Candidate(command=c.Deploy(character=cid), argv=base, text=f"{cid} deploys nobody and charges nobody",
                    piece=cid, group=group)
    for other in q.in_clearing(state):
        if other == cid:
            continue
        for chit in _chits(char, ("MOVE", "DUCK")):
            yield Candidate(command=c.Deploy(character=cid, charge=other, chit=chit.id),
                            argv=(*base, "--charge", other, "--chit", chit.id),
                            text=f"{cid} charges {q.name(state, other)} with {_label(chit)}", piece=cid,
                            group=group)
    foes = [d.id for d in state.denizens.values() if d.alive and not d.parent and not q.is_hireling(d)]
    for hid in q.unassigned_hirelings(state, cid):
        for did in sorted(foes):
            yield Candidate(command=c.Deploy(character=cid, hirelings={hid: did}),
                            argv=(*base, "--hireling", f"{hid}={did}"),
                            text=f"{cid} sends the hireling {hid} against {q.name(state, did)}", piece=cid,
                            group=group)


def _actions(state: MRState, stream: str, cid: str) -> Iterator[Candidate]:
    base = ("mr", "action", stream, cid)
    group = f"{cid}:action"
    char = state.characters[cid]

    def act(kind: str, text: str, *, chit: str = "", items: tuple[str, ...] = (), spell: str = "",
            horse: str = "") -> Candidate:
        argv = [*base, kind]
        if chit:
            argv += ["--chit", chit]
        for item in items:
            argv += ["--item", item]
        if spell:
            argv += ["--spell", spell]
        if horse:
            argv += ["--horse", horse]
        return Candidate(command=c.Act(character=cid, kind=kind, chit=chit, items=items, spell=spell, horse=horse),
                         argv=tuple(argv), text=f"{cid} {text}", piece=cid, group=group)

    yield act("none", "takes no action")
    if char.weapon is not None:
        for chit in _chits(char, ("FIGHT", "BERSERK", "GLOVES")):
            yield act("alert", f"alerts the {char.weapon.name} with {_label(chit)}", chit=chit.id)
    for chit in _chits(char, ("MOVE", "BOOTS")):
        yield act("run", f"runs away with {_label(chit)}", chit=chit.id)
    if char.horse is not None and char.horse.alive:
        for side in ("trot", "gallop"):
            yield act("run", f"runs away on the {char.horse.name} ({side})", horse=side)
    for chit in _chits(char, ("FLY",)):
        yield act("fly", f"flies away with {_label(chit)}", chit=chit.id)
    for spell in dict.fromkeys(char.spells):
        for chit in _chits(char, ("MAGIC",)):
            yield act("cast", f"casts {spell} with {_label(chit)}", chit=chit.id, spell=spell)
    for art in char.artifacts:
        for spell in art.spells:
            yield act("cast", f"casts {spell} from the {art.name}", items=(art.name,), spell=spell)
    for item in (*char.weapons, *char.armor):
        if getattr(item, "condition", "intact") == "destroyed":
            continue
        kind = "deactivate" if item.active else "activate"
        yield act(kind, f"{kind}s the {item.name}", items=(item.name,))
        yield act("abandon", f"abandons the {item.name}", items=(item.name,))


def _targets(state: MRState, stream: str, cid: str) -> Iterator[Candidate]:
    base = ("mr", "target", stream, cid)
    group = f"{cid}:target"
    char = state.characters[cid]
    own = set(q.hirelings_of(state, cid))
    # his own hirelings too: attacking one is treachery, and legal (MR 8.4.2)
    foes = sorted({d.id for d in state.denizens.values() if d.alive and not d.parent}
                  | {o for o in q.in_clearing(state) if o != cid})
    where = q.sheets(state)
    defenders = [(hid, [p for p in q.on_sheet(state, hid, where) if p in state.denizens
                        and not state.denizens[p].parent]) for hid in sorted(own) if where.get(hid) == hid]
    defenders = [(hid, attackers) for hid, attackers in defenders if attackers]
    cast = next((s for s in state.spells if s.caster == cid and s.status == "cast"), None)
    spell_choices: list[tuple[str, ...]] = [()]
    if cast is not None:
        spell_choices += [(t,) for t in [cid, *foes]]
    victims = ([""] + foes) if char.present else [""]
    k = 0
    for victim in victims:
        for spell_targets in spell_choices:
            hirelings = {hid: attackers[(k + i) % len(attackers)] for i, (hid, attackers) in enumerate(defenders)}
            k += 1
            argv = list(base)
            if victim:
                argv.append(victim)
            for hid, tid in hirelings.items():
                argv += ["--hireling", f"{hid}={tid}"]
            for t in spell_targets:
                argv += ["--spell-target", t]
            text = (f"{cid} puts the Attention chit on {q.name(state, victim)}" if victim else
                    f"{cid} leaves the Attention chit unplayed (no attack this round)")
            if hirelings:
                text += "; " + ", ".join(f"{h} attacks {t}" for h, t in hirelings.items())
            if spell_targets:
                text += f"; the {cast.spell} targets {', '.join(spell_targets)}"  # type: ignore[union-attr]
            yield Candidate(command=c.Target(character=cid, target=victim, hirelings=hirelings,
                                             spell_targets=spell_targets),
                            argv=tuple(argv), text=text, piece=cid, group=group)


# -- the plays, by parts -------------------------------------------------------------------------------


def _attack_options(state: MRState, char: Character) -> list[tuple[dict[str, Any], tuple[str, ...], str]]:
    """(Play fields, argv words, words) of each attack option, "no attack" first."""
    out: list[tuple[dict[str, Any], tuple[str, ...], str]] = [({}, (), "makes no attack")]
    if not char.present:
        return out
    target = state.targets.get(char.id, "")
    at = f" at {target}" if target else ""
    if char.form is not None:
        for d in (1, 2, 3):
            out.append(({"attack": d}, ("--attack", DIRS[d]), f"{ATTACKS[d]}{at} as the {char.form.name}"))
        return out
    from combatlog.rulesets.magic_realm.spells import working_spell

    if working_spell(state, char.id) is not None:
        for d in (1, 2, 3):
            out.append(({"attack": d}, ("--attack", DIRS[d]), f"{ATTACKS[d]}{at} with the spell"))
    weapon = char.weapon.name if char.weapon is not None else "dagger"
    for chit in _chits(char, ("FIGHT", "BERSERK"), state.used.get(char.id, ())):
        for d in (1, 2, 3):
            out.append(({"attack": d, "fight": chit.id}, ("--attack", DIRS[d], "--fight", chit.id),
                        f"{ATTACKS[d]}{at} with the {weapon} and {_label(chit)}"))
        if char.weapon is not None:
            for how in ("alert", "unalert"):
                out.append(({"fight": chit.id, "alert_only": how}, ("--fight", chit.id, "--alert-only", how),
                            f"plays {_label(chit)} without a target to {how} the {weapon}"))
    return out


def _maneuver_options(state: MRState, char: Character) -> list[tuple[dict[str, Any], tuple[str, ...], str]]:
    out: list[tuple[dict[str, Any], tuple[str, ...], str]] = [({}, (), "makes no maneuver")]
    if not char.present:
        return out
    if char.form is not None:
        for d in (1, 2, 3):
            out.append(({"maneuver": d}, ("--maneuver", MANEUVERS[d]), f"{MOVES[d]} as the {char.form.name}"))
        return out
    for chit in _chits(char, ("MOVE", "DUCK", "BOOTS"), state.used.get(char.id, ())):
        for d in ((3,) if chit.action == "DUCK" else (1, 2, 3)):
            out.append(({"maneuver": d, "move": chit.id}, ("--maneuver", MANEUVERS[d], "--move", chit.id),
                        f"{MOVES[d]} with {_label(chit)}"))
    if char.horse is not None and char.horse.alive:
        for side in ("trot", "gallop"):
            for d in (1, 2, 3):
                out.append(({"maneuver": d, "horse": side}, ("--maneuver", MANEUVERS[d], "--horse", side),
                            f"{MOVES[d]} on the {char.horse.name} ({side})"))
    return out


def _shield(char: Character) -> str:
    shield = next((a for a in char.armor if a.kind == "shield" and a.active and a.condition != "destroyed"), None)
    return shield.name if shield is not None and char.present else ""


def _plays(state: MRState, stream: str, cid: str) -> Iterator[Candidate]:
    from combatlog.rulesets.magic_realm.sealed import play_orders, sealed_for, step_name

    char = state.characters[cid]
    sealed = sealed_for(state, cid)
    if sealed:
        mine = [x for x in deciders(state, "plays") if state.characters[x].player == char.player]
        if len(mine) != 1:
            return  # several characters are sealed together (seal commit --orders-json): not enumerated
    attacks = _attack_options(state, char)
    maneuvers = _maneuver_options(state, char)
    shield = _shield(char)
    boxes = (1, 2, 3) if shield else (0,)
    turn = state.round
    combos: list[tuple[int, int, int]] = [(0, 0, boxes[turn % len(boxes)])]  # no attack, no maneuver
    for i in range(len(attacks)):  # each attack option alone, and with a maneuver option in rotation
        combos += [(i, 0, boxes[i % len(boxes)]), (i, (i * 7 + turn) % len(maneuvers), boxes[(i + 1) % len(boxes)])]
    for j in range(len(maneuvers)):  # each maneuver option alone, and with an attack option in rotation
        combos += [(0, j, boxes[j % len(boxes)]), ((j * 5 + turn) % len(attacks), j, boxes[(j + 2) % len(boxes)])]
    combos += [(turn % len(attacks), (turn * 3) % len(maneuvers), b) for b in boxes]
    seen: set[tuple[int, int, int]] = set()
    group = f"{cid}:plays"
    for combo in combos:
        if combo in seen:
            continue
        seen.add(combo)
        (a_fields, a_words, a_text), (m_fields, m_words, m_text) = attacks[combo[0]], maneuvers[combo[1]]
        box = combo[2]
        fields = {**a_fields, **m_fields}
        words = [*a_words, *m_words]
        text = f"{cid} {a_text}, {m_text}"
        if box:
            fields["shield"] = box
            words += ["--shield", str(box)]
            text += f", the {shield} in the {MANEUVERS[box]}/{DIRS[box]} box (an active shield must be placed)"
        play = c.Play(character=cid, **fields)
        if sealed:
            from combatlog.trust.commands import CommitOrders

            command: Any = CommitOrders(step=step_name(state), orders={"plays": {cid: play_orders(play)}})
            yield Candidate(command=command, argv=("mr", "play", stream, cid, *words, "--seal"),
                            text=f"seal the plays (secret until the reveal): {text}", piece=cid, group=group)
        else:
            yield Candidate(command=play, argv=("mr", "play", stream, cid, *words), text=f"{text} (secret)",
                            piece=cid, group=group)


# -- the Fatigue Step -------------------------------------------------------------------------------------


def _fatigue(state: MRState, stream: str, cid: str) -> Iterator[Candidate]:
    char = state.characters[cid]
    need, types = owed(char, state.used.get(cid, ()))
    group = f"{cid}:fatigue"
    for opt in options(char, need, types)[:MAX_FATIGUE_OPTIONS]:
        after = tuple(_after(ch, opt.fatigue, opt.change) for ch in char.chits)
        for wounds in _wound_choices(char, after, opt.shortfall):
            argv = ["mr", "fatigue", stream, cid]
            for i in opt.fatigue:
                argv += ["--chit", i]
            if opt.change:
                argv += ["--change", opt.change]
            for i in wounds:
                argv += ["--wound", i]
            label = {ch.id: ch.label for ch in char.chits}
            text = f"{cid} {opt.text(char)}"
            if wounds:
                text += "; wounds " + ", ".join(f"{i} {label[i]}" for i in wounds)
            yield Candidate(command=c.Fatigue(character=cid, fatigue=tuple(opt.fatigue), change=opt.change,
                                              wounds=wounds),
                            argv=tuple(argv), text=text, piece=cid, group=group)


def _after(ch: Chit, fatigue: tuple[str, ...], change: str) -> Chit:
    import msgspec

    if ch.id in fatigue:
        return msgspec.structs.replace(ch, status="fatigued")
    if ch.id == change:
        return msgspec.structs.replace(ch, status="active")
    return ch


def _wound_choices(char: Character, after: tuple[Chit, ...], shortfall: int) -> list[tuple[str, ...]]:
    """A few legal choices of the chits to wound (spread over every legal one, first and last included)."""
    total = char.wounds + shortfall
    if not total:
        return [()]
    unwounded = [ch.id for ch in after if ch.status != "wounded"]
    must = min(total, len(unwounded))
    legal = []
    for n, combo in enumerate(combinations(unwounded, must)):
        if n > 3000:
            break
        if not check_wounds(char, after, char.wounds, shortfall, combo):
            legal.append(combo)
    if len(legal) <= MAX_WOUND_CHOICES:
        return legal
    step = (len(legal) - 1) / (MAX_WOUND_CHOICES - 1)
    return [legal[round(k * step)] for k in range(MAX_WOUND_CHOICES)]


def _chits(char: Character, actions: tuple[str, ...], used: tuple[str, ...] = ()) -> list[Chit]:
    """His active chits (and cards) of these kinds not played this round (``used``), one of each label
    (identical chits make the same move)."""
    seen: set[str] = set()
    out = []
    for chit in (*char.chits, *char.extras):
        if chit.action in actions and chit.status == "active" and chit.id not in used and chit.label not in seen:
            seen.add(chit.label)
            out.append(chit)
    return out


def _label(chit: Chit) -> str:
    return f"{chit.id} {chit.label}"


def _pass(state: MRState, stream: str) -> Iterator[Candidate]:
    """``mr pass``: for every character at once where no player is pinned or once the round is passed; else each
    pinned player's vote for one of his characters, and for all his characters still to vote where he has more."""
    from combatlog.rulesets.magic_realm.authority import player_of

    if not state.players or state.round_passed:
        yield Candidate(command=c.Pass(), argv=("mr", "pass", stream),
                        text=f"every character passes the rest of round {state.round} (nobody is left to fight)")
        return
    left = [cid for cid in q.participants(state) if cid not in state.pass_votes]
    by_player: dict[str, list[str]] = {}
    for cid in left:
        by_player.setdefault(player_of(state, cid), []).append(cid)
        yield Candidate(command=c.Pass(characters=(cid,)), argv=("mr", "pass", stream, cid), piece=cid,
                        text=f"{cid} passes the rest of round {state.round}, once every character in the fight does "
                             "(nobody is left to fight)")
    for player, cids in by_player.items():
        if len(cids) > 1:
            yield Candidate(command=c.Pass(characters=tuple(cids)), argv=("mr", "pass", stream, *cids), piece=cids[0],
                            text=f"{', '.join(cids)} pass the rest of round {state.round}, once every character in "
                                 "the fight does")
