"""Talking to a combat server as a replica: push, pull, sync, create.

The server is never trusted. What it serves is imported through the normal import, verified in
full against this log (a bundle for another combat, from another seq, with an altered, dropped
or reordered event, or that diverges from what we hold, is refused and changes nothing); what it
says about heads only chooses what to ask for next. Requests are signed with the acting player's
key when this machine holds it (``combatlog.remote.protocol``); invite tokens come from the
remote's configuration (the HTTP side: ``combatlog.remote.transport``). Standard library only, for
start-up time.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from combatlog.errors import InvalidCommand, NotFound, VerificationFailed
from combatlog.remote.transport import (  # noqa: F401  (BUSY, BUSY_TRIES, Response, _opener, retry_after: re-exported)
    BUSY, BUSY_TRIES, Client, RemoteConflict, RemoteError, Response, _body, _opener, retry_after,
)
from combatlog.store.base import EventStore, StreamMeta


# -- the replica operations -------------------------------------------------------------------------------


@dataclass
class Outcome:
    combat: str
    action: str  # created | pushed | pulled | up_to_date
    events: int = 0
    head_seq: int = 0
    head_hash: str = ""
    token: str = ""  # for created: the invite token (kept in the remotes file)
    pulled: int = 0  # for pushed: the server's events pulled (verified) first, when this log was behind
    parts: int = 0  # for created and pushed: the requests that carried the events (more than one: too many for one)
    too_large: int = 0  # the sends the server refused as larger than it takes in one request (413) before that

    def text(self, remote: str) -> str:
        where = f"{remote}"
        first = f"pulled {self.pulled} events from {where} (verified), then " if self.pulled else ""
        parts = (f" in {self.parts} parts, each ending where a command ends (all at once is more than {where} takes "
                 "in one request)") if self.parts > 1 else ""
        return {
            "created": f"{self.combat}: created on {where} with {self.events} events{parts} (head #{self.head_seq}); "
                       f"invite token kept in the remotes file",
            "pushed": f"{self.combat}: {first}pushed {self.events} events to {where}{parts} (head #{self.head_seq})",
            "pulled": f"{self.combat}: pulled {self.events} events from {where}, verified (head #{self.head_seq}, "
                      f"{self.head_hash[:16]}...)",
            "up_to_date": f"{self.combat}: up to date with {where} (head #{self.head_seq})",
        }[self.action]


def _bundle(store: EventStore, meta: StreamMeta, since: int, until: int | None = None) -> bytes:
    from combatlog.exchange.bundle import export_lines

    return b"".join(line + b"\n" for line in export_lines(store, meta, since, until))


MAX_SHRINKS = 40  # 413s in one push: each halves the part, so even a 1 GiB backlog is down to one command in ~30


@dataclass
class _Parts:
    """A backlog sent in parts once the server refused it as larger than it takes in one request (413).

    Each part is a prefix of what the server still lacks that ends where a command ends: the server
    re-decides every recorded command from its events when its batch closes, at the next command or at
    the bundle's end (exchange/redecide.py, ``ChainVerifier.finish``), so a part that cut one in two
    would be refused (the rules produce more than it holds), and the next part would begin with events
    no recorded command produced. Each 413 halves the bytes a part may hold; once down to one command,
    a 413 is final (``too_large``). Every part is a valid bundle on its own: one that landed stays."""

    cap: int | None = None  # the bytes a part may hold (None: everything that remains)
    landed: int = 0  # parts the server appended
    events: int = 0
    last: int = 0  # the last seq the landed parts hold
    refused: int = 0  # 413s

    def choose(self, header: bytes, events: list[bytes], since: int) -> tuple[int, int]:
        """(the seq the next part ends at, the seq the first command of ``events`` ends at). ``events``: the
        event lines after ``since``; ``header``: a bundle header (only its length is used)."""
        import msgspec

        from combatlog.exchange.bundle import _Slim

        size, end, first_end = len(header) + 1, 0, 0  # (a part's header is about as long as the whole's)
        ids = [msgspec.json.decode(line, type=_Slim).command_id for line in events]
        for i, line in enumerate(events):
            size += len(line) + 1
            if i + 1 < len(ids) and ids[i + 1] == ids[i]:
                continue  # inside a command
            seq = since + i + 1
            first_end = first_end or seq
            if self.cap is not None and size > self.cap:
                break
            end = seq
        return end or first_end, first_end

    def landed_part(self, since: int, end: int) -> None:
        self.landed += 1
        self.events += end - since
        self.last = end

    def so_far(self, remote: str) -> str:
        """What earlier parts put on the server, for an error that stops a push after them."""
        if not self.landed:
            return "nothing was pushed"
        return (f"{self.events} events were pushed in {self.landed} part{'s' if self.landed > 1 else ''}, up to "
                f"#{self.last}, and stay on {remote} (each part ends where a command ends)")

    def too_large(self, client: Client, meta: StreamMeta, resp: Response, size: int, first_line: bytes, since: int,
                  end: int) -> RemoteError:
        """The server refused one command's events alone (413): it cannot be split, so the push stops here."""
        from combatlog.text import printable as printable_text

        first = json.loads(first_line)
        record = first.get("command")  # a ruleset's command names itself on its first event; a core event by type
        what = record.get("name") if isinstance(record, dict) and record.get("name") else first.get("type", "?")
        span = f"#{since + 1}-#{end}" if end > since + 1 else f"#{since + 1}"
        return RemoteError(
            f"{meta.name}: the command at {span} ({printable_text(str(first.get('actor', '?')))[:64]}'s "
            f"{printable_text(str(what))[:64]}, {end - since} events, {size} bytes with the "
            f"bundle's header) is larger than {client.remote.name} takes in one request ({client._answer(resp)}), "
            f"and a command's events travel together; before it, {self.so_far(client.remote.name)}. Ask "
            f"{client.remote.name}'s operator to raise its --max-body (the combat can also travel by file: "
            "combatlog export / import)", status=resp.status, body=_body(resp))


def _hash_at(store: EventStore, meta: StreamMeta, seq: int) -> str:
    from combatlog.events.envelope import GENESIS_PREV

    if seq == 0:
        return GENESIS_PREV
    rows = store.read_stream(meta.id, seq, seq)
    return rows[0].hash if rows else ""


def find(store: EventStore, client: Client, ref: str) -> tuple[StreamMeta | None, str]:
    """The local combat ``ref`` names and its id; for a combat not here yet, its id on the server."""
    from combatlog.projections.streams import resolve_stream

    try:
        meta = resolve_stream(store, ref)
        return meta, meta.id
    except NotFound:
        pass
    found = [c for c in client.combats() if ref in (c.get("id"), c.get("name"))]
    if not found:
        raise NotFound(f"no combat {ref!r} here nor on {client.remote.name} (for a combat you were invited to: "
                       f"combatlog remote add {client.remote.name} URL --token TOKEN)")
    if len(found) > 1:
        raise InvalidCommand(f"{ref!r} names {len(found)} combats on {client.remote.name}: give the id "
                             f"({', '.join(str(c['id']) for c in found)})")
    return None, str(found[0]["id"])


def create(store: EventStore, client: Client, ref: str, *, public: bool = False) -> Outcome:
    """Create the combat on the server with its whole log; one larger than the server takes in one request
    (413) is created with its beginning, and the rest is pushed after it in parts (``_Parts``)."""
    from combatlog.projections.streams import resolve_stream
    from combatlog.remote.config import remember_token

    meta = resolve_stream(store, ref)
    client.require_signer(f"creating {meta.name} on {client.remote.name}")
    parts = _Parts()
    lines = list(_lines(store, meta, 0))
    head = store.head(meta.id)
    for _request in range(MAX_SHRINKS + 1):
        end, first_end = parts.choose(lines[0], lines[1:], 0)
        bundle = b"".join(line + b"\n" for line in lines) if end == head.seq else _bundle(store, meta, 0, end)
        resp = client.create(bundle, public)
        if resp.status != 413 or end == first_end or parts.refused == MAX_SHRINKS:
            break
        parts.refused += 1
        parts.cap = len(bundle) // 2
        client.note(f"{client.remote.name} takes fewer than the {len(bundle)} bytes of #1-#{end} in one request "
                    f"({client._answer(resp)}): creating {meta.name} with its beginning, then pushing the rest")
    if resp.status == 413 and end == first_end:
        raise parts.too_large(client, meta, resp, len(bundle), lines[1], 0, end)
    body = resp.json()
    if resp.status != 201 or not isinstance(body, dict):
        raise client._refused(resp, f"creating {meta.name}")
    token = str(body.get("token", ""))
    if token:
        remember_token(client.remote.name, meta.id, token)
    parts.landed_part(0, end)
    created = Outcome(meta.name, "created", head.seq, head.seq, head.hash, token, parts=1, too_large=parts.refused)
    if end == head.seq:
        return created
    return _push_from(store, client, meta, {"head_seq": end, "head_hash": _hash_at(store, meta, end)}, parts, created)


PUSH_ATTEMPTS = 8  # a busy combat: each 409 pulls, merges and tries again


def push(store: EventStore, client: Client, ref: str) -> Outcome:
    """Send what the server lacks: its head from GET, then our events after it (first come, first served).

    When the server holds events this log lacks (it is ahead, or took others' events first: 409), they
    are pulled, verified in full, and merged with the server's branch kept; what is still ours is then
    pushed. A backlog larger than the server takes in one request (413) is sent in parts (``_Parts``),
    each its own signed request, a 409 between them handled as any. Anything that cannot be pulled,
    merged or sent is an error (non-zero exit), never a quiet stop."""
    from combatlog.projections.streams import resolve_stream

    meta = resolve_stream(store, ref)
    client.require_signer(f"pushing {meta.name} to {client.remote.name}")
    info = client.info(meta.id)
    if info is None:
        return create(store, client, ref)
    return _push_from(store, client, meta, info, _Parts())


def _push_from(store: EventStore, client: Client, meta: StreamMeta, info: dict[str, Any], parts: _Parts,
               created: Outcome | None = None) -> Outcome:
    """``push`` from the server's head in ``info``; ``parts``: what was sent before (a create's first part)."""
    pulled = conflicts = 0
    backlog: tuple[str, int, bytes, list[bytes]] | None = None  # (our head hash, since, header, events after since)
    # every request is bounded by its own count (409s, 413s, parts that each carry at least one of our
    # events); this ceiling only makes sure of it, whatever the server answers
    ceiling = PUSH_ATTEMPTS + MAX_SHRINKS + 2 * store.head(meta.id).seq + 2
    for _request in range(ceiling):
        server_seq, server_hash = int(info["head_seq"]), str(info["head_hash"])
        local = store.head(meta.id)
        if server_seq <= local.seq and _hash_at(store, meta, server_seq) != server_hash:
            pulled += _resolve_conflict(store, client, meta, 0)  # we differ at or before its head: compare from #1
            local = store.head(meta.id)
        elif server_seq > local.seq:  # behind: the server's events after our head (ours differ: merged)
            pulled += _resolve_conflict(store, client, meta, local.seq)
            local = store.head(meta.id)
        if server_seq > local.seq or (server_seq == local.seq and server_hash != local.hash):
            raise RemoteConflict(f"{meta.name}: after pulling, this log (head #{local.seq}) still lacks what "
                                 f"{client.remote.name} holds (head #{server_seq}); "
                                 f"{parts.so_far(client.remote.name)}",
                                 where=client.remote.name)
        if server_seq == local.seq:  # (after a merge that left nothing of ours to send, parts may have landed)
            if created is not None or parts.landed:
                return _sent(meta, parts, local, pulled, created)
            if pulled:
                return Outcome(meta.name, "pulled", pulled, local.seq, local.hash)
            return Outcome(meta.name, "up_to_date", 0, local.seq, local.hash)
        if backlog is not None and backlog[0] == local.hash and backlog[1] <= server_seq:
            # the rest of the events read for the part before (a log is the same up to a head of the same hash)
            header, events, fresh = backlog[2], backlog[3][server_seq - backlog[1]:], False
        else:
            header, *events = _lines(store, meta, server_seq)
            backlog, fresh = (local.hash, server_seq, header, events), True
        end, first_end = parts.choose(header, events, server_seq)
        if fresh and end == local.seq:  # the whole backlog, read afresh: its header is this bundle's
            bundle = b"".join(line + b"\n" for line in (header, *events))
        else:
            bundle = _bundle(store, meta, server_seq, end)
        resp = client.append(meta.id, bundle)
        body = resp.json()
        if resp.status == 200 and isinstance(body, dict):
            parts.landed_part(server_seq, end)
            if end == local.seq:
                return _sent(meta, parts, local, pulled, created)
            info = {"head_seq": end, "head_hash": _hash_at(store, meta, end)}  # the rest after the part: as a 409
            continue
        if resp.status == 413 and end > first_end and parts.refused < MAX_SHRINKS:
            parts.refused += 1
            parts.cap = len(bundle) // 2
            client.note(f"{client.remote.name} takes fewer than the {len(bundle)} bytes of #{server_seq + 1}-#{end} "
                        f"in one request ({client._answer(resp)}): sending {meta.name} in smaller parts")
            continue
        if resp.status == 413 and end == first_end:
            raise parts.too_large(client, meta, resp, len(bundle), events[0], server_seq, end)
        if resp.status != 409 or conflicts == PUSH_ATTEMPTS - 1:
            raise client._refused(resp, f"the events of {meta.name} #{server_seq + 1}-#{end}",
                                  f"; {parts.so_far(client.remote.name)}" if parts.landed else "")
        conflicts += 1
        pulled += _resolve_conflict(store, client, meta, server_seq)  # the others' events verified, ours re-applied
        info = client.info(meta.id) or info
    raise RemoteError(f"{meta.name}: {client.remote.name} was sent {ceiling} requests without taking the push; "
                      f"{parts.so_far(client.remote.name)}")


def _lines(store: EventStore, meta: StreamMeta, since: int) -> Any:
    from combatlog.exchange.bundle import export_lines

    return export_lines(store, meta, since)


def _sent(meta: StreamMeta, parts: _Parts, local: Any, pulled: int, created: Outcome | None) -> Outcome:
    if created is not None:  # a create whose first part held only the beginning of the log
        return Outcome(meta.name, "created", local.seq, local.seq, local.hash, created.token, pulled=pulled,
                       parts=parts.landed, too_large=parts.refused)
    return Outcome(meta.name, "pushed", parts.events, local.seq, local.hash, pulled=pulled, parts=parts.landed,
                   too_large=parts.refused)


def _resolve_conflict(store: EventStore, client: Client, meta: StreamMeta, agreed: int) -> int:
    """Our push was refused (409), or the server is ahead of us, or our log differs from the server's:
    the server holds events after #``agreed``, the last seq both sides hold alike (0: unknown, compare
    everything; a wrong guess is found by the import and compared from #1).

    Pull the server's events after it, verified in full against this log, and import them. When they
    differ from our own events after ``agreed``, the import merges with the server's branch kept (the
    server is the sequencer: first come, first served) and re-applies our decisions after it, re-decided
    by the rules and re-signed here (docs/trust.md, "Concurrent moves"); the caller then pushes them.
    Secrets never leave this machine: a re-sealed commit keeps its nonce here. Returns the events imported.
    """
    report = import_pulled(store, client, client.events(meta.id, agreed), meta.id, agreed)
    return sum(report.appended.values())


def _parted(store: EventStore, client: Client, meta: StreamMeta, header: Any, seq: int) -> RemoteConflict:
    """The report of a pull that found the server's events differ from ours from ``seq`` on (or, when
    ``seq`` is the bundle's base, at or before it: only its hash is known to differ)."""
    local = store.head(meta.id)
    if seq == header.since:
        where = f"at or before #{seq} (the server's #{seq} is {header.base_hash[:16]}...)"
        theirs, ours = f"head #{header.head_seq}", f"head #{local.seq}"
    else:
        where = f"from #{seq} on"
        theirs = f"#{seq}-#{header.head_seq}" if header.head_seq > seq else f"#{seq}"
        ours = f"#{seq}-#{local.seq}" if local.seq > seq else f"#{seq}"
    from combatlog.trust.players import genesis_of

    genesis = genesis_of(store, meta)
    why = "" if genesis is not None and genesis.players else \
        ", and a combat that pins no players never merges (anyone may write anything there)"
    return RemoteConflict(
        f"{meta.name}: the server holds other events {where} ({theirs}, {header.head_hash[:16]}..., "
        f"verified) than this log ({ours}, {local.hash[:16]}...){why}. The server keeps whichever came first, "
        f"so yours are not on it; your log is unchanged. To go on: pull the server's into another log "
        f"(combatlog --db OTHER.db pull {meta.name}) and make your moves again there", where=client.remote.name)


def _self_crossing(store: EventStore, client: Client, meta: StreamMeta, header: Any, exc: Any,
                   proof: Path) -> RemoteConflict:
    """The report of a pull that met two branches both signed by a player whose key is on this machine: he
    moved from two logs (another machine, or a copy of this one) and the server holds the other's moves.
    The import refused it as equivocation (or a rewind), which it is to everyone else: never merged."""
    local = store.head(meta.id)
    written = sorted(proof.parent.glob(f"{proof.name}.equivocation-*.jsonl"))
    kept = f" (the evidence is in {written[-1]})" if written else ""
    return RemoteConflict(
        f"{meta.name}: the server holds other events from #{exc.seq} on (head #{header.head_seq}, "
        f"{header.head_hash[:16]}..., verified) than this log (head #{local.seq}, {local.hash[:16]}...), and "
        f"both hold events signed by {exc.author}, whose key is on this machine: {exc.author} has moved from two "
        f"logs (another machine, or a copy of this one). That is refused, not merged: two different branches one "
        f"player signed are equivocation to everyone else{kept}. Nothing was pulled or pushed, and this log is "
        f"unchanged. To go on: continue from the log whose moves the server holds, or pull the server's into a "
        f"fresh log (combatlog --db OTHER.db pull {meta.name}) and make again there the moves this log holds "
        f"from #{exc.seq} on; and pull before moving from a log you have not used since", where=client.remote.name)


def import_pulled(store: EventStore, client: Client, data: bytes, combat_id: str, since: int) -> Any:
    """Import a bundle the server sent: it must be the combat and the range asked for, and it is then
    verified in full by the normal import (a new combat's pinned keys checked against the key home)."""
    from combatlog.exchange.bundle import read_bytes
    from combatlog.wiring import import_bundle

    local = store.get_stream(combat_id)
    where = f"{client.remote.name}: {local.name if local else combat_id} after #{since}"
    header, lines = read_bytes(data, where)
    if header.stream != combat_id or header.segments[0].id != combat_id:
        raise VerificationFailed(f"the server sent combat {header.stream} ({header.name}) when {combat_id} was "
                                 "asked for", where=where)
    if header.since != since:
        raise VerificationFailed(f"the server sent the events after #{header.since} when those after #{since} "
                                 "were asked for", where=where)
    if since == 0:
        from combatlog.trust.pins import check_pinned_keys

        client.warnings += check_pinned_keys(store, data, client.actor or "gm", where=where)
    proof = Path.cwd() / f"{client.remote.name}-{combat_id}.jsonl"
    from combatlog.errors import Diverged

    from combatlog.trust.players import signers_here

    try:
        report = import_bundle(store, header, lines, where, proof=proof, signer_for=signers_here(),
                               prefer_theirs=True)
    except Diverged as exc:
        meta = store.get_stream(combat_id)
        if meta is None:
            raise
        if exc.seq == since and since > 0:  # only the hash at ``since`` is known to differ: find where, from #1
            return import_pulled(store, client, client.events(combat_id, 0), combat_id, 0)
        author = getattr(exc, "author", None)  # equivocation (or a rewind): one player signed both branches
        if author is not None:
            if author == client.actor or signers_here()(author) is not None:
                raise _self_crossing(store, client, meta, header, exc, proof) from None
            raise  # another player's: the import's own refusal, with its proof
        raise _parted(store, client, meta, header, exc.seq) from None
    if report.merge is not None:
        client.merges.append(report.merge)
    return report


def pull(store: EventStore, client: Client, ref: str) -> Outcome:
    """Fetch the server's events after our head, verify everything, import."""
    meta, combat_id = find(store, client, ref)
    info = client.info(combat_id)
    if info is None:
        raise NotFound(f"{client.remote.name} does not have {ref} (push creates it there)")
    have = store.head(combat_id).seq if meta is not None else 0
    since = min(have, int(info["head_seq"]))
    if meta is not None and since == have and since == int(info["head_seq"]) and _hash_at(store, meta, since) == info["head_hash"]:
        return Outcome(meta.name, "up_to_date", 0, have, info["head_hash"])
    report = import_pulled(store, client, client.events(combat_id, since), combat_id, since)
    head = store.head(combat_id)  # after a merge: the server's events and ours re-applied after them
    return Outcome(report.name, "pulled", sum(report.appended.values()), head.seq, head.hash)


def sync(store: EventStore, client: Client, refs: list[str]) -> list[Outcome]:
    """Pull, then push, each combat named (by default every combat of this log the server has)."""
    if not refs:
        on_server = {str(c["id"]) for c in client.combats()}
        refs = [m.id for m in store.list_streams() if m.id in on_server]
    out: list[Outcome] = []
    for ref in refs:
        meta, combat_id = find(store, client, ref)
        if meta is not None and client.info(combat_id) is None:
            out.append(create(store, client, ref))
            continue
        out.append(pull(store, client, ref))
        if not client.plays(client.info(combat_id)):  # a spectator (an invite token) only pulls
            continue
        pushed = push(store, client, combat_id)
        if pushed.action != "up_to_date":
            out.append(pushed)
    return out
