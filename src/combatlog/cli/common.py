"""What every CLI module shares: the context, options, output and the write call.

Only ``cli/`` imports typer. Heavy modules (rulesets, stores) are imported
inside functions so that ``combatlog --help`` and read commands start fast.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import click
import typer

from combatlog.cli.output import (  # noqa: F401  (for the command modules: one place to import from)
    echo, echo_view, note, pending_json, print_json, terminal_width, view_text,
)
from combatlog.cli.state import AppState, RunMemo, log_exists, read_state_of  # noqa: F401
from combatlog.errors import InvalidCommand
from combatlog.text import one_line, printable  # noqa: F401  (one_line: for the row views)

if TYPE_CHECKING:
    from combatlog.commands.handler import Outcome, Signer
    from combatlog.projections.fold import Folded
    from combatlog.store.base import EventStore, StreamMeta


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


def _completion_store(ctx: click.Context) -> EventStore | None:
    """The log selected on the command line being completed; None when there is none (completion
    must not create a SQLite file in the current folder)."""
    from combatlog.store import default_url, open_store

    url = (ctx.find_root().params or {}).get("db") or default_url()
    if url.startswith(("http://", "https://")):
        return None  # completion does not reach a server
    return open_store(url) if log_exists(url) else None


def complete_stream(ctx: typer.Context, incomplete: str) -> list[str]:
    """Shell completion: the names of the combats in the selected log (under a ruleset's group, only
    the combats of that ruleset)."""
    try:
        store = _completion_store(ctx)
        if store is None:
            return []
        ruleset = group_ruleset(ctx)
        return [m.name for m in store.list_streams()
                if m.name.startswith(incomplete) and ruleset in (None, m.ruleset)]
    except Exception:  # completion must never crash the shell
        return []


Completion = Callable[[click.Context, str], list[Any]]


def _line_params(ctx: click.Context) -> dict[str, Any]:
    """The values typed so far on the line being completed. While an option's value is completed,
    click stops parsing at that option and leaves the arguments before it unassigned in ``ctx.args``:
    they are assigned here, in order, as the command would."""
    params = dict(ctx.params)
    if params.get("stream") is None and ctx.args:
        rest = list(ctx.args)
        for param in ctx.command.params:
            if not isinstance(param, click.Argument) or not rest:
                continue
            if param.nargs == 1:
                params[param.name or ""] = rest.pop(0)
            else:
                params[param.name or ""], rest = tuple(rest), []
    return params


def state_completer(pick: Callable[[Any, dict[str, Any]], Iterable[str | tuple[str, str]]]) -> Completion:
    """Shell completion from the state of the combat named earlier on the line: ``pick(state, values
    typed so far)`` gives the values (or (value, help) pairs). The combat is folded as ``show`` folds
    it, from its latest snapshot; nothing is offered when it is missing or of another ruleset."""

    def complete(ctx: click.Context, incomplete: str) -> list[Any]:
        try:
            params = _line_params(ctx)
            ref = params.get("stream")
            store = _completion_store(ctx) if ref else None
            if store is None:
                return []
            from combatlog.projections.fold import state_at
            from combatlog.projections.streams import resolve_stream

            meta = resolve_stream(store, ref)
            if meta.ruleset != group_ruleset(ctx):
                return []
            out: list[Any] = []
            seen: set[str] = set()
            for item in pick(state_at(store, meta).state, params):
                value = item[0] if isinstance(item, tuple) else item
                if value.startswith(incomplete) and value not in seen:
                    seen.add(value)
                    out.append(item)
            return out
        except Exception:  # completion must never crash the shell
            return []

    return complete


def complete_ruleset(incomplete: str) -> list[str]:
    """Shell completion for ``new --ruleset``: the rulesets installed, and a short alias when it is
    what is being typed."""
    try:
        from combatlog.rulesets import ALIASES, available

        names = [n for n in available() if n.startswith(incomplete)]
        return names + [a for a, n in ALIASES.items() if a.startswith(incomplete) and n not in names]
    except Exception:  # completion must never crash the shell
        return []


# The ruleset command groups: ruleset name -> (group, what a person calls the game).
RULESET_GROUPS: dict[str, tuple[str, str]] = {
    "freeform": ("freeform", "freeform"),
    "magic_realm": ("mr", "Magic Realm"),
    "classic_fantasy": ("cfi", "Classic Fantasy Imperative"),
    "osric": ("osric", "OSRIC"),
    "argad": ("argad", "« Argad ! »"),
}


def group_ruleset(ctx: click.Context) -> str | None:
    """The ruleset whose command group ``ctx``'s command sits in (``mr sheets`` -> magic_realm), or None
    for core commands."""
    group = ctx.parent
    if group is None or group.parent is None:
        return None
    return next((name for name, (g, _title) in RULESET_GROUPS.items() if g == group.info_name), None)


def check_ruleset(ctx: click.Context, meta: StreamMeta) -> None:
    """Refuse a ruleset's command on a combat of another ruleset, naming both."""
    expected = group_ruleset(ctx)
    if expected is None or meta.ruleset == expected:
        return
    group, wanted = RULESET_GROUPS[expected]
    own = RULESET_GROUPS.get(meta.ruleset)
    title = own[1] if own else meta.ruleset
    article = "an" if title.lstrip("« ")[:1].lower() in tuple("aeiou") else "a"
    hint = f"; its commands are under `combatlog {own[0]}`" if own else ""
    raise InvalidCommand(f"{meta.name} is {article} {title} combat; "
                         f"`{group} {ctx.info_name}` is for {wanted} combats{hint}")


def _stream_of_this_ruleset(ctx: click.Context, value: str) -> str:
    """Checked while the arguments are parsed, so that a combat of another ruleset is named as the
    problem before any argument that only makes sense in the group's own ruleset."""
    if value and not ctx.resilient_parsing and group_ruleset(ctx) is not None:
        check_ruleset(ctx, app_state(ctx).resolve(value))
    return value


STREAM_HELP = "The combat: its name, id or a unique id prefix (combatlog list shows them)."


def stream_argument(help_text: str = STREAM_HELP) -> Any:
    """The STREAM argument every command shares: one help text, completion, and (under a ruleset's
    group) the check that the combat is of that ruleset."""
    return typer.Argument(..., help=help_text, autocompletion=complete_stream, show_default=False,
                          callback=_stream_of_this_ruleset)


def at_option(help_text: str) -> Any:
    """``--at SEQ``: the one name for "the log as of seq N" (show, sheet, fork, replay, ack)."""
    return typer.Option(None, "--at", metavar="SEQ", help=help_text)


def old_name(name: str) -> Any:
    """An option's old name, kept working for one release and hidden from help (docs/CHANGELOG.md lists
    them); the command merges it into the new one with ``renamed``."""
    return typer.Option(None, name, hidden=True)


def renamed(new_value: Any, old_value: Any, new: str, old: str) -> Any:
    """The value of an option given under its new name or its old one; both at once is refused."""
    if old_value is None:
        return new_value
    if new_value is not None and new_value != old_value:
        raise InvalidCommand(f"give {new} once ({old} is its old name)")
    return old_value


JSON_HELP = "Print JSON (the stable contract) instead of text."


def refuse_blank(value: str | None, option: str, what: str, *, required: bool = False) -> None:
    """A name option typed with a blank value (``--by ''``: a shell variable that was never set) is a mistake,
    not a request for the default: refused (exit status 3) before anything is read, appended or written."""
    if value is not None and not value.strip():
        raise InvalidCommand(f"{option} is blank: give {what}" + ("" if required else f", or leave {option} out"))


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


def page_or_write(text: str, pager: bool = True) -> None:
    """Long output for people: through click's pager when stdout is a terminal and ``text`` is longer than
    the screen (``pager`` False: never, e.g. ``--no-pager``); written as it is in a pipe or a file."""
    import shutil

    if pager and sys.stdout.isatty() and text.count("\n") >= shutil.get_terminal_size().lines:
        click.echo_via_pager(text)
    else:
        sys.stdout.write(text)


def steps_json(steps: Any, rolls: dict[str, dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """Steps as JSON: each with its ``rule``, its ``text`` for people and its ``data`` for scripts (step_data)."""
    return [{"seq": s.seq, "rule": s.rule, "text": s.text, "dice": list(s.dice), "data": step_data(s, rolls)}
            for s in steps]


def step_data(step: Any, rolls: dict[str, dict[str, Any]] | None = None) -> dict[str, Any]:
    """A step as data, always: the rule split into its ``citation`` (MR, OSRIC...) and ``reference`` (the
    section), the ``dice`` behind it (label, faces and total where ``rolls`` has them: label -> roll of the
    dice ledger), and what the ruleset itself decided as data (``Step.data``: a roll's need, a result...)."""
    citation, _, reference = step.rule.partition(" ")
    dice = [{"label": label} | ({"faces": rolls[label]["faces"], "total": rolls[label]["total"]}
                                 if rolls and label in rolls else {}) for label in step.dice]
    return {"citation": citation.rstrip(":"), "reference": reference, "dice": dice} | dict(getattr(step, "data", None) or {})


def rolls_by_label(store: Any, meta: Any) -> dict[str, dict[str, Any]]:
    """The combat's dice rolls by label (the dice ledger's rows), for ``steps_json``."""
    from combatlog.projections.views import dice_ledger

    return {r["label"]: r for r in dice_ledger(store, meta)["rolls"]}


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
    if SIGNER_FACTORY is None:
        return None
    if state.run is None:
        return SIGNER_FACTORY(state, meta)
    # A run's lines share one actor, and the players a combat pins never change: one check per combat.
    if meta.id not in state.run.signers:
        state.run.signers[meta.id] = SIGNER_FACTORY(state, meta)
    return state.run.signers[meta.id]


def run_command(
    ctx: typer.Context, stream: str, command: Any, *, dice: str | None = None, faces: list[str] | None = None,
    as_json: bool = False, quiet: bool = False,
) -> Outcome:
    """Append what ``command`` decides to ``stream`` and print the outcome."""
    from combatlog.wiring import execute

    st = app_state(ctx)
    store = st.store()
    meta = st.resolve(stream)
    options: dict[str, Any] = dict(actor=st.actor, command_id=st.command_id, scheme=dice,
                                   manual_faces=parse_face_options(faces or []), signer=signer_for(st, meta))
    if st.run is not None:  # a line of run FILE
        st.run.check_resumed(store, meta, st.command_id, st.actor)
        outcome = execute_keeping(st.run.heads, store, meta, command, **options)
        st.run.noted(meta.id, outcome.duplicate, outcome.last_seq)
    else:
        outcome = execute(store, meta.id, command, **options)
    if not quiet:
        print_outcome(outcome, as_json)
    return outcome


def execute_keeping(heads: dict[str, Folded], store: EventStore, meta: StreamMeta, command: Any,
                    **options: Any) -> Outcome:
    """``execute`` given the state ``heads`` kept from the previous command (run FILE), which it uses only
    if it is still the log's head. Afterwards ``heads`` holds the new head; after a failure, the state it
    held if the failure came before the rehearsal touched it, else nothing (the next command folds the log)."""
    from combatlog.wiring import execute

    kept = heads.pop(meta.id, None)
    head = kept.core.head_seq if kept is not None else None
    try:
        outcome = execute(store, meta, command, folded=kept, **options)
    except BaseException:
        if kept is not None and kept.core.head_seq == head:  # refused before its rehearsal: untouched
            heads[meta.id] = kept
        raise
    if outcome.folded is not None:  # None: a retry, nothing folded
        heads[meta.id] = outcome.folded
    return outcome


def read_state(ctx: typer.Context, stream: str, *, at: int | None = None, round_no: int | None = None) -> tuple[StreamMeta, Folded]:
    """The folded state of ``stream`` at a seq, at the end of a round, or at its head."""
    return read_state_of(app_state(ctx), stream, at=at, round_no=round_no)


def add_resolve(app: typer.Typer, example: str) -> None:
    """A ruleset group's ``resolve``: run the choice that waits for its dice (rulesets/foresight.py), the same
    command in every ruleset that holds choices back; ``example`` ends its help."""

    def resolve(
        ctx: typer.Context,
        stream: str = stream_argument(),
        dice: str | None = dice_scheme_option(),
        face: list[str] = faces_option(),
        as_json: bool = json_option(),
    ) -> None:
        from combatlog.rulesets.foresight import Resolve

        run_command(ctx, stream, Resolve(), dice=dice, faces=face, as_json=as_json)

    resolve.__doc__ = ("Run the choice that waits for its dice, with dice from a seed completed after it (joint "
                       "dice, strict\n    mode: docs/trust.md, \"Decision points\"). Any player may run it.\n\n"
                       f"    Example: {example}\n    ")
    app.command("resolve")(resolve)
