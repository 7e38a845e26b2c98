"""The reproduction scoreboard: every FIGURES.md item once, states computed from committed CSVs."""

import re
from pathlib import Path

import pandas as pd
import pytest

from mce_kit import reproduction as rp

FIGURES_MD = Path(__file__).resolve().parents[2] / "shared" / "papers" / "FIGURES.md"


def test_catalogue_has_the_38_items_once():
    keys = [(i.paper, i.item) for i in rp.CATALOGUE]
    assert len(keys) == 38 and len(set(keys)) == 38


@pytest.mark.skipif(not FIGURES_MD.exists(), reason="FIGURES.md is beside the checkout only")
def test_catalogue_matches_figures_md():
    items = re.findall(r"^\| (Table [0-9I]+|Fig [0-9]+) \|", FIGURES_MD.read_text(), re.M)
    assert sorted(items) == sorted(i.item for i in rp.CATALOGUE)


def test_scoreboard_and_markdown(tmp_path):
    board = rp.scoreboard()
    assert len(board) == 38 and set(board["state"]) <= set(rp.STATES)
    rd = board[board["paper"] == "rdmce"].set_index("item")
    assert rd.loc["Table 1", "state"] == "reproduced"  # from the committed rdmce_table1.csv
    assert "869,325,383" in rd.loc["Table 1", "ours"]
    assert rd.loc["Fig 14", "state"] == "missing"
    text = rp.write_markdown(board, tmp_path / "r.md").read_text()
    assert text.count("\n| ") == 38 + 5  # one row per item, one header per paper
    assert rp.summary(board)["total"].sum() == 38


def test_a_status_outside_the_catalogue_is_refused(monkeypatch):
    import mce_kit.experiments.rdmce as exp

    monkeypatch.setattr(exp, "status", lambda: {"Fig 99": rp.Status("reproduced")})
    with pytest.raises(ValueError, match="Fig 99"):
        rp.scoreboard()
    with pytest.raises(ValueError):
        rp.Status("done")


def test_rdmce_status_follows_the_csv(monkeypatch):
    import mce_kit.experiments.rdmce as exp

    real = exp.load

    def wrong_table1(name, *a):
        df = real(name)
        return df.assign(count=df["count"] + 1) if name == "table1" else df

    monkeypatch.setattr(exp, "load", wrong_table1)
    assert exp.status()["Table 1"].state == "partial"
    assert isinstance(real("table1"), pd.DataFrame)
