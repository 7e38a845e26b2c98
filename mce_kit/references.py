"""Reference answers for the bundled graphs, one table per problem, and the check against them.

    expected("mce", "CA-GrQc")            # 3906
    expected("kclique", "CA-GrQc", k=5)   # an exact int (k-clique counts pass 2**63)
    expected("maxclique", "brock200_2")   # (omega, number of maximum cliques)

Tables live in ``data/results/<problem>_reference.csv``: a ``graph`` column,
the parameters the answer depends on (``k``), the answer columns, and
``source`` (which oracle or paper gave it, when).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

RESULTS = Path(__file__).resolve().parents[1] / "data" / "results"


@dataclass(frozen=True)
class Problem:
    """What a problem's answer is: its key parameters and answer columns."""

    name: str
    doc: str
    keys: tuple[str, ...] = ()
    answer: tuple[str, ...] = ("count",)

    def split(self, answer) -> dict:
        """{column: value} for one answer (an int, or a tuple with one value per column)."""
        values = answer if isinstance(answer, tuple) else (answer,)
        if len(values) != len(self.answer):
            raise ValueError(f"{self.name}: answer {answer!r} does not match columns {self.answer}")
        return dict(zip(self.answer, (int(v) for v in values), strict=True))


PROBLEMS = {p.name: p for p in [
    Problem("mce", "maximal cliques (isolated vertices are cliques of size 1)"),
    Problem("kclique", "cliques of exactly k vertices", keys=("k",)),
    Problem("mbe", "maximal bicliques with both sides non-empty"),
    Problem("maxclique", "maximum cliques: omega and how many", answer=("omega", "n_maximum")),
]}


def problem(name: str) -> Problem:
    if name not in PROBLEMS:
        raise ValueError(f"unknown problem {name!r}; one of {', '.join(PROBLEMS)}")
    return PROBLEMS[name]


def path(name: str, results: Path = RESULTS) -> Path:
    return results / f"{problem(name).name}_reference.csv"


@functools.cache
def table(name: str) -> pd.DataFrame:
    """The reference table of a problem (answers read as exact Python ints)."""
    p, f = problem(name), path(name)
    if not f.exists():
        return pd.DataFrame(columns=["graph", *p.keys, *p.answer, "source"])
    df = pd.read_csv(f, dtype={c: str for c in p.answer})
    for c in p.answer:
        df[c] = [int(v) for v in df[c]]
    return df


def expected(name: str, graph: str, **params):
    """The reference answer for ``graph`` (an int, or a tuple for several answer columns), or None."""
    p = problem(name)
    df = table(name)
    rows = df[df["graph"] == graph]
    for key in p.keys:
        if key not in params:
            raise TypeError(f"{name} references depend on {key!r}; pass it")
        rows = rows[rows[key] == params[key]]
    if rows.empty:
        return None
    values = tuple(rows.iloc[0][c] for c in p.answer)
    return values[0] if len(values) == 1 else values
