"""The explorer's Python side: stepping and clicking change the selection and the panel."""

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402

from mce_kit import sim  # noqa: E402
from mce_kit.viz import explorer, layout, static  # noqa: E402


@pytest.fixture
def ex():
    return explorer.Explorer("mce-gpu Figure 1", "Bron–Kerbosch", pivot=False, order="natural", seeds="root")


def sets_of(panel):
    return {s["name"]: s["labels"] for s in panel["sets"]}


def test_assets_are_package_data():
    assert "export default" in explorer._asset("tree_widget.js")
    assert "export default" in explorer._asset("lanes_widget.js")
    for name in ("tree_widget.js", "lanes_widget.js"):
        src = explorer._asset(name)
        assert "http://" not in src.replace("http://www.w3.org/2000/svg", "") and "https://" not in src
        assert "import " not in src  # no CDN or module imports: works offline


def test_starts_at_the_root(ex):
    assert ex.view.selected == 0 and ex.view.revealed == 0
    assert sets_of(ex.view.panel) == {"R": [], "P": list("ABCDEF"), "X": []}


def test_stepping_moves_selection_and_panel(ex):
    ex.step()
    assert ex.view.selected == 1 and ex.view.revealed == 1
    assert sets_of(ex.view.panel)["R"] == ["A"]
    ex.step()
    assert sets_of(ex.view.panel) == {"R": ["A", "B"], "P": ["C", "D"], "X": []}
    ex.step(-1)
    assert ex.view.selected == 1 and sets_of(ex.view.panel)["R"] == ["A"]


def test_click_selects_any_node_and_panel_follows(ex):
    t = ex.tree
    leaf = t.output_node[0]
    ex.view.selected = leaf  # what a click in the page does
    p = ex.view.panel
    assert p["id"] == leaf and p["output"] == "{A,B,C,D}"
    assert sets_of(p)["R"] == ["A", "B", "C", "D"]
    dead = next(i for i in range(len(t)) if t.status[i] == "dead")
    ex.view.selected = dead
    assert ex.view.panel["status"] == "dead" and "X" in ex.view.panel["reason"]


def test_switches_rebuild_the_tree(ex):
    before = ex.tree.summary()["nodes"]
    ex.w["pivot"].value = True
    assert ex.tree.summary()["nodes"] < before  # pivoting shrinks Figure 1's tree
    assert ex.view.selected == 0
    ex.w_alg.value = "RDMCE bitmap"
    ex.view.selected = 1
    grid = ex.view.panel["grid"]
    assert grid is not None and grid["title"].startswith("G_sub")
    assert len(grid["rows"]) == len(grid["row_labels"]) and len(grid["rows"][0]) == len(grid["col_labels"])
    assert set(grid["marks"]) == {"R_b", "P_b", "VP_b"}


def test_bipartite_graph_switches_to_gmbe(ex):
    ex.w_graph.value = "GMBE+ G0 (bipartite)"
    assert ex.w_alg.value == "GMBE+ bicliques"
    assert ex.tree.summary()["outputs"] == 6
    ex.view.selected = ex.tree.output_node[0]
    assert set(sets_of(ex.view.panel)) == {"L", "R", "C"}
    assert any(k == "depth" for k, _ in ex.view.panel["extra"])  # node_buf depths are shown


def test_big_trees_are_summarised():
    G = sim.random_graph(40, 0.5, seed=1)
    t = sim.bron_kerbosch(G, pivot=False)
    assert len(t) > 3000
    v = layout.tree_view(t, 0, max_nodes=300)
    assert len(v["id"]) <= 300
    assert sum(v["hidden"]) > 0
    assert len(v["id"]) + sum(v["hidden"]) == len(t)  # every node drawn or counted under a stub


def test_clicking_a_stub_refocuses():
    ex = explorer.Explorer(sim.random_graph(30, 0.5, seed=2), "Bron–Kerbosch", pivot=False, max_nodes=200)
    v = ex.view.view
    stub = next(i for i, h in zip(v["id"], v["hidden"], strict=True) if h > 0)
    ex.view.focus_request = stub
    assert ex.view.view["focus"] == stub and ex.view.focus_request == -1
    ex.view.selected = len(ex.tree) - 1  # a node outside the view: the view follows it
    assert len(ex.tree) - 1 in ex.view.view["id"]


def test_lanes_widget_data():
    t = sim.bron_kerbosch(sim.random_graph(20, 0.5, seed=3), order="degeneracy", seeds="vertex")
    r = sim.simulate(t, "rdmce", 6, tau=2)
    w = explorer.lanes(r)
    assert w.data["p"] == 6 and len(w.data["segments"]) == len(r.segments)
    assert len(w.data["arrows"]) == r.handoffs > 0


def test_static_figures(tmp_path):
    t = sim.rdmce_bitmap(sim.figure1_graph(), order="natural", seeds="vertex")
    ax = static.plot_tree(t)
    ax.figure.savefig(tmp_path / "t.png")
    static.plot_bitgrid(t, 1, mask="P_b")
    static.plot_graph(sim.figure1_graph(), roles={"A": "R", "B": "P"}, cliques=t.outputs)
    t = sim.bron_kerbosch(sim.random_graph(20, 0.5), seeds="vertex")
    r = sim.simulate(t, "worklist", 4, min_donate=1)
    static.plot_lanes(r)
    assert (tmp_path / "t.png").stat().st_size > 1000


@pytest.mark.parametrize("graph, algorithm, options", [
    ("G0 + v5 (bipartite)", "GMBE+ bicliques", {"prune": True}),
    ("4-clique with a fringe", "Geil maximum cliques", {"bound": False}),
    ("cocktail party K(2,2,2,2,2)", "mce-gpu", {"seeds": "vertex", "order": "degeneracy"}),
    ("mce-gpu Figure 1", "KCMiner k-cliques", {"k": 3, "lam": 0.2}),
])
def test_step_table_lists_the_explorers_tree(graph, algorithm, options):
    from mce_kit.viz import steps

    tree = explorer.Explorer(graph, algorithm, **options).tree
    df = steps.step_table(graph, algorithm, **options)
    assert list(df.index) == [i for i in range(len(tree)) if tree.kind[i] != "forest"]
    for i in df.index:
        for name, verts in tree.sets(i).items():
            assert df.loc[i, name] == "{" + ",".join(tree.label_set(name, verts)) + "}"
    assert (df["output"] != "").sum() == len(tree.outputs)
    assert set(df["status"]) <= set(sim.tree.STATUSES)


def test_step_table_needs_no_widget_library():
    import subprocess
    import sys

    code = ("import sys; from mce_kit import viz; t = viz.step_table('mce-gpu Figure 1', 'mce-gpu'); "
            "assert len(t) and 'anywidget' not in sys.modules and 'ipywidgets' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_step_table_of_a_simulation_is_its_event_log():
    from mce_kit.sim import examples, mcegpu
    from mce_kit.viz import steps

    t, r = mcegpu.worker_list(examples.cocktail_party(5), 8, min_donate=3)
    df = steps.step_table(r, tree=t)
    assert df.equals(r.steps(t)) and len(df) == len(r.events)
