"""workers/forked.py: results in order, a worker's exception re-raised, a dead worker stops the map."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator

import pytest

from hipify_py.workers.forked import WorkerDied, _Chunks, decode, forked_map, forked_payloads

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="forked_map needs fork")


def _square(n: int) -> int:
    return n * n


def test_results_come_in_order_whatever_the_chunking() -> None:
    items = list(range(103))
    for jobs, size in ((1, 1), (2, 1), (2, 7), (3, 50), (4, 200)):
        assert list(forked_map(_square, items, jobs, size)) == [n * n for n in items]
    assert list(forked_map(_square, [], 2, 4)) == []


@pytest.mark.parametrize(
    ("count", "size", "jobs"), [(400, 12, 2), (1153, 36, 2), (103, 7, 3), (5, 64, 2), (0, 4, 2)]
)
def test_tasks_cover_the_items_once_and_shrink_towards_the_end(count: int, size: int, jobs: int) -> None:
    items = list(range(count))
    chunks = _Chunks(items, size, jobs)
    tasks = [list(chunks[i]) for i in range(len(chunks))]
    assert [n for task in tasks for n in task] == items
    sizes = [len(task) for task in tasks]
    assert all(1 <= n <= size for n in sizes) and sizes == sorted(sizes, reverse=True)
    if count >= 8 * jobs * size:  # a long run: full tasks first, single items last
        assert sizes[0] == size and sizes[-1] == 1


def test_meanwhile_steps_run_while_no_result_waits_and_never_hold_one_back() -> None:
    events: list[str] = []

    def steps() -> Iterator[None]:
        for n in range(10_000):
            time.sleep(0.0005)  # slow steps (a network file system): 5 s in all
            events.append(f"step {n}")
            yield

    results = []
    for payload in forked_payloads(_square, list(range(30)), 2, 4, meanwhile=steps()):
        events.append("result")
        results += decode(payload)
    assert results == [n * n for n in range(30)]
    ran = [e for e in events if e != "result"]
    assert ran == [f"step {n}" for n in range(len(ran))]  # in order, one at a time
    assert "step 9999" not in events  # the results did not wait for the steps to end


def test_results_are_computed_in_the_workers() -> None:
    pids = set(forked_map(lambda _: os.getpid(), list(range(40)), 2, 1))
    assert os.getpid() not in pids and 1 <= len(pids) <= 2


def _fails_on_13(n: int) -> int:
    if n == 13:
        raise ValueError("thirteen")
    return n


def test_an_exception_in_a_worker_is_raised_in_the_caller() -> None:
    with pytest.raises(ValueError, match="thirteen"):
        list(forked_map(_fails_on_13, list(range(40)), 2, 3))


def _dies_on_13(n: int) -> int:
    if n == 13:
        os._exit(9)  # as if killed
    return n


def test_a_dead_worker_stops_the_map() -> None:
    results = forked_map(_dies_on_13, list(range(40)), 2, 3)
    with pytest.raises(WorkerDied):
        list(results)
