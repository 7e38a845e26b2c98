"""The RDMCE experiment driver on CPU, with the GPU measurement replaced by a fake."""

import numpy as np
import pandas as pd
import pytest

from mce_kit.experiments import rdmce as exp


class FakePrep:
    prep_s = 0.0

    def __init__(self, count):
        self.count = count

    def run(self, **params):
        return Res(self.count)


class Res:
    def __init__(self, count):
        self.count, self.nodes, self.gpu_ms = count, 10, 1.0
        self.worker_steals = np.array([1, 2])


@pytest.fixture
def fake_gpu(monkeypatch):
    calls = []

    def prepared(graphs):
        for name in graphs:
            yield name, None, 0.0, FakePrep(exp.reference_counts()[name])

    def measure(prep, repeats, expect, warmup=1, **params):
        calls.append({**params, "repeats": repeats, "warmup": warmup})
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
    assert list(kept["variant"]) == ["RDMCE", "RDMCE-NP"]  # the two finished before the cut
    assert set(kept["gpu"]) == {"fake"}


def test_exactness_table_and_its_check(tmp_path, fake_gpu):
    frames = exp.run_all(tmp_path, only=["exactness"], graphs=["CA-GrQc", "wiki-Vote"])
    df = pd.read_csv(tmp_path / "rdmce_exactness.csv")
    assert len(df) == len(frames["exactness"]) == 20 and df["exact"].all()


def test_a_wrong_count_fails_the_run(tmp_path, fake_gpu, monkeypatch):
    monkeypatch.setattr(FakePrep, "run", lambda self, **p: Res(self.count + 1))
    with pytest.raises(AssertionError, match="differ from the reference"):
        exp.run_all(tmp_path, only=["exactness"], graphs=["CA-GrQc"])
    assert not pd.read_csv(tmp_path / "rdmce_exactness.csv")["exact"].any()


def test_exactness_records_the_steals_of_each_run(tmp_path, fake_gpu):
    exp.run_all(tmp_path, only=["exactness"], graphs=["CA-GrQc"])
    df = pd.read_csv(tmp_path / "rdmce_exactness.csv")
    assert (df["steals"] == 3).all() and {"nodes", "gpu_ms"} <= set(df.columns)


def test_small_graphs_get_more_repeats_and_a_warmup(tmp_path, fake_gpu):
    exp.main(["--out", str(tmp_path), "--only", "warps,tau", "--graphs", "email-Eu-core", "--warps", "8",
              "--taus", "16", "--small-repeats", "21"])
    assert fake_gpu[:2] == [{"warps_per_sm": 8, "repeats": 21, "warmup": 1},
                            {"tau": 16, "repeats": 21, "warmup": 1}]
    with pytest.raises(ValueError, match="unknown experiment"):
        exp.run_all(tmp_path, only=["warp"])
    with pytest.raises(ValueError, match="at least 5"):
        exp.run_all(tmp_path, repeats=3)


def test_merge_replaces_remeasured_rows_and_keeps_the_rest(tmp_path):
    committed, fresh = tmp_path / "c", tmp_path / "f"
    committed.mkdir()
    fresh.mkdir()
    pd.DataFrame({"graph": ["A", "A", "B"], "tau": [16, 24, 16], "median_ms": [1.0, 2.0, 3.0]}).to_csv(
        committed / "rdmce_tau.csv", index=False)
    pd.DataFrame({"graph": ["A", "B"], "tau": [24, 96], "median_ms": [9.0, 8.0]}).to_csv(
        fresh / "rdmce_tau.csv", index=False)
    assert exp.main(["--merge", str(fresh), "--out", str(committed)]) == 0
    df = pd.read_csv(committed / "rdmce_tau.csv")
    assert list(zip(df["graph"], df["tau"], df["median_ms"], strict=True)) == [
        ("A", 16, 1.0), ("A", 24, 9.0), ("B", 16, 3.0), ("B", 96, 8.0)]


def test_stream_parts_rows_and_their_checks(tmp_path, monkeypatch):
    """The streaming breakdown job on a fake GPU: one row per ring size and filter, counts checked."""
    hist = {2: 5, 3: 7, 4: 1}

    class Prep:
        prep_s = 0.0

        def run(self, histogram=False, **params):
            r = Res(sum(hist.values()))
            r.histogram = hist if histogram else None
            return r

    def consume(prep, block_size=1 << 22, min_size=0, ring_words=None):
        n = sum(v for k, v in hist.items() if k >= min_size)
        return n, {"launches": 3, "ring_bytes": 4 * (ring_words or 1), "kernel_ms": 1.0, "unpack_ms": 0.5}

    monkeypatch.setattr(exp, "_prepared", lambda graphs: iter([(graphs[0], None, 0.0, Prep())]))
    monkeypatch.setattr(exp, "_consume_on_gpu", consume)
    monkeypatch.setattr(exp, "provenance", lambda: {"gpu": "fake", "commit": "test"})
    monkeypatch.setattr(exp, "reference_counts", lambda: {"CA-GrQc": 13})
    exp.run_all(tmp_path, only=["stream_parts"], heavy="CA-GrQc")
    df = pd.read_csv(tmp_path / "rdmce_stream_parts.csv")
    assert list(df["case"]) == ["ring 256 MiB", "ring 1024 MiB", "ring 2048 MiB",
                                "blocks of 2^26 cliques (one per launch)",
                                "min_size=5 (nothing written)", "min_size=2 (largest only)"]
    assert list(df["cliques"]) == [13, 13, 13, 13, 0, 13] and (df["gpu"] == "fake").all()
    monkeypatch.setattr(exp, "_consume_on_gpu", lambda prep, **kw: (12, consume(prep)[1]))
    with pytest.raises(AssertionError):
        exp.run_all(tmp_path, only=["stream_parts"], heavy="CA-GrQc")
