"""gpu/watch.py's host logic against a fake kernel (no GPU): the bar, when the counter is read,
Ctrl-C (simulated and a real SIGINT) and the message it ends with."""

import os
import re
import signal
import threading
import time
import weakref

import numpy as np
import pytest

from mce_kit.gpu import watch


class FakeKernel:
    """A launch whose workers take ``rate`` tasks a second until ``tasks`` are taken (``rate=0``: it
    never ends by itself); once stopped it takes none and ends ``tail_s`` later."""

    def __init__(self, tasks, rate, tail_s=0.02):
        self.tasks, self.rate, self.tail_s = tasks, rate, tail_s
        self.t0 = time.perf_counter()
        self.stopped_at = None

    def taken(self) -> int:
        t = (self.stopped_at or time.perf_counter()) - self.t0
        return min(self.tasks, int(self.rate * t))

    def ended(self) -> bool:
        now = time.perf_counter()
        if self.stopped_at is not None:
            return now >= self.stopped_at + self.tail_s
        return self.rate > 0 and self.rate * (now - self.t0) >= self.tasks


class FakeLink:
    """watch.CupyLink's interface over a FakeKernel; counts the counter reads and the stops."""

    def __init__(self, kernel):
        self.kernel, self.reads, self.stops = kernel, 0, 0

    def record(self):
        return self.kernel

    def finished(self, kernel) -> bool:
        return kernel.ended()

    def read(self, counter) -> list[int]:
        self.reads += 1
        return [self.kernel.taken(), 1][: len(counter)]

    def stop(self, word) -> None:
        word[0] = 1
        self.stops += 1
        self.kernel.stopped_at = time.perf_counter()


class Recorder:
    """A tqdm-like bar: keeps every update."""

    def __init__(self):
        self.steps = []

    def update(self, n):
        self.steps.append(n)

    @property
    def n(self):
        return sum(self.steps)


def _counter_and_stop():
    return np.zeros(1, np.int32), np.zeros(1, np.int32)


def test_a_short_wait_without_a_bar_reads_nothing():
    link = FakeLink(FakeKernel(100, rate=10_000))  # 10 ms
    counter, stop = _counter_and_stop()
    w = watch.Watch(100, link=link)
    w.wait(counter, 100, stop)
    assert link.kernel.ended() and link.reads == 0 and w.bar is None and w.base == 100
    assert stop[0] == 0


def test_the_bar_follows_the_counter_and_ends_at_the_total(monkeypatch):
    monkeypatch.setattr(watch, "POLL_S", 0.02)
    link = FakeLink(FakeKernel(1000, rate=4000))  # 0.25 s
    bar = Recorder()
    counter, stop = _counter_and_stop()
    with watch.Watch(1000, progress=bar, link=link) as w:
        w.wait(counter, 1000, stop)
    assert link.reads >= 3          # read while the kernel ran...
    assert all(s > 0 for s in bar.steps) and len(bar.steps) >= 3
    assert bar.n == 1000            # ...and the bar ends at the total


def test_a_wrapper_is_stepped_to_the_end():
    seen = []

    def wrapper(it):
        for x in it:
            seen.append(x)
            yield x

    link = FakeLink(FakeKernel(50, rate=1000))
    counter, stop = _counter_and_stop()
    watch.wait(counter, 50, stop, progress=wrapper, link=link)
    assert seen == list(range(50))


def test_auto_shows_a_bar_only_once_a_launch_runs_long(monkeypatch):
    monkeypatch.setattr(watch, "QUIET_S", 0.1)
    monkeypatch.setattr(watch, "POLL_S", 0.02)
    made = []

    class Bar(Recorder):
        def __init__(self, **kw):
            super().__init__()
            made.append((kw["total"], kw["desc"], kw["unit"]))

        def close(self):
            pass

    monkeypatch.setattr("tqdm.auto.tqdm", Bar)
    counter, stop = _counter_and_stop()
    short = FakeLink(FakeKernel(10, rate=1000))      # 10 ms: no bar, no read
    watch.wait(counter, 10, stop, progress="auto", link=short)
    assert short.reads == 0 and made == []
    long = FakeLink(FakeKernel(300, rate=1000))      # 0.3 s: a bar after 0.1 s
    watch.wait(counter, 300, stop, progress="auto", what="RDMCE", unit="seed", link=long)
    assert long.reads >= 1 and made == [(300, "RDMCE seeds", "seed")]


def test_a_second_word_shows_the_tasks_in_flight(monkeypatch):
    monkeypatch.setattr(watch, "POLL_S", 0.01)
    shown = []

    class Tqdm(Recorder):
        def __init__(self, **kw):
            super().__init__()

        def set_postfix(self, refresh=True, **kw):
            shown.append(kw)

        def close(self):
            pass

    monkeypatch.setattr("tqdm.auto.tqdm", Tqdm)
    stop = np.zeros(1, np.int32)
    watch.wait(np.zeros(2, np.int32), 100, stop, progress=True, link=FakeLink(FakeKernel(100, rate=1000)))
    assert len(shown) >= 2 and all(kw == {"in_flight": 1} for kw in shown[:-1])
    assert shown[-1] == {"in_flight": 0}  # the launch has ended


def test_passes_add_up_and_a_relaunch_shows_the_same_tasks_again(monkeypatch):
    monkeypatch.setattr(watch, "POLL_S", 0.01)
    bar = Recorder()
    counter, stop = _counter_and_stop()
    with watch.Watch(100, progress=bar, link=FakeLink(None)) as w:
        for tasks in (30, 70):
            w.link = FakeLink(FakeKernel(tasks, rate=1000))
            base = w.base
            w.wait(counter, tasks, stop)
            w.link = FakeLink(FakeKernel(tasks, rate=1000))
            w.wait(counter, tasks, stop, base=base)  # the same pass again (mce-gpu's list grew)
        assert w.base == 100
    assert bar.n == 100


def test_ctrl_c_stops_the_kernel_waits_for_it_and_names_what_finished():
    kernel = FakeKernel(1000, rate=2000, tail_s=0.05)
    link = FakeLink(kernel)
    counter, stop = _counter_and_stop()
    with watch.interrupt_after(0.1), pytest.raises(watch.Stopped) as info:
        watch.wait(counter, 1000, stop, what="RDMCE", unit="seed", found=lambda: 7 * kernel.taken(),
                   found_what="maximal cliques", link=link)
    s = info.value
    assert isinstance(s, KeyboardInterrupt)
    assert link.stops == 1 and stop[0] == 1 and kernel.ended()  # stopped, and the launch has ended
    assert 0 < s.done < 1000 and s.done == kernel.taken() and s.found == 7 * s.done and s.total == 1000
    text = str(s)
    assert "\n" not in text
    m = re.fullmatch(r"RDMCE stopped by Ctrl-C after [\d.]+ s: ([\d,]+) of 1,000 seeds finished, ([\d,]+) "
                     r"maximal cliques found in them \(a lower bound, not the answer\); at this pace the "
                     r"other seeds would take about \d+ s", text)
    assert m and int(m[1].replace(",", "")) == s.done and int(m[2].replace(",", "")) == s.found


def test_finished_comes_from_the_launcher_where_the_kernel_moved_its_counter():
    kernel = FakeKernel(10, rate=0)  # never ends unless stopped
    counter, stop = _counter_and_stop()
    with watch.interrupt_after(0.0), pytest.raises(watch.Stopped) as info:
        watch.wait(counter, 10, stop, finished=lambda: 3, link=FakeLink(kernel))
    assert info.value.done == 3 and info.value.found is None
    assert "3 of 10 tasks finished;" in str(info.value) and "found" not in str(info.value)


def test_a_real_sigint_takes_the_same_path():
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signals reach the main thread only")
    kernel = FakeKernel(10**6, rate=0)  # ends only when stopped: the signal lands inside the wait
    counter, stop = _counter_and_stop()
    timer = threading.Timer(0.1, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(watch.Stopped) as info:
            watch.wait(counter, 10**6, stop, what="mce-gpu", unit="seed", link=FakeLink(kernel))
    finally:
        timer.join()
    assert stop[0] == 1 and kernel.ended() and info.value.done == 0
    assert "0 of 1,000,000 seeds finished" in str(info.value)


def test_a_second_ctrl_c_stops_waiting_for_the_tasks_in_flight():
    class Impatient(FakeLink):
        def finished(self, kernel):
            if self.stops:
                raise KeyboardInterrupt  # the user presses Ctrl-C again while the tail runs
            return False

    counter, stop = _counter_and_stop()
    with watch.interrupt_after(0.0), pytest.raises(KeyboardInterrupt) as info:
        watch.wait(counter, 10, stop, what="RDMCE", link=Impatient(FakeKernel(10, rate=0)))
    assert not isinstance(info.value, watch.Stopped) and "second Ctrl-C" in str(info.value)


def test_a_kernel_without_a_stop_word_is_left_running():
    link = FakeLink(FakeKernel(10, rate=0))
    counter, _ = _counter_and_stop()
    with watch.interrupt_after(0.0), pytest.raises(KeyboardInterrupt) as info:
        watch.wait(counter, 10, None, link=link)
    assert not isinstance(info.value, watch.Stopped) and link.stops == 0


def test_the_end_of_a_launch_is_seen_soon_after_it_happens():
    link = FakeLink(FakeKernel(200, rate=1000))  # 0.2 s
    counter, stop = _counter_and_stop()
    watch.wait(counter, 200, stop, link=link)
    late = time.perf_counter() - (link.kernel.t0 + 0.2)
    assert 0 <= late < watch.MAX_NAP_S + 0.05  # a nap is at most MAX_NAP_S (plus a loaded box's slack)


@pytest.mark.parametrize(("done", "total", "rest"), [(0, 5, None), (5, 5, None), (1, 4, "about 3 s"),
                                                     (9, 10, "about 1 s"), (1, 101, "about 100 s"),
                                                     (1, 1001, "about 17 min")])
def test_the_estimate_of_the_rest(done, total, rest):
    import pickle

    s = watch.Stopped("KCMiner", "edge", done, total, None, "found", 1.0)
    assert ("would take" in str(s)) == (rest is not None)
    if rest:
        assert str(s).endswith(rest)
    back = pickle.loads(pickle.dumps(s))
    assert type(back) is watch.Stopped and str(back) == str(s) and back.done == done


def test_released_lets_a_stop_out_without_the_runs_frames():
    class Buffers:  # stands for a run's device arrays
        pass

    held = []

    def run(x):
        bufs = Buffers()
        held.append(weakref.ref(bufs))
        kernel = FakeKernel(10, rate=0)
        with watch.interrupt_after(0.0):
            watch.wait(np.zeros(1, np.int32), 10, np.zeros(1, np.int32), found=lambda: bufs and 0,
                       link=FakeLink(kernel))

    assert watch.released(lambda x: x + 1, 1) == 2
    with pytest.raises(watch.Stopped) as info:
        watch.released(run, 1)
    assert held[0]() is None  # nothing of the run is kept by the exception
    assert info.value.__context__ is None and "0 of 10 tasks finished" in str(info.value)


class _HostArray:
    """A 'device' array that lives on the host: .data.ptr is its NumPy buffer's address."""

    def __init__(self, a):
        self.a = a
        self.data = type("Ptr", (), {"ptr": a.ctypes.data})()
        self.nbytes, self.dtype, self.flags, self.shape = a.nbytes, a.dtype, a.flags, a.shape


def _fake_cupy():
    """Just the CuPy calls CupyLink makes, with host memory standing in for the device's."""
    import ctypes
    import types

    copies = []

    def memcpy_async(dst, src, n, kind, stream):
        copies.append((kind, n))
        ctypes.memmove(dst, src, n)

    class Stream:
        ptr = 0

        def __init__(self, non_blocking=False):
            assert non_blocking  # beside the kernel's stream, never behind it

        def synchronize(self):
            pass

    runtime = types.SimpleNamespace(memcpyAsync=memcpy_async, memcpyDeviceToHost=2, memcpyHostToDevice=1)
    cuda = types.SimpleNamespace(Stream=Stream, runtime=runtime, alloc_pinned_memory=lambda n: bytearray(n))
    return types.SimpleNamespace(cuda=cuda), copies


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint64])
def test_cupy_link_reads_the_counter_words_and_writes_the_stop_word(dtype):
    link = watch.CupyLink.__new__(watch.CupyLink)
    link.cupy, copies = _fake_cupy()
    link.side = None
    ctrl = np.array([41, 7, 5, 99], dtype=dtype)
    assert link.read(_HostArray(ctrl[:1])) == [41]
    assert link.read(_HostArray(ctrl[:2])) == [41, 7]
    stop = np.zeros(3, np.int32)
    link.stop(_HostArray(stop[1:2]))
    assert stop.tolist() == [0, 1, 0]                   # one int32 written, nothing beside it
    assert link.read(_HostArray(ctrl[:2])) == [41, 7]   # the stop's bytes do not overlap a read
    assert copies[-2:] == [(1, 4), (2, 2 * ctrl.itemsize)]
    with pytest.raises(ValueError, match="1 or 2 contiguous words"):
        link.read(_HostArray(ctrl[::2]))


def test_the_public_calls_pass_progress_to_the_gpu_kernels_only_when_asked(monkeypatch):
    import networkx as nx

    import mce_kit as mk
    from mce_kit import api, cpu

    calls = []

    class Kernel:  # stands in for gpu.rdmce and gpu.mcegpu
        DEFAULTS = {}

        @staticmethod
        def count_maximal_cliques(G, **kw):
            calls.append(kw.get("progress", "absent"))
            return cpu.count_maximal_cliques(G)

        @staticmethod
        def clique_size_histogram(G, **kw):
            calls.append(kw.get("progress", "absent"))
            return cpu.clique_size_histogram(G)

        @staticmethod
        def maximal_cliques(G, **kw):
            calls.append(kw.get("progress", "absent"))
            return [np.asarray(c) for c in cpu.maximal_cliques(G)]

    monkeypatch.setattr("mce_kit.gpu.has_gpu", lambda: True)
    monkeypatch.setattr(api, "_rdmce", lambda: Kernel)
    monkeypatch.setattr(api, "_mcegpu", lambda: Kernel)
    H = nx.gnp_random_graph(30, 0.3, seed=1)
    for algorithm in ("rdmce", "mce-gpu"):
        for progress in (False, True, "auto"):
            mk.count_maximal_cliques(H, device="gpu", algorithm=algorithm, progress=progress)
            mk.count_maximal_cliques(H, device="gpu", algorithm=algorithm, min_size=3, progress=progress)
            mk.clique_size_histogram(H, device="gpu", algorithm=algorithm, progress=progress)
    assert calls == 2 * (3 * ["absent"] + 3 * [True] + 3 * ["auto"])


@pytest.mark.parametrize("name", ["rdmce.cu", "mcegpu.cu"])
def test_the_kernels_read_the_stop_word_once_where_a_seed_is_taken(name):
    # the default build has one more volatile load and one more atomicMax (a stop) than STOP_CHECK=0
    # (bench --define STOP_CHECK=0 measures the check's cost); the other atomicMax is take_next's
    # (a shared task queue that comes back empty)
    pytest.importorskip("cupy_backends.cuda.libs.nvrtc")
    from mce_kit.gpu import loader

    on, _ = loader.compile_ptx(name, "sm_90")
    off, _ = loader.compile_ptx(name, "sm_90", defines={"STOP_CHECK": 0})
    assert on.count("ld.volatile") == off.count("ld.volatile") + 1
    assert on.count("atom.global.max") == 2 and off.count("atom.global.max") == 1
