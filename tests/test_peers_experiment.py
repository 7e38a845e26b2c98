"""experiments/peers: each peer's printed answer and time, the answer check, the table and figure, status.

The CPU peers' outputs below were captured from the binaries in shared/peers/cpu-bin on this project's
2-core box (2026-11-25). The GPU codes cannot run here: their lines are written from the print statements
in their sources (shared/peers/gpu-src), with mce-gpu's colour codes and KCGPU's per-level counter lines.
"""

import json
import math
import os
import shutil
import time
from pathlib import Path

import matplotlib
import pandas as pd
import pytest

from mce_kit.experiments import peers as exp
from mce_kit.gpu import has_gpu
from mce_kit.viz import peers as view

matplotlib.use("Agg")

GRQC = exp.Pair("mce", "CA-GrQc")
K8 = exp.Pair("kclique", "CA-GrQc", k=8)
MBE = exp.Pair("mbe", "dbpedia-writer")
MAXC = exp.Pair("maxclique", "brock200_2")

HBBMC = """Reading the graph.
Finish reading the graph. |V| = 5241, |E| = 14484
#mc = 3905, runtime = 3.991 ms
"""
PIVOTSCALE = """Read Time:           0.01633
Build Time:          0.00029
Using degree ordering...
Graph has 5241 nodes and 7242 undirected edges for degree: 1
Max Degree:               43
Directing Time:      0.00035
Counting Time:       0.00262
Total Time:          0.00297
k:    8             284600071
"""
MCBRB = """**** MaxClique (Release) build at 20:13:08 Nov 25 2026 ***
**** Alg: MC-BRB, Graph: /tmp/peers-me/g/bin_brock200_2 ***
**** W/ kernelization, W/ recolor,  ***
\tn = 200; m = 9,876 (undirected)
*** Heuristic clique size: 10, time: 942 (microseconds)
*** Degeneracy clique size: 7, max_core: 84, Time: 146 (microseconds)
\tReduced graph size: |V|=200, |E|=9,876 (undirected)
*** ego_degen clique size: 10, UB: 20, Time: 7,998 (microseconds)
\tMC-EGO Time: 9,390
degen finds clique of size: 11
degen finds clique of size: 12
Number of matrix constructed: 159
Average density: 0.5558, min density: 0.4887, average kernel_effect: 0.2013
Number of egos searched: 158, branches: 2,228
Average ego_density: 0.5541, min ego_density: 0.4887
\tMaximum Clique Size: 12, Max Depth: 2, Total Time: 37,535

"""
ADAMBE = "writer, AdaMBEFinder, 0.058297, 21.944000, 57222, 65249, 64\n"
PARADAMBE = "task:0\n0\nwriter, ParAdaMBEFinder, 0.083465, 24.784000, 57222, 65249, 64, 2\n"
# from the sources' print statements (not captured: no GPU here)
RDMCE = "Read 14484 edges in 0.0121 seconds\n\nMC numbers: 3905\nMCE GPU Time: 0.0131\n"
MCEGPU = ("\x1b[1;32m[21:03:04] Read graph time: 0.010 s\n\x1b[0mFinished Launching Instance 0.\n"
          "\x1b[1;32m[21:03:04] count time 0.043210 s\n\x1b[0mFound 3905 maximal cliques in total.\n")
KCGPU = ("Welcome ---------------------\n------------- Level = 0 Nodes = 5,000 Counter = 100,000\n"
         "------------- Level = 1024 Nodes = 241 Counter = 284,600,071\n"
         "\x1b[1;32m[21:03:04] count time 0.168000 s\n\x1b[0m"
         "\x1b[1;32m[21:03:04] MOHA 7 k-clique (1.0 teps)\n")
GMBE = ("/tmp/mce-kit-peers/bin/gmbe, 2, /tmp/mce-kit-peers/g/dbpedia-writer.adj, 1056, 16, 20, 1500, 132, "
        "57222, 0.012345\n")


@pytest.mark.parametrize("parse, text, pair, answer, seconds", [
    (exp.parse_hbbmc, HBBMC, GRQC, 3905, 0.003991),
    (exp.parse_pivotscale, PIVOTSCALE, K8, 284600071, 0.00262),
    (exp.parse_mcbrb, MCBRB, MAXC, (12,), 0.037535),
    (exp.parse_adambe, ADAMBE, MBE, 57222, 0.058297),
    (exp.parse_adambe, PARADAMBE, MBE, 57222, 0.083465),
    (exp.parse_rdmce, RDMCE, GRQC, 3905, 0.0131),
    (exp.parse_mcegpu, MCEGPU, GRQC, 3905, 0.04321),
    (exp.parse_kcgpu, KCGPU, K8, 284600071, 0.168),  # the last counter line: the total
    (exp.parse_gmbe, GMBE, MBE, 57222, 0.012345),  # not the header's "1500, 132"
])
def test_each_peer_output_parsed(parse, text, pair, answer, seconds):
    import re

    got_answer, got_s = parse(re.sub(r"\x1b\[[0-9;]*m", "", text), pair)
    assert got_answer == answer
    assert got_s == pytest.approx(seconds)
    assert parse("Segmentation fault\n", pair) == (None, None)


def test_pivotscale_answers_the_asked_k_only():
    assert exp.parse_pivotscale(PIVOTSCALE, exp.Pair("kclique", "CA-GrQc", k=7))[0] is None


def test_cli_output_parsed():
    assert exp.parse_cli("maximal cliques: 3906  (cpu, 0.03 s)\n") == 3906
    assert exp.parse_cli("8-cliques: 284600071  (gpu, 0.20 s)\n") == 284600071
    assert exp.parse_cli("maximal bicliques: 57222  (cpu, 7.00 s)\n") == 57222
    assert exp.parse_cli("omega: 44, maximum cliques: 1  (cpu, 0.05 s)\n") == (44, 1)
    assert exp.parse_cli("error: no such file\n") is None


def test_expected_for_peers_leaves_out_isolated_vertices():
    assert exp.expected(GRQC) == 3906  # ours: the isolated vertex is a maximal clique of size 1
    assert exp.expected(GRQC, {"CA-GrQc": 5241}, "hbbmc") == 3905  # convert.py dropped it
    assert exp.expected(MAXC) == (12, 1) and exp.expected(MAXC, {}, "mc-brb") == (12,)
    assert exp.expected(exp.Pair("maxclique", "MANN_a27", omega_only=True)) == (126,)  # registry omega


def test_check_marks_a_wrong_answer():
    assert exp.check([3906, 3906], 3906) == (True, "")
    ok, note = exp.check([869325383, 869287325, 869325383], 869325383)
    assert ok is False and "1 of 3" in note and "869287325" in note
    assert exp.check([], 5)[0] is None and exp.check([5], None)[0] is None
    assert exp.check([(12,)], (12, 1))[0] is True  # omega alone against (omega, n_maximum)
    assert exp.check([(12, 2)], (12, 1))[0] is False  # ours: the number of maximum cliques counts too


HOST_CPU = {"host": "AMD EPYC (2 cores), no GPU", "gpu": "none", "sms": "", "driver": "", "cpu": "AMD EPYC",
            "cores": 2, "commit": "abc1234", "date": "2026-11-25T21:00:00+00:00"}
HOST_GPU = {"host": "Xeon (16 cores), NVIDIA H100", "gpu": "NVIDIA H100", "sms": 132, "driver": 13000,
            "cpu": "Xeon", "cores": 16, "commit": "abc1234", "date": "2026-11-26T09:00:00+00:00"}


def tiny_rows(host, gpu: bool, rdmce_answers=(3905, 3905)):
    """Rows for CA-GrQc maximal cliques on one host (ours 10 ms, HBBMC 4 ms, RDMCE 13 ms)."""
    rows = [exp.make_row(GRQC, "ours-warm", "ours", "call", host["gpu"], "", [0.010, 0.011, 0.009],
                         [3906] * 3, 3906, host),
            exp.make_row(GRQC, "ours-kernel", "ours", "kernel", host["gpu"], "", [0.002] * 3, [3906] * 3,
                         3906, host),
            exp.make_row(GRQC, "ours-process", "ours", "process", host["gpu"], "", [1.6], [3906], 3906, host),
            exp.make_row(GRQC, "hbbmc", "cpu", "printed", "Xeon", 1, [0.004] * 3, [3905] * 3, 3905, host),
            exp.make_row(GRQC, "hbbmc", "cpu", "process", "Xeon", 1, [0.4] * 3, [3905] * 3, 3905, host)]
    if gpu:
        rows += [exp.make_row(GRQC, "rdmce", "gpu", "printed", "NVIDIA H100", "", [0.013, 0.014],
                              list(rdmce_answers), 3905, host),
                 exp.make_row(GRQC, "rdmce", "gpu", "process", "NVIDIA H100", "", [0.5, 0.6],
                              list(rdmce_answers), 3905, host)]
    return rows


def write(tmp_path, rows) -> Path:
    pd.DataFrame(rows, columns=exp.COLUMNS).to_csv(tmp_path / exp.CSV, index=False)
    return tmp_path


def test_make_row_keeps_times_of_a_wrong_answer_but_flags_it():
    row = tiny_rows(HOST_GPU, True, rdmce_answers=(3905, 3904))[5]
    assert row["answer_ok"] is False and row["runs"] == 2 and row["median_s"] == pytest.approx(0.0135)
    assert "WRONG" in row["note"] and json.loads(row["times_s"]) == [0.013, 0.014]


def test_the_caption_says_when_ours_and_the_peers_were_measured_in_separate_runs(tmp_path):
    rows = tiny_rows(HOST_GPU, True)
    df = exp.load(write(tmp_path, rows))
    assert "another run" not in view.table("mce", df).attrs["caption"]  # one run: one date
    for r in rows:
        if r["role"] == "ours":
            r.update(date="2099-01-02T03:04:05+00:00", commit="abc1234")
    caption = view.table("mce", exp.load(write(tmp_path, rows))).attrs["caption"]
    assert "ours (commit abc1234, 2099-01-02T03:04) measured in another run" in caption


def test_the_caption_sees_ours_measured_again_without_the_peers(tmp_path):
    """Ours measured a second time, alone: the table shows that run beside the peers' earlier one."""
    first = tiny_rows(HOST_GPU, True)
    again = [dict(r, date="2099-01-02T03:04:05+00:00", commit="abc1234")
             for r in first if r["role"] == "ours"]
    caption = view.table("mce", exp.load(write(tmp_path, first + again))).attrs["caption"]
    assert "ours (commit abc1234, 2099-01-02T03:04) measured in another run" in caption


def test_table_and_figure_cpu_host_only(tmp_path):
    df = exp.load(write(tmp_path, tiny_rows(HOST_CPU, False)))
    t = view.table("mce", df)
    assert list(t.columns) == view.COLUMNS and len(t) == 1
    assert t["authors' GPU code"].iloc[0] == view.NOT_ON_GPU
    assert t["CPU code / ours"].iloc[0] == "0.4x"  # 4 ms / 10 ms
    assert view.NOT_ON_GPU in view.summary("mce", df)
    fig = view.figure("mce", df)
    assert "AMD EPYC" in fig.axes[0].get_title() and view.NOT_ON_GPU in fig.axes[0].get_title()
    assert exp.status(tmp_path) == {}  # no GPU host yet: the papers' own status stands
    assert view.table("mbe", df).empty and "no rows" in view.summary("mbe", df)


def test_table_figure_and_status_with_a_gpu_host(tmp_path, monkeypatch):
    from mce_kit.reproduction import CATALOGUE, paper_status, scoreboard, verdict

    rows = tiny_rows(HOST_CPU, False) + tiny_rows(HOST_GPU, True)
    df = exp.load(write(tmp_path, rows))
    assert exp.pick_host(df, "mce") == HOST_GPU["host"]
    t = view.table("mce", df)
    assert t["authors' GPU code"].iloc[0] == "rdmce: 13.5 ms" and t["GPU code / ours"].iloc[0] == "1.35x"
    assert t["whole process, GPU code / ours"].iloc[0] == "0.344x" and not t["wrong answers"].iloc[0]
    assert "NVIDIA H100" in t.attrs["caption"] and "NVIDIA H100" in view.figure("mce", df).axes[0].get_title()
    st = exp.status(tmp_path)
    assert set(st) == {("mcegpu", "Table 1")}
    monkeypatch.setattr(exp.status, "__defaults__", (tmp_path,))
    table1 = st[("mcegpu", "Table 1")]
    assert "substitute CPU code" in table1.reason and "0.40x" in table1.ours and "1.35x" in table1.ours
    own = paper_status("mcegpu")["Table 1"]  # the paper module's own status: added to, not replaced
    assert table1.ours.startswith(own.ours) and own.reason in table1.reason
    assert table1.state == verdict(next(i for i in CATALOGUE if (i.paper, i.item) == ("mcegpu", "Table 1")),
                                   table1)
    if own.value is None:  # then the peers' ratio is what the rule compares: ours slower than HBBMC
        assert table1.value == pytest.approx(0.40, abs=0.01) and table1.state == "contradicted"
    with_peers = scoreboard().set_index(["paper", "item"]).loc[("mcegpu", "Table 1")]
    assert "HBBMC" in with_peers["reason"]
    assert "<caption>" in view.styled("mce", df).to_html()


def test_a_wrong_peer_is_flagged_and_never_a_ratio(tmp_path):
    df = exp.load(write(tmp_path, tiny_rows(HOST_GPU, True, rdmce_answers=(3905, 3904))))
    t = view.table("mce", df)
    assert "rdmce" in t["wrong answers"].iloc[0] and "1 of 2" in t["wrong answers"].iloc[0]
    assert t["GPU code / ours"].iloc[0] == ""  # its time is shown, never compared
    assert "rdmce" in t["authors' GPU code"].iloc[0]
    ax = view.figure("mce", df).axes[0]
    assert any("WRONG" in a.get_text() for a in ax.texts)


def test_each_code_counts_with_its_latest_run_on_a_host(tmp_path):
    """An older, faster HBBMC run and an older, slower run of ours do not count beside the latest."""
    early = [dict(r, date="2026-11-26T00:00:00+00:00") for r in tiny_rows(HOST_GPU, True)]
    early[0] = dict(early[0], median_s=0.5)   # ours, slower then
    early[3] = dict(early[3], median_s=0.001)  # HBBMC, faster then
    late = [dict(r, date="2026-11-27T00:00:00+00:00") for r in tiny_rows(HOST_GPU, True)]
    t = exp.comparison(exp.load(write(tmp_path, early + late)), "mce", HOST_GPU["host"])
    assert t["ours_warm_s"].iloc[0] == pytest.approx(0.010)
    assert t["cpu_code_s"].iloc[0] == pytest.approx(0.004)


def test_rows_of_other_hosts_and_pairs_are_kept(tmp_path):
    write(tmp_path, tiny_rows(HOST_CPU, False) + tiny_rows(HOST_GPU, True))
    path = tmp_path / exp.CSV
    kept = exp._kept_rows(path, HOST_GPU["host"], [GRQC], {"ours"})
    assert set(kept["host"]) == {HOST_CPU["host"], HOST_GPU["host"]}
    assert set(kept.loc[kept["host"] == HOST_GPU["host"], "who"]) == {"rdmce", "hbbmc"}  # not ours
    assert len(exp._kept_rows(path, HOST_GPU["host"], [K8], {"ours", "peers"})) == 12


PEERS_DIR = Path(os.environ.get("MCE_KIT_PEERS", "/work/shared/peers"))


@pytest.mark.skipif(not (PEERS_DIR / "cpu-bin" / "mcbrb").exists() or has_gpu(),
                    reason="needs a copy of shared/peers (MCE_KIT_PEERS) and a machine without a GPU")
def test_runner_end_to_end_one_graph_one_cpu_peer(tmp_path):
    s = exp.Settings(peers=PEERS_DIR, out=tmp_path / "out", work=tmp_path / "w", repeats=1, timeout_s=60,
                     budget_s=5, problems=("maxclique",), graphs=("CA-GrQc",))
    t0 = time.perf_counter()
    df = exp.run(s)
    assert time.perf_counter() - t0 < 60
    assert set(df["who"]) == {"mc-brb", "ours-warm", "ours-cold", "ours-kernel", "ours-process"}
    assert df["answer_ok"].eq(True).all(), df[["who", "note"]]
    assert (df["answer"] == 44).all() and (df["runs"] == 1).all() and (df["median_s"] > 0).all()
    assert (df["host"].str.contains("no GPU")).all()
    again = exp.load(tmp_path / "out")
    assert len(again) == len(df) and not math.isnan(again["median_s"].iloc[0])
    shutil.rmtree(tmp_path / "w")


@pytest.mark.gpu
@pytest.mark.skipif(not has_gpu(), reason="needs a CUDA GPU")
def test_ours_on_the_gpu_checked():
    got = exp.run_ours(GRQC, "gpu", repeats=3, timeout_s=120, budget_s=30)
    for who in ("ours-warm", "ours-cold", "ours-kernel"):
        assert got[who]["times_s"], got[who]
        assert exp.check(got[who]["answers"], exp.expected(GRQC))[0] is True


def test_status_items_are_the_papers():
    from mce_kit.reproduction import CATALOGUE

    assert set(exp.ITEMS) <= {(i.paper, i.item) for i in CATALOGUE}


def test_gpu_kernel_follows_the_algorithm_the_call_chose(monkeypatch):
    """Where the public k-clique call counted by pivoting, the kernel row times the pivot counter."""
    import types

    import mce_kit as mk
    from mce_kit.gpu import cliquecount

    class Prep:
        def run(self, k_max):
            return types.SimpleNamespace(gpu_ms=2.0, answer={k_max: 284600071})

    monkeypatch.setattr(mk, "count_k_cliques", lambda G, k, device: types.SimpleNamespace(
        params={"k": k, "algorithm": "pivot"}))
    monkeypatch.setattr(cliquecount, "prepare", lambda G: Prep())
    runs, note = exp._gpu_kernel(K8, None, repeats=3)
    assert runs == [(0.002, 284600071)] * 3 and "pivot" in note
    assert exp.check([a for _, a in runs], exp.expected(K8))[0] is True


def test_a_coarse_printed_clock_gives_the_mean_of_the_runs():
    """HBBMC prints CA-GrQc as 0 or one 4 ms tick: the median (0 or a tick) is no estimate, the mean is."""
    times = [0.0, 0.003984, 0.0, 0.003994, 1e-06]
    row = exp.make_row(GRQC, "hbbmc", "cpu", "printed", "Xeon", 1, times, [3905] * 5, 3905, HOST_GPU)
    assert row["median_s"] == pytest.approx(sum(times) / 5) and "coarser" in row["note"]
    row = exp.make_row(GRQC, "hbbmc", "cpu", "printed", "Xeon", 1, [0.004, 0.003, 0.005], [3905] * 3, 3905,
                       HOST_GPU)
    assert row["median_s"] == 0.004 and row["note"] == ""


def test_a_printed_time_under_the_clock_tick_is_never_a_ratio(tmp_path):
    rows = tiny_rows(HOST_GPU, True)
    rows[3] = exp.make_row(GRQC, "hbbmc", "cpu", "printed", "Xeon", 1, [0.0] * 3, [3905] * 3, 3905, HOST_GPU)
    write(tmp_path, rows)
    t = exp.comparison(exp.load(tmp_path), "mce", HOST_GPU["host"])
    assert math.isnan(t["cpu_code_vs_ours"].iloc[0]) and t["gpu_code_vs_ours"].iloc[0] > 1
    assert ("mcegpu", "Table 1") in exp.status(tmp_path)  # no log of a zero ratio


def test_the_host_is_described_by_a_child_process_as_by_this_one():
    # peers.run asks a child, so that the process timing the others starts no CUDA context itself
    child, here = exp.host_info_of_child(), exp.host_info()
    assert child.keys() == here.keys()
    same = ("host", "gpu", "cpu", "cores")
    assert {k: child[k] for k in same} == {k: here[k] for k in same}
