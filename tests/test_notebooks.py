"""Every notebook is canonical and runs in quick mode; the checker and runner work.

The notebooks run through ``mce_kit.reproduce.execute``, the same code path
as ``make reproduce``, with figures and executed copies sent to a temp folder.
"""

import json
from pathlib import Path

import nbformat
import pytest

from mce_kit import notebooks as nbt
from mce_kit import reproduce

NOTEBOOKS = sorted((Path(__file__).parent.parent / "notebooks").glob("[0-9][0-9]_*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_is_canonical(path):
    assert nbt.check(path) == []


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs_in_quick_mode(path, tmp_path):
    run = reproduce.execute(path, quick=True, figures=tmp_path / "figures", out=tmp_path)
    assert run.status == "ok", f"{run.error}\nexecuted copy: {tmp_path / path.name}"


# ------------------------------------------------------------------ the tools

CELLS = [
    ("md", "# A title\n\nSome words."),
    (
        "code",
        """
        import mce_kit as mk
        from mce_kit.notebooks import figures_dir

        (figures_dir() / "99_note.txt").write_text(str(mk.quick_mode()))
        """,
    ),
]


def test_build_is_canonical_and_stable(tmp_path):
    path = tmp_path / "99_demo.ipynb"
    nbt.build(CELLS, path)
    first = path.read_text()
    assert nbt.check(path) == []
    nbt.build(CELLS, path)
    assert path.read_text() == first  # content-derived ids: rebuilding changes nothing
    nb = json.loads(first)
    assert (nb["nbformat"], nb["nbformat_minor"]) == (4, 5)
    assert nb["metadata"]["kernelspec"]["name"] == "python3"
    assert "".join(nb["cells"][1]["source"]).startswith("import mce_kit as mk")


def test_fix_strips_outputs_and_metadata(tmp_path):
    nb = nbformat.v4.new_notebook(metadata={"kernelspec": {"name": "myenv", "display_name": "x"}, "foo": 1})
    nb.cells = [
        nbformat.v4.new_markdown_cell("# T"),
        nbformat.v4.new_code_cell("1 + 1", execution_count=3, metadata={"scrolled": True, "tags": ["keep"]}),
    ]
    nb.cells[1].outputs = [nbformat.v4.new_output("execute_result", {"text/plain": "2"}, execution_count=3)]
    path = tmp_path / "01_messy.ipynb"
    nbformat.write(nb, path)
    problems = nbt.check(path)
    assert any("kernelspec" in p for p in problems) and any("outputs" in p for p in problems)
    assert nbt.fix(path) and not nbt.fix(path)
    assert nbt.check(path) == []
    cell = nbformat.read(path, as_version=4).cells[1]
    assert cell.outputs == [] and cell.execution_count is None and cell.metadata == {"tags": ["keep"]}


@pytest.mark.parametrize(
    "source, expected",
    [
        ("import sys\nsys.path.insert(0, '..')", "sys.path"),
        ("from mce_kit import *", "star import"),
        ("import mce_kit", "import mce_kit as mk"),
        ("%%writefile k.cu\n__global__ void f() {}", "CUDA"),
        ("x = (", "syntax error"),
    ],
)
def test_check_flags_bad_code(tmp_path, source, expected):
    path = tmp_path / "02_bad.ipynb"
    nbt.build([("md", "# T"), ("code", source)], path)
    assert any(expected in p for p in nbt.check(path))


def test_magics_are_not_syntax_errors(tmp_path):
    path = tmp_path / "03_magic.ipynb"
    nbt.build([("md", "# T"), ("code", "%matplotlib inline\nif True:\n    %time 1 + 1")], path)
    assert nbt.check(path) == []


def test_script_source_must_match(tmp_path):
    (tmp_path / "src").mkdir()
    script = tmp_path / "src" / "04_script.py"
    script.write_text('"""Not a cell."""\n\n# %% [markdown]\n# # Title\n#\n# Text.\n\n# %%\nx = 1\nx')
    path = nbt.build_script(script)
    assert path == tmp_path / "04_script.ipynb"
    assert nbt.read_script(script) == [("md", "# Title\n\nText.\n"), ("code", "x = 1\nx")]
    assert nbt.check(path) == []
    script.write_text(script.read_text().replace("x = 1", "x = 2"))
    assert any("differs from src/04_script.py" in p for p in nbt.check(path))


def test_figures_dir_respects_env(tmp_path, monkeypatch):
    monkeypatch.setenv("MCE_KIT_FIGURES", str(tmp_path / "figs"))
    assert nbt.figures_dir() == tmp_path / "figs" and (tmp_path / "figs").is_dir()
    monkeypatch.delenv("MCE_KIT_FIGURES")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "notebooks").mkdir()
    monkeypatch.chdir(tmp_path / "notebooks")
    assert nbt.figures_dir() == tmp_path / "figures"


def test_reproduce_runs_and_summarises(tmp_path):
    nbt.build(CELLS, tmp_path / "98_ok.ipynb")
    nbt.build([("md", "# Fails"), ("code", "raise ValueError('on purpose')")], tmp_path / "99_fail.ipynb")
    figures, build = tmp_path / "figures", tmp_path / "build"
    argv = ["--quick", "--notebooks", str(tmp_path), "--figures", str(figures), "--build", str(build)]
    assert reproduce.main(argv) == 1
    summary = json.loads((figures / "run_summary.json").read_text())
    ok, failed = summary["notebooks"]
    assert ok["status"] == "ok" and ok["figures"] == ["99_note.txt"]
    assert (figures / "99_note.txt").read_text() == "True"  # --quick reached the kernel
    assert failed["status"] == "failed" and "ValueError: on purpose" in failed["error"]
    assert "| 99_fail | failed" in (figures / "run_summary.md").read_text()
    assert (build / "98_ok.ipynb").is_file()
    assert reproduce.main(argv + ["--only", "98_*"]) == 0
    assert reproduce.main(argv + ["--only", "nothing-matches"]) == 2


# ------------------------------------------------------------ digits in prose

RDMCE = nbt.paper_numbers("rdmce")


@pytest.mark.parametrize(
    "text",
    [
        "ours took 16.3 ms",  # a measured time
        "the load is 1.82 here",  # a measured ratio
        "about 1.5x faster",  # a ratio written with x
        "saves 13%",  # a percentage
        "see `1.82` in the table",  # a bare number in a code span still counts
        "ego-Facebook has 869,325,384 cliques",  # close to the paper's number is not the paper's number
    ],
)
def test_digit_rule_flags_typed_numbers(text):
    assert nbt.digit_problems(text, RDMCE)


@pytest.mark.parametrize(
    "text",
    [
        "the paper's best tau is 24 and 4.83x on 8 GPUs",  # the paper's own numbers
        "ego-Facebook: 869,325,383 maximal cliques (Table 1)",
        "Fig 12, Tables 1 and 3, §4.2, Example 4.1, notebook 10, level 3, step 5",  # references
        "run with K=8, tau = 24, warps_per_sm=12 and K = 4..8",  # parameter settings
        "H100 and H200, L1+WL, G0, soc-Slashdot0902, a 2-hop union, 64-bit words",  # names
        "[10_rdmce](10_rdmce.ipynb) and <https://example.org/v1.2>",  # links
        "`python -m mce_kit.bench --repeats 7` on `{0, 1, 2}`; $O(d^2)$",  # code and math spans
        "## 3. Method\n\n1. first\n2. second",  # heading and list numbering
        "as shown by Tomita et al. (2006)",  # a citation year
        "## References\n\n- Bron, Kerbosch. CACM 16(9), 1973.",  # bibliography
    ],
)
def test_digit_rule_allows_names_references_and_paper_numbers(text):
    assert nbt.digit_problems(text, RDMCE) == []


def test_digit_rule_paper_numbers_are_per_paper():
    assert nbt.digit_problems("4.83x on 8 GPUs", nbt.paper_numbers("rdmce")) == []
    assert nbt.digit_problems("4.83x on 8 GPUs", nbt.paper_numbers("kcminer")) == ["4.83"]
    assert nbt.paper_numbers("kcminer") <= nbt.paper_numbers()


def test_check_flags_a_typed_number_in_markdown(tmp_path):
    path = tmp_path / "10_typed.ipynb"
    nbt.build([("md", "# T\n\nOurs runs 1.21x faster than the paper."), ("code", "1 + 1")], path)
    assert any("1.21" in p and "markdown" in p for p in nbt.check(path))
    nbt.build([("md", "# T\n\nThe paper: 1.03-69.61x (Fig 8)."),
               ("code", "from IPython.display import Markdown\nMarkdown(f'ours: {1.21}x')")], path)
    assert nbt.check(path) == []


FIGURES_MD = Path(__file__).resolve().parents[2] / "shared" / "papers" / "FIGURES.md"


@pytest.mark.skipif(not FIGURES_MD.is_file(), reason="FIGURES.md is beside the checkout only")
def test_paper_numbers_come_from_figures_md():
    """Every number the data file credits to FIGURES.md is written there, in that paper's section."""
    import csv
    import re

    text = FIGURES_MD.read_text(encoding="utf-8")
    sections = dict(zip(["rdmce", "mcegpu", "kcminer", "gmbe", "geil"], re.split(r"\n## \d\. ", text)[1:],
                        strict=True))
    with nbt.PAPER_NUMBERS.open(encoding="utf-8") as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    assert rows
    for r in rows:
        if r["source"] == "FIGURES.md":
            sec = sections[r["paper"]]  # "4,039" is one number, "8,16,32,64,128" five: read both ways
            numbers = re.findall(r"(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?", sec)
            numbers += re.findall(r"\d+(?:\.\d+)?", sec)
            found = {float(n.replace(",", "")) for n in numbers}
            assert float(r["number"]) in found, r
