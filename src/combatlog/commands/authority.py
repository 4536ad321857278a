"""Who may issue a command: the player a piece belongs to, the referee for rulings.

The roles are named in the genesis: the pinned players (``new --player``), the referee
(``new --referee NAME``, the option ``referee``; for a ruleset refereed by nature such as
OSRIC, the combat's creator when none is named). A ruleset says, per command, what it
needs (``Ruleset.authority``) and who plays each piece (``Ruleset.player_of``); this
module decides, the same way on the write path and in ``verify`` (which re-runs it for
every recorded command), so an event its author was not allowed to cause cannot verify.

Where no player is pinned and no referee named (one machine, a hot seat), nothing is
enforced: ``--as`` is a label there, not an identity.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Protocol

import msgspec

from combatlog.errors import IllegalCommand

if TYPE_CHECKING:
    from combatlog.events.core import CombatStarted

RULE = "authority: a piece's moves are its player's, rulings the referee's (docs/design.md, Who may issue what)"


class Authority(msgspec.Struct, frozen=True, kw_only=True):
    """What a command needs. ``kind``: ``anyone`` (a step of the procedure, decided by the rules),
    ``pieces`` (a move of these pieces: each by one of its players), ``referee`` (a ruling).

    ``owners``: per piece, the players it belongs to; a piece that belongs to nobody is the referee's
    where the combat has one, anyone's where it has none."""

    kind: str = "anyone"
    owners: tuple[tuple[str, tuple[str, ...]], ...] = ()
    what: str = ""  # the command in words, for refusals ("lure for", "strike with")
    rule: str = RULE
    referee_too: bool = False  # the referee may also do it (seat a participant for its player)
    hint: str = ""  # what to do instead, added to a refusal ("hold them first: ...")
    # the command's dice are its pieces' own, so their players may type the faces in; False for a step that
    # passes over pieces (ending a turn over their open blows) and rolls dice that are not theirs
    pieces_dice: bool = True


ANYONE = Authority()


class Rules(Protocol):
    """What this module asks of a ruleset (``rulesets.base.Ruleset``, which imports this module for
    ``Authority``): who referees by default, and what each command needs."""

    referee_by_default: bool

    def authority(self, state: Any, command: Any) -> Authority: ...


def pieces(owners: dict[str, tuple[str, ...]] | list[tuple[str, tuple[str, ...]]], *, what: str = "act",
           rule: str = RULE, referee_too: bool = False, hint: str = "", pieces_dice: bool = True) -> Authority:
    """A move of the pieces ``owners`` names, each with the players it belongs to."""
    items = owners.items() if isinstance(owners, dict) else owners
    return Authority(kind="pieces", owners=tuple((piece, tuple(players)) for piece, players in items),
                     what=what, rule=rule, referee_too=referee_too, hint=hint, pieces_dice=pieces_dice)


def ruling(what: str, rule: str = RULE) -> Authority:
    return Authority(kind="referee", what=what, rule=rule)


class Roles(msgspec.Struct, frozen=True, kw_only=True):
    referee: str = ""  # "" where the combat has none
    referee_named: bool = False  # named by --referee (not the ruleset's default)
    players: tuple[str, ...] = ()  # pinned
    enforced: bool = False

    def describe(self) -> str:
        if not self.enforced:
            return "roles: not enforced (no pinned player and no referee: --as is a label)"
        ref = (f"referee {self.referee}" + ("" if self.referee_named else " (the creator, by default)")
               if self.referee else "no referee (rulings are any player's)")
        return f"roles: {ref}; players {', '.join(self.players) or 'none pinned'}"


def roles_of(ruleset: Rules, genesis: CombatStarted | None, creator: str) -> Roles:
    if genesis is None:
        return Roles()
    players = tuple(p.name for p in genesis.players)
    named = genesis.options.get("referee", "")
    enforced = bool(players or named)
    referee = named or (creator if enforced and ruleset.referee_by_default else "")
    return Roles(referee=referee, referee_named=bool(named), players=players, enforced=enforced)


def check_authority(ruleset: Rules, state: Any, roles: Roles, command: Any, actor: str, *,
                    manual_dice: bool = False) -> Authority:
    """Refuse ``command`` unless ``actor`` may issue it (raises ``IllegalCommand`` naming who may).

    ``manual_dice``: the command's dice were typed in (``--face``); only a piece's own player or the
    referee may type the faces of its dice."""
    if not roles.enforced or state is None:
        return ANYONE
    need = ruleset.authority(state, command)
    what = need.what or f"issue {type(command).__name__}"
    if need.kind == "referee":
        if roles.referee and actor != roles.referee:
            raise IllegalCommand(f"{what} is a ruling: only the referee, {roles.referee}, may make it "
                                 f"(not {actor})", rule=need.rule)
    elif need.kind == "pieces":
        for piece, players in need.owners:
            allowed = players or ((roles.referee,) if roles.referee else ())
            if need.referee_too and roles.referee and players:
                allowed = (*players, roles.referee)
            if allowed and actor not in allowed:
                whose = (f"belongs to {' or '.join(players)}" if players
                         else f"is played by the referee, {roles.referee}")
                hint = f"; {need.hint}" if need.hint else ""
                raise IllegalCommand(f"{piece} {whose}; {actor} may not {what} it{hint}", rule=need.rule)
    if manual_dice and roles.referee and actor != roles.referee and not (need.kind == "pieces" and need.pieces_dice):
        raise IllegalCommand(f"faces typed in for {what}: only the referee, {roles.referee}, may enter the faces "
                             f"of dice that do not belong to {actor}'s own pieces", rule=need.rule)
    return need


PLAYER_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


def side_players(raw: Any, sides: list[str]) -> dict[str, list[str]]:
    """A set-up's ``players``, who plays each side: ``{"party": ["alice", "carol"], "orcs": ["bob"]}``.
    Every known side (none other), each player on one side; in OSRIC the first named is the side's caller."""
    from combatlog.errors import InvalidCommand

    if not isinstance(raw, dict) or set(raw) - set(sides):
        raise InvalidCommand(f"players: an object of side: [player, ...] for the sides {', '.join(sides)}")
    out: dict[str, list[str]] = {}
    seen: set[str] = set()
    for side in sides:
        names = raw.get(side, [])
        if not isinstance(names, list) or not all(isinstance(n, str) and PLAYER_NAME.match(n) for n in names):
            raise InvalidCommand(f"players.{side}: a list of player names (letters, digits, _ . -)")
        for n in names:
            if n in seen:
                raise InvalidCommand(f"players: {n} is named twice (a player plays one side)")
            seen.add(n)
        out[side] = list(names)
    return out
