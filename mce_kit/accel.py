"""Where host-side array work runs: NumPy, or CuPy on the GPU for long arrays.

A leaf module (it imports nothing of mce_kit but the GPU probe in ``mce_kit.gpu``'s package
init), so ``graph.py`` and the preparation layer can both ask it without an import circle.

    if use_gpu(entries, device):            # device: "auto" | "cpu" | "gpu"
        ... the same NumPy code with xp=cupy ...
        arrays = to_host(*device_arrays)      # back as NumPy, CuPy's pool emptied
"""

from __future__ import annotations

import sys

GPU_MIN_ENTRIES = 1 << 22  # below this many adjacency entries the host is as fast
# a first call's preparation on the GPU from this many adjacency entries on: a k-clique call's
# orientation from PREP_GPU_MIN_ENTRIES, a maximal-clique call's degeneracy order, relabelling and seeds
# (``order=True``) from a quarter of it (ORDER_GPU_FACTOR): the host peels in many NumPy rounds. Cold calls on
# one H200 (data/results/logs/prep_threshold_h200_9f0b231.log): maximal cliques of CA-GrQc (29k entries)
# 2.8 ms with the GPU's order against 7.0 with NumPy's (email-Eu-core 3.2 against 9.3, the compiled host
# 2.9; CA-HepTh 3.0 against 4.0); k = 6 cliques of wiki-Vote (202k) 7.6 against 9.1 ms, where below
# 2^16 the host oriented faster (CA-GrQc k = 4: 2.6 against 4.4 ms)
PREP_GPU_MIN_ENTRIES = 1 << 16
ORDER_GPU_FACTOR = 4
DEVICES = ("auto", "cpu", "gpu")
POOL_PEAK = 0  # the most bytes CuPy's pool held at the end of a step here (an experiment resets it)


def use_gpu(entries: int, device: str = "auto", least: int | None = None) -> bool:
    """Whether host work on ``entries`` array entries runs on the GPU (``device="auto"``: from
    ``least`` entries on, default GPU_MIN_ENTRIES)."""
    from .gpu import has_gpu, require_gpu

    if device not in DEVICES:
        raise ValueError(f"device must be one of {', '.join(DEVICES)}, got {device!r}")
    if device == "gpu":
        require_gpu()
        return True
    least = GPU_MIN_ENTRIES if least is None else least
    return device == "auto" and entries >= least and has_gpu()


def use_gpu_for_prep(entries: int, device: str = "auto", order: bool = False) -> bool:
    """``use_gpu`` for a first call's preparation: a k-clique call's orientation from
    PREP_GPU_MIN_ENTRIES entries on, a maximal-clique call's order, relabelling and seeds (``order``)
    from PREP_GPU_MIN_ENTRIES // ORDER_GPU_FACTOR, in a fresh process too. (A process used to prepare
    graphs under 2^19 entries on the host first, while loading CuPy's sort cost it more; with our own
    sort the GPU won every such one-call process measured: data/results/logs/ab_rent_buy_h200_f9defe5.log.)"""
    least = PREP_GPU_MIN_ENTRIES // ORDER_GPU_FACTOR if order else PREP_GPU_MIN_ENTRIES
    return use_gpu(entries, device, least)


def array_module(a):
    """CuPy for a CuPy array (CuPy already imported), else NumPy: the ``xp`` of code written for both."""
    import numpy

    cupy = sys.modules.get("cupy")
    return cupy if cupy is not None and isinstance(a, cupy.ndarray) else numpy


POOL_KEEP_BYTES = 1 << 28  # free bytes CuPy's pool may keep after a preparation step (``to_host``)


def to_host(*arrays) -> tuple:
    """The arrays back on the host. CuPy's pool keeps its free blocks up to POOL_KEEP_BYTES: the
    launch that follows reuses them (``launch.free_bytes`` counts them as free), where emptying the
    pool cost a cold call on soc-Slashdot0902 a synchronising cudaFree and new cudaMallocs."""
    import cupy

    global POOL_PEAK
    pool = cupy.get_default_memory_pool()
    POOL_PEAK = max(POOL_PEAK, pool.total_bytes())
    out = tuple(cupy.asnumpy(a) for a in arrays)
    del arrays
    if pool.free_bytes() > POOL_KEEP_BYTES:
        pool.free_all_blocks()
    return out


COMPILED_MIN_ENTRIES = 1 << 22  # NumPy entries worth Numba's one-time cost (data/results/cold_prep.csv)
_numpy_entries = [0]  # entries this process has prepared with NumPy so far


def use_compiled(entries: int) -> bool:
    """Whether a step of ``mce_kit.compiled`` pays for itself. Rent or buy: Numba costs a process
    once (its import, then its CPU target with the first cached function; far less for each further
    function), and saves every later cold call most of its host preparation. So the compiled twins
    run once Numba is loaded, or once this input and the NumPy steps this process has already run
    together reach ``COMPILED_MIN_ENTRIES`` entries; before that NumPy runs (a one-call process on
    a graph of the kind bundled never pays for Numba). ``python -m mce_kit.experiments.coldprep``
    measures both (``data/results/cold_prep.csv``)."""
    if "numba" in sys.modules or _numpy_entries[0] + entries >= COMPILED_MIN_ENTRIES:
        return True
    _numpy_entries[0] += entries
    return False
