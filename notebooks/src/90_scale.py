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
# ```
#
# An existing cluster is reached with `Client("tcp://scheduler-host:8786")`;
# each GPU worker is started with `dask cuda worker tcp://scheduler-host:8786`
# (from `pip install 'mce_kit[dist]'`).

# %%
import matplotlib.pyplot as plt
from distributed import Client, LocalCluster

import mce_kit as mk
from mce_kit import distributed as md
from mce_kit.notebooks import figures_dir

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
# The chunks are balanced by *estimated* cost, so their real times still
# differ; late binding evens that out: the worker that drew the cheap chunks
# simply takes more of them.

# %%
fig, ax = plt.subplots(figsize=(6, 2.8))
for w, part in res.chunks.groupby("worker"):
    ax.barh([f"worker {w}"] * len(part), part["seconds"], left=part["started"] - res.chunks["started"].min(),
            edgecolor="white")
ax.set_xlabel("seconds since the first chunk started")
ax.set_title(f"{name}: chunks per worker (CPU oracle)")
fig.tight_layout()
fig.savefig(figures_dir() / "90_chunks_cpu.png", dpi=120)

# %% [markdown]
# ## Measured on GPUs
#
# `python -m mce_kit.experiments.multigpu --out data/results --gpus 1 2` on a
# host with two H200s: one `dask_cuda.LocalCUDACluster` per GPU count, a
# warm-up, then the median of 5 end-to-end runs per graph (from the prepared
# graph on the host: scatter, chunks, reduction), every count checked against
# the reference. The speed-up is taken against **one GPU without Dask** (the
# plain kernel), so the Dask overhead counts against us.

# %%
try:
    from mce_kit.experiments import multigpu

    scaling = multigpu.load("scaling")
except FileNotFoundError as e:
    scaling = None
    print(e)
if scaling is not None:
    cols = ["graph", "gpus", "count", "single_gpu_kernel_s", "median_s", "min_s", "max_s",
            "speedup_vs_single_kernel", "busy_max_over_mean", "gpu", "date"]
    display(scaling[cols])  # noqa: F821 (IPython's display)

# %%
if scaling is not None:
    fig, ax = plt.subplots(figsize=(5.5, 3.5))
    for g, part in scaling.groupby("graph"):
        ax.plot(part["gpus"], part["speedup_vs_single_kernel"], "o-", label=g)
    top = int(scaling["gpus"].max())
    ax.plot([1, top], [1, top], ":", color="grey", label="linear")
    ax.axhline(1.85, color="tab:red", lw=0.8, ls="--")
    ax.text(1.02, 1.87, "target 1.85x on 2 GPUs", color="tab:red", fontsize=8)
    ax.set_xlabel("GPUs (Dask workers)")
    ax.set_ylabel("speed-up over one GPU without Dask")
    ax.set_xticks(sorted(scaling["gpus"].unique()))
    ax.legend(fontsize=8, frameon=False)
    ax.set_title("RDMCE strong scaling (cf. RDMCE Fig 14: 4.83x on 8 GPUs)")
    fig.tight_layout()
    fig.savefig(figures_dir() / "90_scaling.png", dpi=120)

# %% [markdown]
# **When not to distribute.** Handing out chunks costs tens of milliseconds,
# so for a graph one GPU answers in milliseconds a cluster only adds time.
# `gpus=N` therefore answers on one GPU when the estimated cost is below
# `md.SINGLE_GPU_BELOW` (about half a second of one GPU's work); the table
# above has the estimate (`est_cost`) beside each measured time.

# %%
print(f"SINGLE_GPU_BELOW = {md.SINGLE_GPU_BELOW:.3g}")
if scaling is not None:
    display(scaling[["graph", "gpus", "est_cost", "single_gpu_kernel_s", "median_s"]])  # noqa: F821

# %% [markdown]
# ## References
#
# - RDMCE's multi-GPU runs share one edge counter across GPUs (its Fig 14:
#   4.83x on 8 GPUs); mce-gpu (Fig 4), KCMiner (Fig 10) and GMBE+ (Fig 18)
#   scale their own work lists the same way.
# - Dask distributed: futures, `as_completed`, work stealing and retries.
# - dask-cuda: `LocalCUDACluster`, one worker per GPU.
