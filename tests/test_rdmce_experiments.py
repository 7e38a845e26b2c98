"""The RDMCE experiment driver on CPU, with the GPU measurement replaced by a fake."""

import pandas as pd
import pytest

from mce_kit.experiments import rdmce as exp


class FakePrep:
    prep_s = 0.0

    def __init__(self, count):
        self.count = count

    def run(self, **params):
        return type("Res", (), {"count": self.count})()


@pytest.fixture
def fake_gpu(monkeypatch):
    calls = []

    def prepared(graphs):
        for name in graphs:
            yield name, None, 0.0, FakePrep(exp.reference_counts()[name])

    def measure(prep, repeats, expect, **params):
        calls.append(params)
        if len(calls) == 3:
            raise TimeoutError("cut off")  # as when a GPU lease runs out mid-job
        return {"tau": params.get("tau", 24), "count": expect, "median_ms": 1.0}

    monkeypatch.setattr(exp, "_prepared", prepared)
    monkeypatch.setattr(exp, "_measure", measure)
    monkeypatch.setattr(exp, "provenance", lambda: {"gpu": "fake", "commit": "test"})
    return calls


def test_rows_reach_the_csv_as_they_are_measured(tmp_path, fake_gpu):
    with pytest.raises(TimeoutError):
        exp.run_all(tmp_path, only=["variants"], graphs=["CA-GrQc"])
    kept = pd.read_csv(tmp_path / "rdmce_variants.csv")
    assert list(kept["variant"]) == ["RDMCE", "RDMCE-NB"]  # the two finished before the cut
    assert set(kept["gpu"]) == {"fake"}


def test_exactness_table_and_its_check(tmp_path, fake_gpu):
    frames = exp.run_all(tmp_path, only=["exactness"], graphs=["CA-GrQc", "wiki-Vote"])
    df = pd.read_csv(tmp_path / "rdmce_exactness.csv")
    assert len(df) == len(frames["exactness"]) == 20 and df["exact"].all()


def test_a_wrong_count_fails_the_run(tmp_path, fake_gpu, monkeypatch):
    monkeypatch.setattr(FakePrep, "run", lambda self, **p: type("Res", (), {"count": self.count + 1})())
    with pytest.raises(AssertionError, match="differ from the reference"):
        exp.run_all(tmp_path, only=["exactness"], graphs=["CA-GrQc"])
    assert not pd.read_csv(tmp_path / "rdmce_exactness.csv")["exact"].any()
