"""The paper beside us: comparison tables, the paper's value on a plot, and the spread of runs.

Every reproduction notebook (10-50) uses these, so that each table has a
paper / ours / ratio column and each figure marks the paper's number:

    paper_vs_ours([{"item": "Table 2", "what": "ego-Facebook, s", "paper": 2.164, "ours": 1.214}])
    mark_paper(ax, 24, "paper's best tau", axis="x")     # a line (or a band for a (lo, hi) range)
    s = spread(df)                                        # median, IQR and min-max of ``times_ms``
    errorbars(ax, x, s)                                   # median with min-max bars
    inside_spread(a, b)                                   # do two configurations' runs overlap?

``times_ms`` is the column ``mce_kit.measure.measure`` writes: the time of
every timed run (the warm-up excluded), as a list or its string form in a CSV.
"""

from __future__ import annotations

import ast
import math
import numbers

import numpy as np
import pandas as pd

from .colours import PAPER_COLOR


def _is_num(x) -> bool:
    return isinstance(x, numbers.Real) and not isinstance(x, bool) and math.isfinite(x)


def _is_range(x) -> bool:
    return isinstance(x, tuple) and len(x) == 2 and all(_is_num(v) for v in x)


def fmt(x, digits: int = 4) -> str:
    """A number, a (lo, hi) range or text, written compactly for a table cell."""
    if _is_range(x):
        return f"{fmt(x[0], digits)}-{fmt(x[1], digits)}"
    if _is_num(x):
        if float(x).is_integer() and abs(x) >= 1:
            return f"{int(x):,}"
        return f"{x:.{digits}g}" if abs(x) < 1000 else f"{x:,.0f}"
    return "" if x is None or (isinstance(x, float) and math.isnan(x)) else str(x)


def compare(paper, ours) -> str:
    """ours / paper for two numbers; where ``paper`` is a (lo, hi) range, whether ``ours`` (a number
    or a range) lies inside it; empty when the two cannot be compared."""
    if _is_num(paper) and _is_num(ours) and paper != 0:
        return f"{ours / paper:.3g}x"
    if _is_range(paper):
        lo, hi = paper
        a, b = ours if _is_range(ours) else (ours, ours) if _is_num(ours) else (None, None)
        if a is None:
            return ""
        if lo <= a and b <= hi:
            return "inside"
        if b < lo:
            return "below"
        if a > hi:
            return "above"
        return "overlaps"
    return ""


def paper_vs_ours(rows, digits: int = 4) -> pd.DataFrame:
    """A comparison table: one row per claim, columns ``item``, ``what``, ``paper``, ``ours``,
    ``ours / paper`` and ``note``.

    ``rows`` is a DataFrame or an iterable of dicts with keys ``what``, ``paper`` and
    ``ours`` (numbers, ``(lo, hi)`` ranges or text) and optionally ``item`` (the paper's
    figure or table) and ``note`` (the setting, or why the two differ). The ratio is
    ours / paper for two numbers, and inside / below / above / overlaps for a range.
    """
    records = rows.to_dict("records") if isinstance(rows, pd.DataFrame) else list(rows)
    out = []
    for r in records:
        missing = {"what", "paper", "ours"} - set(r)
        if missing:
            raise ValueError(f"paper_vs_ours: a row lacks {sorted(missing)}: {r}")
        unknown = set(r) - {"item", "what", "paper", "ours", "note"}
        if unknown:
            raise TypeError(f"paper_vs_ours: unknown column(s) {sorted(unknown)}")
        out.append({"item": r.get("item", ""), "what": r["what"], "paper": fmt(r["paper"], digits),
                    "ours": fmt(r["ours"], digits), "ours / paper": compare(r["paper"], r["ours"]),
                    "note": r.get("note", "")})
    df = pd.DataFrame(out, columns=["item", "what", "paper", "ours", "ours / paper", "note"])
    if not df["item"].astype(bool).any():
        df = df.drop(columns="item")
    return df


def mark_paper(ax, value, label: str = "paper", axis: str = "y", color: str = PAPER_COLOR, text: bool = True):
    """Mark the paper's ``value`` on ``ax``: a dashed line, or a shaded band for a ``(lo, hi)`` range.

    ``axis="y"`` draws a horizontal mark (a value on the y axis), ``"x"`` a vertical one.
    The label is written inside the axes next to the mark, small, so it covers no data
    point; pass ``text=False`` to rely on the legend instead. Returns the artist.
    """
    if axis not in ("x", "y"):
        raise ValueError(f"mark_paper: axis must be 'x' or 'y', got {axis!r}")
    if not (_is_num(value) or _is_range(value)):
        raise ValueError(f"mark_paper: value must be a number or a (lo, hi) pair, got {value!r}")
    full = f"{label} ({fmt(value)})"
    if _is_range(value):
        span = ax.axhspan if axis == "y" else ax.axvspan
        artist = span(*value, color=color, alpha=0.10, lw=0, label=full, zorder=0)
        where = value[1]
    else:
        line = ax.axhline if axis == "y" else ax.axvline
        artist = line(value, color=color, ls="--", lw=1.2, label=full, zorder=1)
        where = value
    if text:
        if axis == "y":
            ax.annotate(full, xy=(0.99, where), xycoords=("axes fraction", "data"), ha="right", va="bottom",
                        fontsize=7, color=color)
        else:
            ax.annotate(full, xy=(where, 0.99), xycoords=("data", "axes fraction"), ha="left", va="top",
                        rotation=90, fontsize=7, color=color, xytext=(2, 0), textcoords="offset points")
    return artist


def run_times(cell) -> np.ndarray:
    """The timed runs of one row: ``times_ms`` as an array (parses the CSV's string form)."""
    if isinstance(cell, str):
        cell = ast.literal_eval(cell)
    return np.asarray(cell, dtype=float)


def spread(df: pd.DataFrame, column: str = "times_ms") -> pd.DataFrame:
    """Median, quartiles, min and max of each row's runs, and their count (``runs``)."""
    stats = []
    for cell in df[column]:
        t = run_times(cell)
        q1, med, q3 = np.percentile(t, [25, 50, 75])
        stats.append({"runs": len(t), "min": t.min(), "q1": q1, "median": med, "q3": q3, "max": t.max()})
    return pd.DataFrame(stats, index=df.index)


def inside_spread(a, b) -> bool:
    """True when the runs of two configurations overlap (min-max), so their difference is noise.

    ``a`` and ``b`` are ``times_ms`` cells (lists or their string form) or arrays."""
    ta, tb = run_times(a), run_times(b)
    return bool(ta.min() <= tb.max() and tb.min() <= ta.max())


def errorbars(ax, x, s: pd.DataFrame, scale=1.0, bars: str = "minmax", **kw):
    """Plot ``s["median"] / scale`` at ``x`` with min-max (or ``bars="iqr"``) bars; returns the artist."""
    lo, hi = ("min", "max") if bars == "minmax" else ("q1", "q3")
    med = np.asarray(s["median"], dtype=float) / scale
    low, high = (np.asarray(s[c], dtype=float) / scale for c in (lo, hi))
    err = np.vstack([med - low, high - med])
    kw.setdefault("capsize", 2)
    kw.setdefault("marker", "o")
    kw.setdefault("ms", 4)
    return ax.errorbar(x, med, yerr=err, **kw)
