"""Source of notebooks/40_gmbe.ipynb; rebuild with `python -m mce_kit.notebooks build notebooks/`."""

# %% [markdown]
# # GMBE+: maximal bicliques on a GPU
#
# A *biclique* of a bipartite graph U x V is a pair (L, R), L in U and R in V,
# with every edge between them; it is *maximal* when no vertex can join either
# side. Users x items, authors x papers, tags x films: the maximal bicliques are
# the groups that share everything. GMBE+ (the extended journal version of GMBE,
# SC'23) enumerates them on a GPU. This notebook explains the algorithm as
# mce_kit implements it in `mce_kit/gpu/cuda/gmbe.cu`, steps through the model in
# `mce_kit.sim`, and puts our measurements of each of the paper's items beside
# the paper's numbers.
#
# **Where the numbers come from.** Tables and plots read `data/results/gmbe_*.csv`,
# written by `python -m mce_kit.experiments.gmbe` on a lent GPU (each row names the
# GPU, SMs, driver, commit and date). The paper's own times are on an A100; the
# issue gives the authors' GMBE built from their public code and timed on one
# H200, which is the speed target here (1.25x faster). The paper's larger KONECT
# graphs are not bundled: seeded Chung-Lu bipartite graphs stand in for them.

# %%
import pandas as pd

import mce_kit as mk
from mce_kit.experiments import gmbe as exp
from mce_kit.notebooks import figures_dir
from mce_kit.viz import gmbe_figures as fig

QUICK = mk.quick_mode()
print("quick mode:", QUICK, "| GPU here:", mk.has_gpu())

# %% [markdown]
# ## The idea
#
# 1. **Set enumeration over the smaller side.** A node holds (L, R, C): R in V, L =
#    every U vertex adjacent to all of R, C the candidates of V that may still
#    join. A child takes the smallest candidate v, sets L' = L ∩ N(v), moves every
#    candidate that covers L' into R', keeps those that meet L' in C'. (L', R') is
#    maximal iff no vertex already traversed also covers L'.
# 2. **One task per vertex.** The tree under v_s starts from L = N(v_s); only later
#    2-hop neighbours are candidates, so every biclique is found once.
# 3. **Node reuse.** A worker keeps one `node_buf` per task: the root's vertices with
#    a *depth* field each. A child only rewrites depths (L' is "depth >= D", R' is
#    "joined at depth <= D"), so no node is ever allocated and a task needs
#    O(|L*| + |N2|) words instead of depth x that.
# 4. **Pruning by local neighbourhood size.** If |L ∩ N(x)| does not change in the
#    child made by v, then L ∩ N(x) lies inside N(v): every node under x would have
#    v (already traversed) covering its L, so x is dropped at once.
# 5. **Bitmaps.** Once |L| <= tau (32), each candidate's neighbourhood inside L
#    becomes an |L|-bit word; below that node an intersection is one AND.
# 6. **Load-aware splitting.** A task whose tree looks large (min(|L|,|C|) > 20 and
#    min(|L|,|C|)·|C| > 1500) is cut into one sub-task per candidate, pushed to the
#    block's queue in shared memory, then to a global queue, for idle warps.
#
# The model on the paper's Figure 1 graph G0 (6 maximal bicliques), one tree per
# seed vertex, with and without pruning:

# %%
B0 = mk.sim.g0_bipartite()
for prune in (False, True):
    tree = mk.sim.gmbe_plus(B0, prune=prune)
    print(f"prune={prune}:", tree.summary())
ax = mk.viz.plot_tree(tree)
ax.figure.savefig(figures_dir() / "40_gmbe_example_tree.png", dpi=150)

# %% [markdown]
# Step through it: each node shows its (L, R, C), and under *extra* the `node_buf`
# depth of every vertex of the task's root and the traversed vertices; watch the
# depths change instead of new nodes being allocated. Switch pruning off to see
# the non-maximal nodes it saves, or lower tau to start bitmap mode earlier.

# %%
mk.viz.explore("GMBE+ G0 (bipartite)", "GMBE+ bicliques", prune=True, tau=32)

# %% [markdown]
# The node_buf of one seed, depth by depth (the model keeps a copy per node):

# %%
tree = mk.sim.gmbe_plus(B0, prune=True)
rows = []
for i in range(len(tree)):
    node = tree.node(i)
    if node.extra and "depth" in node.extra:
        depth = {str(k): ("inf" if v == float("inf") else v) for k, v in node.extra["depth"].items()}
        rows.append({"node": i, "kind": node.kind, "sets": node.sets, "traversed": node.extra["traversed"],
                     **depth})
pd.DataFrame(rows).head(12)

# %% [markdown]
# ## The library call
#
# `mk.count_maximal_bicliques` runs the CUDA kernel when there is a GPU, else the
# CPU oracle; `min_left`/`min_right` keep only bicliques with at least that many
# vertices on each side (both devices). MovieLens is counted only with a GPU (the
# CPU oracle needs about two minutes for it).

# %%
B = mk.datasets.load("MovieLens")
small = mk.count_maximal_bicliques(B0)
print(f"G0: {int(small)} maximal bicliques (device: {small.device})")
if mk.has_gpu():  # the CPU oracle takes minutes on MovieLens
    count = mk.count_maximal_bicliques(B)
    print(f"MovieLens: {int(count):,} maximal bicliques (device: {count.device}, {count.seconds:.2f} s)")
big = list(mk.maximal_bicliques(B0, min_left=2, min_right=2))
print("G0 bicliques with >= 2 vertices per side:", big)

# %% [markdown]
# ## Table I and the speed target
#
# Our graphs, their degrees and 2-hop degrees, and the count (MovieLens: the
# paper's 140,266). The time is the median of 5 CUDA-event runs from the graph on
# the host to the count back; every run's count is checked against the CPU oracle.

# %%
table1 = exp.load("table1")
print("measured on", fig.where_measured(table1))
table1[["graph", "n_u", "n_v", "m", "delta_u", "delta_v", "delta2_v", "count", "paper_count"]]

# %%
assert int(table1.set_index("graph").loc["MovieLens", "count"]) == exp.PAPER["movielens_count"]
fig.speed_table(table1)

# %% [markdown]
# **The gap.** dbpedia-writer meets the target (5.1 ms against GMBE's 8.4 ms on an
# H200); MovieLens (592 ms against 43 ms) and marvel (377 ms against 52 ms) are an
# order of magnitude slower. The counters say why: MovieLens makes 6.8 million
# nodes, and with 2,112 warps busy about 70 ms each on average that is some 20 us
# per node per warp. In this build every node scans its task's whole 2-hop set W
# (up to 3,217 vertices) three times (next candidate, the child's classification,
# the undo), whatever the node's own candidate set is. The `GMBE_COMPACT=1` build
# keeps each depth's vertex set as a prefix of a permutation, so a node scans only
# its own candidates and excluded vertices, and a vertex pruned at a node no longer
# reaches that node's later children as a candidate (in the default build it does:
# extra nodes that fail the check, counts still exact). In the kernel's Python mirror
# (`tests/gmbe_mirror.py`, same fields, same order of work) on a sample of 41
# MovieLens seeds the compact build makes 20x fewer nodes and scans 36x fewer
# entries (marvel: 3.8x and 8x), with the oracle's counts. It passes every GPU test
# and was timed on an H200 (next cell, `gmbe_compact_*.csv`). The second cause
# is balance: on marvel one seed has |N(v)| = 1,625, its
# sub-tasks are still large (splitting is one level deep), and the busiest warp works
# 78 times the mean.

# %% [markdown]
# ### The compact build, measured
#
# `python -m mce_kit.experiments.gmbe --define GMBE_COMPACT=1 --only table1,ablations,tau`
# on an H200: the same counts; GMBE+ itself gets 1.6x faster on MovieLens, and the
# BLOCK level (four warps on one task) drops to about 32 ms there, inside the 34 ms
# target, while marvel stays about 3x over its target. The tables and figures below
# are from the default (full-scan) build; the compact build becomes the default once
# they are re-measured on it.

# %%
compact = exp.load("compact_ablations")
compact.pivot_table(index="graph", columns="variant", values="median_ms").round(1)

# %% [markdown]
# ## Exact on every run
#
# Each bundled graph counted ten times in a row (default settings, sub-tasks
# really split and stolen):

# %%
runs = exp.load("exactness")
summary = runs.groupby("graph", sort=False).agg(runs=("run", "size"), exact=("exact", "sum"),
                                                 count=("count", "first"))
assert (summary["runs"] == summary["exact"]).all()
summary

# %% [markdown]
# ## Fig 10 and Table II: what each part buys
#
# Each variant's time relative to GMBE+ (above 1: slower). The paper reports GMBE+
# 4.88x faster than WARP and 2.07x faster than BLOCK on average over its 13 graphs,
# and pruning avoiding 48.7-92.8% of the non-maximal checks (MovieLens: 9.04
# non-maximal per maximal with pruning, 66.0 without).

# %%
ab = exp.load("ablations")
f = fig.plot_ablations(ab, exp.PAPER)
f.savefig(figures_dir() / "40_gmbe_ablations.png", dpi=150)
fig.ablation_table(ab).round(2)

# %%
fig.table2(ab, exp.PAPER).round(2)

# %% [markdown]
# Without pruning we measure 66.6 non-maximal nodes per maximal biclique on
# MovieLens, the paper's 66.0. With pruning we get 5.3 against its 9.04 because our
# kernel also stops below a non-maximal node (every node under it is covered by the
# same traversed vertex), so fewer non-maximal nodes are ever made. The variants:
# pruning saves 26% of the time on MovieLens and marvel; bitmaps save 29% on MovieLens
# and 57% on marvel; the warp-wide union matters on dbpedia-writer (4.9 against
# 3.8 ms), whose tasks are mostly the 2-hop build. BLOCK is faster than GMBE+ here
# (276 against 601 ms on MovieLens), the opposite of the paper: with the whole-W
# scans above, four warps sharing one task's scans beat four warps with one task each.

# %% [markdown]
# ## Fig 12: memory with and without node reuse
#
# A no-reuse build would hold every node of the current path: up to
# min(|L*|, |C*|) + 1 nodes of |L*| + |N2| words each. It is computed from the
# tree bounds rather than built (it would not fit for the heavier seeds). The
# paper reports 49-4,819x less memory with reuse.

# %%
mem = exp.load("memory")
f = fig.plot_memory(mem, exp.PAPER)
f.savefig(figures_dir() / "40_gmbe_memory.png", dpi=150)
mem[["graph", "workers", "reuse_bytes_per_worker", "no_reuse_bytes_per_worker", "saving",
     "paper_formula_reuse_bytes", "paper_formula_no_reuse_bytes", "device_bytes"]]

# %% [markdown]
# Node reuse saves 11-125x here (the paper: 49-4,819x on its larger graphs). Our
# node_buf is larger than the paper's 3Δ(V) + 2Δ2(V) words because it also holds each
# 2-hop vertex's local neighbourhood (the 2-paths from the seed) and the bitmap rows.

# %% [markdown]
# ## Fig 13: active SMs over time
#
# Every worker stamps its first start and last end with the GPU's global timer;
# an SM is active until its last worker ends. With one task per warp (WARP) or per
# block (BLOCK) a few SMs keep the largest trees long after the rest are idle.

# %%
act = exp.load("sm_activity")
f = fig.plot_sm_activity(act)
f.savefig(figures_dir() / "40_gmbe_active_sms.png", dpi=150)
act.groupby("variant", sort=False).agg(last_sm_ms=("end_ns", lambda x: x.max() / 1e6),
                                       median_sm_ms=("end_ns", lambda x: x.median() / 1e6))

# %% [markdown]
# On MovieLens half the SMs are idle after about 300 ms in every variant; GMBE+'s
# last SM finishes at 621 ms, WARP's at 1,010 ms, BLOCK's at 279 ms: splitting cuts
# WARP's tail, but the sub-tasks of the heaviest seeds are still long.

# %% [markdown]
# ## Fig 14, 15, 16: tau, the split bounds and warps per SM
#
# The paper's best settings: tau = 32, (bound_height, bound_size) = (20, 1500),
# 16 warps per SM.

# %%
tau = exp.load("tau")
f = fig.plot_sweep(tau, "tau", exp.PAPER["best_tau"], logx=True)
f.savefig(figures_dir() / "40_gmbe_tau.png", dpi=150)
tau.pivot(index="graph", columns="tau_value", values="median_ms").round(2)

# %% [markdown]
# The tau sweep was cut off by the GPU lease after marvel's tau = 64 (marvel at 128
# and dbpedia-writer are missing). MovieLens is flat (603-685 ms, best at 16);
# marvel keeps improving up to 64 (304 ms against 389 ms at 32). The bounds grid
# (Fig 15), the warps-per-SM sweep (Fig 16) and the larger Chung-Lu graphs were not
# reached in our one GPU run; the cells below show them once measured. A probe of 16,
# 24 and 32 warps per SM in the same run (not in a CSV): MovieLens 574-701 ms at 16
# and 900-1,008 ms at 32 with 64 registers; with 80 registers (`MIN_BLOCKS=6`,
# at most 24 resident warps per SM) 537-630 ms at 16 and marvel 350-360 ms.

# %%
bounds = exp.load_or_none("bounds")
if bounds is not None:
    f = fig.plot_bounds(bounds, exp.PAPER["best_bounds"])
    f.savefig(figures_dir() / "40_gmbe_bounds.png", dpi=150)

# %%
warps = exp.load_or_none("warps")
if warps is not None:
    f = fig.plot_sweep(warps, "warps_per_sm", exp.PAPER["best_warps_per_sm"])
    f.savefig(figures_dir() / "40_gmbe_warps.png", dpi=150)
    warps.pivot(index="graph", columns="warps_per_sm_value", values="median_ms").round(2)

# %% [markdown]
# ## Larger graphs
#
# The paper's large KONECT graphs are not in `data/`. Seeded Chung-Lu bipartite
# graphs (`mk.generators.bipartite_chung_lu`, heavy-tailed degrees on both sides)
# were grown until a run takes about a second; no CPU oracle finishes at that
# size, so each count is checked across runs and against the BLOCK variant.

# %%
large = exp.load_or_none("large")
if large is not None:
    large[["graph", "n_u", "n_v", "m", "delta2_v", "count", "median_ms", "block_ms", "block_agrees"]]

# %% [markdown]
# ## Re-measured here
#
# With a GPU, a quick subset is measured live (MovieLens, default settings).

# %%
if mk.has_gpu():
    live = pd.concat(exp.table1(["MovieLens"], repeats=3))
    live[["graph", "count", "median_ms", "gmbe_h200_ms", "target_ms"]]
else:
    print("no GPU here: the tables above are the committed measurements")

# %% [markdown]
# ## Status of the paper's items
#
# See the closing cell's table (filled from the measurements above).

# %%
status = pd.DataFrame([
    ("Table I", "partial: the 3 bundled graphs (MovieLens = 140,266, exact 10/10); the 10 larger KONECT "
                "graphs are not bundled and the Chung-Lu stand-ins were not measured (GPU budget)"),
    ("speed", "partial: dbpedia-writer 5.1 ms meets the 6.7 ms target; MovieLens 592 ms and marvel 377 ms "
              "miss 34 / 42 ms (whole-W scans per node, see above)"),
    ("Fig 9", "missing: no oomBEA/MBET/ParMBE/cuMBE builds here; the authors' GMBE times (H200) come "
              "from the issue"),
    ("Fig 10", "reproduced on the bundled graphs (all five ablations); BLOCK beats GMBE+ here, unlike "
               "the paper"),
    ("Fig 12", "reproduced, no-reuse side computed from the tree bounds (11-125x, paper 49-4,819x)"),
    ("Table II", "reproduced: MovieLens 66.6 without pruning (paper 66.0), 5.3 with (paper 9.04)"),
    ("Fig 13", "reproduced on MovieLens (per-SM first start / last end from %globaltimer)"),
    ("Fig 14", "partial: MovieLens 8..128, marvel 8..64; the run was cut off"),
    ("Fig 15", "missing: not reached in the one GPU run (code: experiments.gmbe --only bounds)"),
    ("Fig 16", "missing as a CSV (a probe of 16/24/32 is quoted above)"),
    ("Fig 18", "missing: multi-GPU is out of scope of issue #11"),
], columns=["item", "status"])
status

# %% [markdown]
# ## References
#
# - Z. Pan, S. He, X. Li, X. Zhang, R. Wang, G. Chen. Efficient maximal biclique
#   enumeration on GPUs (SC'23) and its extended version GMBE+ (the paper text in
#   `shared/papers/gmbe_plus_maximal_biclique.txt`).
# - Y. Zhang, C. A. Phillips, G. L. Rogers, E. J. Baker, E. J. Chesler, M. A. Langston.
#   On finding bicliques in bipartite graphs: a novel algorithm and its application
#   to the integration of diverse biological data types. BMC Bioinformatics 15, 2014.
# - O. Green, P. Yalamanchili, L.-M. Munguía. Fast triangle counting on the GPU
#   (merge-path intersections), IA^3 2014.
# - KONECT, the Koblenz network collection: MovieLens, marvel, dbpedia-writer.
