"""Source of notebooks/99_reproduction.ipynb; rebuild with `python -m mce_kit.notebooks build notebooks/`."""

# %% [markdown]
# # How much of the five papers stands
#
# Every figure and table listed in `shared/papers/FIGURES.md` (RDMCE,
# mce-gpu, KCMiner, GMBE+ and Geil et al.), held against the paper by one
# rule. Each item carries three things, and the state follows from them:
#
# - **the paper's number**, with the line of the paper text it stands on;
# - **a tolerance**, fixed per item before looking at ours and given with a
#   reason: an *effect* (a speed-up, a saving) within a factor of the paper's,
#   a *best setting* that is best (or within the runs' spread of the best) on
#   more than half of our graphs, a *trend* whose rank correlation reaches a
#   threshold in the paper's direction, or an *exact* count;
# - **ours**, computed from the committed CSVs in `data/results/`, with the
#   device the rows ran on.
#
# The verdict: **reproduced** when ours lies inside the tolerance;
# **contradicted** when ours goes the other way (a speed-up below 1 where the
# paper's is above, the opposite trend, the paper's best setting beaten
# beyond noise on every graph, a different count); **partial** when ours is
# outside the tolerance without contradicting, when the effect lies inside
# the runs' spread (an effect inside the noise is not a reproduction), or
# when only part of the item was measured here (one side computed, a
# competitor's time quoted, fewer GPUs); **missing** when nothing was
# measured. No state is typed by hand: the tolerances sit in
# `mce_kit.reproduction.CATALOGUE`, the measurements come from each paper's
# `mce_kit.experiments.<paper>.status()`, and `reproduction.verdict` joins
# them. The same table is written to `figures/reproduction.md`.

# %%
import matplotlib.pyplot as plt
import pandas as pd

import mce_kit as mk
from mce_kit import reproduction
from mce_kit.experiments import ncu
from mce_kit.notebooks import figures_dir

board = reproduction.scoreboard()
counts = reproduction.summary(board)
counts

# %%
devices = sorted({d.strip() for ds in board["device"] if ds for d in ds.split(",")})
colors = {"reproduced": "#2a9d8f", "partial": "#e9c46a", "contradicted": "#e76f51", "missing": "#d9d9d9"}
fig, ax = plt.subplots(figsize=(8, 3))
left = 0
for state in reproduction.STATES:
    ax.barh(counts.index, counts[state], left=left, color=colors[state], label=state)
    left = left + counts[state]
ax.set_xlabel("items of FIGURES.md")
ax.invert_yaxis()
ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
ax.set_title("Reproduction state per paper (" + "; ".join(devices) + ")", fontsize=9)
fig.tight_layout()
fig.savefig(figures_dir() / "99_reproduction.png", dpi=120)

# %% [markdown]
# ## The tolerances
#
# One row per claim: the paper's number, the band ours must fall in, what
# would contradict it, and why that tolerance. Items with several claims
# (GMBE+'s ablation: over WARP and over BLOCK) are reproduced only when every
# claim is, and contradicted when any claim is.

# %%
claims = pd.DataFrame([{"paper": it.paper, "item": it.item, "claim": c.name, "paper's number": c.paper,
                        "tolerance": c.tolerance, "why": c.why, "source": it.source}
                       for it in reproduction.CATALOGUE for c in it.claims])
display(claims.style.hide(axis="index"))  # noqa: F821 (IPython's display)

# %% [markdown]
# ## Every item
#
# "theirs" is the paper's headline (on its GPU), "tolerance" the band from
# above, "ours" our measurement, "compared" the number the rule compared per
# claim and that claim's verdict, "state" the item's verdict; device and date
# say where and when the rows ran.

# %%
cols = ["item", "what", "theirs", "tolerance", "ours", "compared", "state", "device", "date", "reason"]
for paper, title in reproduction.PAPERS.items():
    print(title)
    display(board[board["paper"] == paper][cols].style.hide(axis="index"))  # noqa: F821 (IPython's display)

# %% [markdown]
# ## Where ours goes the other way
#
# The contradicted items, each with the number that contradicts and the note
# on why our build differs (the notebooks of each paper discuss them).

# %%
board[board["state"] == "contradicted"][["paper", "item", "theirs", "compared", "reason"]]

# %% [markdown]
# ## What bounds each kernel
#
# One run of each kernel on the graphs our speed targets name, profiled
# with Nsight Compute (`python -m mce_kit.experiments.ncu`, committed in
# `data/results/ncu_profile.csv`); only the longest kernel of each run is
# shown. Read it as: *warp instructions per result* (per maximal clique,
# k-clique or biclique) is the work, *lanes active* (of 32) how much of each
# warp instruction is useful, *issue active* how often a scheduler issued at
# all; the stalls say what the warps waited on (`long_scoreboard`: memory,
# `sleeping`: idle workers napping, `wait`: fixed instruction latency).
# A kernel near 80% issue use is bound by its instruction count; one near 5%
# leaves the GPU idle and is bound by latency or by too little parallel work.

# %%
display(ncu.bounds().round(2).style.hide(axis="index"))  # noqa: F821 (IPython's display)

# %%
print(f"written: {reproduction.write_markdown(board, figures_dir() / 'reproduction.md')}")
print("GPU present for this run:", mk.has_gpu())
