"""Notebook tools: one canonical format, a checker, a builder, and the figures folder.

    python -m mce_kit.notebooks check notebooks/   # list problems, exit 1 if any
    python -m mce_kit.notebooks fix notebooks/     # rewrite in canonical form
    python -m mce_kit.notebooks build notebooks/   # notebooks/src/NN_x.py -> notebooks/NN_x.ipynb

Canonical means: nbformat 4.5, a stable id on every cell, kernelspec
``python3`` ("Python 3"), ``language_info`` reduced to the language name,
no outputs or execution counts, and no metadata beyond cell tags.

A notebook may be written as a script in ``notebooks/src/NN_name.py`` using
the percent format (``# %%`` starts a code cell, ``# %% [markdown]`` a
markdown cell whose lines are ``#`` comments). ``build`` turns the script
into ``notebooks/NN_name.ipynb``; the checker fails when the two disagree.

Markdown carries no measured number: a digit in a markdown cell must be one of
the papers' own numbers (``paper_numbers.csv``, copied from FIGURES.md and the
paper texts) or one of a few forms that are names, not measurements (see
``digit_problems``). A number computed from the data is rendered by a code cell
(``IPython.display.Markdown``), so it changes when the CSVs do.

Only the standard library is imported at module level, so ``figures_dir``
works without the notebook packages (nbformat) installed.
"""

from __future__ import annotations

import ast
import csv
import functools
import hashlib
import json
import os
import re
import sys
import textwrap
from pathlib import Path

KERNELSPEC = {"name": "python3", "display_name": "Python 3", "language": "python"}
LANGUAGE_INFO = {"name": "python"}
NAME_RE = re.compile(r"^\d\d_[a-z0-9_]+\.ipynb$")
CELL_TYPES = {"md": "markdown", "markdown": "markdown", "code": "code"}


def figures_dir() -> Path:
    """Folder notebooks save figures in: ``$MCE_KIT_FIGURES``, else ``figures/`` at the repo root.

    The repo root is the nearest folder above the working directory that holds
    ``pyproject.toml``; without one, ``./figures``. The folder is created.
    """
    env = os.environ.get("MCE_KIT_FIGURES")
    if env:
        folder = Path(env)
    else:
        here = Path.cwd().resolve()
        root = next((p for p in (here, *here.parents) if (p / "pyproject.toml").is_file()), here)
        folder = root / "figures"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


# --------------------------------------------------------------------- format


def _cell_id(cell_type: str, source: str, taken: set[str]) -> str:
    """A short id derived from the content, so rebuilding a notebook keeps its ids."""
    base = hashlib.sha1(f"{cell_type}\n{source}".encode()).hexdigest()[:8]
    cid, i = base, 1
    while cid in taken:
        cid, i = f"{base}-{i}", i + 1
    taken.add(cid)
    return cid


def normalize(nb):
    """Return ``nb`` (a dict or NotebookNode) in canonical form, as a new NotebookNode."""
    import nbformat

    nb = nbformat.from_dict(nb)
    if nb.get("nbformat", 4) != 4:
        nb = nbformat.convert(nb, 4)
    taken: set[str] = set()
    cells = []
    for cell in nb.cells:
        source = "".join(cell.source) if isinstance(cell.source, list) else cell.source
        source = source.rstrip()
        cid = cell.get("id")
        if not cid or cid in taken or not re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", cid):
            cid = _cell_id(cell.cell_type, source, taken)
        else:
            taken.add(cid)
        new = {"cell_type": cell.cell_type, "id": cid, "metadata": {}, "source": source}
        if cell.get("metadata", {}).get("tags"):
            new["metadata"]["tags"] = list(cell.metadata.tags)
        if cell.cell_type == "code":
            new.update(outputs=[], execution_count=None)
        elif cell.get("attachments"):
            new["attachments"] = cell.attachments  # flagged by check(), never dropped silently
        cells.append(new)
    out = {
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": {"kernelspec": dict(KERNELSPEC), "language_info": dict(LANGUAGE_INFO)},
        "cells": cells,
    }
    return nbformat.from_dict(out)


def dumps(nb) -> str:
    """The canonical text of a notebook (what ``fix`` and ``build`` write)."""
    import nbformat

    text = nbformat.writes(normalize(nb), version=4)
    return text if text.endswith("\n") else text + "\n"


def from_cells(cells):
    """A canonical notebook from ``[("md" | "code", source), ...]``.

    Sources are dedented and stripped, so triple-quoted strings can be indented
    with the script that holds them.
    """
    import nbformat

    v4 = nbformat.v4
    nb = v4.new_notebook()
    for kind, source in cells:
        if kind not in CELL_TYPES:
            raise ValueError(f"cell kind must be 'md' or 'code', not {kind!r}")
        make = v4.new_markdown_cell if CELL_TYPES[kind] == "markdown" else v4.new_code_cell
        cell = make(textwrap.dedent(source).strip())
        del cell["id"]  # normalize() gives content-derived ids instead of random ones
        nb.cells.append(cell)
    return normalize(nb)


def build(cells, path):
    """Write ``from_cells(cells)`` to ``path``; return the notebook."""
    nb = from_cells(cells)
    Path(path).write_text(dumps(nb), encoding="utf-8")
    return nb


def read_script(path) -> list[tuple[str, str]]:
    """Cells of a percent-format script; anything before the first ``# %%`` is ignored."""
    cells: list[tuple[str, list[str]]] = []
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        if line.startswith("# %%"):
            cells.append(("md" if "[markdown]" in line else "code", []))
        elif cells:
            kind, lines = cells[-1]
            if kind == "md":
                line = line[2:] if line.startswith("# ") else line.lstrip("#")
            lines.append(line)
    return [(kind, "\n".join(lines)) for kind, lines in cells]


def script_for(notebook: Path) -> Path:
    """Where the source script of ``notebooks/NN_x.ipynb`` lives (it may not exist)."""
    return notebook.parent / "src" / f"{notebook.stem}.py"


def build_script(script) -> Path:
    """Build ``notebooks/src/NN_x.py`` into ``notebooks/NN_x.ipynb``; return the notebook path."""
    script = Path(script)
    target = script.parent.parent / f"{script.stem}.ipynb"
    build(read_script(script), target)
    return target


# ---------------------------------------------------------------------- check


def _masked(source: str) -> str:
    """Python source with IPython magics and shell escapes replaced by ``pass``."""
    if source.lstrip().startswith("%%"):
        return ""
    lines = []
    for line in source.splitlines():
        body = line.lstrip()
        if body.startswith(("%", "!")):
            line = line[: len(line) - len(body)] + "pass"
        lines.append(line)
    return "\n".join(lines)


def _code_problems(source: str) -> list[str]:
    """Rule violations in one code cell's source."""
    problems = []
    if re.search(r"\bsys\.path\b", source):
        problems.append("touches sys.path; install the package (pip install -e .) and import it")
    if re.search(r"^\s*%%writefile|RawKernel|RawModule|__global__", source, re.M):
        problems.append("holds CUDA code; kernels live in mce_kit/gpu/cuda/*.cu")
    if re.search(r"\bos\.chdir\(|^\s*%cd\b", source, re.M):
        problems.append("changes directory; notebooks run from notebooks/")
    try:
        tree = ast.parse(_masked(source))
    except SyntaxError as e:
        return [*problems, f"syntax error on line {e.lineno}: {e.msg}"]
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
            problems.append(f"star import from {node.module}")
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name == "mce_kit" and a.asname != "mk":
                    problems.append("import the package as `import mce_kit as mk`")
    return problems


# ------------------------------------------------------------- digits in prose

PAPER_NUMBERS = Path(__file__).with_name("paper_numbers.csv")
PAPER_OF_BLOCK = {"1": "rdmce", "2": "mcegpu", "3": "kcminer", "4": "gmbe", "5": "geil"}  # NN's first digit

_NUM = r"(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"
_NUMBER = re.compile(rf"(?<![\w.]){_NUM}")
_UNIT = re.compile(r"(?:x|×|%|ms|us|µs|s|h|min|[KMGT]i?B|[kMG])(?![A-Za-z])")  # a quantity, not a name
_REF = r"(?:\d+(?:\.\d+)*[a-z]?|[IVX]+)(?:\s*(?:,|and|or|to|-|–)\s*(?:\d+(?:\.\d+)*[a-z]?|[IVX]+))*"
# Forms whose digits name something rather than measure it (the short allow list):
_ALLOWED = [
    # a figure, table, section ... of a paper or a notebook: "Fig 12", "Tables 1 and 3", "§4.2", "level 3"
    re.compile(rf"\b(?:figs?|figures?|tables?|sections?|lemmas?|algorithms?|theorems?|examples?|eqs?"
               rf"|equations?|notebooks?|cells?|steps?|levels?|items?|lines?|rounds?|chapters?)\.?\s*{_REF}"
               rf"|§\s*{_REF}", re.I),
    # a parameter setting: "K=8", "tau = 24", "warps_per_sm=12", "K = 4..8"
    re.compile(rf"\b(?:k|tau|τ|warps_per_sm|warpPerSM|block_min|window|seed|repeats|h|λ|lambda|bound_height"
               rf"|bound_size)\s*(?:=|≤|≥|<=|>=|<|>)\s*{_NUM}(?:\s*(?:\.\.|–|-|,)\s*{_NUM})*", re.I),
    re.compile(r"\(\s*(?:19|20)\d\d[a-z]?\s*\)"),  # a citation's year: "(2023)"
    re.compile(r"^\s*(?:#{1,6}\s+)?\d+(?:\.\d+)*[.)]\s", re.M),  # heading and list numbering
]
_SPAN = re.compile(r"```.*?```|`[^`\n]*`|\$[^$\n]+\$", re.S)  # code and math spans
_LINK = re.compile(r"\]\([^)]*\)|<?https?://[^\s>)]+>?")
_REFERENCES = re.compile(r"^#{1,6}\s+(?:references|further reading)\b", re.I)


@functools.cache
def paper_numbers(paper: str | None = None) -> frozenset[float]:
    """The numbers a paper's notebook may quote in prose (all papers' when ``paper`` is None)."""
    with PAPER_NUMBERS.open(encoding="utf-8") as f:
        rows = csv.DictReader(line for line in f if not line.startswith("#"))
        return frozenset(float(r["number"]) for r in rows if paper in (None, r["paper"]))


def _drop_references(source: str) -> str:
    """Markdown without its References sections (bibliographic numbers: volumes, pages, years)."""
    keep, skipping = [], False
    for line in source.splitlines():
        if line.lstrip().startswith("#"):
            skipping = bool(_REFERENCES.match(line.strip()))
        if not skipping:
            keep.append(line)
    return "\n".join(keep)


def _span_text(match: re.Match) -> str:
    """Inside a code or math span, only a measured-looking number counts: a decimal or a ratio/percent."""
    body = match.group(0)
    hits = [m.group(0) for m in _NUMBER.finditer(body) if "." in m.group(0) or _UNIT.match(body, m.end())
            and body[m.end():m.end() + 1] in "x×%"]
    return " " + " ".join(hits) + " "


def digit_problems(source: str, allowed: frozenset[float]) -> list[str]:
    """Numbers in one markdown cell that are neither in ``allowed`` (the paper's numbers) nor an allowed form.

    Allowed without a paper: digits inside a name ("H100", "10_rdmce", "2-hop"), a reference to a
    figure, table, section, notebook or level ("Fig 12", "§3"), a parameter setting ("K=8",
    "tau = 24"), a citation year "(2023)", heading and list numbering, link targets, code and math
    spans (except a decimal or a ratio inside one), and References sections.
    """
    text = _drop_references(source)
    text = _LINK.sub("]", text)
    text = _SPAN.sub(_span_text, text)
    for form in _ALLOWED:
        text = form.sub(" ", text)
    found = []
    for m in _NUMBER.finditer(text):
        rest = text[m.end():]
        if (re.match(r"[A-Za-z_]|-[A-Za-z]", rest) and not _UNIT.match(rest)) or re.match(r"\.\w", rest):
            continue  # part of a name: "10_rdmce", "2-hop", "64-bit", "3rd"
        if float(m.group(0).replace(",", "")) not in allowed:
            found.append(m.group(0))
    return found


def check(path) -> list[str]:
    """Problems with one notebook, each as ``"name: message"``; empty when it is fine."""
    import nbformat

    path = Path(path)
    name = path.name
    problems = []
    if not NAME_RE.match(name):
        problems.append("name must look like NN_lower_snake.ipynb")
    text = path.read_text(encoding="utf-8")
    try:
        raw = json.loads(text)
        nb = nbformat.reads(text, as_version=4)
    except (ValueError, nbformat.reader.NotJSONError) as e:
        return [f"{name}: not a readable notebook ({e})"]
    try:
        nbformat.validate(raw)
    except nbformat.ValidationError as e:
        problems.append(f"invalid nbformat: {str(e).splitlines()[0]}")

    layout = []  # problems `fix` repairs
    if (raw.get("nbformat"), raw.get("nbformat_minor")) != (4, 5):
        layout.append(f"nbformat {raw.get('nbformat')}.{raw.get('nbformat_minor')}, expected 4.5")
    meta = raw.get("metadata", {})
    if meta.get("kernelspec") != KERNELSPEC:
        layout.append(f"kernelspec must be {KERNELSPEC}")
    if set(meta) - {"kernelspec", "language_info"} or meta.get("language_info") != LANGUAGE_INFO:
        layout.append("notebook metadata beyond kernelspec and language_info.name")
    for i, cell in enumerate(raw.get("cells", [])):
        where = f"cell {i}"
        if not cell.get("id"):
            layout.append(f"{where}: no cell id")
        if cell.get("outputs") or cell.get("execution_count") is not None:
            layout.append(f"{where}: committed outputs or execution count")
        if set(cell.get("metadata", {})) - {"tags"}:
            layout.append(f"{where}: cell metadata beyond tags")
    if layout or dumps(nb) != text:
        problems += layout or ["not in canonical form"]
        problems[-1] += " (run: python -m mce_kit.notebooks fix)"

    allowed = paper_numbers(PAPER_OF_BLOCK.get(name[:1]))
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown" and (cell.get("attachments") or "data:image" in cell.source):
            problems.append(f"cell {i}: image pasted into markdown; save it under figures/ instead")
        if cell.cell_type == "markdown":
            numbers = digit_problems(cell.source, allowed)
            if numbers:
                typed = ", ".join(dict.fromkeys(numbers))
                problems.append(f"cell {i}: number(s) {typed} typed into markdown; quote only the paper's "
                                "numbers, render measured ones from a code cell")
        if cell.cell_type == "code":
            problems += [f"cell {i}: {p}" for p in _code_problems(cell.source)]
    first = nb.cells[0] if nb.cells else None
    if first is None or first.cell_type != "markdown" or not first.source.startswith("# "):
        problems.append("first cell must be markdown starting with a '# ' title")

    script = script_for(path)
    if script.is_file() and dumps(from_cells(read_script(script))) != text:
        src = f"{script.parent.name}/{script.name}"
        problems.append(f"differs from {src} (run: python -m mce_kit.notebooks build)")
    return [f"{name}: {p}" for p in problems]


def fix(path) -> bool:
    """Rewrite ``path`` in canonical form; True when it changed."""
    import nbformat

    path = Path(path)
    text = path.read_text(encoding="utf-8")
    new = dumps(nbformat.reads(text, as_version=4))
    if new != text:
        path.write_text(new, encoding="utf-8")
    return new != text


def notebooks_in(target) -> list[Path]:
    """The numbered notebooks in a folder (or the one file given)."""
    target = Path(target)
    if target.is_file():
        return [target]
    return sorted(target.glob("[0-9][0-9]_*.ipynb"))


def main(argv=None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m mce_kit.notebooks", description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["check", "fix", "build"])
    parser.add_argument("paths", nargs="*", default=["notebooks"], help="notebooks or folders")
    args = parser.parse_args(argv)

    if args.command == "build":
        scripts = []
        for p in map(Path, args.paths):
            scripts += [p] if p.suffix == ".py" else sorted((p / "src").glob("[0-9][0-9]_*.py"))
        for script in scripts:
            print(f"built {build_script(script)}")
        return 0

    paths = [nb for p in args.paths for nb in notebooks_in(p)]
    if args.command == "fix":
        for p in paths:
            if fix(p):
                print(f"fixed {p}")
    problems = [msg for p in paths for msg in check(p)]
    print("\n".join(problems) or f"{len(paths)} notebook(s) ok")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
