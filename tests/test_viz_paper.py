"""The paper-beside-ours helpers every reproduction notebook uses (mce_kit.viz.paper)."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from mce_kit import viz  # noqa: E402
from mce_kit.viz import paper  # noqa: E402


def test_paper_vs_ours_ratios_and_ranges():
    t = viz.paper_vs_ours([
        {"item": "Table 2", "what": "seconds", "paper": 2.164, "ours": 1.214},
        {"item": "Fig 8", "what": "speed-up", "paper": (1.03, 69.61), "ours": 36.3},
        {"item": "Fig 8", "what": "range", "paper": (1.03, 69.61), "ours": (0.86, 36.3)},
        {"item": "Fig 9", "what": "memory", "paper": (0.5, 0.9), "ours": "none", "note": "mce-gpu"},
        {"item": "Fig 8", "what": "below", "paper": (1.03, 69.61), "ours": 0.5},
    ])
    assert list(t.columns) == ["item", "what", "paper", "ours", "ours / paper", "note"]
    assert list(t["ours / paper"]) == ["0.561x", "inside", "overlaps", "", "below"]
    assert t.loc[0, "paper"] == "2.164" and t.loc[1, "paper"] == "1.03-69.61"


def test_paper_vs_ours_refuses_bad_rows():
    with pytest.raises(ValueError, match="lacks"):
        viz.paper_vs_ours([{"what": "x", "paper": 1}])
    with pytest.raises(TypeError, match="unknown"):
        viz.paper_vs_ours([{"what": "x", "paper": 1, "ours": 2, "colour": "red"}])


def test_mark_paper_line_band_and_errors():
    fig, ax = plt.subplots()
    ax.plot([0, 40], [1, 2])
    line = viz.mark_paper(ax, 24, "paper's best", axis="x")
    band = viz.mark_paper(ax, (1.03, 1.5), "paper range")
    assert "paper's best (24)" in line.get_label() and "1.03-1.5" in band.get_label()
    with pytest.raises(ValueError, match="axis"):
        viz.mark_paper(ax, 1, axis="z")
    with pytest.raises(ValueError, match="number"):
        viz.mark_paper(ax, "24")
    plt.close(fig)


def test_spread_and_noise_from_times_ms():
    df = pd.DataFrame({"times_ms": ["[1.0, 2.0, 3.0, 4.0, 5.0]", "[4.5, 6.0, 7.0]", "[10.0, 11.0]"]})
    s = viz.spread(df)
    assert list(s["runs"]) == [5, 3, 2] and s.loc[0, "median"] == 3.0 and s.loc[0, "max"] == 5.0
    assert viz.inside_spread(df.loc[0, "times_ms"], df.loc[1, "times_ms"])
    assert not viz.inside_spread(df.loc[0, "times_ms"], [10.0, 11.0])
    fig, ax = plt.subplots()
    paper.errorbars(ax, [1, 2, 3], s, scale=2.0)
    plt.close(fig)


def test_rdmce_figures_and_tables_from_the_committed_csvs():
    from mce_kit.experiments import rdmce as exp
    from mce_kit.viz import rdmce_figures as fig

    t1, var, warps, tau = (exp.load(n) for n in ("table1", "variants", "warps", "tau"))
    cmp = fig.comparison(t1, var, warps, tau, exp.PAPER)
    items = set(cmp["item"])
    assert {"Table 1", "Table 2", "Fig 8", "Fig 9", "Fig 10", "Fig 11", "Fig 12"} <= items
    fb = cmp[cmp["what"] == "ego-Facebook count"].iloc[0]
    assert fb["ours / paper"] == "1x"
    vt = fig.variant_table(var)
    assert {"exposure noise", "aggressive lo", "edge seeds hi"} <= set(vt.columns)
    assert (vt["exposure lo"] <= vt["exposure"]).all() and (vt["exposure"] <= vt["exposure hi"]).all()
    assert fig.same_config(var, warps, tau)["between jobs"].min() >= 1.0
    figures = [fig.plot_variants(var), fig.plot_sweep(warps, "warps_per_sm", 20),
               fig.plot_facebook(var, exp.PAPER)]
    for f in figures:
        plt.close(f)
