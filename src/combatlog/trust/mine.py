"""Whose move: who takes each decision, who the combat waits for, and the seed steps of joint dice.

``status --mine`` and the mail give a player's moves from the rules' legal moves (trust/offers.py
``moves_of``); ``pending_moves`` here serves a ruleset that lists none (no ``Ruleset.candidates``): what
``pending`` says he owes, without commands, and the sealed steps the log has open for him.

The referee's steps (``pending`` names them ``gm``: rounds, initiative, random assignment...) belong
to the referee: ``gm`` when the combat pins nobody or pins a ``gm``; in a combat that pins players but no
``gm``, the player who created it, who runs them in every worked example (docs/trust.md, "Whose move").
"""

from __future__ import annotations

from typing import Any

import msgspec

from combatlog.errors import CombatlogError
from combatlog.projections.fold import Folded
from combatlog.store.base import EventStore, StreamMeta
from combatlog.trust.api import MyMove, command_line

REFEREE = "gm"
NO_PLAYER = " (no player)"  # ends ``Pending.who`` for a piece no player plays ("carl (no player)")


def referee_of(store: EventStore, meta: StreamMeta) -> str:
    """Who takes the referee's steps of ``meta``'s combat (see the module's docstring)."""
    from combatlog.events.envelope import decode_recorded
    from combatlog.projections.fold import lineage

    try:
        root = lineage(store, meta)[0][0]
    except CombatlogError:  # a broken stream table: no referee to guess
        return REFEREE
    rows = store.read_stream(root.id, 1, 1)
    if not rows:
        return REFEREE
    rec = decode_recorded(rows[0].body)
    named = getattr(rec.event, "options", {}).get("referee", "")
    if named:  # new --referee NAME (commands/authority.py)
        return named  # type: ignore[no-any-return]
    players = [p.name for p in getattr(rec.event, "players", ())]
    if not players or REFEREE in players:
        return REFEREE
    return rec.env.actor


def step_taker(who: str, referee: str) -> str:
    """How ``status`` and a mail name who takes a pending step: ``pending``'s ``gm`` with the player who takes
    the referee's steps here (``referee_of``), when that is someone else."""
    return f"{REFEREE} ({referee}: the referee's step)" if who == REFEREE and referee != REFEREE else who


def moves_unplayed(folded: Folded, player: str) -> bool:
    """Whether ``player`` may move the pieces no player plays: the referee's where the combat has one, any
    player's where it has none (commands/authority.py)."""
    from combatlog.commands.authority import roles_of

    roles = roles_of(folded.ruleset, folded.core.genesis, folded.core.creator)
    return roles.referee == player if roles.referee else True


def pending_moves(store: EventStore, meta: StreamMeta, folded: Folded, player: str) -> tuple[bool, list[MyMove]]:
    """(whether ``player`` takes the referee's steps, what ``player`` must decide now) for a ruleset that lists no
    legal moves (trust/offers.py ``moves_of`` stands on them for one that does): each decision ``pending`` says he
    owes (his own, the referee's steps if he takes them, the pieces he plays), without a command, since nothing
    tells which command lines the rules would accept; then the sealed steps the log has open for him (a commit,
    a reveal, a chain link), with theirs."""
    referee = player == referee_of(store, meta)
    ruleset, state = folded.ruleset, folded.state
    unplayed = moves_unplayed(folded, player)
    moves = [MyMove(what=p.what if p.who in (player, REFEREE) else f"{p.who}: {p.what}", rule=p.rule,
                    options=tuple(p.options))
             for p in ruleset.pending(state) if p.who == player or (referee and p.who == REFEREE)
             or _plays(ruleset, state, p.who, player, unplayed)]
    return referee, moves + _sealed_steps(store, folded, meta.name, player)


# -- joint dice: a seed before the dice (docs/trust.md, "Whose move") ------------------------------------------


class SeedNow(msgspec.Struct, frozen=True, kw_only=True):
    """Where a combat with joint dice stands for its next die (``seed_now``)."""

    players: tuple[str, ...]  # the pinned players: every seed step needs each of them
    why: str  # why no joint die can be drawn now ('' when one can)
    open: str  # the seed step open now ('' when none): no other may open before it is complete
    waiting: tuple[tuple[str, str], ...]  # whom it waits for: (player, "commit" | "reveal" | "link")
    chained: bool  # a fresh step would be seeded by chain links (every player has a chain)
    released: frozenset[str]  # players whose chain is released: their links contribute by themselves
    taken: frozenset[str]  # the step names this combat has used

    @property
    def usable(self) -> bool:
        return not self.why

    def waits(self, player: str = "") -> str:
        """"bob (commit), gm (link)": whom the open step waits for (``player`` named "you")."""
        return ", ".join(f"{'you' if p == player else p} ({what})" for p, what in self.waiting)

    def fresh(self, base: str) -> str:
        """``base``, or ``base#2``... when this combat has used it (a step is sealed once)."""
        from combatlog.trust.sealed import fresh_step

        return fresh_step(base, self.taken)


def seed_now(store: EventStore, folded: Folded) -> SeedNow | None:
    """For a combat with joint dice and pinned players (else None): can a joint die be drawn now, and which seed
    step is open. The same facts ``joint_key`` refuses a die on (trust/sealed.py)."""
    from combatlog.trust.sealed import scanned, will_chain

    genesis = folded.core.genesis
    if genesis is None or genesis.dice != "joint" or not genesis.players:
        return None
    checker = scanned(store, folded.core)
    seed = checker.seed_step
    decisions = checker.decisions.get(seed.name) if seed is not None else None
    if seed is None:
        why = "no joint dice seed yet"
    elif decisions and checker.mode == "strict":
        d = decisions[0]
        why = (f"the seed of step {seed.name} was known when {d.player} decided ({d.what}, #{d.seq}): strict mode "
               "draws no more dice from it")
    else:
        why = ""
    info = checker.step_open()
    waiting: tuple[tuple[str, str], ...] = ()
    if info is not None:
        if info.chained:  # a link needs no commit; a sealed commit in a chained step is revealed once all are in
            ready = not info.missing_commits()
            waiting = tuple((p, "reveal" if p in info.commits else "link") for p in info.required
                            if p not in info.reveals and (ready or p not in info.commits))
        elif info.missing_commits():
            waiting = tuple((p, "commit") for p in info.missing_commits())
        else:
            waiting = tuple((p, "reveal") for p in info.missing_reveals())
    players = tuple(checker.players)
    return SeedNow(players=players, why=why, open=info.name if info is not None else "", waiting=waiting,
                   chained=will_chain(checker, players), taken=frozenset(checker.steps),
                   released=frozenset(p for p, chain in checker.chains.items() if chain.secret))


def fresh_seed_move(seed: SeedNow, name: str, stream: str, player: str, *, what: str = "") -> MyMove:
    """``player``'s contribution to a fresh seed step ``name``: his next chain link, or a nonce to commit (then
    reveal). ``what``: the move the dice are for, said first."""
    from combatlog.trust.track import RULE_JOINT

    head = f"{what}: its joint dice need a seed first ({seed.why})" if what else \
        f"joint dice need a seed first ({seed.why})"
    if seed.chained:
        return MyMove(what=f"{head}: contribute your next chain link to seed step {name} (one message; every "
                           "player does)", rule=RULE_JOINT,
                      command=command_line("seal", "link", stream, "--step", name, actor=player), step=name)
    return MyMove(what=f"{head}: commit a nonce to seed step {name} (every player commits, then each reveals with "
                       f"seal reveal {stream} --step {name})", rule=RULE_JOINT,
                  command=command_line("seal", "commit", stream, "--step", name, actor=player), step=name)


def seed_step_base(ruleset: Any, state: Any) -> str:
    """The name a fresh seed step takes (``#2``... added where it was used): the ruleset's own
    (``seed_step_name``: Argad's "t2", after the first part of its dice labels, as ``joint_key``'s refusal
    names it), else the round's, "r3". Every player is told the same name, or two steps would wait on each other."""
    if state is None:
        return "r1"
    own = getattr(ruleset, "seed_step_name", None)
    return own(state) if own is not None else f"r{max(1, ruleset.current_round(state))}"


def _plays(ruleset: Any, state: Any, piece: str, player: str, unplayed: bool) -> bool:
    """Whether ``player`` makes the decisions of ``piece`` (``Ruleset.players_of``: its players, or, for a piece no
    player plays, whoever may move such pieces)."""
    players = ruleset.players_of(state, piece)
    return players is not None and (player in players if players else unplayed)


def _sealed_steps(store: EventStore, folded: Folded, stream: str, player: str) -> list[MyMove]:
    """Sealed steps waiting for ``player``'s commit or reveal, from the log (any ruleset)."""
    from combatlog.trust.sealed import scanned
    from combatlog.trust.track import RULE_SEAL

    out = []
    for info in scanned(store, folded.core).steps.values():
        if info.completed_at:
            continue
        if info.chained and player not in info.reveals and player not in info.commits:
            out.append(MyMove(what=f"contribute your next chain link to seed step {info.name} (one message: no "
                                   "commit and reveal)", rule=RULE_SEAL,
                              command=command_line("seal", "link", stream, "--step", info.name, actor=player),
                              step=info.name))
        elif player in info.missing_commits():
            out.append(MyMove(what=f"commit to step {info.name}: as it stands a nonce for the joint dice; your "
                                   "orders, if any, with --orders-json '{...}' (only their hash enters the log)",
                              rule=RULE_SEAL, command=command_line("seal", "commit", stream, "--step", info.name,
                                                                   actor=player), step=info.name))
        elif not info.missing_commits() and player in info.missing_reveals():
            out.append(MyMove(what=f"reveal what you sealed to step {info.name} (every required commit is in)",
                              rule=RULE_SEAL, command=command_line("seal", "reveal", stream, "--step", info.name,
                                                                   actor=player), step=info.name))
    return out


def out_of_the_fight(folded: Folded, player: str) -> str:
    """Why ``player`` has nothing more to decide in this fight (his characters are dead or gone), in the
    words every view uses ("" while he is in it, or when the ruleset cannot tell: its ``out_of_the_fight``)."""
    hook = getattr(folded.ruleset, "out_of_the_fight", None)
    how = hook(folded.state, player) if hook is not None else ""
    return f"{how}: out of this fight, you have nothing more to decide in it" if how else ""


def out_of_the_fight_all(store: EventStore, meta: StreamMeta, folded: Folded) -> dict[str, str]:
    """For ``status``: each pinned player out of the fight, with how ("bk is dead")."""
    from combatlog.trust.players import genesis_of

    hook = getattr(folded.ruleset, "out_of_the_fight", None)
    genesis = genesis_of(store, meta)
    if hook is None or genesis is None:
        return {}
    found = {p.name: hook(folded.state, p.name) for p in genesis.players}
    return {name: how for name, how in found.items() if how}


def unplayed_mover(folded: Folded) -> str:
    """Who moves the pieces no player plays: the combat's referee, "" where it has none (anyone may)."""
    from combatlog.commands.authority import roles_of

    return roles_of(folded.ruleset, folded.core.genesis, folded.core.creator).referee


def piece_taker(players: tuple[str, ...] | None, piece: str, mover: str) -> str:
    """How "waiting for" and the mail name who decides for ``piece`` (``Ruleset.players_of`` gave
    ``players``): its players with it ("bob (orc1)"); for a piece no player plays, the referee who moves it
    (``unplayed_mover``: "rita (orc1)"); else the piece alone."""
    if players:
        return f"{' or '.join(players)} ({piece})"
    return f"{mover} ({piece})" if players == () and mover else piece


def waiting_for(store: EventStore, meta: StreamMeta, folded: Folded, player: str) -> list[str]:
    """Who else the combat waits for (``pending``; the referee's steps under the referee's name, a piece's
    decision under its players' names, or its referee's where no player plays it)."""
    referee = referee_of(store, meta)
    ruleset, state = folded.ruleset, folded.state
    unplayed = moves_unplayed(folded, player)
    mover = unplayed_mover(folded)
    names = []
    for p in ruleset.pending(state):
        if p.who != REFEREE and _plays(ruleset, state, p.who, player, unplayed):
            continue  # his own piece's decision: his move, not someone to wait for
        players = ruleset.players_of(state, p.who) if p.who != REFEREE else None
        names.append(referee if p.who == REFEREE else piece_taker(players, p.who, mover))
    if unplayed:  # pieces no player plays ("carl (no player)") are his to move too
        names = [n for n in names if not n.endswith(NO_PLAYER)]
    seed = seed_now(store, folded)
    if seed is not None and seed.open:  # the open seed step's missing parts: no die is drawn before them
        names += [p for p, _what in seed.waiting if not any(n.startswith(f"{p} (") for n in names)]
    return list(dict.fromkeys(n for n in names if n != player and not n.startswith(f"{player} (")))


def moves_json(moves: list[MyMove], player: str) -> list[dict[str, Any]]:
    return [{"who": player, "what": m.what, "options": list(m.options), "rule": m.rule, "command": m.command,
             "waiting": m.waiting or None} for m in moves]


# -- plain status: who takes each pending decision, and which commands can run now ---------------------------


def takers(store: EventStore, meta: StreamMeta, folded: Folded, pending: list[Any]) -> list[tuple[str, Any]]:
    """For each of ``pending``: how ``status`` and the pictures name who takes it, as ``waiting_for`` and the
    mail do ("bob (orc1)", "alice (party)", "rita (orc1)" for a piece no player plays, "gm (alice: the
    referee's step)"), and the players who take it, whom its command lines run as: the piece's players, the
    referee (for his steps and the pieces no player plays), the pinned player ``pending`` names, or None
    where nobody can tell (the name ``pending`` gives stands)."""
    ruleset, state = folded.ruleset, folded.state
    referee = referee_of(store, meta) if any(p.who == REFEREE for p in pending) else REFEREE
    mover = unplayed_mover(folded)
    genesis = folded.core.genesis
    pinned = {p.name for p in genesis.players} if genesis is not None else set()
    out: list[tuple[str, Any]] = []
    for p in pending:
        if p.who == REFEREE:
            out.append((step_taker(p.who, referee), (referee,)))
            continue
        players = ruleset.players_of(state, p.who)
        if players is None:  # a player by name ("bob", "bob (amazon)"), or a name the ruleset does not place
            player = p.who.partition(" (")[0]
            out.append((p.who, (player,) if player in pinned else None))
        else:
            out.append((piece_taker(players, p.who, mover), players or ((mover,) if mover else None)))
    return out


def _kind(command: str) -> str:
    return " ".join(command.split()[1:3])
