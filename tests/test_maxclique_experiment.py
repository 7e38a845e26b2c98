"""The maximum-clique experiment's plumbing: MC-BRB's graph files and output, the rows of our calls."""

import numpy as np
import pandas as pd
import pytest

from mce_kit.experiments import maxclique as exp
from mce_kit.io import load_graph


def test_mcbrb_graph_files(tmp_path):
    import networkx as nx

    G = load_graph(nx.path_graph(4))
    exp.write_mcbrb_graph(G, tmp_path)
    head = np.fromfile(tmp_path / "b_degree.bin", np.int32)
    assert head.tolist() == [4, 4, 6, 1, 2, 2, 1]
    assert np.fromfile(tmp_path / "b_adj.bin", np.int32).tolist() == [1, 0, 2, 1, 3, 2]


def test_parse_mcbrb():
    out = "...\n\tMaximum Clique Size: 126, Max Depth: 5, Total Time: 263,497\n"
    assert exp.parse_mcbrb(out) == (126, 263.497)
    with pytest.raises(ValueError, match="Maximum Clique Size"):
        exp.parse_mcbrb("segmentation fault")


def test_rows_are_checked_and_tabled(monkeypatch):
    monkeypatch.setattr(exp, "reference", lambda: {"CA-GrQc": (44, 1)})
    rows = pd.concat(exp.ours(["CA-GrQc"], "cpu", 2))
    assert rows["omega"].tolist() == [44, 44] and rows["checked"].eq("reference").all()
    assert rows.loc[rows["call"] == "mk.max_cliques", "n_maximum"].item() == 1
    peer = rows.iloc[:1].assign(code="MC-BRB", call="mcbrb MC-BRB (one maximum clique)", median_ms=1.0)
    t = exp.table(pd.concat([rows, peer]))
    assert set(t.columns) >= {"mcbrb", "clique_number / mcbrb", "max_cliques / mcbrb"}
    monkeypatch.setattr(exp, "reference", lambda: {"CA-GrQc": (45, 1)})
    with pytest.raises(AssertionError, match="reference"):
        next(exp.ours(["CA-GrQc"], "cpu", 1))


def test_routes_reads_the_latest_descent_run_and_flags_a_differing_answer(tmp_path):
    from mce_kit.experiments import geil

    cols = dict(lower=3, upper=4, core_density=0.1, omega=3, n_maximum=2, geil_ms=1.0, descent_ms=0.5,
                descent_launches=2, pivot_ms=0.2, pivot_same=True)
    rows = [dict(graph="a", date="2026-11-27", descent_same=False, **cols),
            dict(graph="a", date="2026-11-28", descent_same=True, **cols),
            dict(graph="b", date="2026-11-28", descent_same=False, **cols)]
    pd.DataFrame(rows).to_csv(tmp_path / "maxclique_descent.csv", index=False)
    got = geil.routes(tmp_path)
    assert got["graph"].tolist() == ["a", "b"] and got["same"].tolist() == [True, False]
    assert got["launches"].tolist() == [2, 2]
