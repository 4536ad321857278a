"""What every CLI module shares: the context, options, output and the write call.

Only ``cli/`` imports typer. Heavy modules (rulesets, stores) are imported
inside functions so that ``combatlog --help`` and read commands start fast.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import typer

from combatlog.errors import InvalidCommand
from combatlog.text import one_line, printable  # noqa: F401  (one_line: for the row views)

if TYPE_CHECKING:
    from combatlog.commands.handler import Outcome, Signer
    from combatlog.projections.fold import Folded
    from combatlog.store.base import EventStore, StreamMeta


@dataclass
class AppState:
    db: str | None = None
    actor: str = "gm"
    command_id: str | None = None
    _store: Any = field(default=None, repr=False)

    def store(self) -> EventStore:
        if self._store is None:
            from combatlog.store import open_store

            self._store = open_store(self.db)
        return self._store  # type: ignore[no-any-return]

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None


def _trust_signer(state: AppState, stream: StreamMeta) -> Signer | None:
    """The trust layer's signer for ``state.actor``: None when the combat pins no players;
    refuses when the actor is not pinned or their secret key is not held here."""
    from combatlog.trust.players import signer_for_stream

    return signer_for_stream(state.store(), stream, state.actor)  # type: ignore[no-any-return]


# (state, stream) -> a signer for state.actor, or None. Set here (not by cli/keys.py,
# which the root app loads lazily) so that every write command is signed.
SIGNER_FACTORY: Callable[[AppState, StreamMeta], Signer | None] | None = _trust_signer


def app_state(ctx: typer.Context) -> AppState:
    obj = ctx.find_root().obj
    if not isinstance(obj, AppState):
        obj = ctx.find_root().obj = AppState()
    return obj


def complete_stream(ctx: typer.Context, incomplete: str) -> list[str]:
    """Shell completion: the names of the combats in the selected log."""
    try:
        from combatlog.store import open_store

        db = (ctx.find_root().params or {}).get("db")
        store = open_store(db)
        return [m.name for m in store.list_streams() if m.name.startswith(incomplete)]
    except Exception:  # completion must never crash the shell
        return []


def stream_argument(help_text: str = "The combat: its name, id or a unique id prefix.") -> Any:
    return typer.Argument(..., help=help_text, autocompletion=complete_stream, show_default=False)


JSON_HELP = "Print JSON (the stable contract) instead of text."


def json_option() -> Any:
    return typer.Option(False, "--json", help=JSON_HELP)


def dice_scheme_option() -> Any:
    return typer.Option(None, "--dice", help="Dice scheme for this command: manual, local, referee or joint "
                                           "(default: the combat's own).")


def faces_option() -> Any:
    return typer.Option([], "--face", metavar="LABEL=FACES",
                        help="Manual dice: the faces rolled for a label, e.g. --face r1/attack=3,5 (repeatable).")


def parse_face_options(items: list[str]) -> dict[str, tuple[int, ...]]:
    from combatlog.dice.notation import parse_faces

    out: dict[str, tuple[int, ...]] = {}
    for item in items:
        label, sep, faces = item.partition("=")
        if not sep or not label:
            raise InvalidCommand(f"--face {item!r}: expected LABEL=FACES, e.g. r1/attack=3,5")
        out[label] = parse_faces(faces)
    return out


# -- output ------------------------------------------------------------------------


def print_json(value: Any) -> None:
    import msgspec

    sys.stdout.write(msgspec.json.encode(value).decode() + "\n")


def echo(text: str = "") -> None:
    """Human output: any control character from the log is shown escaped (combatlog.text)."""
    sys.stdout.write(printable(text) + "\n")


def terminal_width() -> int | None:
    """The columns human views wrap at: the terminal's width (``COLUMNS`` when set) when stdout is
    a terminal; None (no wrapping) when it is a pipe or a file."""
    import shutil

    if not sys.stdout.isatty():
        return None
    return shutil.get_terminal_size().columns


def echo_view(text: str = "") -> None:
    """A view's text for people (show, status, explain, sheets...): as ``echo``, and on a terminal
    every line longer than its width wrapped, continuation lines indented (``combatlog.text.wrap``)."""
    from combatlog.text import wrap

    out = printable(text)
    width = terminal_width()
    sys.stdout.write((wrap(out, width) if width else out) + "\n")


def note(text: str) -> None:
    """Diagnostics and progress go to stderr, so stdout stays data."""
    sys.stderr.write(printable(text) + "\n")


def steps_json(steps: Any) -> list[dict[str, Any]]:
    """Steps as JSON; a step that carries data (``Step.data``) has it under ``data``."""
    return [{"seq": s.seq, "rule": s.rule, "text": s.text, "dice": list(s.dice)}
            | ({"data": s.data} if getattr(s, "data", None) is not None else {}) for s in steps]


def outcome_json(outcome: Outcome) -> dict[str, Any]:
    return {
        "stream": outcome.stream.name, "id": outcome.stream.id,
        "first_seq": outcome.first_seq, "last_seq": outcome.last_seq, "duplicate": outcome.duplicate,
        "events": [{"seq": r.seq, "type": r.env.type, "hash": r.env.hash} for r in outcome.events],
        "steps": steps_json(outcome.steps),
    }


def print_outcome(outcome: Outcome, as_json: bool) -> None:
    if as_json:
        print_json(outcome_json(outcome))
        return
    if outcome.duplicate:
        echo(f"{outcome.stream.name}: already recorded as {outcome.first_seq}-{outcome.last_seq} (same command id)")
        return
    ruleset = outcome.folded.ruleset if outcome.folded else None
    for rec in outcome.events:
        summary = ruleset.summarize(rec.event) if ruleset else rec.env.type
        echo(one_line(f"{outcome.stream.name} #{rec.seq}  {summary}"))
    for step in outcome.steps:
        dice = f"  [dice: {', '.join(step.dice)}]" if step.dice else ""
        echo(one_line(f"    -> {step.text}  ({step.rule}){dice}"))


# -- the write and read calls ruleset CLI modules use ----------------------------------


def signer_for(state: AppState, meta: StreamMeta) -> Signer | None:
    return SIGNER_FACTORY(state, meta) if SIGNER_FACTORY is not None else None


def run_command(
    ctx: typer.Context, stream: str, command: Any, *, dice: str | None = None, faces: list[str] | None = None,
    as_json: bool = False, quiet: bool = False,
) -> Outcome:
    """Append what ``command`` decides to ``stream`` and print the outcome."""
    from combatlog.commands.handler import execute, resolve_stream

    st = app_state(ctx)
    store = st.store()
    meta = resolve_stream(store, stream)
    outcome = execute(
        store, meta.id, command, actor=st.actor, command_id=st.command_id, scheme=dice,
        manual_faces=parse_face_options(faces or []), signer=signer_for(st, meta),
    )
    if not quiet:
        print_outcome(outcome, as_json)
    return outcome


def read_state(ctx: typer.Context, stream: str, *, at: int | None = None, round_no: int | None = None) -> tuple[StreamMeta, Folded]:
    """The folded state of ``stream`` at a seq, at the end of a round, or at its head."""
    from combatlog.projections.fold import round_end, state_at
    from combatlog.projections.streams import resolve_stream

    if at is not None and round_no is not None:
        raise InvalidCommand("give --at or --round, not both")
    store = app_state(ctx).store()
    meta = resolve_stream(store, stream)
    if round_no is not None:
        seq = round_end(state_at(store, meta), round_no)
        return meta, state_at(store, meta, seq)
    return meta, state_at(store, meta, at)

