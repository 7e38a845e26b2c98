"""The process floor experiment: one row per step, times from real processes, rows kept across runs."""

import pandas as pd
import pytest

from mce_kit.experiments import process_floor as pf
from mce_kit.measure import append_rows


def test_each_step_is_timed_in_processes_of_its_own():
    steps = {"python": pf.EXIT, "driver": pf.STEPS["driver"]}   # no GPU: the driver step fails fast
    t = pf.measure(repeats=2, steps=steps)
    assert list(t["step"]) == ["python", "driver"] and (t["runs"] == 2).all()
    assert ((t["min_s"] > 0) & (t["min_s"] <= t["median_s"]) & (t["median_s"] <= t["max_s"])).all()
    assert all(len(x.split()) == 2 for x in t["times_s"])


def test_runs_add_rows(tmp_path):
    path = tmp_path / pf.CSV
    row = pd.DataFrame([{"step": "python", "median_s": 0.02, "host": "a"}])
    append_rows(row, path)
    append_rows(row.assign(host="b"), path)
    assert list(pd.read_csv(path)["host"]) == ["a", "b"]


def test_the_c_step_is_a_program_of_its_own(tmp_path):
    steps = pf.with_c_driver(tmp_path, {"python": pf.EXIT})
    if "driver from C" not in steps:
        pytest.skip("no C compiler here")
    assert steps["driver from C"] == [str(tmp_path / "start_driver")]
    t = pf.measure(repeats=1, steps=steps)
    assert list(t["step"]) == ["python", "driver from C"] and (t["min_s"] > 0).all()
