"""Command line: ``python -m mce_kit {stats,count,list,datasets}`` (also installed as ``mce-kit``).

    mce-kit stats CA-GrQc
    mce-kit count data/dimacs/brock200_2.clq.gz --problem mce
    mce-kit list ego-Facebook --out cliques.npz --min-size 10     # streamed, block by block
    mce-kit count MovieLens --problem mbe --progress
    mce-kit datasets

GRAPH is a file path or a bundled dataset name. Errors (a malformed file, a
missing one, a GPU asked for and absent) print one line ``error: ...`` on
stderr and exit with status 2.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

PROBLEMS = {
    "mce": "maximal cliques",
    "kclique": "k-cliques",
    "mbe": "maximal bicliques",
    "maxclique": "maximum cliques",
}
TABLE_COLUMNS = ["name", "kind", "n_vertices", "n_edges", "max_degree", "degeneracy", "known_omega", "source"]


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="mce-kit", description="Clique and biclique enumeration (CPU/GPU).")
    sub = p.add_subparsers(dest="command", required=True)

    def graph_args(q, bipartite_flag: bool):
        q.add_argument("graph", metavar="GRAPH", help="a graph file or a bundled dataset name")
        q.add_argument("--format", dest="fmt", help="file format (default: guessed from the file)")
        if bipartite_flag:
            q.add_argument("--bipartite", action="store_true", help="read the file as a bipartite graph")

    graph_args(sub.add_parser("stats", help="sizes, max degree, degeneracy, density"), True)
    c = sub.add_parser("count", help="count cliques or bicliques")
    graph_args(c, False)
    c.add_argument("--problem", choices=list(PROBLEMS), default="mce")
    c.add_argument("--k", type=int, help="clique size for --problem kclique")
    c.add_argument("--device", choices=["auto", "cpu", "gpu"], default="auto")
    c.add_argument("--min-size", type=int, help="mce: smallest clique size counted")
    c.add_argument("--max-size", type=int, help="mce: largest clique size counted")
    c.add_argument("--progress", action="store_true", help="progress bar on stderr (default: when a TTY)")
    li = sub.add_parser("list", help="write every maximal clique to a .npz file (see mce_kit.clique_io)")
    graph_args(li, False)
    li.add_argument("--out", required=True, help="output file (.npz)")
    li.add_argument("--device", choices=["auto", "cpu", "gpu"], default="auto")
    li.add_argument("--min-size", type=int, help="smallest clique size written")
    li.add_argument("--max-size", type=int, help="largest clique size written")
    li.add_argument("--no-isolated", action="store_true", help="leave out vertices without neighbours")
    li.add_argument("--block-size", type=int, default=1 << 20, help="cliques per block (bounds memory)")
    li.add_argument("--threads", type=int, help="threads deflating the file (default: every core)")
    li.add_argument("--progress", action="store_true", help="progress bar on stderr (default: when a TTY)")
    d = sub.add_parser("datasets", help="list the bundled datasets")
    d.add_argument("--kind", choices=["general", "bipartite", "dimacs"])
    return p


def _load(spec: str, fmt: str | None, bipartite: bool):
    """A file when the path exists, else a bundled dataset."""
    from . import datasets
    from .io import load_bipartite, load_graph

    if Path(spec).exists():
        return load_bipartite(spec, fmt) if bipartite else load_graph(spec, fmt)
    try:
        return datasets.load(spec)
    except KeyError as e:
        raise FileNotFoundError(f"{spec}: no such file, and {e.args[0]}") from None


def _stats(args) -> None:
    from .graph_stats import stats

    for key, value in stats(_load(args.graph, args.fmt, args.bipartite)).items():
        print(f"{key}: {value:.6g}" if isinstance(value, float) else f"{key}: {value}")


class _NoBlasProbe:
    """An import finder that refuses ``scipy.linalg`` to Numba's BLAS probe alone
    (``numba.np.linalg.ensure_blas``, run once when its CPU target first loads): the probe imports
    SciPy's linear algebra, 0.1-0.25 s of a process, only to learn whether ``np.dot`` may be compiled,
    and no kernel of mce_kit compiles a BLAS call. The CLI installs it in its own process, which runs
    no other Numba code; a library import never does."""

    def find_spec(self, name, path=None, target=None):
        if name == "scipy.linalg":
            frame = sys._getframe(1)
            while frame is not None:
                code, module = frame.f_code.co_name, frame.f_globals.get("__name__")
                if code == "ensure_blas" and module == "numba.np.linalg":
                    raise ImportError("scipy.linalg: left out of Numba's BLAS probe by mce-kit")
                frame = frame.f_back
        return None


def _gpu_probe_behind(device: str) -> None:
    """Start the CUDA driver, then CuPy's import, on a thread while the main thread imports and
    loads the file; the call then finds them done. The driver's start (cuInit and the context,
    0.1-0.3 s on an H100 host) runs through ctypes, which lets go of the GIL, so the imports go on
    beside it: a process's NumPy and CuPy imports and first CuPy array took 0.56-0.58 s so, against
    0.69-0.89 s one after the other (one H100, 2026-11-26)."""
    if device != "cpu":
        import threading

        def start() -> None:
            from .gpu import has_gpu, start_driver

            if start_driver() and has_gpu():
                import cupy

                cupy.cuda.runtime.free(0)   # binds device 0's primary context, which the call then uses

        threading.Thread(target=start, name="mce_kit-gpu-probe", daemon=True).start()


def _count(args) -> None:
    from . import api
    from .graph import BipartiteGraph

    if args.problem == "kclique" and args.k is None:
        raise ValueError("--problem kclique needs --k")
    G = _load(args.graph, args.fmt, args.problem == "mbe")
    if isinstance(G, BipartiteGraph) != (args.problem == "mbe"):
        kind = "a bipartite graph" if isinstance(G, BipartiteGraph) else "not a bipartite graph"
        raise ValueError(f"{args.graph} is {kind}; --problem mbe is for bipartite graphs only")
    opts = {"device": args.device, "progress": args.progress or sys.stderr.isatty()}
    if args.problem == "mce":
        n = api.count_maximal_cliques(G, min_size=args.min_size, max_size=args.max_size, **opts)
    elif args.problem == "kclique":
        n = api.count_k_cliques(G, args.k, **opts)
    elif args.problem == "mbe":
        n = api.count_maximal_bicliques(G, **opts)
    else:
        t = time.perf_counter()
        omega, cliques = api.max_cliques(G, **opts)
        device = api._device(args.device, PROBLEMS["maxclique"], api._geil)
        print(f"omega: {omega}, maximum cliques: {len(cliques)}  ({device}, {time.perf_counter() - t:.2f} s)")
        return
    what = f"{args.k}-cliques" if args.problem == "kclique" else PROBLEMS[args.problem]
    print(f"{what}: {int(n)}  ({n.device}, {n.seconds:.2f} s)")


def _list(args) -> None:
    from tqdm.auto import tqdm

    from . import api
    from .clique_io import write_blocks

    if not args.out.endswith(".npz"):
        raise ValueError(f"{args.out}: --out must be a .npz file")
    G = _load(args.graph, args.fmt, False)
    opts = dict(min_size=args.min_size, max_size=args.max_size, isolated=not args.no_isolated,
                device=args.device)
    t = time.perf_counter()
    dev = api._device(args.device, PROBLEMS["mce"], api._rdmce)
    # on the GPU the count takes a fraction of the listing: it gives the bar its total
    total = int(api.count_maximal_cliques(G, **opts)) if dev == "gpu" else None
    show = args.progress or sys.stderr.isatty()
    with tqdm(total=total, unit="clique", unit_scale=True, file=sys.stderr, disable=not show) as bar:
        n = write_blocks(api.maximal_clique_blocks(G, args.block_size, **opts), args.out, bar.update,
                         threads=args.threads)
    print(f"maximal cliques: {n} -> {args.out}  ({dev}, {time.perf_counter() - t:.2f} s)")


def _datasets(args) -> None:
    from . import datasets

    table = datasets.table()
    if args.kind:
        table = table[table["kind"] == args.kind]
    print(table[TABLE_COLUMNS].to_string(index=False, na_rep=""))


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    run = {"stats": _stats, "count": _count, "list": _list, "datasets": _datasets}[args.command]
    if "numpy" not in sys.modules:   # the CLI does no BLAS: OpenBLAS need not start a thread per core
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    if "cupy" not in sys.modules:    # nor CUB's reductions, which CuPy compiles again in every process
        os.environ.setdefault("CUPY_ACCELERATORS", "")   # (17-30 ms each; its own kernels load from disk)
    if args.command in ("count", "list"):
        _gpu_probe_behind(args.device)   # first, before NumPy's import
    try:
        run(args)
    except (OSError, ValueError, TypeError, LookupError, RuntimeError) as e:
        # GraphFormatError is a ValueError; NotImplementedError a RuntimeError
        if isinstance(e, OSError) and e.strerror:
            message = f"{e.filename}: {e.strerror}" if e.filename else e.strerror
        else:
            message = e.args[0] if isinstance(e, KeyError) and e.args else str(e)
        print(f"error: {(str(message).splitlines() or [type(e).__name__])[0]}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130
    return 0


def entry() -> None:
    """The ``mce-kit`` command and ``python -m mce_kit``: ``main``, then out of the process without
    Python's teardown (CuPy's pool and the CUDA context: 0.03-0.15 s of a one-call process on an
    H200, 2026-11-27); the output is flushed first."""
    if "numba" not in sys.modules:   # a process of its own: no BLAS for Numba (_NoBlasProbe)
        sys.meta_path.insert(0, _NoBlasProbe())
    rc = main()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(rc)
