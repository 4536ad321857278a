"""The dice port verify's re-decision hands ``decide`` (``exchange/redecide.py``): a batch that holds no die gets
the port its actor's other such batches had, and it never changes."""

from __future__ import annotations

import msgspec
import pytest

from combatlog.errors import VerificationFailed
from combatlog.events.canonical import canonical
from combatlog.events.core import DiceRolled
from combatlog.events.envelope import GENESIS_PREV, decode_envelope, seal
from combatlog.exchange.verify import ChainVerifier, segments_of
from combatlog.projections.streams import resolve_stream
from combatlog.store import open_store
from combatlog.wiring import standard
from tests.core.helpers import duel, hit


def test_a_batch_stripped_of_its_die_is_refused_after_batches_without_dice() -> None:
    """Batches that hold no die share one dice port per actor for the whole verify (``Redecider``): any die the
    rules draw from it is refused before it changes. The attack: a modified client drops the die of a damage
    command (``freeform damage``: die, then hp change) and moves the command record onto the hp change,
    re-chaining the log; the re-decision draws the die and the batch holds none. The port the three earlier
    batches without dice used is the one that refuses it, and it is left as it was made."""
    store = open_store(":memory:")
    duel(store)  # seqs 2-4: two joins and a round, no die
    hit(store, "duel", "Bo", 5, label="hit/Bo/5")  # seq 5 the die (with the command), seq 6 the hp change
    meta = resolve_stream(store, "duel")
    envs = [decode_envelope(row.body) for row in store.read_stream(meta.id, 1, 100)]
    assert type(envs[4].payload()) is DiceRolled and envs[4].command is not msgspec.UNSET
    forged_envs = [*envs[:4], msgspec.structs.replace(envs[5], command=envs[4].command)]
    lines, prev = [], GENESIS_PREV
    for seq, env in enumerate(forged_envs, 1):
        command = None if env.command is msgspec.UNSET else bytes(env.command)
        sealed = seal(stream=env.stream, seq=seq, prev=prev, event=env.payload(), actor=env.actor,
                      command_id=env.command_id, recorded_at=env.recorded_at, command=command,
                      state=None if env.state is msgspec.UNSET else env.state)
        lines.append(canonical(sealed))
        prev = sealed.hash
    verifier = ChainVerifier(segments_of(store, meta), wiring=standard())
    with pytest.raises(VerificationFailed) as info:
        for i, body in enumerate(lines):
            verifier.feed(body, f"duel#{i + 1}")
        verifier.finish()
    # re-deciding draws the die from the shared port and fails; a refusal names first the die an event of the
    # batch misuses (redecide.py), as when each event was checked on arrival
    assert "seq 5: ff.hp_changed delta (hp lost) reads die 'hit/Bo/5', which was not drawn before it" in str(info.value)
    ports = verifier.redecider._ports
    assert list(ports) == ["gm"] and ports["gm"].drawn == [] and not ports["gm"]._drawn_labels
