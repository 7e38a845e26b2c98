"""graph.py's small helpers."""

import numpy as np

from mce_kit.graph import is_permutation


def test_is_permutation():
    assert is_permutation(np.array([2, 0, 1]), 3) and is_permutation(np.array([], np.int32), 0)
    assert not is_permutation(np.array([0, 0, 1]), 3)      # a repeat
    assert not is_permutation(np.array([0, 1, 3]), 3)      # out of range
    assert not is_permutation(np.array([-1, 0, 1]), 3)
    assert not is_permutation(np.array([0, 1]), 3)          # too short
