"""The multi-GPU experiment's own code, run on CPU: the kernels' CPU twins on a LocalCluster of
1 and 2 workers (the device run uses the same code with the GPU kernels and one worker per GPU)."""

import pytest

pytest.importorskip("distributed")

from graph_families import random_bipartite  # noqa: E402

from mce_kit import reproduction  # noqa: E402
from mce_kit.experiments import multigpu  # noqa: E402


def test_every_kernel_through_the_experiment_on_cpu(tmp_path):
    plan = [("rdmce", "johnson8-4-4", {}), ("mce-gpu", "johnson8-4-4", {"subtree": "L1"}),
            ("kcminer", "johnson8-4-4", {"k": 4}), ("cliquecount", "johnson8-4-4", {"k_max": 5}),
            ("gmbe", "random-bipartite", {}, random_bipartite(40, 25, 0.3, seed=2))]
    frames = multigpu.run_all(tmp_path, gpu_counts=(1, 2), repeats=2, plan=plan, cpu=True,
                              fault_graph="johnson8-4-4")
    sc, busy = frames["scaling"], frames["busy"]
    assert len(sc) == 10 and set(sc["algo"]) == set(multigpu.ALGOS)
    assert (sc[sc["algo"] == "rdmce"]["answer"] == "114690").all()
    assert set(sc["checked"]) <= {"reference", "one-GPU answer"}
    assert (sc["efficiency"] > 0).all() and (sc["chunks"] >= 1).all()
    assert set(busy.groupby(["algo", "gpus"]).size().index.get_level_values("gpus")) == {1, 2}
    assert (tmp_path / "multigpu_scaling.csv").exists() and (tmp_path / "multigpu_busy.csv").exists()
    faults = frames["faults"]
    assert list(faults["exact"]) == [True, True, True] and faults["killed_pid"].notna().iloc[0]
    assert "injected fault" in faults["error"].iloc[1]
    assert faults["error"].iloc[2].startswith("dealt (a shared run lost a worker")  # noticed, redone
    assert set(sc[sc["gpus"] == 2]["chunking"]) == {multigpu.QUEUES["dealt"]}
    st = multigpu.status(tmp_path)
    items = {(i.paper, i.item) for i in reproduction.CATALOGUE}
    assert set(st) == {("rdmce", "Fig 14"), ("mcegpu", "Fig 4"), ("kcminer", "Fig 10"), ("gmbe", "Fig 18")}
    assert set(st) <= items and all(s.state in ("partial", "contradicted") and not s.complete  # 2 GPUs
                                    for s in st.values())
    # notebook 90 renders these tables when they exist, and says what is missing
    note = multigpu.measured_note(tmp_path)
    assert note.startswith("Measured on") and "1, 2 GPUs" in note and "more than 2 GPUs" in note
    assert "Not measured yet" in multigpu.measured_note(tmp_path / "nothing")
    table = multigpu.scaling_table(sc)
    assert len(table) == len(sc) and table["ratio_efficiency"].notna().any()
    from mce_kit.viz import scale_figures

    assert len(scale_figures.plot_scaling(sc).axes) == len(multigpu.ALGOS)
    assert scale_figures.plot_busy(busy).axes[0].patches


def test_workloads_name_bundled_graphs_with_references():
    """Every device workload is a bundled graph whose answer is in a reference table, or one of the
    seeded synthetic graphs, or counts of every k (both checked against the one-GPU answer)."""
    from mce_kit import datasets, references
    from mce_kit import distributed as md

    known = set(datasets.names())
    for algo in multigpu.ALGOS:
        assert algo in multigpu.PAPER
        named_only = multigpu.NAMED_ONLY.get(algo, [])
        for name, params in multigpu.WORKLOADS[algo] + multigpu.QUICK[algo] + named_only:
            if name in multigpu.NO_REFERENCE:
                continue
            assert name in known, name
            problem = md.KERNELS[algo].problem
            if problem == "clique_counts":
                if params["k_max"] is None:
                    continue
                ks = range(3, params["k_max"] + 1)
                assert all(references.expected("kclique", name, k=k) is not None for k in ks), name
                continue
            keys = {"k": params["k"]} if problem == "kclique" else {}
            assert references.expected(problem, name, **keys) is not None, (algo, name, params)


def test_synthetic_workloads_are_seeded():
    a, b = multigpu.graph(multigpu.CHUNG_LU), multigpu.graph(multigpu.CHUNG_LU)
    assert a.name == multigpu.CHUNG_LU and a.m == b.m > 80_000 and (a.u_indices == b.u_indices).all()


def test_single_gpu_thresholds_follow_the_committed_measurements():
    """Each kernel's single_gpu_below lies where the 2-GPU rows of multigpu_scaling.csv put it."""
    from mce_kit import distributed as md

    df = multigpu.load("scaling")
    for algo in multigpu.ALGOS:
        lo, hi = multigpu.threshold(df, algo)
        assert lo < md.KERNELS[algo].single_gpu_below, algo
        assert hi == float("inf") or md.KERNELS[algo].single_gpu_below <= hi, algo


def test_default_chunking_keeps_each_kernels_fewest_chunks():
    import pandas as pd

    df = pd.DataFrame({"algo": ["rdmce", "rdmce", "gmbe", "gmbe"], "chunks_per_worker": [8, 1, 4, 4],
                       "median_s": [1.0, 2.0, 3.0, 4.0]})
    assert multigpu.default_chunking(df)["median_s"].tolist() == [2.0, 3.0, 4.0]
    assert multigpu.default_chunking(df.drop(columns="chunks_per_worker")).shape[0] == 4


def test_the_chunking_table_reads_the_committed_rows():
    table = multigpu.chunking_table(multigpu.load("scaling"))
    assert set(table.index.get_level_values("algo")) == set(multigpu.ALGOS)
    assert (table.drop(columns="one GPU, s").max(axis=1) > 0).all()


def test_workloads_named_only_run_only_when_named():
    every = multigpu.plan_for()
    assert all(name != multigpu.RMAT_BIG for _, name, _ in every)
    named = multigpu.plan_for(["rdmce"], only=[multigpu.RMAT_BIG, "C125.9"])
    assert [name for _, name, _ in named] == ["C125.9", multigpu.RMAT_BIG]
