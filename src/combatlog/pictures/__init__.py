"""Pictures of a combat: ``combatlog sheet`` (an SVG of the state at one point) and ``combatlog report``
(one self-contained HTML file).

Each picture is drawn from the projections: the ruleset's ``describe(state, viewer)`` data, the
explain steps, the log's sealed orders. No rule is evaluated here; a ruleset module only lays out what
its ``describe`` says. ``viewer`` is passed to ``describe`` (and ``conceals``), so ``--as PLAYER`` draws
only what that player may see, and sealed orders are drawn face down until they are revealed.

One module per ruleset (``magic_realm``, ``freeform``, ``classic_fantasy``, ``osric``, ``argad``), each
with ``draw(scene, canvas_prefix) -> str``; shared drawing in ``svg`` and ``common``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from combatlog.pictures.scene import Scene, Sealed

if TYPE_CHECKING:
    from combatlog.events.envelope import Recorded
    from combatlog.projections.fold import Folded
    from combatlog.store.base import EventStore, StreamMeta

# Rulesets whose picture lists the round's explain steps (the others draw the round from describe).
STEPS_DRAWN = ("freeform",)

DRAWERS = {
    "magic_realm": "combatlog.pictures.magic_realm",
    "freeform": "combatlog.pictures.freeform",
    "classic_fantasy": "combatlog.pictures.classic_fantasy",
    "osric": "combatlog.pictures.osric",
    "argad": "combatlog.pictures.argad",
}


def sealed_orders(store: EventStore, meta: StreamMeta, upto: int) -> list[Sealed]:
    """Every sealed order committed up to seq ``upto``, marked revealed once its reveal is in."""
    from combatlog.projections.fold import history

    out: dict[tuple[str, str], Sealed] = {}
    for rec in history(store, meta, 1, upto):
        note_sealed(out, rec)
    return list(out.values())


def note_sealed(out: dict[tuple[str, str], Sealed], rec: Recorded) -> None:
    """Keep ``out`` (by step and player) up to date with ``rec``, a sealed order's commit or reveal: for the
    walks that read each event once (the report, the live page) instead of calling ``sealed_orders``."""
    from combatlog.events.core import OrdersCommitted, OrdersRevealed

    ev = rec.event
    if type(ev) is OrdersCommitted:
        out[(ev.step, ev.player)] = Sealed(step=ev.step, player=ev.player, seq=rec.seq)
    elif type(ev) is OrdersRevealed and (ev.step, ev.player) in out:
        out[(ev.step, ev.player)].revealed = True


def round_steps(store: EventStore, meta: StreamMeta, folded: Folded, viewer: str | None) -> list[Any]:
    """The explain steps of the round ``folded`` is in, up to its seq (concealed ones left out)."""
    from combatlog.projections.fold import state_at
    from combatlog.projections.views import walk

    core = folded.core
    first = core.round_first.get(folded.ruleset.round_of(folded.state), 1)
    head = state_at(store, meta)
    return [s for row in walk(store, meta, first, core.head_seq, viewer, head) for s in row.steps
            if not row.concealed]


def scene_of(store: EventStore, meta: StreamMeta, folded: Folded, viewer: str | None, *,
             with_steps: bool | None = None, sealed: list[Sealed] | None = None,
             with_pending: bool = True, steps: list[Any] | None = None) -> Scene:
    """What the sheet at ``folded`` shows. ``sealed``: the sealed orders up to that point (the report and the
    live page track them in their one pass), and ``steps``: the round's steps as ``round_steps`` gives them
    (the live page), when the caller already has them, instead of reading the log again. ``with_pending``
    False leaves out "Waiting for" (the live page says it once, above the sheet)."""
    ruleset, state, core = folded.ruleset, folded.state, folded.core
    genesis = core.genesis
    if with_steps is None:
        with_steps = ruleset.info.name in STEPS_DRAWN
    data = ruleset.describe(state, viewer)
    if not with_pending and "pending" in data:
        data = {**data, "pending": []}
    return Scene(
        stream=meta.name, ruleset=ruleset.info.name, title=ruleset.info.title, seq=core.head_seq,
        round=ruleset.round_of(state), finished=ruleset.finished(state), viewer=viewer,
        data=data, state=state,
        sealed=sealed if sealed is not None else sealed_orders(store, meta, core.head_seq),
        players=[p.name for p in genesis.players] if genesis is not None else [],
        pending=_pending(store, meta, folded) if with_pending else [],
        steps=(steps if steps is not None else round_steps(store, meta, folded, viewer)) if with_steps else [],
    )


def _pending(store: EventStore, meta: StreamMeta, folded: Folded) -> list[tuple[str, str]]:
    """(who, what) the combat waits for, who named as ``status`` names him: a piece with its players ("bob
    (orc1)"), the referee's steps with who takes them (trust/mine.py ``takers``)."""
    from combatlog.trust.mine import takers

    pending = folded.ruleset.pending(folded.state)
    return [(name, p.what) for p, (name, _players) in zip(pending, takers(store, meta, folded, pending))]


def draw(scene: Scene, prefix: str = "p") -> str:
    """The SVG document of ``scene`` (ids start with ``prefix``, so that several can share a page)."""
    module = DRAWERS.get(scene.ruleset)
    # The drawers are imported by name (they import Scene from pictures.scene, never this package)
    return importlib.import_module(module or "combatlog.pictures.generic").draw(scene, prefix)  # type: ignore[no-any-return]


def sheet_svg(store: EventStore, meta: StreamMeta, folded: Folded, viewer: str | None, prefix: str = "p",
              with_pending: bool = True) -> str:
    return draw(scene_of(store, meta, folded, viewer, with_pending=with_pending), prefix)
