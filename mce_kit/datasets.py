"""The real graphs bundled in ``data/``: a registry (``data/datasets.csv``) and checksummed loading.

    from mce_kit import datasets
    datasets.names("dimacs")          # ['brock200_2', ...]
    G = datasets.load("ego-Facebook")
    datasets.table()                  # the registry as a DataFrame

The data folder is ``$MCE_KIT_DATA`` when that is set, else ``data/`` of the
source checkout (the package is installed editable).
"""

from __future__ import annotations

import csv
import difflib
import hashlib
import os
import warnings
from pathlib import Path

from .graph import BipartiteGraph, Graph
from .io import load_bipartite, load_graph

KINDS = ("general", "bipartite", "dimacs")
_INT_COLUMNS = ("n_vertices", "n_edges", "max_degree", "degeneracy", "known_omega", "n_left", "n_right")


class ChecksumError(ValueError):
    """A data file whose SHA-256 differs from the registry's."""


def data_dir() -> Path:
    env = os.environ.get("MCE_KIT_DATA")
    return Path(env) if env else Path(__file__).resolve().parent.parent / "data"


def _registry() -> dict[str, dict]:
    with open(data_dir() / "datasets.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        for c in _INT_COLUMNS:
            r[c] = int(r[c]) if r[c] else None
    return {r["name"]: r for r in rows}


def _lookup(name: str) -> dict:
    reg = _registry()
    by_lower = {k.lower(): v for k, v in reg.items()}
    if name.lower() not in by_lower:
        near = difflib.get_close_matches(name, list(reg), n=3)
        hint = f"; did you mean {', '.join(near)}?" if near else "; see datasets.names()"
        raise KeyError(f"no bundled dataset {name!r}{hint}")
    return by_lower[name.lower()]


def names(kind: str | None = None) -> list[str]:
    """Registry names, optionally only those of one kind ("general", "bipartite", "dimacs")."""
    if kind is not None and kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    return [k for k, r in _registry().items() if kind in (None, r["kind"])]


def info(name: str) -> dict:
    """The registry row of ``name`` (case-insensitive): file, format, source, licence, sha256, sizes..."""
    return dict(_lookup(name))


def path(name: str) -> Path:
    return data_dir() / _lookup(name)["file"]


def sha256(file) -> str:
    h = hashlib.sha256()
    with open(file, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def load(name: str) -> Graph | BipartiteGraph:
    """Load a bundled graph after checking its SHA-256 (bipartite ones as ``BipartiteGraph``).

    The cleaning done while loading (self-loops, symmetrized arcs) is in
    ``G.report``; the warning ``load_graph`` would give is silenced here.
    """
    row = _lookup(name)
    file = data_dir() / row["file"]
    if not file.exists():
        raise FileNotFoundError(f"{file}: bundled file missing (set MCE_KIT_DATA to a data folder)")
    actual = sha256(file)
    if actual != row["sha256"]:
        raise ChecksumError(
            f"{file}: SHA-256 {actual[:16]}... differs from the registry's {row['sha256'][:16]}...; "
            "the file is damaged or was replaced"
        )
    if row["kind"] == "bipartite":
        return load_bipartite(file, row["format"], name=row["name"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return load_graph(file, row["format"], name=row["name"])


def table():
    """The registry as a pandas DataFrame, one row per dataset."""
    import pandas as pd

    df = pd.DataFrame(list(_registry().values()))
    return df.astype({c: "Int64" for c in _INT_COLUMNS})
