"""Who may issue each Magic Realm command (commands/authority.py; docs/design.md, "Who may issue what").

A character is the player's its set-up entry names (``"player": "alice"``); a character whose entry
names no player (its player defaults to its own id) is the referee's where there is one, anyone's
where there is none. Denizens move by the rules' dice, not by commands. Steps of the procedure
(assignment, the melee's start, resolution) are decided by the rules and anyone may run them.
"""

from __future__ import annotations

from typing import Any

from combatlog.commands.authority import ANYONE, Authority, pieces, ruling
from combatlog.rulesets.magic_realm import commands as c
from combatlog.rulesets.magic_realm.state import MRState

RULE = "MR: each character's moves are its player's (the set-up's player fields)"

_VERBS = {c.Lure: "lure with", c.Deploy: "deploy", c.Act: "act with", c.Target: "target with",
          c.Play: "play", c.Fatigue: "fatigue or wound", c.Concede: "concede for"}


def player_of(state: MRState, character: str) -> str:
    ch = state.characters.get(character)
    if ch is None or not ch.player or (ch.player == ch.id and ch.player not in state.players):
        return ""  # no player named: the default is the character's own id
    return ch.player


def authority(state: MRState, command: Any) -> Authority:
    verb = _VERBS.get(type(command))
    if isinstance(command, c.Pass):
        if command.characters:  # a pinned player's vote: for his own characters only
            return pieces({cid: (player_of(state, cid),) if player_of(state, cid) else ()
                           for cid in command.characters}, what="pass for", rule=RULE)
        if state.round_passed:  # the next steps of a round every character passed
            return ANYONE
        # it decides for every character: the referee's where the combat has one (no pinned player's plays
        # can be made by it: decide refuses it where players are pinned)
        return ruling("pass for every character", rule="MR 001: every character passes")
    if verb is None:
        return _sealed(state, command)
    character = command.character
    player = player_of(state, character)
    return pieces({character: (player,) if player else ()}, what=verb, rule=RULE)


def _sealed(state: MRState, command: Any) -> Authority:
    """Who may make a sealed step's move (the write path does not ask: the trust layer checks it against the
    step itself; ``commands/legal.py`` asks, to offer each to the player who owes it): sealed plays, the
    players of the characters they name; a reveal, the players who owe one."""
    from combatlog.trust.commands import CommitOrders, RevealLink, RevealOrders

    if isinstance(command, RevealLink) or (isinstance(command, CommitOrders) and command.orders in ({}, {"plays": {}})):
        # a contribution to a seed step (mr seed): each pinned player who has not contributed yet (the trust
        # layer takes it or not from each)
        from combatlog.rulesets.magic_realm.sealed import seed_owers

        return pieces({f"seed step {command.step}": seed_owers(state, command.step) or ("",)},
                      what="contribute to", rule=RULE)
    if isinstance(command, CommitOrders) and isinstance(command.orders.get("plays"), dict) and command.orders["plays"]:
        return pieces({cid: (player_of(state, cid),) if player_of(state, cid) else ()
                       for cid in command.orders["plays"]}, what="seal the plays of", rule=RULE)
    if isinstance(command, RevealOrders):
        owing = tuple(sorted({p for info in state.sealed.values() if not info.complete
                              for p, what in info.waiting() if what == "reveal"}))
        if owing:
            return pieces({"the sealed orders": owing}, what="reveal", rule=RULE)
    return ANYONE
