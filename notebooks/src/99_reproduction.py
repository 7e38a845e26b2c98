"""Source of notebooks/99_reproduction.ipynb; rebuild with `python -m mce_kit.notebooks build notebooks/`."""

# %% [markdown]
# # How much of the five papers stands
#
# Every figure and table listed in `shared/papers/FIGURES.md` (the items of
# RDMCE, mce-gpu, KCMiner, GMBE+ and Geil et al.) with its state:
#
# - **reproduced**: measured by us, on our GPU, with every answer checked
#   against a CPU oracle or the paper's published count;
# - **partial**: measured, but with a piece missing (a coarser grid, a
#   comparison code we cannot run, graphs we do not bundle); the note says which;
# - **missing**: not measured yet, and why.
#
# Nothing here is typed in by hand: each paper's experiments module reads its
# committed CSVs in `data/results/` and reports its items
# (`mce_kit.experiments.<paper>.status()`). The same table is written to
# `figures/reproduction.md` by `make reproduce`.

# %%
import matplotlib.pyplot as plt

import mce_kit as mk
from mce_kit import reproduction
from mce_kit.experiments import ncu
from mce_kit.notebooks import figures_dir

board = reproduction.scoreboard()
reproduction.summary(board)

# %%
counts = reproduction.summary(board)[list(reproduction.STATES)]
colors = {"reproduced": "#2a9d8f", "partial": "#e9c46a", "missing": "#d9d9d9"}
fig, ax = plt.subplots(figsize=(8, 3))
left = 0
for state in reproduction.STATES:
    ax.barh(counts.index, counts[state], left=left, color=colors[state], label=state)
    left = left + counts[state]
ax.set_xlabel("items of FIGURES.md")
ax.invert_yaxis()
ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
ax.set_title("Reproduction state per paper")
fig.tight_layout()
fig.savefig(figures_dir() / "99_reproduction.png", dpi=120)

# %% [markdown]
# ## Every item
#
# "paper" is the paper's own headline (on its GPU), "ours" our measurement
# (device and date beside it).

# %%
for paper, title in reproduction.PAPERS.items():
    print(title)
    part = board[board["paper"] == paper][["item", "what", "theirs", "ours", "state", "device", "reason"]]
    display(part.style.hide(axis="index"))  # noqa: F821 (IPython's display)

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
