"""A cold call's host preparation: the compiled twins give the NumPy path's arrays, array for array,
on random graphs of every family and on bundled graphs; the rule that picks them; and the count
command's imports (a quick start loads only what the call needs)."""

import subprocess
import sys
import types

import numpy as np
import pytest
from graph_families import from_networkx, random_bipartite, random_nx_graphs

from mce_kit import accel, compiled, datasets
from mce_kit.gpu import gmbe, kclique
from mce_kit.gpu.seeds import later_counts, seed_bounds
from mce_kit.graph import Graph
from mce_kit.order import degree_order, orient_arrays, oriented_csr, peel_arrays, relabel_arrays

GRAPHS = [from_networkx(H) for H in random_nx_graphs(60, seed=21)] + [
    Graph(np.zeros(1, np.int32), np.zeros(0, np.int32)),  # no vertex
    Graph(np.zeros(4, np.int32), np.zeros(0, np.int32)),  # no edge
    datasets.load("CA-GrQc"), datasets.load("email-Eu-core")]


def same(want, got) -> bool:
    return all(np.array_equal(a, b) and a.dtype == b.dtype for a, b in zip(want, got, strict=True))


def test_compiled_twins_give_the_numpy_arrays():
    for G in GRAPHS:
        order = peel_arrays(G.indptr, G.indices)[0]
        assert same(peel_arrays(G.indptr, G.indices), compiled.peel(G.indptr, G.indices)), G.name
        ptr, idx = relabel_arrays(G.indptr, G.indices, order)
        assert same((ptr, idx), compiled.relabel(G.indptr, G.indices, order)), G.name
        H = relabel_reference(G, order)
        assert np.array_equal(H.indptr, ptr) and np.array_equal(H.indices, idx), G.name
        ptr = ptr.astype(np.int32)
        for seeding in ("edge", "vertex"):
            want = seed_bounds(ptr, idx, seeding)
            assert same(want, compiled.seed_bounds(ptr, idx, seeding)), (G.name, seeding)
        assert same(orient_arrays(ptr, idx), compiled.orient(ptr, idx)), G.name
        src = np.repeat(np.arange(G.n), np.diff(ptr))
        assert np.array_equal(compiled.later(ptr, idx), np.bincount(src[idx > src], minlength=G.n))


def relabel_reference(G: Graph, order) -> Graph:
    """G with vertex order[i] renamed i, by its definition: row i is the sorted new names of order[i]'s
    neighbours."""
    rank = np.empty(G.n, np.int64)
    rank[order] = np.arange(G.n)
    rows = [np.sort(rank[G.neighbors(w)]) for w in order]
    indptr = np.concatenate([[0], np.cumsum([len(r) for r in rows])])
    return Graph(indptr, np.concatenate([np.zeros(0, np.int64), *rows]))


def orientation_reference(G: Graph, order) -> tuple:
    """KCMiner's orientation as first written (relabelled, then NumPy): the arrays of oriented_csr."""
    H = relabel_reference(G, order)
    src = np.repeat(np.arange(H.n, dtype=np.int32), H.degrees())
    keep = H.indices > src
    out_deg = np.bincount(src[keep], minlength=H.n)
    out_ptr = np.concatenate([[0], np.cumsum(out_deg)]).astype(np.int32)
    u, v = src[keep], H.indices[keep]
    bound = np.minimum(out_deg[u], out_deg[v]).astype(np.int64)
    by_size = np.argsort(-bound, kind="stable")
    u, v, bound = u[by_size], v[by_size], bound[by_size]
    return H.indptr.astype(np.int32), H.indices, out_ptr, H.indices[keep], u, v, bound


@pytest.mark.parametrize("use", [False, True])
def test_oriented_csr_is_kcminers_orientation(monkeypatch, use):
    monkeypatch.setattr(accel, "use_compiled", lambda entries: use)
    for G in GRAPHS[::3] + GRAPHS[-2:]:
        o = degree_order(G)
        assert same(orientation_reference(G, o), oriented_csr(G, o)), G.name
        want = kclique._orient(G, "degree")  # what KCMiner keeps today
        got = (want.indptr, want.indices, want.out_ptr, want.out_idx, want.u, want.v, want.bound)
        assert same(got, oriented_csr(G, o)), G.name
        H = G.relabel(o)  # Graph.relabel: the same arrays, and the labels
        assert np.array_equal(H.indptr, got[0]) and np.array_equal(H.indices, got[1])
        assert np.array_equal(H.labels, o if G.labels is None else G.labels[o])


@pytest.mark.parametrize("use", [False, True])
def test_host_steps_pick_either_path_alike(monkeypatch, use):
    from mce_kit.gpu import rdmce

    monkeypatch.setattr(accel, "use_compiled", lambda entries: use)
    G = datasets.load("email-Eu-core")
    prep = rdmce.prepare(Graph(G.indptr, G.indices))
    order = peel_arrays(G.indptr, G.indices)[0]
    ptr, idx = relabel_arrays(G.indptr, G.indices, order)
    assert same((prep.order, prep.indptr, prep.indices), (order, ptr.astype(np.int32), idx))
    u, v, *_ = prep.seed_arrays("edge")
    want = seed_bounds(prep.indptr, prep.indices, "edge")
    assert np.array_equal(u, want[0]) and np.array_equal(v, want[1])
    src = np.repeat(np.arange(G.n), np.diff(ptr))
    assert np.array_equal(later_counts(prep.indptr, prep.indices), np.bincount(src[idx > src], minlength=G.n))


def test_gmbe_prepare_sorts_each_u_row_of_ranks():
    graphs = [random_bipartite(40, 25, p, seed=s) for s, p in enumerate((0.05, 0.2, 0.6))]
    for B in [*graphs, datasets.load("marvel")]:
        p = gmbe.prepare(B)
        rank = np.empty(B.n_v, np.int64)
        rank[p.order] = np.arange(B.n_v)
        for u in range(0, B.n_u, max(1, B.n_u // 200)):
            row = p.u_indices[p.u_indptr[u]:p.u_indptr[u + 1]]
            assert row.tolist() == sorted(rank[B.u_neighbors(u)].tolist()), (B.name, u)


def test_use_compiled_rents_numpy_then_buys(monkeypatch):
    """Without Numba loaded, NumPy runs until this process's NumPy entries reach the threshold."""
    monkeypatch.setattr(accel, "sys", types.SimpleNamespace(modules={}))
    monkeypatch.setattr(accel, "_numpy_entries", [0])
    monkeypatch.setattr(accel, "COMPILED_MIN_ENTRIES", 1000)
    assert not accel.use_compiled(400) and not accel.use_compiled(400)
    assert accel._numpy_entries == [800]
    assert accel.use_compiled(300)  # 800 + 300 >= 1000
    assert accel.use_compiled(1000)  # one long input
    monkeypatch.setattr(accel, "sys", types.SimpleNamespace(modules={"numba": object()}))
    monkeypatch.setattr(accel, "_numpy_entries", [0])
    assert accel.use_compiled(1)  # Numba already loaded: nothing left to pay


QUICK_START_AVOIDS = ("pandas", "matplotlib", "networkx", "tqdm", "IPython", "dask", "igraph", "scipy.sparse")


@pytest.mark.parametrize("args", [["data/snap/CA-GrQc.txt.gz"],
                                  ["data/snap/email-Eu-core.txt.gz", "--problem", "kclique", "--k", "3"]])
def test_count_command_imports_only_what_it_needs(args):
    """`python -m mce_kit count FILE` on the CPU: no plotting, tables, networkx or progress bars."""
    code = ("import sys; from mce_kit.cli import main; main(['count', *sys.argv[1:], '--device', 'cpu'])\n"
            f"print('loaded:', *[m for m in {QUICK_START_AVOIDS!r} if m in sys.modules])")  # (entry() exits)
    out = subprocess.run([sys.executable, "-W", "ignore", "-c", code, *args], capture_output=True, text=True,
                         check=True, cwd=datasets.data_dir().parent).stdout
    assert "cliques:" in out, out
    assert out.strip().splitlines()[-1] == "loaded:", out


def test_per_seed_table_gives_the_formulas_values():
    from mce_kit.gpu import mcegpu, rdmce
    from mce_kit.gpu.seeds import per_seed

    rng = np.random.default_rng(5)
    fns = (rdmce.rows_words, rdmce.stack_words, lambda p, x: mcegpu.buffer_words(p, x, True))
    for n, pmax, xmax in [(0, 1, 1), (1, 0, 0), (500, 40, 300), (20000, 40, 300), (2000, 3, 2)]:  # both ways
        p, x = rng.integers(0, pmax + 1, n), rng.integers(0, xmax + 1, n)
        got = per_seed(p, x, *fns)
        assert all(np.array_equal(np.asarray(f(p, x), np.int64), g) and g.dtype == np.int64
                   for f, g in zip(fns, got, strict=True))


def test_formula_writes_the_word_formulas_in_c():
    """``seeds.Formula`` (the GPU path of per_seed) writes each formula as the C expression of the
    fused kernel: read back as Python (``floor_div`` as ``//``, casts as int64), it gives the
    formula's values; the GPU test runs the kernel itself. Non-int constants are refused."""
    import re

    from mce_kit.gpu import rdmce
    from mce_kit.gpu.seeds import Formula

    rng = np.random.default_rng(8)
    p, x = rng.integers(0, 70, 3000), rng.integers(0, 900, 3000)
    scope = {"floor_div": lambda a, b: a // b, "_i64": lambda a: np.asarray(a, np.int64), "p": p, "x": x}
    for f in (rdmce.rows_words, rdmce.stack_words, lambda p, x: 3 - p + 2 * x - (x >= p) * (p <= 5) // 2,
              lambda p, x: (7 - x) // (p + 1) + (p < x) * 5 - (x > 3) + (p <= 2) // 3):
        c = Formula.of(f(Formula("p"), Formula("x")))
        assert "floor_div" in c and "LL" in c
        got = eval(re.sub(r"(\d+)LL", r"\1", c).replace("(long long)", "_i64"), scope)  # noqa: S307
        assert np.array_equal(got, f(p, x)), c
    with pytest.raises(TypeError, match="only combine ints"):
        Formula.of(Formula("p") * 0.5)
