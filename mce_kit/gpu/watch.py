"""Waiting for a long kernel: a progress bar from its task counter, and Ctrl-C that stops it cleanly.

    with Watch(len(seeds), progress=progress, what="RDMCE", unit="seed",
               finished=lambda: int(seeds_taken.sum()), found=lambda: int(counts.sum())) as w:
        for ...:                                  # one launch per pass
            kernel(...)
            w.wait(ctrl[:2], n_tasks, stop)       # ctrl[0]: next task, ctrl[1]: tasks in flight

    wait(ctrl[:1], n_tasks, stop, progress=True, what="KCMiner", unit="edge")   # one launch

A persistent kernel takes its tasks from an atomic next-task counter in device memory. While it
runs, the host waits in a Python loop on a CUDA event recorded after the launch (so Ctrl-C lands
at once: a blocking copy would hold it until the kernel ends). With a bar, every ``POLL_S`` it
reads the counter with a small copy on a separate non-blocking stream (beside the kernel, not
behind it) and shows tasks taken / total with tqdm's ETA; where the counter has a second word, the
tasks in flight, the bar shows it too (the last tasks taken may run long after the bar is full).
Without one nothing is read: the loop only queries the event, spinning for the first ``SPIN_S``
and then napping a small fraction of the time already waited. ``progress="auto"`` shows the bar
once a launch has run ``QUIET_S``.

Ctrl-C: the host writes 1 to the kernel's stop word (one int32 in device memory, a copy on the
side stream), the kernel takes no further task (it reads the word where a worker fetches one),
the tasks in flight finish, and once the launch has ended ``Stopped`` (a KeyboardInterrupt)
says how many tasks finished of how many and what they found, a lower bound: never an answer.
A second Ctrl-C while those tasks finish stops waiting for them. ``interrupt_after(s)`` acts
like a Ctrl-C s seconds into each wait (tests, no signal needed). ``released(run, ...)`` lets a
``Stopped`` out without the run's frames, so its device buffers go back to the device.

The kernel's side (rdmce.cu, mcegpu.cu): a ``const int* stop`` launch parameter, and where a
worker is about to take a task, ``if (volatile_load(stop))`` take none and end as when the tasks
run out. Tasks are taken in counter order, so the tasks finished are the first ones; a kernel that
moves its counter to the end on a stop (so its usual end test holds) gives ``finished`` from its
own per-worker task counts.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time

import numpy as np

POLL_S = 0.15     # seconds between two reads of the task counter while a bar is shown
QUIET_S = 1.0     # progress="auto": a launch that runs this long gets a bar
SPIN_S = 0.005    # the first seconds of a wait query the event back to back (no nap)
NAP_SHARE = 0.02  # then each nap is this share of the time waited so far (the end is seen that late)...
MAX_NAP_S = 0.002  # ...and at most this long (a launch's end seen late adds to every timed call)

_hook = threading.local()  # interrupt_after: seconds into a wait at which a Ctrl-C is simulated


class Stopped(KeyboardInterrupt):
    """Ctrl-C stopped a kernel cleanly: it took no further task and its launch has ended.
    ``done`` tasks finished of ``total``; ``found`` is what they found (a lower bound on the
    answer, None where the launcher cannot say)."""

    def __init__(self, what: str, unit: str, done: int, total: int, found: int | None, found_what: str,
                 seconds: float):
        self.what, self.unit, self.done, self.total = what, unit, done, total
        self.found, self.found_what, self.seconds = found, found_what, seconds
        super().__init__(self.message())

    def message(self) -> str:
        s = "" if self.total == 1 else "s"
        text = (f"{self.what} stopped by Ctrl-C after {self.seconds:.1f} s: {self.done:,} of {self.total:,} "
                f"{self.unit}{s} finished")
        if self.found is not None:
            text += f", {self.found:,} {self.found_what} found in them (a lower bound, not the answer)"
        if 0 < self.done < self.total:
            rest = self.seconds * (self.total - self.done) / self.done
            text += f"; at this pace the other {self.unit}s would take about {_duration(rest)}"
        return text

    def __str__(self) -> str:
        return self.message()

    def __reduce__(self):  # pickles whole (a Dask worker's error reaches the client)
        return Stopped, (self.what, self.unit, self.done, self.total, self.found, self.found_what,
                         self.seconds)


def _duration(s: float) -> str:
    if s < 120:
        return f"{max(1, round(s))} s"
    if s < 7200:
        return f"{s / 60:.0f} min"
    return f"{s / 3600:.1f} h"


@contextlib.contextmanager
def interrupt_after(seconds: float = 0.0):
    """Inside this block (this thread), each wait acts as if Ctrl-C came ``seconds`` after it began:
    the stop path of a real interrupt, without a signal (tests)."""
    before = getattr(_hook, "seconds", None)
    _hook.seconds = float(seconds)
    try:
        yield
    finally:
        _hook.seconds = before


class CupyLink:
    """The device side of a wait: events, and 4-byte copies on a side stream through pinned memory
    (made on first use: a short wait without a bar never makes them)."""

    def __init__(self):
        import cupy

        self.cupy = cupy
        self.side = None

    def record(self):
        """An event recorded now on the current stream (after the launch just queued)."""
        ev = self.cupy.cuda.Event(disable_timing=True)
        ev.record()
        return ev

    def finished(self, event) -> bool:
        return event.done

    def _ready(self):
        if self.side is None:
            cupy = self.cupy
            self.side = cupy.cuda.Stream(non_blocking=True)  # runs beside the kernel's stream
            self.pinned = cupy.cuda.alloc_pinned_memory(32)  # [0, 16): the counter read, [16, 20): 1
            self.host = np.frombuffer(self.pinned, np.uint8, 32)

    def read(self, counter) -> list[int]:
        """The values of ``counter`` (a device array of one or two words) now, while the kernel runs."""
        self._ready()
        rt = self.cupy.cuda.runtime
        n = counter.nbytes
        if n > 16 or not counter.flags.c_contiguous:
            raise ValueError(f"watch: the task counter is 1 or 2 contiguous words, got {counter.shape} "
                             f"of {counter.dtype}")
        rt.memcpyAsync(self.host.ctypes.data, counter.data.ptr, n, rt.memcpyDeviceToHost, self.side.ptr)
        self.side.synchronize()
        return self.host[:n].view(counter.dtype).tolist()

    def stop(self, word) -> None:
        """Write 1 into ``word`` (one int32 in device memory) beside the running kernel."""
        self._ready()
        rt = self.cupy.cuda.runtime
        self.host[16:20].view(np.int32)[0] = 1
        rt.memcpyAsync(word.data.ptr, self.host.ctypes.data + 16, 4, rt.memcpyHostToDevice, self.side.ptr)
        self.side.synchronize()


class Watch:
    """Waits for the launches of one run (its passes) with one bar over ``total`` tasks.

    ``progress``: True (a tqdm bar on stderr), "auto" (a bar once a launch has run ``QUIET_S``),
    a tqdm-like object with ``update``, a wrapper of an iterable (as the CPU calls take), or
    None / False. ``finished()``: tasks finished, read after a stopped launch has ended (default:
    the counter, which a kernel that moves it to the end on a stop cannot give); ``found()``: what
    they found (default: not said). ``link``: the device side (``CupyLink``; tests pass a fake)."""

    def __init__(self, total: int, *, progress=None, what: str = "kernel", unit: str = "task",
                 finished=None, found=None, found_what: str = "found", link=None):
        self.total, self.progress, self.what, self.unit = int(total), progress, what, unit
        self.finished_fn, self.found_fn, self.found_what = finished, found, found_what
        self.link = link
        self.base = 0          # tasks of the launches already waited for
        self.bar = None
        self.shown = 0         # tasks the bar shows
        self.t0 = time.perf_counter()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None

    def _link(self):
        if self.link is None:
            self.link = CupyLink()
        return self.link

    def _show(self, value: int, in_flight: int | None = None) -> None:
        if self.bar is None:
            desc = f"{self.what} {self.unit}s"
            if self.progress is True or self.progress == "auto":
                from tqdm.auto import tqdm

                self.bar = tqdm(total=self.total, desc=desc, unit=self.unit, file=sys.stderr, leave=False)
            else:  # a tqdm-like object or a wrapper, as the CPU engine takes them
                from ..cpu_engine._run import _Ticker

                self.bar = _Ticker(self.progress, self.total, desc)
        if value > self.shown:
            self.bar.update(value - self.shown)
            self.shown = value
        postfix = getattr(getattr(self.bar, "bar", self.bar), "set_postfix", None)  # where it is tqdm
        if in_flight is not None and postfix is not None:
            postfix(in_flight=in_flight, refresh=False)

    def _taken(self, link, counter, base: int, tasks: int) -> tuple[int, int | None]:
        """(tasks taken, counting earlier launches; tasks in flight or None) from the counter."""
        words = link.read(counter)
        return base + min(max(words[0], 0), tasks), (max(words[1], 0) if len(words) > 1 else None)

    def wait(self, counter=None, tasks: int | None = None, stop=None, *, done=None, base: int | None = None):
        """Return once the launch just queued has ended. ``counter``: its next-task counter (a
        device array: taken tasks = min(counter[0], tasks); counter[1], if there, the tasks in
        flight); ``tasks``: tasks of this launch (default: all of ``total``); ``stop``: the int32
        device word the kernel reads before taking a task (None: this kernel cannot be stopped;
        Ctrl-C then leaves it running);
        ``done``: an event recorded after the launch (default: one recorded now); ``base``: tasks
        counted before this launch (default: those of the earlier waits; a relaunch of the same
        tasks passes its own). Ctrl-C: ``Stopped`` once the launch has ended."""
        link = self._link()
        tasks = self.total if tasks is None else int(tasks)
        base = self.base if base is None else int(base)
        done = link.record() if done is None else done
        shown = self.progress and self.progress != "auto"
        auto = self.progress == "auto"
        t_start = time.perf_counter()
        sim = getattr(_hook, "seconds", None)
        next_read = t_start
        try:
            while True:
                now = time.perf_counter()
                waited = now - t_start
                if sim is not None and waited >= sim:
                    raise KeyboardInterrupt
                if link.finished(done):
                    break
                if counter is not None and now >= next_read and (shown or (auto and waited >= QUIET_S)):
                    self._show(*self._taken(link, counter, base, tasks))
                    next_read = now + POLL_S
                if waited > SPIN_S:
                    time.sleep(min(MAX_NAP_S, NAP_SHARE * waited))
        except KeyboardInterrupt:
            if stop is None:
                self.close()
                raise
            self._stop(link, done, counter, stop, base, tasks)
        if self.bar is not None:
            self._show(base + tasks, 0 if counter is not None and len(counter) > 1 else None)
        self.base = base + tasks

    def _stop(self, link, done, counter, stop, base, tasks):
        """Raise the stop word, wait for the tasks in flight, raise ``Stopped``."""
        link.stop(stop)
        try:
            while not link.finished(done):
                time.sleep(0.001)
        except KeyboardInterrupt:
            raise KeyboardInterrupt(f"{self.what}: second Ctrl-C; the GPU finishes the tasks in flight "
                                    "on its own") from None
        self.close()
        if self.finished_fn is not None:
            finished = int(self.finished_fn())
        else:
            finished = self._taken(link, counter, base, tasks)[0] if counter is not None else base
        found = None if self.found_fn is None else int(self.found_fn())
        raise Stopped(self.what, self.unit, finished, self.total, found, self.found_what,
                      time.perf_counter() - self.t0) from None


def released(run, *args, **kwargs):
    """``run(*args, **kwargs)``; a ``Stopped`` comes out without the frames inside ``run``, so the
    arrays they held go back to CuPy's pool, whose free blocks then go back to the device."""
    try:
        return run(*args, **kwargs)
    except Stopped as s:
        s.__traceback__ = s.__context__ = None  # the frames of the run (and of the wait) go
        stopped = s
    from . import has_gpu

    if has_gpu():
        import cupy

        cupy.get_default_memory_pool().free_all_blocks()
    raise stopped


def wait(counter, total: int, stop, *, progress=None, what: str = "kernel", unit: str = "task", done=None,
         finished=None, found=None, found_what: str = "found", link=None) -> None:
    """One launch of ``total`` tasks: ``Watch(total, ...).wait(counter, total, stop, done=done)``."""
    with Watch(total, progress=progress, what=what, unit=unit, finished=finished, found=found,
               found_what=found_what, link=link) as w:
        w.wait(counter, total, stop, done=done)
