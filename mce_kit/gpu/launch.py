"""Launch plumbing shared by every kernel: constant-memory parameters, free memory, pass planning.

    PARAMS = params_dtype(pointers=("indptr", ...), i8=("cap",), i4=("n_seeds", "tau"))
    set_params(module, PARAMS, indptr=d_indptr, ..., tau=24)    # -> __constant__ Params G
    kernel_struct_fields(read_source("x.cu"))                   # what a CPU test compares PARAMS with
    passes = plan_passes({"rows": rows_need, "stack": stack_need}, n_workers, budget, "RDMCE")
    pieces = split_heavy(cost, n_workers, most)                 # heavy tasks cut into pieces
    task_of_piece, code = expand_pieces(pieces)                  # what a split-aware kernel reads

A kernel with many launch parameters takes them in one ``__constant__ struct
Params G``; the NumPy dtype on the host must list the same fields in the same
order (pointers ``u8``, ``long long`` ``i8``, ``int`` ``i4``; pointers first
keeps the layout free of padding).
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import re

import numpy as np

from ..accel import array_module
from ..graph import is_int_at_least


def params_dtype(pointers=(), i8=(), i4=()) -> np.dtype:
    """The host twin of a kernel's ``struct Params``: pointers, then 64-bit, then 32-bit ints."""
    return np.dtype([(n, "u8") for n in pointers] + [(n, "i8") for n in i8] + [(n, "i4") for n in i4])


class SharedQueueError(RuntimeError):
    """A run inside ``shared_task_queue`` launched more task-taking kernels than the queue has
    counters."""


QUEUE_SLOT_BYTES = 128  # one int32 counter per 128-byte line: launches do not share a line
_QUEUE: contextvars.ContextVar = contextvars.ContextVar("shared_task_queue", default=None)


@contextlib.contextmanager
def shared_task_queue(pointer: int, slots: int):
    """Inside, the i-th kernel launch that takes tasks (a ``Params`` with ``next``) takes them from
    the int32 counter at device address ``pointer + i * QUEUE_SLOT_BYTES``, which the i-th launch
    on every other GPU takes from too: a run split over GPUs by ``mce_kit.distributed`` gives each
    GPU the whole task list, and each task goes to whichever GPU asks first. Yields a dict whose
    ``launches`` lists each launch's task count (every GPU must launch the same sequence)."""
    state = {"pointer": int(pointer), "slots": int(slots), "launches": []}
    token = _QUEUE.set(state)
    try:
        yield state
    finally:
        _QUEUE.reset(token)


def in_shared_queue() -> bool:
    """Whether launches now take their tasks from a queue shared with other GPUs: each GPU must
    then launch the very same entries in the same order (a launcher keeps no order of its own)."""
    return _QUEUE.get() is not None


def _next_task_counter(values: dict) -> object:
    """``next`` for a launch: its own ``ctrl`` word 0, or its counter of the shared queue."""
    queue = _QUEUE.get()
    if queue is None:
        return values["ctrl"]
    i = len(queue["launches"])
    if i >= queue["slots"]:
        raise SharedQueueError(f"a shared task queue of {queue['slots']} counters: this run launches more")
    queue["launches"].append(int(values.get("n_seeds", values.get("n_tasks", -1))))
    return queue["pointer"] + QUEUE_SLOT_BYTES * i


def set_params(module, dtype: np.dtype, symbol: str = "G", **values) -> None:
    """Copy one launch's parameters into the module's ``__constant__`` struct ``symbol``. A kernel
    whose struct has ``next`` gets its task counter from ``_next_task_counter`` unless given. A
    record equal to the one that struct last received is not copied again: a warm call repeats its
    record (kept buffers, CuPy's pool handing back the same blocks), and the packing and the
    synchronous copy took ~15 us of its host time. The struct is known by its device address, not
    by the module object: CuPy loads a file once per process and GPU (its ``_get_raw_module`` is
    memoized), so module objects of one cubin (after a cleared loader cache; two copies of mce_kit)
    share one struct, and each overwrites the record the other noted."""
    import cupy

    if "next" in dtype.names and "next" not in values:
        values["next"] = _next_task_counter(values)
    words = params_words(dtype, values, lambda a: a.data.ptr if isinstance(a, cupy.ndarray) else a)
    target = module.get_global(symbol)
    at = (target.ptr, cupy.cuda.get_device_id())
    last = _WRITTEN.get(at)
    if _KEEP_RECORDS and last is not None and last[0] == words:
        return
    _WRITTEN.pop(at, None)   # (unknown until the copy has landed)
    host = np.array([words], dtype=dtype)
    target.copy_from_host(host.ctypes.data, host.nbytes)
    _WRITTEN[at] = (words, module, target)   # (kept alive: the address stays theirs)


_KEEP_RECORDS = True   # the shortcut above (a switch for scripts/ab_records.py to time it against)
# {(a __constant__ struct's device address, GPU): (the record it holds, its module, the struct)}
_WRITTEN: dict = {}


def params_words(dtype: np.dtype, values: dict, as_word=lambda x: x) -> tuple:
    """``values`` in ``dtype``'s field order, each through ``as_word`` (a device array becomes its
    address); a TypeError naming the fields given that ``dtype`` lacks, or lacks given."""
    names, given = dtype.names, values.keys()
    if len(given) != len(names) or given != _name_set(dtype):
        raise TypeError(f"Params fields differ: {sorted(set(values) ^ set(names))}")
    return tuple(as_word(values[name]) for name in names)


@functools.cache
def _name_set(dtype: np.dtype) -> frozenset:
    return frozenset(dtype.names)


def pack_params(dtype: np.dtype, values: dict, as_word=lambda x: x) -> np.ndarray:
    """One record of ``dtype`` holding ``values`` (``params_words``), built from one tuple in field
    order (field by field took ~1 us a field)."""
    return np.array([params_words(dtype, values, as_word)], dtype=dtype)


def kernel_struct_fields(source: str, struct: str = "Params") -> list[tuple[str, str]]:
    """(name, NumPy type code) of each field of ``struct <struct> {...};`` in CUDA ``source``."""
    body = re.search(rf"struct {struct} \{{(.*?)\n\}};", source, re.S).group(1)
    fields = []
    for line in body.splitlines():
        decl = line.split("//")[0].strip().rstrip(";")
        if not decl:
            continue
        ctype, name = decl.rsplit(None, 1)
        ctype = ctype.replace("const ", "")
        kind = "u8" if "*" in ctype + name else {"long long": "i8", "unsigned long long": "u8",
                                                 "int": "i4"}[ctype]
        fields.append((name.lstrip("*"), kind))
    return fields


def sm_count() -> int:
    """Streaming multiprocessors of the current GPU (asked of the driver once per GPU: CuPy's
    ``Device.attributes`` reads every attribute, a tenth of a millisecond)."""
    import cupy

    return _sm_count(cupy.cuda.Device().id)


@functools.cache
def _sm_count(device: int) -> int:
    import cupy

    return cupy.cuda.runtime.deviceGetAttribute(cupy.cuda.runtime.cudaDevAttrMultiProcessorCount, device)


@functools.cache
def device_attributes(device: int) -> dict:
    """Every attribute of GPU ``device`` (CuPy's ``Device.attributes``, a tenth of a millisecond to
    read), asked of the driver once per GPU."""
    import cupy

    return cupy.cuda.Device(device).attributes


def free_bytes() -> int:
    """Device bytes free now, counting what CuPy's pool holds but does not use."""
    import cupy

    free, _ = cupy.cuda.runtime.memGetInfo()
    return int(free + cupy.get_default_memory_pool().free_bytes())


_ONE_PASS = True  # the shortcut below (a switch for the test that compares it with the general split)


def plan_passes(needs, n_workers: int, budget: int, label: str, describe=None, align: int = 4,
                largest: dict[str, int] | None = None,
                n: int | None = None) -> list[tuple[np.ndarray, dict[str, int], int]]:
    """Split tasks into passes whose per-worker buffers fit ``budget`` bytes.

    ``needs`` maps each per-worker region to the 32-bit words every task needs
    in it. Returns ``[(task indices, {region: words per worker}, workers)]``;
    each cap is a multiple of ``align`` words. No task is ever dropped: one too
    big for the full worker count runs in a later pass with fewer workers; one
    too big for a single worker raises ``MemoryError`` naming it
    (``describe(i)``, e.g. "seed (3, 17)") and the bytes it needs.
    ``needs`` may be a function giving that map, with each region's ``largest``
    need and the ``n`` tasks given: it is called only when one pass cannot hold them.
    """
    if callable(needs):
        if _ONE_PASS and n and _fits(largest, n_workers, budget, align):
            return _one_pass(n, largest, n_workers, align)
        needs = needs()
    regions = list(needs)
    n = len(np.asarray(needs[regions[0]])) if regions else 0
    largest = {r: int(np.asarray(needs[r]).max()) if n else 0 for r in regions}
    if _ONE_PASS and n and _fits(largest, n_workers, budget, align):
        # the usual case: every task fits at full width (the regions' largest needs together do, so
        # every task's sum does), one pass in task order; no per-task sum (a warm call's host time)
        return _one_pass(n, largest, n_workers, align)
    words = {r: np.asarray(needs[r], dtype=np.int64) for r in regions}
    need = sum(_rounded(w, align) for w in words.values())   # each task's words, as caps round them

    def caps_of(idx):
        return {r: _rounded(int(words[r][idx].max()), align) for r in regions}

    # Passes by rising need: each takes every task left whose need fits its per-worker share; when
    # none fits, the workers shrink. One pass over the tasks left per step, no sort (millions of seeds).
    # A pass's caps are its regions' largest needs, which may come from different tasks: where they
    # exceed the share, the pass takes the tasks of 1/len(regions) of it (their caps then fit).
    rest = np.arange(len(need))
    left = need
    passes, workers = [], n_workers
    while len(rest):
        per_worker = budget // (4 * workers)
        take = left <= per_worker
        if not take.any():
            j = int(np.argmin(left))  # the smallest need left (its first task on ties)
            if workers == 1:
                i = int(rest[j])
                what = describe(i) if describe else f"task {i}"
                raise MemoryError(
                    f"{label}: {what} needs {memory_text(int(need[i]) * 4)} of GPU buffers; "
                    f"only {memory_text(budget)} are available"
                )
            workers = max(1, min(workers // 4, budget // (4 * int(left[j]))))
            continue
        caps = caps_of(rest[take])
        if sum(caps.values()) > per_worker:
            take = left <= per_worker // len(regions)
            if not take.any():   # the smallest need alone (its caps are its own needs)
                take = np.zeros(len(left), bool)
                take[int(np.argmin(left))] = True
            caps = caps_of(rest[take])
        passes.append((rest[take], caps, workers))
        rest, left = rest[~take], left[~take]
    return passes


def plan_key(*settings) -> tuple | None:
    """``with_kept_plan``'s key for a run of these settings (a launcher's parameters in a fixed order,
    its compile-time defines...); None where one is unhashable (a value given as a list): not kept."""
    try:
        hash(settings)
    except TypeError:
        return None
    return settings


def with_kept_plan(memo: dict, key, make_plan, one_pass, launch):
    """``launch(plan)`` with the plan kept in ``memo[key]`` for the next call when ``one_pass(plan)``
    (a plan of several passes depends on the free memory of its moment; ``key`` None: never kept),
    so a warm call skips asking the driver and planning. A kept plan that meets a shortage
    (``OutOfMemoryError``: memory was taken since) is forgotten and the launch runs once more on a
    plan made from free memory now; a fresh plan's shortage is the caller's."""
    plan = memo.get(key) if key is not None else None
    if plan is not None:
        try:
            return launch(plan)
        except _out_of_memory():
            memo.pop(key, None)
    plan = make_plan()
    if key is not None and one_pass(plan):
        memo[key] = plan
    return launch(plan)


def _out_of_memory():
    import sys

    return sys.modules["cupy"].cuda.memory.OutOfMemoryError


def _one_pass(n: int, largest: dict[str, int], n_workers: int, align: int) -> list:
    return [(every_task(n), {r: _rounded(w, align) for r, w in largest.items()}, n_workers)]


KEEP_EVERY_TASK = 1 << 21   # ``every_task`` keeps 0..n-1 up to this long (16 MiB), two of them at most


def every_task(n: int) -> np.ndarray:
    """0, 1, ..., n - 1 (int64, read-only): the one pass of every task. A warm call of a million tasks
    spent 0.3 ms building it (soc-Slashdot0902, k = 4, one H200 host), so short ones are kept."""
    return _kept_range(n) if n <= KEEP_EVERY_TASK else np.arange(n)


@functools.lru_cache(maxsize=2)
def _kept_range(n: int) -> np.ndarray:
    r = np.arange(n)
    r.flags.writeable = False
    return r


def memory_text(nbytes: int) -> str:
    """Bytes in MiB as a message gives them, with the bytes themselves below 0.1 MiB (which one
    decimal would show as 0.0)."""
    if nbytes >= 2**20 // 10:
        return f"{nbytes / 2**20:.1f} MiB"
    return f"{nbytes / 2**20:.2g} MiB ({nbytes:,} bytes)"


def check_warps_per_sm(value) -> int:
    """``warps_per_sm`` as an int; a one-line ValueError unless it is a positive int."""
    if not is_int_at_least(value, 1):
        raise ValueError(f"warps_per_sm must be a positive int, got {value!r}")
    return int(value)


def _rounded(words, align: int):
    """``words`` (an int or an array) rounded up to a multiple of ``align``, as a buffer cap is."""
    return -(-words // align) * align


def _fits(largest: dict[str, int], n_workers: int, budget: int, align: int) -> bool:
    """Whether every region's largest need (as its cap rounds it) fits one worker's share of ``budget``
    at once."""
    return sum(_rounded(w, align) for w in largest.values()) <= budget // (4 * n_workers)


def pick_tasks(tasks, n: int, label: str, what: str = "seeds") -> np.ndarray | None:
    """Validated indices into a kernel's task list (``None``: every task). Run-time subsets let
    several GPUs share one graph (``mce_kit.distributed``): disjoint subsets add up to the whole."""
    if tasks is None:
        return None
    idx = np.asarray(tasks)
    if idx.ndim != 1 or (len(idx) and not np.issubdtype(idx.dtype, np.integer)):
        raise ValueError(f"{label}: {what}= must be a 1-D array of task indices, got shape {idx.shape} "
                         f"of {idx.dtype}")
    idx = idx.astype(np.int64)
    if len(idx) and (idx.min() < 0 or idx.max() >= n):
        raise ValueError(f"{label}: {what}= indices must lie in 0..{n - 1}, got {idx.min()}..{idx.max()}")
    marked = np.zeros(n, dtype=np.bool_)
    marked[idx] = True
    if int(np.count_nonzero(marked)) != len(idx):  # (np.unique hashed 220k indices in 60 ms)
        raise ValueError(f"{label}: {what}= holds repeated indices (each task would count twice)")
    return idx


SPLIT_SHARE = 4     # a piece is estimated at no more than 1/SPLIT_SHARE of a worker's even share
SPLIT_MIN_SIZE = 16  # tasks with fewer candidates are never split (their sub-trees are short)


def split_heavy(cost: np.ndarray, n_workers: int, most: np.ndarray | int,
                split_share: float = SPLIT_SHARE, total: float | None = None) -> np.ndarray:
    """How many pieces each task runs as (>= 1, <= ``most``). A launch lasts at least as long as its
    costliest task on one worker; a task estimated above 1/``split_share`` of a worker's even share
    (total / n_workers) is cut into pieces of about that size, so the launch is not left waiting on
    one edge (KCMiner and the pivot counter on ego-Facebook were: half the tasks took as long as
    all of them). ``cost``: any estimate that grows with the task's work; ``total``: the cost the
    even share is taken from (default ``cost.sum()``; a chunk of a larger list passes the list's)."""
    xp = array_module(cost)   # NumPy, or CuPy for costs on the GPU (``most`` then an array there too)
    cost = xp.asarray(cost, dtype=xp.float64)
    if not bool(xp.isfinite(cost).all()) or (total is not None and not np.isfinite(total)):
        raise ValueError("split_heavy: task costs must be finite (estimate on a capped scale)")
    if len(cost) == 0 or n_workers < 1:
        return xp.ones(len(cost), dtype=xp.int64)
    share = (float(cost.sum()) if total is None else total) / (split_share * n_workers)
    if not share > 0:
        return xp.ones(len(cost), dtype=xp.int64)
    return xp.clip(xp.ceil(xp.divide(cost, share)), 1, xp.maximum(1, most)).astype(xp.int64)


def expand_pieces(pieces: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(task of each piece, code ``piece | count << 16``), a task's pieces side by side in task order:
    the per-task ``split`` word the KCMiner and pivot-counter kernels read."""
    pieces = np.asarray(pieces, dtype=np.int64)
    cut = np.flatnonzero(pieces != 1)
    return expand_cut(len(pieces), cut, pieces[cut])


def expand_cut(n: int, cut: np.ndarray, count: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``expand_pieces`` of n tasks where only the tasks ``cut`` (ascending) do not run as one piece:
    ``count`` pieces each. Its work past the n-long arrays grows with the cut tasks alone."""
    count = np.asarray(count, dtype=np.int64)
    if len(count) and int(count.max()) >= 1 << 15:
        raise ValueError(f"at most {(1 << 15) - 1} pieces per task, got {int(count.max())}")
    reps = np.ones(n, dtype=np.int64)
    reps[cut] = count
    task = np.repeat(np.arange(n), reps)
    code = np.full(len(task), 1 << 16, dtype=np.int32)
    first = cut + np.cumsum(count - 1) - (count - 1)     # each cut task's first entry
    within = np.arange(int(count.sum())) - np.repeat(np.cumsum(count) - count, count)
    code[np.repeat(first, count) + within] = within | (np.repeat(count, count) << 16)
    return task, code


def to_host_once(arrays) -> list[np.ndarray]:
    """Device arrays on the host after one copy (their bytes joined on the device first): a warm
    call's per-worker statistics cost one transfer instead of one each."""
    import cupy

    flat = cupy.concatenate([a.ravel().view(cupy.uint8) for a in arrays]).get()
    out, at = [], 0
    for a in arrays:
        out.append(flat[at: at + a.nbytes].view(a.dtype).reshape(a.shape))
        at += a.nbytes
    return out
