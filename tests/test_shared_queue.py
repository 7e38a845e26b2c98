"""The shared task queue's host side (gpu/launch.py): which counter each launch takes from."""

import pytest

from mce_kit.gpu import launch


def test_each_launch_takes_from_its_own_counter():
    values = {"ctrl": 1000, "n_seeds": 7}
    assert launch._next_task_counter(values) == 1000  # no queue: the launch's own ctrl[0]
    with launch.shared_task_queue(1 << 20, 3) as queue:
        got = [launch._next_task_counter({"ctrl": 5, "n_tasks": n}) for n in (9, 4, 6)]
        with pytest.raises(launch.SharedQueueError, match="3 counters"):
            launch._next_task_counter({"ctrl": 5, "n_tasks": 1})
    assert got == [(1 << 20) + i * launch.QUEUE_SLOT_BYTES for i in range(3)]
    assert queue["launches"] == [9, 4, 6]
    assert launch._next_task_counter(values) == 1000  # the queue ends with its block
    assert not launch.in_shared_queue()
    with launch.shared_task_queue(1 << 20, 3):
        assert launch.in_shared_queue()


def test_take_next_is_in_every_task_taking_kernel():
    """Each kernel whose Params has ``next`` takes its tasks through take_next (a stray
    atomicAdd on ctrl[0] would bypass a shared queue and run tasks twice)."""
    import re

    from mce_kit.gpu.loader import read_source

    for name in ("rdmce.cu", "mcegpu.cu", "kclique.cu", "cliquecount.cu", "gmbe.cu"):
        src = read_source(name)
        assert "int* next;" in src and "take_next(G.next" in src, name
        assert not re.search(r"atomicAdd\((G\.)?ctrl, 1\)", src), name
