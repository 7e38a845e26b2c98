import csv
import shutil
from pathlib import Path

import pandas as pd
import pytest

from mce_kit import datasets
from mce_kit.graph import BipartiteGraph, Graph
from mce_kit.io import as_general_graph
from mce_kit.order import degeneracy

REQUIRED = [
    "ego-Facebook", "CA-GrQc", "wiki-Vote", "Email-Enron", "soc-Slashdot0902", "email-Eu-core", "CA-HepTh",
    "brock200_2", "keller4", "hamming6-2", "johnson8-4-4", "C125.9", "san200_0.7_1", "p_hat300-1", "MANN_a27",
    "MovieLens", "marvel", "dbpedia-writer",
]  # fmt: skip
MANIFEST = Path("/work/shared/data/MANIFEST.csv")  # the shared copy, when this machine has it


def test_names_and_kinds():
    assert set(REQUIRED) <= set(datasets.names())
    by_kind = [datasets.names(k) for k in datasets.KINDS]
    assert sorted(sum(by_kind, [])) == sorted(datasets.names())
    assert set(datasets.names("bipartite")) == {"MovieLens", "marvel", "dbpedia-writer"}
    with pytest.raises(ValueError):
        datasets.names("directed")


@pytest.mark.parametrize("name", datasets.names())
def test_every_dataset_matches_its_registry_row(name):
    row = datasets.info(name)
    G = datasets.load(name)
    assert G.name == name
    if row["kind"] == "bipartite":
        assert isinstance(G, BipartiteGraph)
        assert {G.n_u, G.n_v} == {row["n_left"], row["n_right"]}
        assert G.n_v <= G.n_u
        G = as_general_graph(G)
    else:
        assert isinstance(G, Graph)
    got = (G.n, G.m, int(G.degrees().max()), degeneracy(G))
    assert got == (row["n_vertices"], row["n_edges"], row["max_degree"], row["degeneracy"])
    assert (row["known_omega"] is not None) == (row["kind"] == "dimacs")


def test_lookup_is_case_insensitive_and_suggests():
    assert datasets.info("ca-grqc")["name"] == "CA-GrQc"
    assert datasets.path("MOVIELENS").name == "MovieLens_ti.gmbe.graph.gz"
    with pytest.raises(KeyError, match="did you mean"):
        datasets.info("ego-Facebok")


def test_table():
    df = datasets.table()
    assert isinstance(df, pd.DataFrame)
    assert df["name"].tolist() == datasets.names()
    assert {"file", "kind", "format", "source", "url", "origin", "licence", "sha256"} <= set(df.columns)
    assert df["n_edges"].dtype == "Int64" and df["known_omega"].isna().sum() == 11


def test_registry_files_and_checksums():
    for name in datasets.names():
        row = datasets.info(name)
        assert datasets.sha256(datasets.path(name)) == row["sha256"]
        assert row["licence"] and row["url"].startswith("http") and "@" in row["origin"]


def test_readme_lists_every_dataset():
    readme = (datasets.data_dir() / "README.md").read_text()
    assert all(f"| {name} |" in readme for name in datasets.names())


@pytest.mark.skipif(not MANIFEST.exists(), reason="shared MANIFEST.csv not on this machine")
def test_registry_agrees_with_manifest():
    with MANIFEST.open() as f:
        manifest = {r["file"]: r for r in csv.DictReader(f)}
    for name in datasets.names():
        row, m = datasets.info(name), manifest[datasets.info(name)["file"]]
        assert row["sha256"] == m["sha256"]
        cols = ["n_vertices", "n_edges", "max_degree", "degeneracy", "known_omega"]
        assert [row[c] for c in cols] == [int(m[c]) if m[c] else None for c in cols]


@pytest.fixture
def data_copy(tmp_path, monkeypatch):
    """A private copy of the registry and one small file, used through MCE_KIT_DATA."""
    shutil.copy(datasets.data_dir() / "datasets.csv", tmp_path)
    f = tmp_path / datasets.info("hamming6-4")["file"]
    f.parent.mkdir(parents=True)
    shutil.copy(datasets.path("hamming6-4"), f)
    monkeypatch.setenv("MCE_KIT_DATA", str(tmp_path))
    return f


def test_data_dir_from_environment(data_copy):
    assert datasets.path("hamming6-4") == data_copy
    assert datasets.load("hamming6-4").m == 704


def test_checksum_mismatch_raises(data_copy):
    data = bytearray(data_copy.read_bytes())
    data[-9] ^= 0xFF  # flip one byte
    data_copy.write_bytes(bytes(data))
    with pytest.raises(datasets.ChecksumError, match="SHA-256"):
        datasets.load("hamming6-4")


def test_missing_file_raises(data_copy):
    data_copy.unlink()
    with pytest.raises(FileNotFoundError, match="missing"):
        datasets.load("hamming6-4")
