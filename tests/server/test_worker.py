"""The store's thread (server/worker.py): calls run on it one at a time in the order they were queued, a
call's exception reaches its caller and the thread goes on, a caller that went away (cancelled) does not
stop it, and close() ends it after the calls queued before."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path

import pytest

from combatlog.server.worker import Worker


@pytest.fixture
def worker(tmp_path: Path):  # type: ignore[no-untyped-def]
    db = str(tmp_path / "server.db")
    w = Worker(db, db)
    yield w
    if w._thread.is_alive():
        w.close()


def test_calls_run_in_order_on_one_thread_that_is_not_the_loops(worker: Worker) -> None:
    ran: list[tuple[int, int]] = []

    def step(i: int) -> int:
        ran.append((i, threading.get_ident()))
        time.sleep(0.001 * (5 - i))  # the earlier the slower: order is the queue's, not the clock's
        return i * i

    async def main() -> list[int]:
        return list(await asyncio.gather(*(worker.run(step, i) for i in range(5))))

    assert asyncio.run(main()) == [0, 1, 4, 9, 16]
    assert [i for i, _ in ran] == [0, 1, 2, 3, 4]
    threads = {t for _, t in ran}
    assert len(threads) == 1 and threads != {threading.get_ident()}
    assert worker.call(lambda: worker.store.list_streams()) == []  # the store was opened on that thread


def test_an_exception_reaches_the_caller_and_the_thread_goes_on(worker: Worker) -> None:
    def boom() -> None:
        raise ValueError("refused here")

    async def main() -> int:
        with pytest.raises(ValueError, match="refused here"):
            await worker.run(boom)
        return await worker.run(lambda: 7)

    assert asyncio.run(main()) == 7
    with pytest.raises(ValueError, match="refused here"):
        worker.call(boom)


def test_a_cancelled_caller_does_not_stop_the_thread(worker: Worker) -> None:
    release = threading.Event()
    done: list[str] = []

    def slow() -> str:
        release.wait(10)
        done.append("slow")
        return "slow"

    async def main() -> str:
        task = asyncio.ensure_future(worker.run(slow))
        await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        release.set()
        return await worker.run(lambda: "next")

    assert asyncio.run(main()) == "next"
    assert done == ["slow"]  # the call itself ran to its end; only its answer was dropped


def test_close_ends_the_thread_after_the_calls_queued_before(worker: Worker) -> None:
    worker.close()
    assert not worker._thread.is_alive()


def test_a_store_that_cannot_open_is_an_error_and_leaves_no_thread(tmp_path: Path) -> None:
    before = {t for t in threading.enumerate() if t.name == "combatlog-store"}
    with pytest.raises(Exception):
        Worker(str(tmp_path / "no" / "such" / "folder" / "server.db"), ":memory:")
    time.sleep(0.1)
    assert {t for t in threading.enumerate() if t.name == "combatlog-store" and t.is_alive()} <= before
