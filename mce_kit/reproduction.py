"""The reproduction scoreboard: every figure and table of the five papers, and how much of it stands.

    board = scoreboard()              # one row per item of shared/papers/FIGURES.md (38)
    write_markdown(board, path)       # figures/reproduction.md (make reproduce writes it)

``CATALOGUE`` holds the facts from the papers (item, what it measures, the
paper's headline). Each paper's experiments module may define
``status() -> dict[item, Status]``, computed from its committed CSVs in
``data/results/``; an item nobody reports on is "missing".
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

STATES = ("reproduced", "partial", "missing")


@dataclass(frozen=True)
class Item:
    paper: str  # experiments module name: rdmce, mcegpu, kcminer, gmbe, geil
    item: str  # "Table 1", "Fig 7"
    what: str
    theirs: str  # the paper's headline number (FIGURES.md)


@dataclass(frozen=True)
class Status:
    state: str  # one of STATES
    ours: str = ""  # our headline number, from the committed CSV
    reason: str = ""  # what is missing, or how ours differs
    device: str = ""
    date: str = ""

    def __post_init__(self):
        if self.state not in STATES:
            raise ValueError(f"state must be one of {STATES}, got {self.state!r}")


PAPERS = {
    "rdmce": "RDMCE (maximal cliques, root-down exposure)",
    "mcegpu": "mce-gpu (maximal cliques, worker list)",
    "kcminer": "KCMiner (k-cliques, bitmaps)",
    "gmbe": "GMBE+ (maximal bicliques)",
    "geil": "Geil et al. (maximum cliques, breadth first)",
}

_ITEMS = {
    "rdmce": [
        ("Table 1", "datasets and maximal-clique counts", "ego-Facebook 869,325,383 maximal cliques"),
        ("Fig 7", "time vs mce-gpu-P/PX", "1.25-5.38x faster than the next best"),
        ("Fig 8", "with vs without root-down exposure", "1.03-69.61x"),
        ("Fig 9", "peak GPU memory vs mce-gpu-PX", "56.8-97.3% (avg 80%)"),
        ("Table 2", "aggressive node generation on/off", "avg 1.018x; ego-Facebook 2.164 s vs 2.243 s"),
        ("Fig 10", "edge vs vertex seeding", "edges 2.52x faster on average"),
        ("Fig 11", "warps per SM sweep", "U-shape, best 20"),
        ("Fig 12", "tau sweep", "best 24 on >50% of graphs"),
        ("Fig 13", "different GPUs", "RTX 4090 / A100 / H800"),
        ("Fig 14", "multi-GPU scaling", "4.83x on 8 GPUs"),
    ],
    "mcegpu": [
        ("Table 1", "GPU vs multi-core CPU", "geomean 4.9x (A100), up to 16.7x"),
        ("Fig 3", "max/avg load across SMs", "2.28 / 1.63 / 1.17 / 1.11 (L1, L2, L1+WL, L2+WL)"),
        ("Table 2", "number of donations", "-"),
        ("Fig 4", "strong scaling 1-4 GPUs", "worker list scales, static does not"),
        ("Fig 5", "time breakdown", "-"),
        ("Table 3", "L1/L2 x IP/IPX; the delta/d heuristic", "heuristic geomean slowdown 1.02x"),
    ],
    "kcminer": [
        ("Table 2", "time for K = 4..8", "up to 7.36x over KCGPU (avg 2.94x)"),
        ("Fig 7", "ablation at K = 7", "-60.3%, -28.5%, -22.6%, -37.5%"),
        ("Fig 8", "active lanes per warp vs K", "2.6x more active lanes at K = 7"),
        ("Fig 9", "bitmap at level 2 vs 3 by density", "K=6: level 3 wins only below 25%"),
        ("Fig 10", "multi-GPU scaling", "7.53x (K=5) on 8 GPUs"),
    ],
    "gmbe": [
        ("Table I", "datasets and maximal-biclique counts", "MovieLens 140,266"),
        ("Fig 9", "vs other biclique codes", "1.2x over GMBE"),
        ("Fig 10", "ablations", "4.88x over WARP, 2.07x over BLOCK"),
        ("Fig 12", "memory with vs without node reuse", "49-4,819x less"),
        ("Table II", "non-maximal/maximal with vs without pruning", "pruning avoids 48.7-92.8%"),
        ("Fig 13", "active SMs over time", "-"),
        ("Fig 14", "tau sweep", "best 32"),
        ("Fig 15", "(bound_height, bound_size) sweep", "best (20, 1500)"),
        ("Fig 16", "warps per SM sweep", "best 16"),
        ("Fig 18", "multi-GPU", "linear on 8 GPUs"),
    ],
    "geil": [
        ("Fig 2", "edges/s vs average degree", "falls as degree rises"),
        ("Fig 3", "edges/s vs |E|, BFS and windowed", "rises with |E|"),
        ("Fig 4", "speedup over PMC (CPU)", "avg 1.9x"),
        ("Table I", "heuristic error; graphs solved without OOM", "19 / 21 / 35 / 50 / 47 of 58"),
        ("Table II", "speedups between heuristics", "-"),
        ("Fig 5", "heuristic runtime and pruning", "-"),
        ("Fig 6", "windowing memory vs full BFS", "85-94% less memory"),
    ],
}

CATALOGUE = [Item(paper, *row) for paper, rows in _ITEMS.items() for row in rows]


def paper_status(paper: str) -> dict[str, Status]:
    """What ``mce_kit.experiments.<paper>.status()`` reports, or {} when it has no such function."""
    try:
        module = importlib.import_module(f"mce_kit.experiments.{paper}")
    except ModuleNotFoundError:
        return {}
    report = getattr(module, "status", None)
    if report is None:
        return {}
    found = report()
    unknown = set(found) - {i.item for i in CATALOGUE if i.paper == paper}
    if unknown:
        raise ValueError(f"experiments.{paper}.status() names items not in FIGURES.md: {sorted(unknown)}")
    return found


def multigpu_status() -> dict[tuple[str, str], Status]:
    """The papers' multi-GPU figures, measured for every kernel by ``experiments.multigpu``."""
    from .experiments import multigpu

    found = multigpu.status()
    unknown = set(found) - {(i.paper, i.item) for i in CATALOGUE}
    if unknown:
        raise ValueError(f"experiments.multigpu.status() names items not in FIGURES.md: {sorted(unknown)}")
    return found


def scoreboard() -> pd.DataFrame:
    """One row per item of FIGURES.md: paper, item, what, theirs, state, ours, reason, device, date."""
    reports = {paper: paper_status(paper) for paper in PAPERS}
    shared = multigpu_status()
    shared.update(importlib.import_module("mce_kit.experiments.peers").status())  # the peers, issue 24
    rows = []
    for it in CATALOGUE:
        st = shared.get((it.paper, it.item)) or reports[it.paper].get(
            it.item, Status("missing", reason="no kernel or experiment yet"))
        rows.append({"paper": it.paper, "item": it.item, "what": it.what, "theirs": it.theirs,
                     "state": st.state, "ours": st.ours, "reason": st.reason, "device": st.device,
                     "date": st.date})
    return pd.DataFrame(rows)


def summary(board: pd.DataFrame) -> pd.DataFrame:
    """Items per paper and state."""
    counts = board.groupby(["paper", "state"]).size().unstack(fill_value=0)
    counts = counts.reindex(index=list(PAPERS), columns=list(STATES), fill_value=0)
    counts["total"] = counts.sum(axis=1)
    return counts


def _cell(x) -> str:
    return str(x).replace("|", "/").replace("\n", " ")


def write_markdown(board: pd.DataFrame, path: Path) -> Path:
    """``board`` as a Markdown page: totals, then one table per paper."""
    total = board["state"].value_counts()
    lines = ["# Reproduction scoreboard", "",
             f"{len(board)} items of the five papers: " + ", ".join(
                 f"{int(total.get(s, 0))} {s}" for s in STATES) + ".", ""]
    for paper, title in PAPERS.items():
        part = board[board["paper"] == paper]
        lines += [f"## {title}", "", "| item | what | paper | ours | state | device, date | note |",
                  "|---|---|---|---|---|---|---|"]
        for r in part.itertuples():
            when = ", ".join(x for x in (r.device, r.date) if x)
            lines.append("| " + " | ".join(_cell(x) for x in (r.item, r.what, r.theirs, r.ours, r.state,
                                                                 when, r.reason)) + " |")
        lines.append("")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines), encoding="utf-8")
    return path
