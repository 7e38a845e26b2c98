"""The ncu log parser and per-kernel summary (no GPU, no ncu: a log written by hand in ncu's format)."""

import pytest

from mce_kit.experiments import ncu

STALL = "smsp__average_warps_issue_stalled_{}_per_issue_active.ratio"
METRICS = ["gpu__time_duration.sum", "smsp__inst_executed.sum", "smsp__thread_inst_executed.sum",
           "smsp__issue_active.avg.pct_of_peak_sustained_active", "launch__registers_per_thread",
           STALL.format("long_scoreboard"), STALL.format("barrier")]


def _log(tmp_path, launches):
    head = ["ID", "Process ID", "Kernel Name", *METRICS]
    units = ["", "", "", "nsecond", "inst", "inst", "%", "register/thread", "", ""]
    lines = [head, units] + [[str(i), "42", *launch] for i, launch in enumerate(launches)]
    path = tmp_path / "ncu.csv"
    path.write_text("==PROF== Connected to process 42\n"
                    + "\n".join(",".join(f'"{x}"' for x in line) for line in lines) + "\n")
    return path


def test_launches_of_one_kernel_are_summed_and_ratios_weighted_by_duration(tmp_path):
    log = _log(tmp_path, [
        ["count_kernel(int)", "1,000,000", "3,000", "48,000", "40", "64", "2.0", "0.5"],
        ["count_kernel(int)", "3,000,000", "1,000", "16,000", "80", "64", "6.0", "0.5"],
        ["orient", "10,000", "100", "3,200", "10", "32", "0", "0"],
    ])
    table = ncu.summarise(ncu.read_raw_csv(log), results=2000).set_index("kernel")
    k = table.loc["count_kernel"]
    assert k.launches == 2 and k.duration_ms == pytest.approx(4.0)
    assert k.warp_inst == 4000 and k.warp_inst_per_result == 2.0
    assert k.lanes_active == pytest.approx(16.0)
    assert k.issue_active_pct == pytest.approx((40 * 1 + 80 * 3) / 4)
    assert k.top_stalls.startswith("long_scoreboard=5.00 barrier=0.50")
    assert table.loc["orient"].lanes_active == pytest.approx(32.0)
    assert list(table.index) == ["count_kernel", "orient"]  # longest first


def test_a_log_without_kernel_rows_is_an_error(tmp_path):
    log = tmp_path / "ncu.csv"
    log.write_text("==PROF== Connected to process 42\n==ERROR== no kernels were profiled\n")
    with pytest.raises(RuntimeError, match="no kernel rows"):
        ncu.read_raw_csv(log)


def test_params_are_typed_like_the_defaults_and_unknown_names_refused():
    defaults = {"tau": 24, "listing": False, "induced": "auto"}
    assert ncu.parse_params(["tau=32", "listing=on", "induced=ip"], defaults) == \
        {"tau": 32, "listing": True, "induced": "ip"}
    with pytest.raises(SystemExit, match="bogus"):
        ncu.parse_params(["bogus=1"], defaults)


def test_bounds_keeps_the_longest_kernel_of_each_profiled_run(tmp_path):
    import pandas as pd

    rows = [("rdmce", "g", "{}", "main", 10.0), ("rdmce", "g", "{}", "reduce", 0.1),
            ("rdmce", "h", "{}", "reduce", 0.2), ("rdmce", "h", "{}", "main", 3.0)]
    path = tmp_path / "ncu_profile.csv"
    pd.DataFrame(rows, columns=["algorithm", "graph", "params", "kernel", "duration_ms"]).assign(
        date="2026-11-23").to_csv(path, index=False)
    table = ncu.bounds(path)
    assert list(zip(table.graph, table.kernel, strict=True)) == [("g", "main"), ("h", "main")]
