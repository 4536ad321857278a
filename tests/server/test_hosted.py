"""A combat's access rules and stream metadata are read from the database once per server process
(``Api._hosted``): neither changes once a combat is hosted. What is remembered is only what was found
(an unknown combat is looked up again, and found once created), within a bound; and the appends served
from what is remembered answer exactly what the database says."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from combatlog.server import auth, routes
from combatlog.server.errors import ApiError
from combatlog.server.feed import PollingNotifier
from combatlog.server.routes import Api, Call, Config
from combatlog.server.worker import Worker


@pytest.fixture
def hosting(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("COMBATLOG_HOME", str(tmp_path / "keys"))
    from combatlog.remote import client as rc
    from combatlog.remote.config import Remote
    from combatlog.store import open_store
    from combatlog.trust.keys import new_key

    new_key("alice")
    db = str(tmp_path / "server.db")
    worker = Worker(db, db)

    async def head(stream: str) -> int:
        return 0

    api = Api(Config(db=db, state=db, allow_keys=None, proof_dir=tmp_path), worker, PollingNotifier(head, 5))
    client = rc.Client(Remote(name="o", url="http://127.0.0.1:1"), "alice")
    local = open_store("memory:")

    def call(method: str, target: str, body: bytes = b"") -> Call:
        headers = {k.lower(): v for k, v in client.sign_headers(method, target, body).items()}
        return Call(method, target, body, auth.signed_request(headers, method, target, body), "", "127.0.0.1")

    def host(name: str) -> str:
        from combatlog.trust.players import pin_players
        from combatlog.wiring import create_combat

        pinned, signer = pin_players(["alice"], "alice")
        meta = create_combat(local, name, "freeform", actor="alice", players=pinned, signer=signer).stream
        worker.call(api._create, call("POST", "/v1/combats", rc._bundle(local, meta, 0)), False)
        return meta.id

    def append(combat_id: str, text: str) -> dict[str, Any]:
        from combatlog.commands.core import AddNote
        from combatlog.trust.players import make_signer
        from combatlog.wiring import execute

        meta = local.get_stream(combat_id)
        before = local.head(combat_id).seq
        execute(local, combat_id, AddNote(text=text), actor="alice", signer=make_signer("alice"))
        target = f"/v1/combats/{combat_id}/events"
        return worker.call(api._append, combat_id, call("POST", target, rc._bundle(local, meta, before)))

    yield api, worker, host, append
    worker.close()


def test_found_once_read_once(hosting: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    api, worker, host, append = hosting
    cid = host("duel")
    reads: list[str] = []
    real_get = worker.registry.get
    monkeypatch.setattr(worker.registry, "get", lambda combat_id: reads.append(combat_id) or real_get(combat_id))
    for i in range(3):
        answer = append(cid, f"note {i}")
        head = worker.call(worker.store.head, cid)
        assert (answer["appended"], answer["head_seq"], answer["head_hash"]) == (1, head.seq, head.hash)
        assert answer["name"] == "duel" and answer["players"][0]["name"] == "alice"
    assert reads == [cid]  # the first append read the access rules; the next two did not


def test_an_unknown_combat_is_looked_up_again(hosting: Any) -> None:
    api, worker, host, append = hosting
    with pytest.raises(ApiError) as refused:
        worker.call(api._hosted, "0123456789abcdef")
    assert refused.value.status == 404
    assert api.known == {}
    cid = host("duel")
    with pytest.raises(ApiError):
        worker.call(api._hosted, "fedcba9876543210")
    access, meta = worker.call(api._hosted, cid)
    assert (access.id, meta.id, meta.name) == (cid, cid, "duel")


def test_what_is_remembered_is_bounded(hosting: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    api, worker, host, append = hosting
    monkeypatch.setattr(routes, "MAX_KNOWN", 2)
    ids = [host(f"duel-{i}") for i in range(3)]
    for cid in ids:
        worker.call(api._hosted, cid)
    assert list(api.known) == ids[1:]  # the first found is dropped first
    assert append(ids[0], "still served")["appended"] == 1  # and found again when asked
