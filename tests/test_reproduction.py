"""The reproduction scoreboard: every FIGURES.md item once, states set by one rule from committed CSVs."""

import math
import re
from pathlib import Path

import pandas as pd
import pytest

from mce_kit import reproduction as rp

FIGURES_MD = Path(__file__).resolve().parents[2] / "shared" / "papers" / "FIGURES.md"


@pytest.fixture(scope="module")
def board():
    return rp.scoreboard()


def test_catalogue_has_the_38_items_once():
    keys = [(i.paper, i.item) for i in rp.CATALOGUE]
    assert len(keys) == 38 and len(set(keys)) == 38


@pytest.mark.skipif(not FIGURES_MD.exists(), reason="FIGURES.md is beside the checkout only")
def test_catalogue_matches_figures_md():
    items = re.findall(r"^\| (Table [0-9I]+|Fig [0-9]+) \|", FIGURES_MD.read_text(), re.M)
    assert sorted(items) == sorted(i.item for i in rp.CATALOGUE)


def test_every_claim_has_a_tolerance_stated_up_front():
    for it in rp.CATALOGUE:
        names = [c.name for c in it.claims]
        assert len(names) == len(set(names)), it
        assert len(it.claims) < 2 or all(names), f"{it.item}: several claims need names"
        for c in it.claims:
            assert c.tolerance and c.why and c.paper, (it.paper, it.item)
            assert c.band[0] <= c.band[1]
            if c.against is not None:  # the band and the contradicting region never overlap
                assert c.against[1] < c.band[0] or c.against[0] > c.band[1], (it.paper, it.item)
        assert re.search(r"\.txt L\d", it.source), it.source  # where the number stands in the paper


def test_the_rule_per_claim():
    speedup = rp.effect(2.0, 1.5, "test")  # band 1.67-2.5, below 1 contradicts
    assert speedup.band == pytest.approx((1 + 1 / 1.5, 2.5))
    assert rp.claim_verdict(speedup, 2.1) == "reproduced"
    assert rp.claim_verdict(speedup, (1.8, 2.4)) == "reproduced"
    assert rp.claim_verdict(speedup, (1.8, 3.0)) == "partial"  # one end outside
    assert rp.claim_verdict(speedup, 1.2) == "partial"  # same direction, too small
    assert rp.claim_verdict(speedup, 0.8) == "contradicted"  # the other way
    assert rp.claim_verdict(speedup, (0.8, 1.2)) == "partial"  # both ways across graphs
    assert rp.claim_verdict(speedup, 2.1, noise=True) == "partial"  # inside the runs' spread
    assert rp.claim_verdict(speedup, 0.8, noise=True) == "partial"
    assert rp.claim_verdict(speedup, None) == "missing"
    assert rp.claim_verdict(speedup, math.nan) == "missing"
    saving = rp.effect(0.8, 1.25, "test")  # a ratio below 1: above 1 contradicts
    assert rp.claim_verdict(saving, 0.8) == "reproduced" and rp.claim_verdict(saving, 1.2) == "contradicted"
    count = rp.exact(140_266, "test")
    assert rp.claim_verdict(count, 140_266) == "reproduced"
    assert rp.claim_verdict(count, 140_267) == "contradicted"
    best = rp.share("best 32", rp.MORE_THAN_HALF, "test")
    assert [rp.claim_verdict(best, x) for x in (2 / 3, 0.5, 0.0)] == ["reproduced", "partial", "contradicted"]
    falls = rp.trend("falls", -1, "test")
    verdicts = [rp.claim_verdict(falls, x) for x in (-0.5, -0.1, 0.5)]
    assert verdicts == ["reproduced", "partial", "contradicted"]


def test_the_rule_per_item():
    two = rp.Item("gmbe", "Fig 10", "w", "t", "x.txt L1",
                  (rp.effect(4.88, 1.5, "t", name="a"), rp.effect(2.07, 1.5, "t", name="b")))
    assert rp.verdict(two, None) == "missing"
    assert rp.verdict(two, rp.Status(reason="not measured")) == "missing"
    assert rp.verdict(two, rp.Status("x", {"a": 4.9, "b": 2.0})) == "reproduced"
    assert rp.verdict(two, rp.Status("x", {"a": 4.9, "b": 2.0}, complete=False)) == "partial"
    assert rp.verdict(two, rp.Status("x", {"a": 4.9, "b": 0.3})) == "contradicted"
    assert rp.verdict(two, rp.Status("x", {"a": 4.9})) == "partial"  # measured in part
    assert rp.verdict(two, rp.Status("x", {"a": 4.9, "b": 0.3}, noise=("b",))) == "partial"
    assert rp.verdict(two, rp.Status("x")) == "partial"  # words, no number
    none = rp.Item("mcegpu", "Fig 5", "w", "t", "x.txt L1", ())
    assert rp.verdict(none, rp.Status("measured")) == "partial"  # nothing in the paper to hold ours to


def test_every_state_follows_from_the_rule(board):
    found = rp.statuses()
    for it, row in zip(rp.CATALOGUE, board.itertuples(), strict=True):
        st = found.get((it.paper, it.item))
        assert row.state == rp.verdict(it, st), (it.paper, it.item)
        assert st is None or st.state == row.state  # what status() hands out (judge) reads the same rule
        assert row.tolerance == rp.tolerance_text(it)
        if row.state != "missing" and it.claims:  # ours is a number wherever the paper gives one
            assert any(st.value_of(c) is not None for c in it.claims) or not st.complete, (it.paper, it.item)


def test_a_status_cannot_set_its_state():
    with pytest.raises(TypeError, match="no longer takes a state"):
        rp.Status("reproduced", "ours")
    with pytest.raises(TypeError):
        rp.Status("ours", 1.0, state="reproduced")
    assert rp.Status("ours", 1.0).state == ""  # until judge() applies the rule


def test_scoreboard_and_markdown(board, tmp_path):
    assert len(board) == 38 and set(board["state"]) <= set(rp.STATES)
    assert {"tolerance", "state", "ours", "theirs", "compared", "device"} <= set(board.columns)
    rd = board[board["paper"] == "rdmce"].set_index("item")
    assert rd.loc["Table 1", "state"] == "reproduced"  # from the committed rdmce_table1.csv
    assert "869,325,383" in rd.loc["Table 1", "ours"]
    assert rd.loc["Fig 14", "state"] != "missing"  # multigpu_scaling.csv
    from mce_kit.experiments import multigpu

    most = int(multigpu.load("scaling").query("algo == 'rdmce'")["gpus"].max())  # the most GPUs measured
    assert most >= 2 and f"on {most} GPUs" in rd.loc["Fig 14", "ours"]
    measured = board[board["state"] != "missing"]
    assert (measured["device"] != "").all()  # every measurement says where it ran
    text = rp.write_markdown(board, tmp_path / "r.md").read_text()
    assert text.count("\n| ") == 38 + 5  # one row per item, one header per paper
    assert "tolerance" in text and all(s in text for s in board["state"].unique())
    assert rp.summary(board)["total"].sum() == 38


def test_a_status_outside_the_catalogue_is_refused(monkeypatch):
    import mce_kit.experiments.rdmce as exp

    monkeypatch.setattr(exp, "status", lambda: {"Fig 99": rp.Status("ours")})
    with pytest.raises(ValueError, match="Fig 99"):
        rp.scoreboard()


def test_rdmce_status_follows_the_csv(monkeypatch):
    import mce_kit.experiments.rdmce as exp

    real = exp.load

    def wrong_table1(name, *a):
        df = real(name)
        return df.assign(count=df["count"] + 1) if name == "table1" else df

    monkeypatch.setattr(exp, "load", wrong_table1)
    item = next(i for i in rp.CATALOGUE if (i.paper, i.item) == ("rdmce", "Table 1"))
    assert rp.verdict(item, exp.status()["Table 1"]) == "contradicted"  # a count off by one
    assert isinstance(real("table1"), pd.DataFrame)


def test_noise_from_the_switch_runs_bounds_kcminer_fig7():
    from mce_kit.experiments import kcminer

    sw = pd.DataFrame({"graph": ["g"] * 3, "order": ["degree"] * 3, "k": [4, 4, 6],
                       "gpu_ms": [1.0, 1.5, 9.0]})
    assert kcminer.timing_noise(sw) == pytest.approx(1.5)  # K = 6 rows do not count
    fig7 = kcminer.status()["Fig 7"]
    assert isinstance(fig7.value, dict) and set(fig7.value) == set(kcminer.FIG7_STEPS)
