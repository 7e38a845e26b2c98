"""Run every numbered notebook headless: ``python -m mce_kit.reproduce [--quick] [--only PATTERN]``.

Each ``notebooks/NN_*.ipynb`` runs in order in a fresh kernel, with the
working directory set to ``notebooks/`` (where Jupyter would start it).
The kernel is always this Python (``sys.executable``) running ipykernel, so
a user-level ``python3`` kernelspec can never send the run to another
environment.

- executed copies go to ``build/notebooks/``; the sources are never touched;
- notebooks save figures in ``figures/`` (``$MCE_KIT_FIGURES`` is set for them);
- ``figures/run_summary.md`` and ``.json`` record, per notebook, the status,
  seconds, slowest cells and figures written, plus date, commit and GPU;
- ``figures/reproduction.md``: the state of every item of the five papers
  (``mce_kit.reproduction``), read from the committed results;
- ``--quick`` sets ``MCE_KIT_QUICK=1`` (``mce_kit.quick_mode()``): CI-sized inputs.

The exit status is 1 when any notebook fails.
"""

from __future__ import annotations

import fnmatch
import json
import os
import platform
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class CellTime:
    index: int
    seconds: float
    first_line: str


@dataclass
class NotebookRun:
    name: str
    status: str  # "ok" or "failed"
    seconds: float
    cells: list[CellTime] = field(default_factory=list)
    figures: list[str] = field(default_factory=list)
    error: str | None = None

    def slowest(self, n: int = 3) -> list[CellTime]:
        return sorted(self.cells, key=lambda c: -c.seconds)[:n]


def find_notebooks(folder, only: str | None = None) -> list[Path]:
    """Numbered notebooks in order; ``only`` is a glob (``1?_*``) or a substring (``rdmce``)."""
    paths = sorted(Path(folder).glob("[0-9][0-9]_*.ipynb"))
    if only:
        wild = any(ch in only for ch in "*?[")
        paths = [p for p in paths if (fnmatch.fnmatch(p.name, only) if wild else only in p.name)]
    return paths


def kernel_manager():
    """A kernel manager whose ``python3`` kernel is ipykernel on this interpreter."""
    from jupyter_client.kernelspec import KernelSpec, KernelSpecManager
    from jupyter_client.manager import AsyncKernelManager

    class ThisPython(KernelSpecManager):
        def get_kernel_spec(self, kernel_name):
            argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
            return KernelSpec(argv=argv, display_name="Python 3", language="python")

    return AsyncKernelManager(kernel_name="python3", kernel_spec_manager=ThisPython())


def _snapshot(folder: Path) -> dict[str, int]:
    return {str(p.relative_to(folder)): p.stat().st_mtime_ns for p in folder.rglob("*") if p.is_file()}


def execute(path, *, quick=False, figures=None, out=None, timeout=900) -> NotebookRun:
    """Execute one notebook; never raises for a failing cell (see ``NotebookRun.status``).

    ``figures`` is the folder handed to the notebook as ``$MCE_KIT_FIGURES``
    (default ``figures/`` at the repo root); the executed copy goes to ``out``
    when given. ``timeout`` is per cell, in seconds.
    """
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

    path = Path(path).resolve()
    figures = Path(figures or ROOT / "figures").resolve()
    figures.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, MCE_KIT_FIGURES=str(figures), PYDEVD_DISABLE_FILE_VALIDATION="1")
    if quick:
        env["MCE_KIT_QUICK"] = "1"

    nb = nbformat.read(path, as_version=4)
    cells: list[CellTime] = []
    started: dict[int, float] = {}

    def on_start(cell, cell_index):
        started[cell_index] = time.perf_counter()

    def on_done(cell, cell_index, execute_reply):
        first = next((ln for ln in cell.source.splitlines() if ln.strip()), "")
        cells.append(CellTime(cell_index, time.perf_counter() - started[cell_index], first[:60]))

    client = NotebookClient(
        nb,
        km=kernel_manager(),
        timeout=timeout,
        startup_timeout=120,
        extra_arguments=["--IPKernelApp.log_level=ERROR"],  # not the localhost-TCP warning
        on_cell_start=on_start,
        on_cell_executed=on_done,
    )
    before = _snapshot(figures)
    t0 = time.perf_counter()
    error = None
    try:
        client.execute(cwd=str(path.parent), env=env)
    except CellExecutionError as e:
        error = _short_error(e, cells)
    except (CellTimeoutError, DeadKernelError, RuntimeError) as e:
        error = f"{type(e).__name__}: {str(e).strip().splitlines()[-1] if str(e).strip() else ''}"
    seconds = time.perf_counter() - t0
    after = _snapshot(figures)
    written = sorted(f for f, t in after.items() if before.get(f) != t and not f.startswith("run_summary"))
    if out:
        Path(out).mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, Path(out) / path.name)
    return NotebookRun(path.stem, "failed" if error else "ok", seconds, cells, written, error)


def _short_error(e, cells: list[CellTime]) -> str:
    where = f"cell {cells[-1].index}: " if cells else ""
    return f"{where}{e.ename}: {e.evalue}"


def _git_commit() -> str:
    def git(*args):
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True)

    try:
        head, dirty = git("rev-parse", "--short", "HEAD"), git("status", "--porcelain")
    except OSError:
        return "unknown"
    if head.returncode:
        return "unknown"
    return head.stdout.strip() + ("-dirty" if dirty.stdout.strip() else "")


def _gpu_present() -> bool | None:
    """Whether mce_kit sees a GPU; None when that cannot be asked (no GPU module yet)."""
    try:
        import mce_kit as mk

        return bool(mk.has_gpu())
    except Exception:
        return None


def write_summary(runs: list[NotebookRun], folder: Path, meta: dict) -> None:
    """``run_summary.json`` (everything) and ``run_summary.md`` (a table) in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    data = {**meta, "notebooks": [asdict(r) for r in runs]}
    (folder / "run_summary.json").write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")

    gpu = {True: "yes", False: "no", None: "unknown"}[meta["gpu"]]
    lines = [
        "# Run summary",
        "",
        f"{meta['date']} · commit `{meta['commit']}` · GPU: {gpu} · quick: {meta['quick']} · "
        f"Python {meta['python']} · {meta['cpus']} CPUs · {meta['seconds']:.0f} s in all",
        "",
        "| notebook | status | seconds | slowest cells (s) | figures |",
        "|---|---|---:|---|---|",
    ]
    for r in runs:
        slow = "<br>".join(f"{c.index}: {c.seconds:.1f} `{c.first_line}`" for c in r.slowest())
        status = (r.status if not r.error else f"{r.status}: {r.error}").replace("|", "/")
        lines.append(f"| {r.name} | {status} | {r.seconds:.1f} | {slow} | {', '.join(r.figures)} |")
    (folder / "run_summary.md").write_text("\n".join(lines) + "\n", encoding="utf-8")


def main(argv=None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m mce_kit.reproduce", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="CI-sized inputs (MCE_KIT_QUICK=1)")
    parser.add_argument("--only", metavar="PATTERN", help="glob (1?_*) or substring (rdmce)")
    parser.add_argument("--notebooks", type=Path, default=ROOT / "notebooks", help="folder of notebooks")
    parser.add_argument("--figures", type=Path, default=None, help="default $MCE_KIT_FIGURES or figures/")
    parser.add_argument("--build", type=Path, default=ROOT / "build" / "notebooks", help="executed copies")
    parser.add_argument("--timeout", type=int, default=900, help="seconds per cell")
    args = parser.parse_args(argv)

    figures = args.figures or Path(os.environ.get("MCE_KIT_FIGURES") or ROOT / "figures")
    paths = find_notebooks(args.notebooks, args.only)
    if not paths:
        print(f"no notebooks matching {args.only or 'NN_*.ipynb'} in {args.notebooks}", file=sys.stderr)
        return 2

    t0 = time.perf_counter()
    runs = []
    for i, path in enumerate(paths, 1):
        print(f"[{i}/{len(paths)}] {path.name} ...", end=" ", flush=True)
        run = execute(path, quick=args.quick, figures=figures, out=args.build, timeout=args.timeout)
        print(f"{run.status} ({run.seconds:.1f} s)" + (f"\n    {run.error}" if run.error else ""), flush=True)
        runs.append(run)

    meta = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "commit": _git_commit(),
        "gpu": _gpu_present(),
        "quick": args.quick,
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "seconds": round(time.perf_counter() - t0, 1),
    }
    write_summary(runs, Path(figures), meta)
    from .reproduction import scoreboard, write_markdown

    board = write_markdown(scoreboard(), Path(figures) / "reproduction.md")
    print(f"reproduction scoreboard: {board}")
    failed = [r.name for r in runs if r.status != "ok"]
    print(
        f"{len(runs) - len(failed)}/{len(runs)} notebooks ok in {meta['seconds']:.0f} s; "
        f"summary in {Path(figures) / 'run_summary.md'}"
    )
    if failed:
        print("failed: " + ", ".join(failed), file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
