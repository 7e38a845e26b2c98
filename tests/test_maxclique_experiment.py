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
