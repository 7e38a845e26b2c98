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
    total = needs["rows"] + needs["stack"]
    budget = int(4 * workers * (total.max() + 8) * rng.choice([1, 1, 2]))  # fits at full width
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
