"""Source of notebooks/90_scale.ipynb; rebuild with `python -m mce_kit.notebooks build notebooks/`."""

# %% [markdown]
# # One call, one laptop or several GPUs
#
# Enumerating maximal cliques splits naturally into independent pieces: with
# the vertices in degeneracy order, every maximal clique of two or more
# vertices is found from exactly one **edge seed** (its two earliest
# vertices). RDMCE hands these seeds to the warps of one GPU through an atomic
# counter. `mce_kit.distributed` does the same one level up, over the workers
# of a [Dask](https://distributed.dask.org) cluster:
#
# 1. the host orders the graph and estimates each seed's cost,
#    `2**(|P| / 6)` where `|P|` is the seed's number of common later
#    neighbours (the search below a seed grows about exponentially in `|P|`);
# 2. the graph is **scattered once** to every worker;
# 3. the seeds are cut into many chunks of about equal estimated cost, the
#    costliest first, and only two chunks per worker are in flight: a worker
#    that finishes early takes the next one (late binding, like the kernel's
#    seed counter);
# 4. the counts come back as Python ints and are added exactly; a worker that
#    dies has its chunks re-run by Dask, and a chunk that fails stops the run
#    with the seeds it held — never a partial count.
#
# The call is the same on a laptop, one GPU, or a cluster:
#
# ```python
# mk.count_maximal_cliques(G, device="gpu", gpus=2)           # this host's first 2 GPUs
# mk.count_maximal_cliques(G, device="gpu", client=client)    # any running Dask cluster
# mk.count_maximal_cliques(G, device="cpu", client=client)    # its workers run the CPU oracle
# md.count_maximal_cliques(G, algorithm="mce-gpu", subtree="L2", gpus=2)
# md.count_k_cliques(G, 7, gpus=2)                            # KCMiner's edge tasks
# md.count_maximal_bicliques(B, client=client)                # GMBE+'s roots (vertices of V)
# ```
#
# Every kernel splits the same way, only its **task** differs: RDMCE an edge
# seed, mce-gpu a vertex (L1) or edge (L2) sub-tree, KCMiner an oriented edge
# (every k-clique has one pair of earliest vertices), GMBE+ a vertex of the
# smaller side (every maximal biclique has one earliest vertex there). Each
# launcher takes a run-time subset of its tasks (`seeds=` / `tasks=`), and
# each kernel has a CPU twin, the oracle on the same tasks.
#
# An existing cluster is reached with `Client("tcp://scheduler-host:8786")`;
# each GPU worker is started with `dask cuda worker tcp://scheduler-host:8786`
# (from `pip install 'mce_kit[dist]'`).

# %%
import pandas as pd
from distributed import Client, LocalCluster
from IPython.display import Markdown, display

import mce_kit as mk
from mce_kit import distributed as md
from mce_kit.experiments import multigpu
from mce_kit.notebooks import figures_dir
from mce_kit.viz import scale_figures

QUICK = mk.quick_mode()
print("quick mode:", QUICK, "| GPU here:", mk.has_gpu())

# %% [markdown]
# ## On a laptop: a CPU cluster running the oracle on the same chunks
#
# Two worker processes, each running the CPU oracle on its chunks of edge
# seeds. This is also how the test suite checks the partitioning, the retries
# and the exact sum without a GPU.

# %%
name = "johnson8-4-4" if QUICK else "CA-GrQc"
G = mk.datasets.load(name)
with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as cluster, \
        Client(cluster) as client:
    res = md.run(G, "mce-cpu", client, chunks_per_worker=6)
print(f"{name}: {res.answer:,} maximal cliques from {len(res.chunks)} chunks in {res.seconds:.2f} s")
res.busy()

# %% [markdown]
# The other kernels on the same laptop cluster: each one's CPU twin on its
# own tasks, the sum over chunks checked against the whole count.

# %%
from mce_kit import cpu  # noqa: E402
from mce_kit.generators import bipartite_chung_lu  # noqa: E402

small = mk.datasets.load("johnson8-4-4")
B = bipartite_chung_lu(300 if QUICK else 2000, 150 if QUICK else 1000, 900 if QUICK else 6000, seed=1)
cases = [("mce-gpu-cpu", small, {"subtree": "L1"}, lambda: 114_690),
         ("kcminer-cpu", small, {"k": 4}, lambda: cpu.count_k_cliques(small, 4)),
         ("gmbe-cpu", B, {}, lambda: cpu.count_maximal_bicliques(B))]
rows = []
with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as cluster, \
        Client(cluster) as client:
    for kernel, graph, params, whole in cases:
        r = md.run(graph, kernel, client, chunks_per_worker=4, **params)
        rows.append({"kernel": kernel, "params": params, "chunks": len(r.chunks), "sum over chunks": r.answer,
                     "whole count": whole(), "seconds": round(r.seconds, 2)})
pd.DataFrame(rows)

# %% [markdown]
# The chunks are balanced by *estimated* cost, so their real times still
# differ; late binding evens that out: the worker that drew the cheap chunks
# simply takes more of them.

# %%
fig = scale_figures.plot_chunks(res.chunks, f"{name}: chunks per worker (CPU oracle, this machine)")
fig.savefig(figures_dir() / "90_chunks_cpu.png", dpi=120)

# %% [markdown]
# ## Measured on GPUs
#
# `bash scripts/multigpu_device.sh OUT` on a host with several GPUs runs
# `python -m mce_kit.experiments.multigpu --gpus 1 2 4` (as many GPUs as the host has;
# every kernel, `--algo` picks):
# one Dask cluster per GPU count (one worker per GPU), per kernel and graph a
# warm-up, then the median of `--repeats` end-to-end runs (from the prepared
# graph on the host: chunks, reduction; the warm-up run copied the graph to the
# workers, where the prepared job keeps it, as a user's repeated call would:
# that first run's time is `first_s`), every answer checked against the
# reference. The speed-up is taken against **one GPU without Dask** (the
# plain kernel), so the Dask overhead counts against us; `speedup_vs_single_call`
# sets the same run against the plain one-GPU call, its host work included. The papers measured up
# to 8 GPUs; beside ours stand their speed-up and parallel efficiency (speed-up /
# GPUs) at their largest count. Only measured rows are shown (the plots: each
# kernel's default chunking, the fewest chunks per worker); what is not measured
# is said here:

# %%
scaling, busy = multigpu.load_or_none("scaling"), multigpu.load_or_none("busy")
display(Markdown(multigpu.measured_note()))
if scaling is not None:
    display(mk.measure.provenance_table(["multigpu_scaling", "multigpu_busy"]))
    display(multigpu.scaling_table(scaling).round(3))
    fig = scale_figures.plot_scaling(multigpu.default_chunking(scaling))
    fig.savefig(figures_dir() / "90_scaling.png", dpi=120)
if busy is not None:
    display(Markdown("Per-GPU busy time and chunks taken in the last timed run at the largest GPU count "
                     "(the default chunking): a busiest-to-mean ratio near one means late binding kept "
                     "every GPU busy to the end."))
    fig = scale_figures.plot_busy(multigpu.default_chunking(busy))
    fig.savefig(figures_dir() / "90_busy.png", dpi=120)

# %% [markdown]
# **How the tasks are cut matters as much as the GPU count.** Each kernel sorts
# its tasks by estimated cost. Cutting that sorted list into consecutive runs
# gave one chunk every heavy task; dealing the tasks by cost (snake order)
# gives each chunk heavy and light tasks alike, and one chunk per GPU lets each
# launch balance its own warps. Below, each kernel's longest workload under each
# chunking that was measured. Where a single task takes most of the one-GPU time,
# no cut of the task list can help: the second GPU waits for the first one's
# heaviest task. That was KCMiner and the pivot counter on ego-Facebook (the
# column "heavy edges whole"); their launches now cut such an edge into pieces
# (notebook 30, "Splitting the heaviest edges"), and the same chunking scales.
# A chunk cuts its heavy edges against its own work, finer than one GPU would
# (notebook 30, "A chunk's pieces").
#
# A prepared Job run again learns from its last run: a chunk that ran long
# gives an even sample of all its tasks, in cost order, to those that ran short
# (`md.rebalanced`). The sample's size is set by the seconds to move, not by
# the estimates, which miss most on the heaviest tasks: a sample of light tasks
# sized by estimate left R-MAT scale 16 unbalanced after two runs. So
# the timed runs after the warm-up run are dealt by measurement.
#
# The column "one task queue shared by the GPUs" is the other way to share:
# every GPU gets the whole list and takes its next task from one counter in GPU
# memory that all of them reach (`md.run(..., queue="shared")`). It balances
# KCMiner, whose tasks are whole units of work. RDMCE's, mce-gpu's and GMBE+'s
# warps hand the work below a seed to each other, so they claim seeds far faster
# than they finish them, and the GPU whose kernel starts first takes the whole
# costly head of the list; dealt chunks stay the default.

# %%
if scaling is not None:
    display(multigpu.chunking_table(scaling))

# %% [markdown]
# **Sizing the pivot counter's pieces.** Every piece of a split edge
# first walks the top of that edge's pivot tree, which all its pieces share. On one
# GPU, each half of ego-Facebook's tasks (what one of 2 GPUs runs) against all of
# them, counts up to k = 10, at several sizings of the pieces (kernel ms):

# %%
from mce_kit.experiments import kcminer  # noqa: E402

halves = kcminer.load("pivot_halves")
display(mk.measure.provenance_table(["kcminer_pivot_halves"]))
by = halves.pivot_table(index=["split_share", "max_pieces"], columns="tasks", values="gpu_ms")
by["whole / slower half"] = by["all"] / by[["half", "other half"]].max(axis=1)
display(by.round(2))
Markdown(f"No sizing brings a half under {by[['half', 'other half']].max(axis=1).div(by['all']).min():.0%} "
         "of the whole, so the kernel alone reaches at most "
         f"{by['whole / slower half'].max():.2f}x on 2 GPUs before Dask's share: more pieces cut the "
         "wait on the heaviest edges but repeat the shared top once more each.")

# %% [markdown]
# A timeline of each piece (`cliquecount` `run(timeline=True)`) showed what held the halves of
# the deepest counts: the heaviest edges were already cut into one piece per candidate, the
# most a piece count could be, and each of those pieces ran for hundreds of milliseconds. A
# chunk of a count past `cliquecount.PIVOT_UNCAP_K` may now cut an edge into more pieces
# than it has candidates. The slower half against the whole, ego-Facebook, one GPU (kernel ms):

# %%
uncap = kcminer.load("pivot_uncap")
display(mk.measure.provenance_table(["kcminer_pivot_uncap"]))
slower = uncap[uncap["tasks"] != "all"].groupby(["k", "cap_by_bound"])["gpu_ms"].max().unstack()
slower = slower.rename(columns={False: "slower half, uncapped", True: "slower half, capped"})
slower["whole (capped)"] = uncap[(uncap["tasks"] == "all") & uncap["cap_by_bound"]].set_index("k")["gpu_ms"]
display(slower.round(1))

# %% [markdown]
# **Taking the pieces by their measured size.** Neither table closes the gap, because
# the sizing was not what held a launch up: its end was. A timeline of each piece
# showed every warp busy until the task list ran out, then a tail in which a few
# warps finished pieces they had taken last. The pieces are taken in the order of
# their edge's candidates bound, but trees of the same bound differ widely in
# size, so pieces as long as any other were left to the end. A launch
# now keeps how many tree nodes each of its pieces visited, and the next launch over
# the same tasks takes them most first (`cliquecount.by_measured_nodes`, from a first
# launch of at least `cliquecount.LEARN_FROM_MS` ms; the pieces and the counts are
# the same). Below, one GPU, each order on all the tasks and on each half (kernel ms):

# %%
order = kcminer.load("pivot_order")
display(mk.measure.provenance_table(["kcminer_pivot_order"]))
order["k"] = order["k"].map(lambda k: "every k" if pd.isna(k) else f"k <= {int(k)}")
ms = order.pivot_table(index=["k", "by_nodes"], columns="tasks", values="gpu_ms")
ms["whole / slower half"] = ms["all"] / ms[["half", "other half"]].max(axis=1)
display(ms.round(1).assign(**{"whole / slower half": ms["whole / slower half"].round(2)}))
gain = ms.xs(False, level="by_nodes")["all"] / ms.xs(True, level="by_nodes")["all"]
by_size = ms.xs(True, level="by_nodes")["whole / slower half"]
Markdown(f"Taken by measured size, the whole launch is {gain.min():.2f}-{gain.max():.2f}x faster, and it "
         f"takes {by_size.min():.2f}-{by_size.max():.2f}x the slower half's time: what 2 GPUs can reach "
         "before Dask's share (the scaling table above).")

# %% [markdown]
# **When not to distribute.** Handing out chunks costs tens of milliseconds,
# so for a graph one GPU answers in milliseconds a cluster only adds time.
# `gpus=N` therefore answers on one GPU when the estimated cost is below the
# kernel's `single_gpu_below` (printed below; a kernel whose measured overhead
# has not set one always distributes). The scaling table, where measured, has
# the estimate (`est_cost`) beside each measured time.

# %%
print({name: k.single_gpu_below for name, k in md.KERNELS.items() if name in md.CPU_TWIN})

# %% [markdown]
# ## Status of the papers' multi-GPU figures
#
# Geil's maximum cliques are not split: chunks of sources are exact (each a
# (omega, count), merged by max) but every window of that search prunes with
# the bound the earlier ones found, so a chunk alone would redo most of the
# work; it needs the bound broadcast between workers first.

# %%
from mce_kit import reproduction  # noqa: E402

board = reproduction.scoreboard()
keys = {("rdmce", "Fig 14"), ("mcegpu", "Fig 4"), ("kcminer", "Fig 10"), ("gmbe", "Fig 18")}
board[[(p, i) in keys for p, i in zip(board["paper"], board["item"], strict=True)]]

# %% [markdown]
# ## References
#
# - RDMCE's multi-GPU runs share one edge counter across GPUs (its Fig 14:
#   4.83x on 8 RTX 4090 on Dogster); mce-gpu (Fig 4) deals its sub-trees to
#   1-4 V100 round robin, each with its own worker list; KCMiner (Fig 10)
#   deals its edges round robin (7.53x for K=5 on 8 V100); GMBE+ (Fig 18)
#   shares its root counter across 8 A30 (linear on Github, BookCrossing).
# - Dask distributed: futures, `as_completed`, work stealing and retries.
# - dask-cuda: `LocalCUDACluster`, one worker per GPU.
