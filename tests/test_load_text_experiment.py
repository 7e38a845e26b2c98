"""experiments/load_text on a tiny R-MAT graph: the row, its check, the merge and the summary."""

import pandas as pd

from mce_kit.experiments import load_text


def test_row_merge_and_summary(tmp_path):
    out = tmp_path / "out"
    assert load_text.main(["--scale", "8", "--out", str(out), "--dir", str(tmp_path), "--note", "t"]) == 0
    row = pd.read_csv(out / load_text.TABLE).iloc[0]
    assert row["checked"] and row["variant"] == "vectorised" and row["scale"] == 8
    assert row["m"] > 0 and row["file_bytes"] > 0 and row["load_s"] > 0 and row["prep_device"] == "cpu"
    assert list(tmp_path.glob("**/*.txt")) == []  # the text file is removed
    results = tmp_path / "results"
    before = dict(row) | {"variant": "before", "load_s": row["load_s"] * 4, "commit": "1650e10"}
    pd.DataFrame([before]).to_csv(tmp_path / load_text.TABLE, index=False)
    assert load_text.merge(tmp_path, results) == (0, 1)
    assert load_text.merge(out, results) == (1, 2)
    assert load_text.merge(out, results) == (2, 2)  # the same graph, variant and machine: replaced
    table = load_text.load(results)
    assert set(table["commit"]) >= {"1650e10"}  # kept as text
    s = load_text.summary(table)
    assert s.loc[s["variant"] == "vectorised", "speedup"].iloc[0] == 4.0
