"""mce_kit.jit: every compiled function reads and writes Numba's cache under one file lock."""

import fcntl
import importlib
import os
import subprocess
import sys
import textwrap
import time

import numba

from mce_kit import jit

MODULES = ["mce_kit.compiled", "mce_kit.bound_steps", "mce_kit.maxclique_engine", "mce_kit.vertex_cover",
           "mce_kit.cpu_engine.kclique", "mce_kit.cpu_engine.mbe", "mce_kit.cpu_engine.mce"]


def test_every_cached_function_of_mce_kit_is_guarded():
    seen = 0
    for name in MODULES:
        for value in vars(importlib.import_module(name)).values():
            if isinstance(value, numba.core.registry.CPUDispatcher) and value.__module__ == name:
                cache = getattr(value, "_cache", None)
                assert getattr(cache, "_cache_path", None), f"{name}.{value.__name__} is not cached"
                assert getattr(cache, "locked_by_mce_kit", False), f"{name}.{value.__name__} has no lock"
                seen += 1
    assert seen >= 40


def test_a_process_waits_for_the_lock_before_it_loads_or_compiles(tmp_path):
    (tmp_path / "jitted.py").write_text(textwrap.dedent("""
        from mce_kit.jit import njit

        @njit()
        def twice(x):
            return 2 * x
        """))
    sys.path.insert(0, str(tmp_path))
    try:
        folder = importlib.import_module("jitted").twice._cache._cache_path
    finally:
        sys.path.remove(str(tmp_path))
    os.makedirs(folder, exist_ok=True)
    code = ("import sys, time; sys.path.insert(0, sys.argv[1]); import jitted; "
            "print('calling', flush=True); x = jitted.twice(21); print('done', time.time(), x, flush=True)")
    fd = os.open(os.path.join(folder, jit.LOCK_NAME), os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX)
    child = subprocess.Popen([sys.executable, "-c", code, str(tmp_path)], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "calling"
        time.sleep(1.5)   # the call would compile and return well within this, were there no lock
        released = time.time()
        os.close(fd)
        word, at, answer = child.communicate(timeout=120)[0].split()
        assert word == "done" and answer == "42" and float(at) >= released
    finally:
        child.kill() if child.poll() is None else None
        child.wait()


def test_a_folder_without_locks_still_loads_and_saves(tmp_path, monkeypatch):
    def no_locks(fd, how):
        raise OSError(37, "No locks available")

    monkeypatch.setattr(jit.fcntl, "flock", no_locks)
    with jit._locked(str(tmp_path / jit.LOCK_NAME), jit.fcntl.LOCK_EX):
        ran = True
    assert ran and not jit._HELD.on


# Numba implementations made by a factory per use (a sort's kind and key, searchsorted's side): one
# qualified name for different bodies. The set operations and histograms sort or search inside.
NUMBA_SORTS = {"sort", "argsort", "sorted", "unique", "median", "percentile", "quantile", "partition",
               "argpartition", "lexsort", "searchsorted", "digitize", "histogram", "isin", "in1d",
               "intersect1d", "union1d", "setdiff1d"}


def test_no_compiled_function_calls_a_numba_sort():
    """Numba's sorts are closures whose symbols can collide between cached functions (mce_kit.jit)."""
    import ast
    import pathlib

    import mce_kit

    found, jitted = [], 0
    for path in pathlib.Path(mce_kit.__file__).parent.rglob("*.py"):
        for fn in ast.walk(ast.parse(path.read_text())):
            if not isinstance(fn, ast.FunctionDef):
                continue
            if not any("jit" in ast.unparse(d) for d in fn.decorator_list):
                continue
            jitted += 1
            for call in ast.walk(fn):
                if isinstance(call, ast.Call):
                    name = ast.unparse(call.func).rsplit(".", 1)[-1]
                    if name in NUMBA_SORTS:
                        found.append(f"{path.name}:{call.lineno} {fn.name}: {ast.unparse(call.func)}")
    assert jitted >= 40 and not found, found


def test_sort_ints_sorts_in_place_up_to_n():
    import numpy as np

    rng = np.random.default_rng(5)
    for n in [0, 1, 2, 15, 16, 17, 18, 100, 1001]:
        for dtype in (np.int64, np.int32):
            a = rng.integers(-50, 50, n + 7).astype(dtype)
            want = np.concatenate([np.sort(a[:n]), a[n:]])
            jit.sort_ints(a, n)
            assert np.array_equal(a, want), (n, dtype)


def test_no_closure_of_numba_has_two_bodies_across_our_compiled_functions():
    """The hazard itself, whatever made it: a Numba closure (a symbol with ``<locals>`` in it) whose
    name, its per-process version dropped, stands for two different bodies in the compiled code of
    the public CPU calls. Two cached functions compiled in different processes can then give both
    bodies one symbol (mce_kit.jit). Fails on a008d03 (its sort and argsort)."""
    import collections
    import re

    import numpy as np

    import mce_kit as mk
    from mce_kit import compiled
    from mce_kit.maxclique_engine import clique_bounds, omega_and_clique

    rng = np.random.default_rng(3)
    edges = np.array([(u, v) for u in range(40) for v in range(u + 1, 40) if rng.random() < 0.3])
    G = mk.Graph.from_edges(40, edges[:, 0], edges[:, 1])
    B = mk.BipartiteGraph.from_edges(20, 20, np.arange(60) % 20, (np.arange(60) * 7) % 20)
    for call in (mk.count_maximal_cliques, mk.clique_number, mk.max_cliques, mk.clique_counts):
        call(G, device="cpu")
    mk.count_k_cliques(G, 4, device="cpu")
    mk.count_maximal_bicliques(B, device="cpu")
    compiled._peel(G.indptr, G.indices)
    omega_and_clique(G, bounds=clique_bounds(G))

    noise = re.compile(r"B\d+v\d+|![0-9]+|#[0-9]+|@\.const\.[\w.]+")   # versions, metadata, constants' names
    bodies, libraries = collections.defaultdict(set), 0
    for name, mod in list(sys.modules.items()):   # (the calls above imported every engine)
        if not name.startswith("mce_kit."):
            continue
        for value in vars(mod).values():
            if not (isinstance(value, numba.core.registry.CPUDispatcher) and value.__module__ == name):
                continue
            for cres in value.overloads.values():
                module = getattr(cres.library, "_shared_module", None) or cres.library._final_module
                libraries += 1
                for fn in module.functions:
                    if not fn.is_declaration and "_3clocals_3e" in fn.name:
                        bodies[noise.sub("", fn.name)].add(noise.sub("", str(fn).split("{", 1)[1]))
    assert libraries >= 12
    assert not [name for name, seen in bodies.items() if len(seen) > 1]
