"""The R-MAT scale series on CPU: host stages, the planner's plan without a launch, the oracle table,
the summary and the figure from the committed CSV."""

import numpy as np
import pandas as pd
import pytest

from mce_kit.experiments import rdmce as exp
from mce_kit.generators import rmat
from mce_kit.gpu import has_gpu, rdmce


def test_host_stages_time_every_stage():
    G, prep, row = exp.host_stages(11, 4, device="cpu")
    assert G.name == "rmat-s11-ef4-seed1" and (row["n"], row["m"], row["d"]) == (2048, 6916, 21)
    assert row["prep_device"] == "cpu" and list(row) == exp.SCALE_COLUMNS
    assert all(row[k] >= 0 for k in ("gen_s", "from_edges_s", "prepare_s", "seeds_s"))
    assert "edge" in prep.seeds  # the seeds were built (and timed)


def test_planned_matches_the_launch_plan():
    prep = rdmce.prepare(rmat(12, 16, seed=1))
    _, _, rows, stack = prep.seed_arrays("edge")
    need = int((rows + stack).max())
    for workers, budget in [(4224, 1 << 34), (4224, 4 * 4224 * need // 3), (64, 4 * 64 * need // 5)]:
        plan = rdmce._plan(rows, stack, workers, budget)
        got = rdmce.planned(prep, budget, workers)
        assert got["passes"] == len(plan) and got["workers"] == min(w for *_, w in plan)
        per_pass = [prep.indptr.nbytes + prep.indices.nbytes + 32 * workers + 24 + 8 * len(i)
                    + 4 * w * (rc + sc) + 48 * w for i, rc, sc, w in plan]
        assert got["device_bytes"] == max(per_pass)
    assert rdmce.planned(prep, 4 * 4224 * need // 3, 4224)["passes"] > 1


def test_oracle_rows_append_once(tmp_path):
    out = tmp_path / "rdmce_rmat_oracle.csv"
    exp.oracle_rows([(2, 8), (4, 9)], out)
    exp.oracle_rows([(2, 8)], out)  # already there: skipped
    df = pd.read_csv(out)
    assert df["graph"].tolist() == ["rmat-s8-ef2-seed1", "rmat-s9-ef4-seed1"]
    from mce_kit import cpu

    assert df["count"].iloc[1] == cpu.count_maximal_cliques(rmat(9, 4, seed=1))


def test_committed_scale_counts_equal_the_oracle():
    sc, oracle = exp.load("scale"), exp.rmat_oracle()
    pairs = [(int(c), oracle[g][0]) for g, c in zip(sc["graph"], sc["count"], strict=True)
             if g in oracle and pd.notna(c)]
    assert len(pairs) >= 20 and all(a == b for a, b in pairs)
    summary = exp.scale_summary(sc, oracle)
    assert set(summary["edge factor"]) == {16, 2, 4}
    assert summary.set_index("edge factor").loc[16, "largest scale"] == 24


def test_scale_figure_from_the_committed_csv():
    from mce_kit.viz import rdmce_figures as fig

    f = fig.plot_scale(exp.load("scale"), exp.rmat_oracle(), exp.SCALE_TARGET_PREPARE_S)
    assert len(f.axes) == 4


@pytest.mark.skipif(has_gpu(), reason="checks the host-only path")
def test_scale_without_a_gpu_times_the_host_only():
    rows = pd.concat(list(exp.scale([10, 11], edge_factors=(4,), oracle_max=10)))
    assert rows["count"].isna().all() and rows["oracle"].iloc[0] == 2815
    assert np.isnan(rows["oracle"].iloc[1]) or rows["oracle_source"].iloc[1] == exp.ORACLE.name
