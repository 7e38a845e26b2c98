"""One colour per meaning, shared by every figure: the paper's marks are red, and no variant is.

    colour("w/o UNION")          # a variant's colour, the same in every figure
    colours(["GMBE+", "WARP"])   # a list, for pandas' ``color=``
    stamp_device(fig, df)        # "measured on <GPU>" in the figure's title, from the table's provenance
"""

from __future__ import annotations

import pandas as pd

from ..measure import device_of

PAPER_COLOR = "#d62728"  # the paper's value, wherever it is drawn (mark_paper's default)

# Variants and devices by name; tab10 without its red (the paper's colour).
VARIANT_COLOURS = {
    # GMBE+ levels and ablations
    "GMBE+": "#1f77b4", "WARP": "#ff7f0e", "BLOCK": "#2ca02c", "w/o PRUNE": "#9467bd",
    "w/o BITMAP": "#8c564b", "w/o UNION": "#e377c2", "merge UNION": "#7f7f7f",
    "GMBE+ w/o DONATE": "#17becf", "BLOCK w/o DONATE": "#bcbd22",
    # who ran: ours against the authors' codes and CPUs
    "ours": "#1f77b4", "authors": "#7f7f7f", "cpu": "#8c564b",
}
_CYCLE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"]


def colour(name: str, i: int = 0) -> str:
    """The colour of a named variant; an unnamed one takes the ``i``-th colour of the red-free cycle."""
    return VARIANT_COLOURS.get(name, _CYCLE[i % len(_CYCLE)])


def colours(names) -> list[str]:
    """Colours for a list of names (pandas ``plot(color=...)``)."""
    return [colour(n, i) for i, n in enumerate(names)]


def stamp_device(fig, df: pd.DataFrame, prefix: str = "measured on"):
    """Put the device a figure's data was measured on (the table's ``gpu`` column) in its title."""
    text = f"{prefix} {device_of(df)}"
    old = fig._suptitle.get_text() if getattr(fig, "_suptitle", None) is not None else ""
    fig.suptitle(f"{old}\n{text}" if old and text not in old else old or text, fontsize=9)
    return fig
