"""plan_passes: the one-pass shortcut (no sort when every task fits the full worker count)
plans exactly what the general split plans."""

import numpy as np
import pytest

from mce_kit.gpu import launch


@pytest.mark.parametrize("seed", range(30))
def test_one_pass_shortcut_equals_the_general_plan(seed, monkeypatch):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 400))
    needs = {"rows": rng.integers(0, 5000, n), "stack": rng.integers(0, 300, n)}
    workers = int(rng.integers(1, 600))
    caps = sum(-(-int(w.max()) // 4) * 4 for w in needs.values())
    budget = int(4 * workers * caps * rng.choice([1, 1, 2]))  # fits at full width
    fast = launch.plan_passes(needs, workers, budget, "T")
    assert len(fast) == 1 and fast[0][2] == workers
    np.testing.assert_array_equal(fast[0][0], np.arange(n))
    # the general loop, forced by hiding the shortcut's test
    monkeypatch.setattr(launch, "_ONE_PASS", False)
    slow = launch.plan_passes(needs, workers, budget, "T")
    monkeypatch.setattr(launch, "_ONE_PASS", True)
    assert len(slow) == 1 and slow[0][1] == fast[0][1] and slow[0][2] == fast[0][2]
    np.testing.assert_array_equal(slow[0][0], fast[0][0])


def test_tight_budget_still_splits():
    need = np.array([5, 40, 3000, 10, 2000])
    passes = launch.plan_passes({"work": need}, 64, budget=3000 * 4 * 3, label="T")
    assert len(passes) > 1 and sorted(np.concatenate([i for i, *_ in passes]).tolist()) == list(range(5))
    assert launch.plan_passes({"work": np.zeros(0, np.int64)}, 8, 1 << 20, "T") == []


def _sorted_plan(needs, n_workers, budget, label, describe=None, align=4):
    """The split by one stable sort of the needs (the definition the sort-free loop must match): a
    task's need is its regions' words rounded as caps round them; a pass whose caps (largest needs
    of each region, maybe of different tasks) exceed the share takes the tasks within 1/regions of it."""
    regions = list(needs)
    words = {r: np.asarray(needs[r], dtype=np.int64) for r in regions}
    need = sum(-(-w // align) * align for w in words.values())
    order = np.argsort(need, kind="stable")

    def caps_of(idx):
        return {r: -(-int(words[r][idx].max()) // align) * align for r in regions}

    passes, start, workers = [], 0, n_workers
    while start < len(order):
        per_worker = budget // (4 * workers)
        fits = np.searchsorted(need[order], per_worker, side="right")
        if fits <= start:
            if workers == 1:
                i = int(order[start])
                what = describe(i) if describe else f"task {i}"
                raise MemoryError(f"{label}: {what} needs {launch.memory_text(int(need[i]) * 4)} of GPU "
                                  f"buffers; only {launch.memory_text(budget)} are available")
            workers = max(1, min(workers // 4, budget // (4 * int(need[order[start]]))))
            continue
        if sum(caps_of(order[start:fits]).values()) > per_worker:
            fits = max(start + 1, np.searchsorted(need[order], per_worker // len(regions), side="right"))
        idx = order[start:fits]
        passes.append((np.sort(idx), caps_of(idx), workers))
        start = fits
    return passes


@pytest.mark.parametrize("seed", range(60))
def test_split_equals_the_sorted_definition(seed, monkeypatch):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 3000))
    heavy = rng.pareto(1.2, n) * rng.integers(1, 50)  # a few tasks far larger than the rest
    needs = {"rows": (heavy * 10).astype(np.int64), "stack": rng.integers(0, 40, n)}
    workers = int(rng.integers(1, 5000))
    budget = int(rng.choice([10**3, 10**5, 10**6, 10**7, 10**8]))
    monkeypatch.setattr(launch, "_ONE_PASS", bool(seed % 2))
    try:
        want = _sorted_plan(needs, workers, budget, "T")
    except MemoryError as e:
        with pytest.raises(MemoryError) as got:
            launch.plan_passes(needs, workers, budget, "T")
        assert str(got.value) == str(e)
        return
    got = launch.plan_passes(needs, workers, budget, "T")
    for idx, caps, w in got:   # every pass's buffers within the budget
        assert 4 * w * sum(caps.values()) <= budget
        assert all(caps[r] >= needs[r][idx].max() and caps[r] % 4 == 0 for r in needs)
    assert len(got) == len(want)
    for (gi, gc, gw), (wi, wc, ww) in zip(got, want, strict=True):
        np.testing.assert_array_equal(gi, wi)
        assert gc == wc and gw == ww


def test_the_one_pass_of_every_task_is_kept_read_only_while_short():
    a, b = launch.every_task(1000), launch.every_task(1000)
    assert a is b and a.tolist() == list(range(1000)) and not a.flags.writeable
    long = launch.every_task(launch.KEEP_EVERY_TASK + 1)
    assert long is not launch.every_task(launch.KEEP_EVERY_TASK + 1) and long[-1] == launch.KEEP_EVERY_TASK


def test_a_kept_plan_is_reused_and_made_again_when_memory_runs_short(monkeypatch):
    """``with_kept_plan`` (KCMiner's and the pivot counter's warm calls): a one-pass plan is kept by
    key and reused; a kept plan's shortage forgets it and launches once more on a new plan; a new
    plan's shortage, a plan of several passes and a key of None are never kept."""
    monkeypatch.setattr(launch, "_out_of_memory", lambda: MemoryError)
    made, memo = [], {}

    def make(passes):
        return lambda: made.append(passes) or [passes]

    def launch_ok(plan):
        return ("ran", plan[0])

    assert launch.with_kept_plan(memo, "k", make(1), lambda p: p[0] == 1, launch_ok) == ("ran", 1)
    assert launch.with_kept_plan(memo, "k", make(1), lambda p: p[0] == 1, launch_ok) == ("ran", 1)
    assert made == [1] and memo == {"k": [1]}            # kept, then reused
    assert launch.with_kept_plan(memo, "m", make(2), lambda p: p[0] == 1, launch_ok) == ("ran", 2)
    assert launch.with_kept_plan(memo, None, make(1), lambda p: True, launch_ok) == ("ran", 1)
    assert made == [1, 2, 1] and set(memo) == {"k"}     # several passes and key None: not kept
    short = []

    def launch_short_once(plan):
        if not short:
            short.append(plan)
            raise MemoryError
        return ("ran", plan[0])

    memo["k"] = ["stale"]
    assert launch.with_kept_plan(memo, "k", make(1), lambda p: p[0] == 1, launch_short_once) == ("ran", 1)
    assert short == [["stale"]] and memo == {"k": [1]}    # forgotten, made again, kept
    def launch_short(plan):
        raise MemoryError

    with pytest.raises(MemoryError):
        launch.with_kept_plan({}, "k", make(1), lambda p: True, launch_short)


def test_set_params_copies_a_record_only_when_it_differs(monkeypatch):
    """A warm call repeats its launch record; the module's constant struct already holds it."""
    import ctypes
    import sys
    import types

    device = [0]
    monkeypatch.setitem(sys.modules, "cupy", types.SimpleNamespace(
        ndarray=type("ndarray", (), {}), cuda=types.SimpleNamespace(get_device_id=lambda: device[0])))

    class Module:
        """A loaded module: one constant struct per (symbol, GPU), at its own address."""

        def __init__(self, structs=None):
            self.copies, self.structs = [], {} if structs is None else structs

        def get_global(self, symbol):
            at = (symbol, device[0])
            if at not in self.structs:
                self.structs[at] = types.SimpleNamespace(ptr=1000 + 8 * len(self.structs) + 100 * id(self),
                                                         copy_from_host=lambda ptr, n: self.copies.append(
                                                             (symbol, device[0], ctypes.string_at(ptr, n))))
            return self.structs[at]

    monkeypatch.setattr(launch, "_WRITTEN", {})
    dtype = launch.params_dtype(pointers=("a",), i4=("n", "k"))
    one, two = Module(), Module()
    launch.set_params(one, dtype, a=8, n=1, k=4)
    launch.set_params(one, dtype, a=8, n=1, k=4)       # the same record: no copy
    assert len(one.copies) == 1
    assert one.copies[0][2] == launch.pack_params(dtype, {"a": 8, "n": 1, "k": 4}).tobytes()
    launch.set_params(one, dtype, a=8, n=1, k=5)       # one field differs
    launch.set_params(one, dtype, a=8, n=1, k=4)       # back: copied again
    launch.set_params(one, dtype, "H", a=8, n=1, k=4)  # another symbol holds its own
    launch.set_params(two, dtype, a=8, n=1, k=4)       # another module too
    device[0] = 1
    launch.set_params(one, dtype, a=8, n=1, k=4)       # and another GPU
    assert [(s, d) for s, d, _ in one.copies] == [("G", 0)] * 3 + [("H", 0), ("G", 1)]
    assert len(two.copies) == 1
    # two module objects of one loaded cubin (CuPy loads a file once): one struct, written by both
    device[0] = 0
    same = Module(one.structs)   # (the struct's copies are logged in one.copies)
    launch.set_params(same, dtype, a=9, n=1, k=4)
    launch.set_params(one, dtype, a=8, n=1, k=4)       # overwritten by the other: copied again
    assert [c[2] for c in one.copies[5:]] == [launch.pack_params(dtype, {"a": a, "n": 1, "k": 4}).tobytes()
                                              for a in (9, 8)]
    with pytest.raises(TypeError, match="fields differ"):
        launch.set_params(one, dtype, a=8, n=1)


def test_a_task_whose_rounded_need_meets_the_budget_fits():
    """A task of 1021 words (1024 once rounded) fits a 4096-byte budget on one worker; one of 1025
    words (1028) is refused, naming the rounded bytes (GMBE+ refused the first one: fuzz seed 10313)."""
    passes = launch.plan_passes({"buf": np.array([1021, 3])}, 8, 4096, "T")
    assert [(i.tolist(), c, w) for i, c, w in passes] == [([1], {"buf": 4}, 8), ([0], {"buf": 1024}, 1)]
    with pytest.raises(MemoryError, match="4,112 bytes.*4,096 bytes"):
        launch.plan_passes({"buf": np.array([3, 1025, 2])}, 8, 4096, "T")


def test_caps_of_needs_from_different_tasks_stay_within_the_budget():
    """Two regions whose largest needs come from different tasks: one pass of both would take twice
    the share (the plan used to take it); the plan splits them."""
    needs = {"rows": np.array([1000, 0]), "stack": np.array([0, 1000])}
    passes = launch.plan_passes(needs, 1, 4 * 1000, "T")
    assert len(passes) == 2 and all(4 * w * sum(c.values()) <= 4000 for _, c, w in passes)
