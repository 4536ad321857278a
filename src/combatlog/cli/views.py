"""Read commands: ``log``, ``show``, ``status``, ``explain``, ``replay``, ``dice``.

``--as PLAYER`` makes a view that player's: what a ruleset keeps secret from
them (another side's plays before every side has played) is concealed. The
default actor ``gm`` sees everything, as a referee or a hot-seat table does.
"""

from __future__ import annotations

import sys
from typing import Any, Optional

import typer

from combatlog.cli.common import (
    one_line,
    AppState, app_state, at_option, echo_view, json_option, old_name, print_json, read_state, renamed,
    page_or_write, rolls_by_label, steps_json, stream_argument, view_text,
)
from combatlog.cli.status import print_status, roles as _roles, roles_json  # noqa: F401  (roles_json: show's)


def all_option() -> Any:
    return typer.Option(False, "--all", help="Also list the trust plumbing event by event (nonce chains and "
                                             "links, acknowledgements, referee seeds).")


def viewer_of(st: AppState) -> str | None:
    return None if st.actor == "gm" else st.actor


def log(
    ctx: typer.Context,
    stream: str = stream_argument(),
    limit: Optional[int] = typer.Option(None, "--limit", metavar="N", min=1, help="Only the first N events."),
    tail: Optional[int] = typer.Option(None, "--tail", metavar="N", min=1, help="Only the last N events."),
    pager: bool = typer.Option(True, "--pager/--no-pager",
                               help="On a terminal, page output longer than the screen (never in a pipe)."),
    show_all: bool = all_option(),
    as_json: bool = json_option(),
) -> None:
    """The timeline: every event with its seq, actor and a summary (--json: the same events, as data).

    Trust plumbing (nonce chains and links, acknowledgements, referee seeds) is summed up in one line
    at the end; --all lists it event by event, and --json always carries every event.

    Example: combatlog log duel --tail 20
    """
    from combatlog.errors import InvalidCommand
    from combatlog.projections.plumbing import hidden_note, is_plumbing
    from combatlog.projections.streams import resolve_stream
    from combatlog.projections.views import timeline
    from combatlog.rulesets import load_ruleset
    from combatlog.trust.after_merge import AfterMerge

    if limit is not None and tail is not None:
        raise InvalidCommand("give --limit or --tail, not both")
    st = app_state(ctx)
    store = st.store()
    meta = resolve_stream(store, stream)
    rows = timeline(store, meta, viewer_of(st), with_events=not as_json)
    hidden = [] if as_json or show_all else [r for r in rows if is_plumbing(r["type"])]
    if hidden:
        rows = [r for r in rows if not is_plumbing(r["type"])]
    rows = rows[:limit] if limit is not None else rows[-tail:] if tail is not None else rows
    if as_json:
        print_json(rows)
        return
    not_kept: dict[int, list[str]] = {}  # decisions a merge did not keep, shown where their branch parted
    seen = AfterMerge(store, meta)
    for n in seen.not_kept(load_ruleset(meta.ruleset)) if seen.superseded else []:
        not_kept.setdefault(n.after, []).append(n.line())
    text = "".join(view_text(log_line(r)) + _not_kept_after(r["seq"], not_kept) for r in rows)
    if hidden:
        note = hidden_note([r["event"] for r in hidden], f"combatlog log {meta.name} --all")
        text += view_text(one_line(note))
    page_or_write(text, pager)


def _not_kept_after(seq: int, not_kept: dict[int, list[str]]) -> str:
    """The lines for the decisions a merge did not keep whose branch parted after ``seq`` (see ``combatlog
    superseded`` for their events)."""
    return "".join(view_text(one_line(f"{'':6} {'':<10} (not kept) {line}")) for line in not_kept.get(seq, []))


def log_line(r: dict[str, Any]) -> str:
    """One row of ``log`` (also what ``follow`` prints for each new event)."""
    sig = f"  [signed by {', '.join(r['signed_by'])}]" if r["signed_by"] else ""
    if "placed_from" in r:
        sig += f" [decided on #{r.get('decided_on', r['placed_from'] - 1)}, placed here by a merge]"
    return one_line(f"#{r['seq']:<5} {r['actor']:<10} {r['summary']}{sig}")


def show(
    ctx: typer.Context,
    stream: str = stream_argument(),
    at: Optional[int] = at_option("State after this seq."),
    round_no: Optional[int] = typer.Option(None, "--round", help="State at the end of this round."),
    as_json: bool = json_option(),
) -> None:
    """The state of the combat (now, after a seq, or at the end of a round).

    Example: combatlog show duel --round 1
    """
    st = app_state(ctx)
    meta, folded = read_state(ctx, stream, at=at, round_no=round_no)
    ruleset, state = folded.ruleset, folded.state
    viewer = viewer_of(st)
    roles = _roles(folded)
    if as_json:
        print_json({"stream": meta.name, "id": meta.id, "ruleset": meta.ruleset, "seq": folded.core.head_seq,
                    "round": ruleset.current_round(state), "event_round": ruleset.round_of(state),
                    "finished": ruleset.finished(state), "roles": roles_json(roles),
                    "state": ruleset.describe(state, viewer)})
        return
    echo_view(f"{meta.name} ({ruleset.info.title}) at seq {folded.core.head_seq}")
    if roles.enforced:
        echo_view(roles.describe())
    echo_view(ruleset.render(state, viewer))


def status(ctx: typer.Context, stream: str = stream_argument(),
           mine: bool = typer.Option(False, "--mine", help="Only what the actor (--as) must decide, each with a "
                                                           "command line to paste (--json: a command field)."),
           as_json: bool = json_option()) -> None:
    """Who must decide what next.

    Example: combatlog status duel --mine --as alice
    """
    print_status(app_state(ctx), stream, mine=mine, as_json=as_json)  # also run without typer: cli/fast.py


def _steps_out(rows: list[Any]) -> None:
    for r in rows:
        steps = [s for s in r.steps if s.text != r.summary]  # a step that repeats the summary only adds its rule
        rules = "".join(f"  ({s.rule})" for s in r.steps if s.text == r.summary)
        echo_view(one_line(f"#{r.seq:<5} [r{r.round}] {r.summary}{rules}"))
        for s in steps:
            echo_view(one_line(f"         -> {s.text}  ({s.rule})"))


def explain(
    ctx: typer.Context,
    stream: str = stream_argument(),
    round_no: Optional[int] = typer.Option(None, "--round", help="Only this round."),
    show_all: bool = all_option(),
    as_json: bool = json_option(),
) -> None:
    """Every derived step with the rule that produced it and the dice behind it.

    The steps of trust plumbing (nonce chains and links, acknowledgements, referee seeds) are summed
    up in one line at the end; --all shows them (--json always does).

    Example: combatlog explain duel --round 2
    """
    from combatlog.projections.plumbing import hidden_note, is_plumbing
    from combatlog.projections.streams import resolve_stream
    from combatlog.projections.fold import state_at
    from combatlog.projections.views import no_steps, round_range, walk_folded

    st = app_state(ctx)
    store = st.store()
    meta = resolve_stream(store, stream)
    lo, hi = (1, None) if round_no is None else round_range(store, meta, round_no)
    head = state_at(store, meta)
    rows, hidden = [], []
    for r, rec, _folded in walk_folded(store, meta, lo, hi, viewer_of(st), head):
        if not as_json and not show_all and is_plumbing(r.type):
            hidden.append(rec.event)
        elif r.steps or not as_json:
            rows.append(r)
    if as_json:
        print_json({"stream": meta.name, "round": round_no,
                    "steps": steps_json((s for r in rows for s in r.steps), rolls_by_label(store, meta))})
        return
    if not any(r.steps for r in rows):
        echo_view(no_steps(meta.name, round_no, lo, hi or head.core.head_seq))
    _steps_out([r for r in rows if r.steps])
    if hidden:
        where = f" --round {round_no}" if round_no is not None else ""
        echo_view(one_line(hidden_note(hidden, f"combatlog explain {meta.name}{where} --all")))


def explain_new(store: Any, meta: Any, lo: int, hi: int, viewer: str | None) -> None:
    """Events ``lo``..``hi`` as ``explain`` prints them, each event even without a step (what ``follow``
    prints as events arrive), the trust plumbing among them in one line after them."""
    from combatlog.projections.fold import state_at
    from combatlog.projections.plumbing import folded_line, is_plumbing
    from combatlog.projections.views import walk_folded

    hidden = []
    for r, rec, _folded in walk_folded(store, meta, lo, hi, viewer, state_at(store, meta)):
        if is_plumbing(r.type):
            hidden.append(rec.event)
        else:
            _steps_out([r])
    if hidden:
        echo_view(one_line(f"(+{len(hidden)} trust event{'s' if len(hidden) != 1 else ''}: {folded_line(hidden)})"))


def replay(
    ctx: typer.Context,
    stream: str = stream_argument(),
    to: Optional[int] = at_option("Stop after this seq (and show the state there, as show --at)."),
    from_seq: Optional[int] = typer.Option(None, "--from", help="Start at this seq."),
    round_no: Optional[int] = typer.Option(None, "--round", help="Replay only this round's events."),
    step: bool = typer.Option(False, "--step", help="Pause after each event (on a terminal)."),
    as_json: bool = json_option(),
    old_to: Optional[int] = old_name("--to"),
) -> None:
    """Re-run the log event by event, showing what each one derived, then the state reached.

    Example: combatlog replay duel --round 2 --step
    """
    to = renamed(to, old_to, "--at", "--to")
    from combatlog.projections.streams import resolve_stream
    from combatlog.projections.fold import state_at
    from combatlog.projections.views import round_range, seq_window, walk

    st = app_state(ctx)
    store = st.store()
    meta = resolve_stream(store, stream)
    head = state_at(store, meta)
    lo, hi = seq_window(meta.name, head.core.head_seq, from_seq, to)
    if round_no is not None:
        if to is not None or from_seq is not None:
            from combatlog.errors import InvalidCommand

            raise InvalidCommand("give --round alone, or --from/--at")
        lo, hi = round_range(store, meta, round_no)
    viewer = viewer_of(st)
    rows = walk(store, meta, lo, hi, viewer, head)
    if as_json:
        out_rows = list(rows)
        rolls = rolls_by_label(store, meta)
        end = state_at(store, meta, out_rows[-1].seq if out_rows else lo - 1)
        print_json({"stream": meta.name, "from": lo, "to": out_rows[-1].seq if out_rows else None,
                    "events": [{"seq": r.seq, "type": r.type, "actor": r.actor, "round": r.round,
                                "summary": r.summary, "concealed": r.concealed,
                                "steps": steps_json(r.steps, rolls)} for r in out_rows],
                    "state": end.ruleset.describe(end.state, viewer)})
        return
    interactive = step and sys.stdin.isatty() and sys.stdout.isatty()
    last = lo - 1
    for r in rows:
        _steps_out([r])
        last = r.seq
        if interactive:
            if input("  [enter: next, q: stop] ").strip().lower() == "q":
                break
    end = state_at(store, meta, last) if last >= 1 else None
    if end is not None:
        echo_view(f"-- state after seq {last} --")
        echo_view(end.ruleset.render(end.state, viewer))


def dice(ctx: typer.Context, stream: str = stream_argument(), as_json: bool = json_option()) -> None:
    """The dice ledger: every roll with label, scheme and roller, and per-roller statistics.

    The roller is the player who rolled (the command's actor); in Classic Fantasy the combatant the roll
    was made for is written beside him ("by bob for Grak").

    Example: combatlog dice duel --json
    """
    from combatlog.projections.streams import resolve_stream
    from combatlog.projections.views import dice_ledger

    store = app_state(ctx).store()
    ledger = dice_ledger(store, resolve_stream(store, stream))
    if as_json:
        print_json(ledger)
        return
    for r in ledger["rolls"]:
        echo_view(f"#{r['seq']:<5} {r['label']:<32} {r['notation']:<7} {r['faces']} = {r['total']:<4} "
             f"{r['scheme']:<8} by {r['by']}" + (f" for {r['for']}" if r["for"] else ""))
    for who, s in ledger["by_roller"].items():
        parts = [f"d{sides}: {v['dice']} dice, mean {v['mean_x100'] / 100:.2f} (expected {v['expected_mean_x100'] / 100:.2f})"
                 for sides, v in s["by_sides"].items()]
        echo_view(f"{who}: {s['rolls']} rolls; " + "; ".join(parts))
