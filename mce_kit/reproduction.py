"""The reproduction scoreboard: every figure and table of the five papers, and how much of it stands.

    board = scoreboard()              # one row per item of shared/papers/FIGURES.md (38)
    write_markdown(board, path)       # figures/reproduction.md (make reproduce writes it)

Each item's state follows from one rule, never from a hand-set label:

    state = verdict(item, status)     # rule(the paper's number, ours, the tolerance)

``CATALOGUE`` holds the facts from the papers: per item the paper's number(s),
where they stand in the paper text, and a tolerance stated before looking at
ours (``Claim``). Each paper's experiments module defines ``status() ->
{item: Status}`` (``CROSS_PAPER`` modules: ``{(paper, item): Status}``), which
says only what we measured, computed from the committed CSVs in
``data/results/``. The fields a status() fills:

- ``ours``: our headline in words (the CSV's numbers, rendered);
- ``value``: the number the rule compares, in the claim's unit: a float, a
  (low, high) range, or for items with several claims a dict by claim name;
  leave it None where nothing comparable was measured;
- ``noise``: True (or the claim names) where our effect lies inside the runs'
  spread: an effect inside the noise is never a reproduction;
- ``complete``: False where only part of the item was measured here (one side
  computed, a competitor's time quoted, fewer GPUs than the paper): such an
  item is at most partial;
- ``reason``, ``device``, ``date``: the note, and the provenance of the rows.

The rule, per claim: no value -> missing; inside the noise -> partial; value
(every end of a range) inside the claim's band -> reproduced; inside its
``against`` region (ours goes the other way) -> contradicted; else partial.
Per item: no status -> missing; any claim contradicted -> contradicted; every
claim reproduced and the item complete -> reproduced; else partial.
"""

from __future__ import annotations

import importlib
import math
from dataclasses import dataclass, field, replace
from pathlib import Path

import pandas as pd

STATES = ("reproduced", "partial", "contradicted", "missing")
INF = math.inf


@dataclass(frozen=True)
class Claim:
    """One number of a paper and the tolerance ours is held to, fixed before looking at ours."""

    paper: str  # the paper's number as it reads, e.g. "1.25-5.38x"
    band: tuple[float, float]  # ours inside (both ends of a range) -> reproduced
    against: tuple[float, float] | None  # ours inside -> contradicted (the other way); None: nothing is
    tolerance: str  # the band in words
    why: str  # why this tolerance
    name: str = ""  # key into Status.value when an item has several claims
    outside_contradicts: bool = False  # exact counts: anything outside the band contradicts


def effect(paper, factor: float, why: str, pivot: float = 1.0, name: str = "", unit: str = "x") -> Claim:
    """A ratio (or a share, pivot 0) whose *effect* |value - pivot| must be within ``factor`` of the paper's.

    ``paper`` is one number or a (low, high) range; the band widens the range's ends by the factor,
    and ours on the other side of ``pivot`` contradicts (a speed-up below 1 where the paper's is above)."""
    lo, hi = (paper, paper) if isinstance(paper, (int, float)) else paper
    ends = sorted([pivot + (lo - pivot) / factor, pivot + (lo - pivot) * factor,
                   pivot + (hi - pivot) / factor, pivot + (hi - pivot) * factor])
    band = (ends[0], min(ends[-1], 100.0) if unit == "%" else ends[-1])  # a share of 100% at most
    above = lo > pivot
    against = (-INF, pivot - 1e-12) if above else (pivot + 1e-12, INF)
    shown = f"{lo:g}{unit}" if lo == hi else f"{lo:g}-{hi:g}{unit}"
    side = "below" if above else "above"
    tol = f"effect within x{factor:g}: {band[0]:.3g}-{band[1]:.3g}{unit}; {side} {pivot:g}{unit} contradicts"
    return Claim(shown, band, against, tol, why, name)


def exact(paper: int, why: str, name: str = "") -> Claim:
    """A count that must be equal; any other count contradicts."""
    return Claim(f"{paper:,}", (paper, paper), None, "equal; any other count contradicts", why, name,
                 outside_contradicts=True)


MORE_THAN_HALF = 0.5 + 1e-9


def share(paper: str, at_least: float, why: str, name: str = "", contradicts_at: float | None = 0.0,
          what: str = "of graphs") -> Claim:
    """A share in [0, 1] (of graphs, bins or pairs where ours agrees with the paper): at least ``at_least``
    reproduces, at most ``contradicts_at`` contradicts."""
    against = None if contradicts_at is None else (-INF, contradicts_at)
    tol = f"agrees on {'> 50%' if at_least == MORE_THAN_HALF else f'>= {at_least:.0%}'} {what}"
    if contradicts_at is not None:
        tol += f"; <= {contradicts_at:.0%} contradicts"
    return Claim(paper, (at_least, 1.0), against, tol, why, name)


def trend(paper: str, sign: int, why: str, strength: float = 0.3, name: str = "", of: str = "") -> Claim:
    """A monotone trend: the rank correlation must reach ``strength`` in the paper's direction
    (``sign`` +1 rises, -1 falls, 0 no trend: |rho| below strength); the opposite direction contradicts."""
    if sign == 0:
        return Claim(paper, (-strength, strength), None, f"|rank corr{of}| < {strength:g}", why, name)
    band = (strength, 1.0) if sign > 0 else (-1.0, -strength)
    against = (-1.0, -strength) if sign > 0 else (strength, 1.0)
    rel = ">=" if sign > 0 else "<="
    return Claim(paper, band, against, f"rank corr{of} {rel} {sign * strength:+g}; opposite sign contradicts",
                 why, name)


def at_most(paper: str, limit: float, why: str, name: str = "", floor: float = 1.0, unit: str = "x") -> Claim:
    """A cost the paper calls small: ours at most ``limit``; nothing contradicts."""
    return Claim(paper, (floor, limit), None, f"<= {limit:g}{unit}", why, name)


@dataclass(frozen=True)
class Item:
    paper: str  # experiments module name: rdmce, mcegpu, kcminer, gmbe, geil
    item: str  # "Table 1", "Fig 7"
    what: str
    theirs: str  # the paper's headline (FIGURES.md)
    source: str  # where the number stands in shared/papers/<paper>.txt
    claims: tuple[Claim, ...] = ()  # empty: the paper states nothing ours can be held to


@dataclass(frozen=True)
class Status:
    """What we measured for one item (see the module docstring for each field); its state is not an
    argument: ``judge`` sets it from ``verdict``."""

    ours: str = ""
    value: float | tuple | dict | None = None
    noise: bool | tuple[str, ...] = False
    complete: bool = True
    reason: str = ""
    device: str = ""
    date: str = ""
    state: str = field(default="", init=False)  # set only by judge(), from verdict()

    def __post_init__(self):
        if self.ours in STATES:
            raise TypeError(f"Status no longer takes a state ({self.ours!r}): fill ours/value/noise/complete;"
                            " "
                            "reproduction.verdict computes the state")

    @property
    def measured(self) -> bool:
        return bool(self.ours) or self.value is not None

    def value_of(self, claim: Claim):
        if isinstance(self.value, dict):
            return self.value.get(claim.name)
        return self.value

    def noisy(self, claim: Claim) -> bool:
        return self.noise is True or (isinstance(self.noise, tuple) and claim.name in self.noise)


def best_share(df: pd.DataFrame, at_paper: pd.Series) -> float | None:
    """For a sweep (rows: graph, median_ms, times_ms): the share of graphs where a row of the paper's setting
    (``at_paper``, a mask) is the fastest or within the runs' spread of the fastest, over the graphs where
    the paper's setting ran (None where it ran on none)."""
    from .viz.paper import inside_spread

    hits = []
    for _, part in df.groupby("graph"):
        mine = part.loc[at_paper.reindex(part.index, fill_value=False), "times_ms"]
        if len(mine):
            best = part.loc[part["median_ms"].idxmin(), "times_ms"]
            hits.append(any(inside_spread(best, t) for t in mine))
    return sum(hits) / len(hits) if hits else None


def _ends(value) -> tuple[float, float]:
    lo, hi = (value, value) if isinstance(value, (int, float)) else value
    return float(lo), float(hi)


def claim_verdict(claim: Claim, value, noise: bool = False) -> str:
    """The rule for one claim: missing / partial (noise, or outside the band) / reproduced / contradicted."""
    if value is None:
        return "missing"
    lo, hi = _ends(value)
    if math.isnan(lo) or math.isnan(hi):
        return "missing"
    if noise:
        return "partial"
    if claim.band[0] <= lo and hi <= claim.band[1]:
        return "reproduced"
    if claim.outside_contradicts:
        return "contradicted"
    if claim.against is not None and claim.against[0] <= lo and hi <= claim.against[1]:
        return "contradicted"
    return "partial"


def verdict(item: Item, status: Status | None) -> str:
    """The rule for one item, from its claims and what its status() measured."""
    if status is None or not status.measured:
        return "missing"
    states = [claim_verdict(c, status.value_of(c), status.noisy(c)) for c in item.claims]
    if "contradicted" in states:
        return "contradicted"
    if states and all(s == "reproduced" for s in states) and status.complete:
        return "reproduced"
    return "partial"


PAPERS = {
    "rdmce": "RDMCE (maximal cliques, root-down exposure)",
    "mcegpu": "mce-gpu (maximal cliques, worker list)",
    "kcminer": "KCMiner (k-cliques, bitmaps)",
    "gmbe": "GMBE+ (maximal bicliques)",
    "geil": "Geil et al. (maximum cliques, breadth first)",
}
TEXTS = {"rdmce": "rdmce_root_down_exposure_mce.txt", "mcegpu": "mce_gpu_worker_list_mce.txt",
         "kcminer": "kcminer_bitmap_kclique_zh.txt", "gmbe": "gmbe_plus_maximal_biclique.txt",
         "geil": "geil_maximum_clique_bfs.txt"}

_SPEEDUP_X15 = "graphs and GPUs differ from the paper's, so half the effect again either way"
_BEST = "the paper's own test: best on most graphs; within the runs' spread of the best counts as best"
_MULTI = "scaling depends on the graph and the interconnect; a quarter of the effect either way"

# (item, what, the paper's headline, source line in shared/papers/<text>, claims)
_ITEMS = {
    "rdmce": [
        ("Table 1", "datasets and maximal-clique counts", "ego-Facebook 869,325,383 maximal cliques", "L260",
         (exact(869_325_383, "a count is exact or wrong"),)),
        ("Fig 7", "time vs mce-gpu-P/PX", "1.25-5.38x faster than the next best", "L42, L277",
         (effect((1.25, 5.38), 1.5, _SPEEDUP_X15),)),
        ("Fig 8", "with vs without root-down exposure", "1.03-69.61x", "L283",
         (effect((1.03, 69.61), 1.5, "graphs where the runs separate; " + _SPEEDUP_X15),)),
        ("Fig 9", "peak GPU memory vs mce-gpu-PX", "56.8-97.3% (avg 80%)", "L293",
         (effect(0.80, 1.25, "the paper's average against our mean; planned bytes are exact, so a quarter "
                 "of the saving either way"),)),
        ("Table 2", "aggressive node generation on/off", "avg 1.018x; ego-Facebook 2.164 s vs 2.243 s",
         "L295",
         (effect(1.018, 2.0, "a 1.8% effect: twice or half of it, and beyond the runs' spread"),)),
        ("Fig 10", "edge vs vertex seeding", "edges 2.52x faster on average", "L299",
         (effect(2.52, 1.5, _SPEEDUP_X15),)),
        ("Fig 11", "warps per SM sweep", "U-shape, best 20", "L315",
         (share("best 20", MORE_THAN_HALF, _BEST),)),
        ("Fig 12", "tau sweep", "best 24 on >50% of graphs", "L317",
         (share("best 24 on >50% of graphs", MORE_THAN_HALF, _BEST),)),
        ("Fig 13", "different GPUs", "RTX 4090 / A100 / H800; H800 1.76x the A100", "L327",
         (Claim("H800 1.76x the A100", (1.0, INF), (0.0, 1.0 - 1e-12), "slower / faster GPU time >= 1 on "
                "every graph where the runs separate; below 1 contradicts", "our two GPUs (H100, H200) are "
                "not the paper's: only the direction is held, the GPU with more bandwidth is not slower"),)),
        ("Fig 14", "multi-GPU scaling", "4.83x on 8 GPUs", "L329",
         (effect(4.83, 1.25, _MULTI),)),
    ],
    "mcegpu": [
        ("Table 1", "GPU vs multi-core CPU", "geomean 4.9x (A100), up to 16.7x", "L299",
         (effect(4.9, 1.5, "geomean against geomean; " + _SPEEDUP_X15),)),
        ("Fig 3", "max/avg load across SMs", "2.28 / 1.63 / 1.17 / 1.11 (L1, L2, L1+WL, L2+WL)", "L315-319",
         (effect(round(2.28 / 1.17, 2), 1.5, "what the worker list removes: no-WL over WL imbalance",
                 name="L1"),
          effect(round(1.63 / 1.11, 2), 1.5, "as for L1", name="L2"))),
        ("Table 2", "number of donations", "graphs with many donations are the imbalanced ones", "L305-317",
         (trend("donations rise with no-WL imbalance", +1, "the paper's observation, over our graphs",
                of=" donations~imbalance"),)),
        ("Fig 4", "strong scaling 1-4 GPUs", "worker list scales, static does not", "L323-339", ()),
        ("Fig 5", "time breakdown", "worker-list operations take a small share", "L345, L378", ()),
        ("Table 3", "L1/L2 x IP/IPX; the delta/d heuristic", "heuristic geomean slowdown 1.02x", "L372-376",
         (at_most("1.02x", 1.05, "the heuristic's promise is a few percent; 3 points over the paper's"),)),
    ],
    "kcminer": [
        ("Table 2", "time for K = 4..8", "up to 7.36x over KCGPU (avg 2.94x)", "L1070",
         (effect(2.94, 1.5, "mean against mean; " + _SPEEDUP_X15),)),
        ("Fig 7", "ablation at K = 7", "-60.3%, -28.5%, -22.6%, -37.5%", "L1155-1159",
         (effect(round(1 - 0.603, 3), 1.5, "time ratio +scheduling / thread-parallel", name="scheduling"),
          effect(round(1 - 0.285, 3), 1.5, "time ratio +dynamic bitmap / thread-parallel", name="bitmap"),
          effect(round(1 - 0.226, 3), 1.5, "time ratio both / +scheduling (the text: a further cut)",
                 name="both"),
          effect(round(1 - 0.375, 3), 1.5, "time ratio +size / both (a further cut)", name="size"))),
        ("Fig 8", "active lanes per warp vs K", "2.6x more active lanes at K = 7", "L1172",
         (effect(2.6, 1.5, "mean against mean; counters, no timing noise"),)),
        ("Fig 9", "bitmap at level 2 vs 3 by density", "K=6: level 3 wins only below 25%; K=7: always",
         "L1185-1187",
         (share("K=6: level 3 faster iff density < 25%", 0.75, "density bins of every graph; a bin within "
                "5% counts for neither", name="K=6", contradicts_at=0.25, what="of bins"),
          share("K=7: level 3 always faster", 0.75, "as for K=6", name="K=7", contradicts_at=0.25,
                what="of bins"))),
        ("Fig 10", "multi-GPU scaling", "7.53x (K=5) on 8 GPUs", "L1202-1203",
         (effect(7.53, 1.25, _MULTI),)),
    ],
    "gmbe": [
        ("Table I", "datasets and maximal-biclique counts", "MovieLens 140,266", "L337",
         (exact(140_266, "a count is exact or wrong"),)),
        ("Fig 9", "vs other biclique codes", "1.2x over GMBE", "L360",
         (effect(1.2, 1.5, "mean against our geomean; " + _SPEEDUP_X15),)),
        ("Fig 10", "ablations", "4.88x over WARP, 2.07x over BLOCK", "L399",
         (effect(4.88, 1.5, "geomean against geomean", name="over WARP"),
          effect(2.07, 1.5, "geomean against geomean", name="over BLOCK"))),
        ("Fig 12", "memory with vs without node reuse", "49-4,819x less", "L381",
         (effect((49, 4819), 2.0, "the saving grows with the graph; twice either way"),)),
        ("Table II", "non-maximal/maximal with vs without pruning", "pruning avoids 48.7-92.8%", "L383",
         (effect((48.7, 92.8), 1.25, "counts, no noise; a quarter either way", pivot=0.0, unit="%"),)),
        ("Fig 13", "active SMs over time", "GMBE+ keeps its SMs busy longest; WARP loses them first",
         "L401-407",
         (Claim("GMBE+ keeps the most SMs busy", (-2.0, 100.0), (-100.0, -2.0 - 1e-9),
                "GMBE+'s mean SM busy share minus the best of WARP / BLOCK >= -2 points on every graph; "
                "below on every graph contradicts", "the paper's reading of its Fig 13; 2 points: a tie",
                name="balance"),
          share("GMBE+ finishes first", MORE_THAN_HALF, "the same figure's time axis: GMBE+ done before "
                "BLOCK's SMs start to idle", name="first"))),
        ("Fig 14", "tau sweep", "best 32", "L412",
         (share("best 32", MORE_THAN_HALF, _BEST),)),
        ("Fig 15", "(bound_height, bound_size) sweep", "best (20, 1500)", "L425",
         (share("best (20, 1500)", MORE_THAN_HALF, _BEST),)),
        ("Fig 16", "warps per SM sweep", "best 16", "L427-430",
         (share("best 16", MORE_THAN_HALF, _BEST),)),
        ("Fig 18", "multi-GPU", "linear on 8 GPUs", "L446",
         (effect(8.0, 1.25, _MULTI),)),
    ],
    "geil": [
        ("Fig 2", "edges/s vs average degree", "falls as degree rises", "L882-886",
         (trend("falls with degree", -1, "a moderate rank correlation over our graphs", of=" with degree"),)),
        ("Fig 3", "edges/s vs |E|, BFS and windowed", "rises with |E|", "L900-906",
         (trend("rises with |E|", +1, "a moderate rank correlation over our graphs", of=" with |E|"),)),
        ("Fig 4", "speedup over PMC (CPU)", "avg 1.9x", "L22",
         (effect(1.9, 1.5, _SPEEDUP_X15),)),
        ("Table I", "heuristic error; graphs solved without OOM", "19 / 21 / 35 / 50 / 47 of 58", "L992",
         (trend("solved 19 / 21 / 35 / 50 / 47", +1, "our solved counts in the paper's order of the five "
                "heuristics (12 graphs against 58)", strength=0.7, of=" with the paper's counts"),)),
        ("Table II", "speedups between heuristics", "geomeans 0.1-2.9x over 10 pairs", "L1053",
         (share("10 pairs: faster / same / slower", 0.75, "a pair agrees where ours and the paper's both "
                "gain, both lose, or both stay within 15%", contradicts_at=0.25, what="of pairs"),)),
        ("Fig 5", "heuristic runtime and pruning", "heuristic time rises with |E|, not with degree", "L1116",
         (trend("rises with |E|", +1, "a moderate rank correlation over our graphs", name="|E|",
                of=" with |E|"),
          trend("not with degree", 0, "no moderate rank correlation", name="degree", of=" with degree"))),
        ("Fig 6", "windowing memory vs full BFS", "85-94% less memory; 0.53x speed at window 1024",
         "L1150, L1194",
         (effect((85, 94), 1.25, "a quarter of the saving either way", pivot=0.0, unit="%", name="memory"),
          effect(round(1 / 0.53, 2), 1.5, "windowed / full time at window 1024 (the paper's speed 0.53x)",
                 name="time"))),
    ],
}

CATALOGUE = [Item(paper, item, what, theirs, f"{TEXTS[paper]} {where}", tuple(claims))
             for paper, rows in _ITEMS.items() for item, what, theirs, where, claims in rows]
CROSS_PAPER = ("multigpu", "peers")  # modules whose status() reports {(paper, item): Status}; later ones win


def tolerance_text(item: Item) -> str:
    """The item's tolerance as the scoreboard shows it."""
    if not item.claims:
        return "none: the paper gives no number to hold ours to"
    return "; ".join(f"{c.name + ': ' if c.name else ''}{c.tolerance}" for c in item.claims)


def _fmt(value) -> str:
    if value is None:
        return "-"
    lo, hi = _ends(value)
    one = (lambda x: f"{x:,.0f}") if abs(lo) >= 1000 else (lambda x: f"{x:.3g}")
    return one(lo) if lo == hi else f"{one(lo)}-{one(hi)}"


def compared_text(item: Item, status: Status | None) -> str:
    """Per claim, the number the rule compared and its verdict."""
    if status is None or not item.claims:
        return ""
    parts = []
    for c in item.claims:
        v = status.value_of(c)
        s = claim_verdict(c, v, status.noisy(c))
        note = ", inside noise" if status.noisy(c) and v is not None else ""
        parts.append(f"{c.name + ' ' if c.name else ''}{_fmt(v)} -> {s}{note}")
    if not status.complete:
        parts.append("measured in part")
    return "; ".join(parts)


def judge(found: dict, paper: str | None = None) -> dict:
    """``found`` (a status() result: {item: Status} of ``paper``, or {(paper, item): Status}) with each
    Status's ``state`` set by ``verdict``; status() functions return this, so ``.state`` reads the rule."""
    items = {(i.paper, i.item): i for i in CATALOGUE}
    out = {}
    for key, st in found.items():
        it = items.get((paper, key) if paper else key)
        st = replace(st)
        object.__setattr__(st, "state", verdict(it, st) if it else "")
        out[key] = st
    return out


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


def cross_paper_status() -> dict[tuple[str, str], Status]:
    """What the ``CROSS_PAPER`` modules report (the papers' multi-GPU figures, peers run beside ours)."""
    out = {}
    for name in CROSS_PAPER:
        found = importlib.import_module(f"mce_kit.experiments.{name}").status()
        unknown = set(found) - {(i.paper, i.item) for i in CATALOGUE}
        if unknown:
            raise ValueError(f"experiments.{name}.status() names items not in FIGURES.md: {sorted(unknown)}")
        out.update(found)
    return out


def statuses() -> dict[tuple[str, str], Status]:
    """Every item's Status (absent: nobody reports it): the paper's module, then CROSS_PAPER over it."""
    out = {(p, item): st for p in PAPERS for item, st in paper_status(p).items()}
    out.update(cross_paper_status())
    return out


COLUMNS = ["paper", "item", "what", "theirs", "source", "tolerance", "state", "ours", "compared", "reason",
           "device", "date"]


def scoreboard() -> pd.DataFrame:
    """One row per item of FIGURES.md: paper, item, what, theirs (the paper's number), source (where in
    the paper text), tolerance, state (the rule's verdict), ours, compared (per claim), reason, device,
    date."""
    found = statuses()
    rows = []
    for it in CATALOGUE:
        st = found.get((it.paper, it.item))
        rows.append({"paper": it.paper, "item": it.item, "what": it.what, "theirs": it.theirs,
                     "source": it.source, "tolerance": tolerance_text(it), "state": verdict(it, st),
                     "ours": st.ours if st else "", "compared": compared_text(it, st),
                     "reason": (st.reason if st else "") or ("" if st else "no kernel or experiment yet"),
                     "device": st.device if st else "", "date": st.date if st else ""})
    return pd.DataFrame(rows, columns=COLUMNS)


def summary(board: pd.DataFrame) -> pd.DataFrame:
    """Items per paper and state."""
    counts = board.groupby(["paper", "state"]).size().unstack(fill_value=0)
    counts = counts.reindex(index=list(PAPERS), columns=list(STATES), fill_value=0)
    counts["total"] = counts.sum(axis=1)
    return counts


def _cell(x) -> str:
    return str(x).replace("|", "/").replace("\n", " ")


def write_markdown(board: pd.DataFrame, path: Path) -> Path:
    """``board`` as a Markdown page: the rule, totals, then one table per paper."""
    total = board["state"].value_counts()
    lines = ["# Reproduction scoreboard", "",
             f"{len(board)} items of the five papers: " + ", ".join(
                 f"{int(total.get(s, 0))} {s}" for s in STATES) + ".", "",
             "Each state follows from the paper's number, ours and a tolerance fixed per item "
             "(`mce_kit.reproduction.CATALOGUE`): reproduced = ours inside the tolerance; contradicted = "
             "ours goes the other way; partial = outside the tolerance without contradicting, inside the "
             "runs' noise, or measured only in part; missing = not measured. The \"compared\" column "
             "gives the number the rule compared per claim.", ""]
    for paper, title in PAPERS.items():
        part = board[board["paper"] == paper]
        lines += [f"## {title}", "", f"Paper text: `shared/papers/{TEXTS[paper]}` (source: its lines).", "",
                  "| item | what | paper (source) | tolerance | ours | compared | state | device, date "
                  "| note |",
                  "|---|---|---|---|---|---|---|---|---|"]
        for r in part.itertuples():
            when = ", ".join(x for x in (r.device, r.date) if x)
            cells = (r.item, r.what, f"{r.theirs} ({r.source.split(' ', 1)[-1]})", r.tolerance, r.ours,
                     r.compared, f"**{r.state}**", when, r.reason)
            lines.append("| " + " | ".join(_cell(x) for x in cells) + " |")
        lines.append("")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines), encoding="utf-8")
    return path
