"""Command line: outputs, exit codes, one-line errors."""

import re
import subprocess
import sys

import pytest

from mce_kit.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_count_on_a_bundled_dataset(capsys):
    code, out, err = run(capsys, "count", "johnson8-4-4", "--device", "cpu")
    assert code == 0 and out.startswith("maximal cliques: ") and "(cpu, " in out
    code, out2, _ = run(capsys, "count", "johnson8-4-4", "--device", "cpu", "--min-size", "99")
    assert out2.startswith("maximal cliques: 0 ")


def test_count_problems(capsys, tmp_path):
    f = tmp_path / "square.txt"
    f.write_text("# a 4-cycle with one chord\n1 2\n2 3\n3 4\n4 1\n1 3\n")
    assert run(capsys, "count", str(f))[1].startswith("maximal cliques: 2 ")
    assert run(capsys, "count", str(f), "--problem", "kclique", "--k", "3")[1].startswith("3-cliques: 2 ")
    assert run(capsys, "count", str(f), "--problem", "maxclique")[1].startswith(
        "omega: 3, maximum cliques: 2 "
    )
    b = tmp_path / "bip.txt"
    b.write_text("1 1\n1 2\n2 2\n")  # KONECT-style: left ids, right ids
    assert run(capsys, "count", str(b), "--problem", "mbe")[1].startswith("maximal bicliques: 2 ")


def test_stats_and_datasets(capsys):
    code, out, _ = run(capsys, "stats", "hamming6-4")
    assert code == 0 and "n: 64" in out and "m: 704" in out and "degeneracy: 22" in out
    code, out, _ = run(capsys, "datasets", "--kind", "dimacs")
    assert code == 0 and "brock200_2" in out and "CA-GrQc" not in out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["count", "{bad}"], r"error: .*bad\.clq:3: "),
        (["count", "{missing}"], r"error: .*missing.*no such file"),
        (["count", "CA-GrQ"], r"did you mean CA-GrQc"),
        (["count", "{good}", "--problem", "kclique"], r"needs --k"),
        (["count", "MovieLens"], r"bipartite"),
        (["stats", "{bad}", "--format", "nosuch"], r"unknown format"),
    ],
)
def test_errors_are_one_line(capsys, tmp_path, argv, message):
    (tmp_path / "bad.clq").write_text("p edge 3 2\ne 1 2\ne 2 x\n")
    (tmp_path / "good.clq").write_text("p edge 3 2\ne 1 2\ne 2 3\n")
    paths = {"bad": tmp_path / "bad.clq", "good": tmp_path / "good.clq", "missing": tmp_path / "missing.txt"}
    code, out, err = run(capsys, *(a.format(**paths) for a in argv))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("error: ")
    assert re.search(message, err)


def test_gpu_request_without_gpu(capsys, monkeypatch):
    monkeypatch.setattr("mce_kit.gpu.has_gpu", lambda: False)
    code, out, err = run(capsys, "count", "hamming6-4", "--device", "gpu")
    assert code == 2 and out == "" and err.startswith("error: device='gpu' but no usable CUDA GPU")


def test_module_entry_point(tmp_path):
    bad = tmp_path / "bad.clq"
    bad.write_text("p edge 3 2\ne 1 2\ne 2 x\n")
    r = subprocess.run([sys.executable, "-m", "mce_kit", "count", str(bad)], capture_output=True, text=True)
    assert r.returncode == 2 and r.stdout == "" and "Traceback" not in r.stderr
    assert r.stderr.strip().splitlines() == [f"error: {bad}:3: 'x' is not an integer"]
    r = subprocess.run(
        [sys.executable, "-m", "mce_kit", "count", "hamming6-4"], capture_output=True, text=True
    )
    assert r.returncode == 0 and r.stdout.startswith("maximal cliques: ")


def test_the_command_keeps_numbas_blas_probe_out_of_scipy():
    """The command's own process refuses scipy.linalg to Numba's BLAS probe only (cli._NoBlasProbe):
    the answer is the same and SciPy's linear algebra is never imported; another import of
    scipy.linalg in that process still works."""
    code = ("import sys; sys.argv = ['mce-kit', 'count', 'brock200_2', '--problem', 'maxclique', "
            "'--device', 'cpu']\nimport mce_kit.cli as cli\ncli.os._exit = lambda rc: None\ncli.entry()\n"
            "print('scipy.linalg' in sys.modules)\nimport scipy.linalg\nprint(scipy.linalg.norm([3, 4]))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    lines = r.stdout.splitlines()
    assert lines[0].startswith("omega: 12, maximum cliques: 1") and lines[1:] == ["False", "5.0"]
