"""The generic measurement layer on CPU: a fake launcher stands in for a GPU kernel."""

import json
import sys
import types

import pytest

from mce_kit import bench, measure, references


class _Result:
    def __init__(self, answer, ms, params):
        self.answer, self.gpu_ms, self.params = answer, ms, params

    def row(self):
        return {"nodes": 7}


def _fake_module(answers):
    """A launcher whose successive runs return ``answers`` (then repeat the last)."""
    mod = types.ModuleType("fake_launcher")
    mod.DEFAULTS = {"tau": 24, "exposure": True, "seeding": "edge"}
    left = list(answers)

    class Prep:
        prep_s = 0.5

        def run(self, **params):
            assert set(params) <= set(mod.DEFAULTS)
            a = left.pop(0) if len(left) > 1 else left[0]
            return _Result(a, 1.0 + params.get("tau", 0) / 100, dict(params))

    mod.prepare = lambda G: Prep()
    return mod


@pytest.fixture
def fake(monkeypatch):
    def install(answers, problem="mce"):
        mod = _fake_module(answers)
        monkeypatch.setitem(sys.modules, "fake_launcher", mod)
        algo = bench.Algorithm("fake", problem, "fake_launcher", "a fake")
        monkeypatch.setitem(bench.ALGORITHMS, "fake", algo)
        monkeypatch.setattr(bench, "provenance", lambda: {"gpu": "fake", "commit": "test"})
        return mod
    return install


def test_parameters_become_sweepable_options(fake):
    fake([3906])
    a = bench.parser_for(bench.ALGORITHMS["fake"]).parse_args(
        ["CA-GrQc", "--tau", "16", "24", "--exposure", "off", "on"])
    combos = bench.grid(a, bench.ALGORITHMS["fake"].launcher().DEFAULTS)
    assert len(combos) == 4 and {"tau": 16, "exposure": False, "seeding": "edge"} in combos


def test_bad_option_value_is_refused(fake, capsys):
    fake([1])
    with pytest.raises(SystemExit):
        bench.parser_for(bench.ALGORITHMS["fake"]).parse_args(["x", "--exposure", "maybe"])
    assert "expected on/off" in capsys.readouterr().err


def test_rows_are_checked_against_the_reference(fake, tmp_path, capsys):
    fake([3906])
    out = tmp_path / "rows.jsonl"
    assert bench.main(["fake", "CA-GrQc", "--tau", "16", "32", "--repeats", "3", "--out", str(out)]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["tau"] for r in rows] == [16, 32]
    assert all(r["count"] == 3906 and r["checked"] == "reference" and r["gpu"] == "fake" for r in rows)
    assert rows[0]["median_ms"] == pytest.approx(1.16) and rows[0]["nodes"] == 7 and rows[0]["n"] == 5242


def test_a_wrong_or_moving_answer_fails(fake):
    fake([3905])
    with pytest.raises(measure.WrongAnswer):
        bench.main(["fake", "CA-GrQc", "--repeats", "2"])
    fake([10, 11])  # the first run is right, the second moves
    with pytest.raises(measure.WrongAnswer, match="answers"):
        list(bench.run(bench.ALGORITHMS["fake"], bench.parser_for(bench.ALGORITHMS["fake"]).parse_args(
            ["CA-GrQc", "--expect", "10", "--warmup", "0", "--repeats", "2"])))


def test_listing_the_algorithms(capsys):
    assert bench.main([]) == 2
    assert "rdmce" in capsys.readouterr().err


def test_references_per_problem():
    assert references.expected("mce", "CA-GrQc") == 3906
    assert references.expected("mce", "no-such-graph") is None
    with pytest.raises(TypeError, match="'k'"):
        references.expected("kclique", "CA-GrQc")
    with pytest.raises(ValueError, match="unknown problem"):
        references.expected("cliques", "CA-GrQc")
    assert references.problem("maxclique").split((12, 3)) == {"omega": 12, "n_maximum": 3}
    with pytest.raises(ValueError):
        references.problem("maxclique").split(12)


def test_run_jobs_writes_each_table_and_can_keep_going(tmp_path, capsys):
    import pandas as pd

    def rows():
        yield pd.DataFrame([{"x": 1}])
        yield pd.DataFrame([{"x": 2}])

    def broken():
        yield pd.DataFrame([{"x": 1}])
        raise RuntimeError("lease ran out")

    jobs = {"a": rows, "b": broken, "c": rows, "opt": rows}
    frames = measure.run_jobs("p", jobs, tmp_path, {"gpu": "fake"}, skip=("opt",), keep_going=True)
    assert sorted(frames) == ["a", "c"] and list(frames["a"]["x"]) == [1, 2]
    assert len(pd.read_csv(tmp_path / "p_b.csv")) == 1  # the row measured before the failure stays
    assert not (tmp_path / "p_opt.csv").exists()
    with pytest.raises(RuntimeError, match="lease"):
        measure.run_jobs("p", jobs, tmp_path, {}, only=["b"])
    assert measure.names(["a,b", "c"]) == ["a", "b", "c"] and measure.names([]) is None
