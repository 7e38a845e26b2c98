"""How the split of heavy edges changes a launch on all the tasks and on half of them (what one of
2 GPUs gets): kernel time per SPLIT_SHARE (launch.split_heavy), KCMiner and the pivot counter on
ego-Facebook (run on a GPU host: python3 scripts/split_share.py)."""
from mce_kit import distributed as md
from mce_kit.experiments.multigpu import graph
from mce_kit.gpu import launch

WORKLOADS = (("kcminer", "ego-Facebook", {"k": 8}), ("cliquecount", "ego-Facebook", {"k_max": 10}))
for algo, name, params in WORKLOADS:
    job = md.prepare(graph(name), algo, **params)
    every, (half, other) = md.chunk_tasks(job.costs, 1)[0], md.chunk_tasks(job.costs, 2)
    for share in (1, 2, 4, 8, 16):
        launch.SPLIT_SHARE = share
        ms = {}
        for label, idx in (("all", every), ("half", half), ("other half", other)):
            job.prep.run(tasks=idx, **params)  # warm
            ms[label] = min(job.prep.run(tasks=idx, **params).gpu_ms for _ in range(2))
        print(f"{algo} {name} SPLIT_SHARE={share}: " + ", ".join(f"{k} {v:.1f} ms" for k, v in ms.items()),
              f"(halves over all: {(max(ms['half'], ms['other half'])) / ms['all']:.3f})", flush=True)
