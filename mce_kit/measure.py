"""How every kernel is measured: provenance, timed repeats checked against a reference, streamed CSVs.

A GPU launcher module (``mce_kit.gpu.<algorithm>``) follows one protocol:
``prepare(G)`` does the untimed host work and returns an object whose
``run(**params)`` gives a result with ``.answer`` (a count, or a tuple such as
(omega, number of maximum cliques)), ``.gpu_ms`` (CUDA events, graph on the
host -> answer back), ``.params`` and ``.row()`` (extra flat columns).
``measure`` times such an object; ``mce_kit.bench`` and the
``mce_kit.experiments.<paper>`` modules both build on it.
"""

from __future__ import annotations

import datetime as dt
import os
import statistics
import subprocess
import time
import traceback
from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from .references import RESULTS, problem


def provenance() -> dict:
    """GPU, SMs, driver, commit and date, attached to every result row."""
    from .gpu import device_info

    commit = os.environ.get("MCE_KIT_COMMIT", "")  # set it where the checkout has no .git
    try:
        commit = commit or subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                                          text=True, cwd=Path(__file__).parent, timeout=5).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        commit = ""
    date = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    return {**device_info(), "commit": commit or "unknown", "date": date}


class WrongAnswer(AssertionError):
    """A run's answer differs from the reference or from the other runs."""


CLOCK_WARMUP_S = 0.3   # an idle H200 sits at 345 of 1980 MHz: its clocks rise while it works


def warm_clocks(run, seconds: float = CLOCK_WARMUP_S) -> list[float]:
    """Call ``run()`` (at least once) until ``seconds`` have passed, so the GPU's clocks have risen
    before a timed series: sub-millisecond calls timed from idle moved by up to 2x between rounds
    (``data/results/logs/warm_split_h200_a77415b.log``). Returns each call's seconds."""
    spent, seen = time.perf_counter(), []
    while not seen or time.perf_counter() - spent < seconds:
        t0 = time.perf_counter()
        run()
        seen.append(time.perf_counter() - t0)
    return seen


def cold_calls(call, load, repeats: int, sync=None, expect=None) -> tuple[list, list[float], object]:
    """(answers, milliseconds, the last graph) of ``repeats`` cold calls: ``call`` on a fresh ``load()``
    each time, with nothing kept before it (``prepared.release()``: kept state and CuPy's cached
    blocks); ``sync()`` (a GPU's) before the clock starts and before it stops. The last graph keeps
    what its call prepared. ``expect``: every answer must equal it (else ``WrongAnswer``)."""
    from . import prepared

    answers, ms = [], []
    for _ in range(repeats):
        prepared.release()
        G = load()
        if sync:
            sync()
        t0 = time.perf_counter()
        answers.append(call(G))
        if sync:
            sync()
        ms.append((time.perf_counter() - t0) * 1e3)
    if expect is not None and any(a != expect for a in answers):
        raise WrongAnswer(f"cold calls: answers {answers} (expected {expect})")
    return answers, ms, G


def measure(prep, problem_name: str, repeats: int = 5, warmup: int = 1, expect=None, **params) -> dict:
    """Median of ``repeats`` timed runs after ``warmup`` untimed ones; every answer must agree.

    ``expect`` is the reference answer; without one every run must give the
    first run's answer, and the row says it was only checked for consistency.
    """
    p = problem(problem_name)
    for _ in range(warmup):
        prep.run(**params)
    runs = [prep.run(**params) for _ in range(repeats)]
    answers = [r.answer for r in runs]
    want = answers[0] if expect is None else expect
    if any(a != want for a in answers):
        raise WrongAnswer(f"{problem_name}: answers {answers} (expected {want}) for {params}")
    times = sorted(r.gpu_ms for r in runs)
    sample = runs[len(runs) // 2]  # one run's counters
    return {
        **sample.params,
        **p.split(want),
        "checked": "reference" if expect is not None else "consistent",
        "median_ms": statistics.median(times),
        "min_ms": times[0],
        "max_ms": times[-1],
        "times_ms": [round(t, 4) for t in (r.gpu_ms for r in runs)],
        "repeats": repeats,
        "prep_s": round(getattr(prep, "prep_s", 0.0), 4),
        **sample.row(),
    }


def names(values) -> list[str] | None:
    """``--only a b,c`` style command-line values as one list (spaces or commas), None when empty."""
    out = [x for v in values or () for x in str(v).split(",") if x]
    return out or None


def append_rows(table: pd.DataFrame, path: Path) -> None:
    """``table`` added after the rows already in ``path`` (those read back as text, as written)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists():
        table = pd.concat([pd.read_csv(path, dtype=str, keep_default_na=False), table.astype(str)],
                          ignore_index=True)
    table.to_csv(path, index=False)


def write_rows(parts: Iterable[pd.DataFrame], path: Path, provenance: dict) -> pd.DataFrame:
    """Append each DataFrame of ``parts`` to ``path`` (with provenance columns) as it arrives,
    so a run cut off by a GPU lease keeps what it measured."""
    path.unlink(missing_ok=True)
    done = []
    for part in parts:
        part = part.assign(**{k: v for k, v in provenance.items() if k not in part.columns})
        if done and list(part.columns) != list(done[0].columns):
            raise ValueError(f"{path}: a row with columns {list(part.columns)} does not fit the table")
        part.to_csv(path, mode="a", header=not done, index=False)
        done.append(part)
    return pd.concat(done, ignore_index=True) if done else pd.DataFrame()


def run_jobs(paper: str, jobs: dict, out_dir: Path, provenance: dict, only=None, skip=(),
             keep_going: bool = False) -> dict[str, pd.DataFrame]:
    """Run each experiment of ``jobs`` (name -> callable yielding DataFrames) into
    ``out_dir/<paper>_<name>.csv``, rows written as they come. ``only`` picks some jobs,
    ``skip`` names opt-in ones left out unless picked; ``keep_going`` logs a failing job
    and goes on to the next (a GPU lease spent on the others is not lost)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    frames = {}
    for key, job in jobs.items():
        if (only and key not in only) or (not only and key in skip):
            continue
        t0 = time.perf_counter()
        try:
            frames[key] = write_rows(job(), out_dir / f"{paper}_{key}.csv", provenance)
        except Exception:
            if not keep_going:
                raise
            traceback.print_exc()
            continue
        print(f"{paper}_{key}.csv: {len(frames[key])} rows, {time.perf_counter() - t0:.1f} s", flush=True)
    return frames


def load_results(paper: str, name: str, results: Path = RESULTS) -> pd.DataFrame:
    """A committed result table ``data/results/<paper>_<name>.csv``."""
    path = results / f"{paper}_{name}.csv"
    if not path.exists():
        raise FileNotFoundError(f"{path}: no committed {paper} results; run "
                                f"`python -m mce_kit.experiments.{paper} --out data/results` on a GPU")
    return pd.read_csv(path)


# --------------------------------------------------------------- provenance of committed tables


def _dates(df: pd.DataFrame) -> str:
    dates = sorted({str(d)[:10] for d in df.get("date", pd.Series(dtype=str)).dropna()})
    return "" if not dates else dates[0] if len(dates) == 1 else f"{dates[0]}..{dates[-1]}"


def device_of(df: pd.DataFrame) -> str:
    """The device(s) a results table was measured on, from its provenance columns: the GPU name (with
    its SMs), else the CPU; "unknown" for a table without them."""
    if "gpu" in df and df["gpu"].notna().any():
        gpus = df[df["gpu"].notna()]
        sms = gpus["sms"].astype("Int64").astype(str) if "sms" in gpus else pd.Series("", index=gpus.index)
        names = [g if s in ("", "<NA>") else f"{g} ({s} SMs)" for g, s in zip(gpus["gpu"], sms, strict=True)]
        return ", ".join(dict.fromkeys(str(n) for n in names))
    for col in ("cpu", "host", "device"):
        if col in df and df[col].notna().any():
            return ", ".join(dict.fromkeys(str(x) for x in df[col].dropna()))
    return "unknown"


def where_measured(df: pd.DataFrame) -> str:
    """'device, date(s), commit(s)' of a results table, from the provenance columns every row carries."""
    if df.empty:
        return "no rows"
    commits = ", ".join(dict.fromkeys(str(c) for c in df.get("commit", pd.Series(dtype=str)).dropna()))
    parts = [device_of(df), _dates(df), f"commit {commits}" if commits else ""]
    return ", ".join(p for p in parts if p)


def provenance_table(tables, results: Path = RESULTS) -> pd.DataFrame:
    """One row per committed results table: its rows, device, commit(s) and date(s).

    ``tables`` holds file stems such as ``"gmbe_ablations"`` (read from ``results``) or maps a label to
    a DataFrame already loaded. A table not committed yet says so instead of failing."""
    items = tables.items() if isinstance(tables, dict) else ((t, None) for t in tables)
    rows = []
    for label, df in items:
        if df is None:
            path = results / f"{label}.csv"
            if not path.exists():
                rows.append({"table": f"{label}.csv", "rows": 0, "device": "not measured yet", "commit": "",
                             "date": ""})
                continue
            df, label = pd.read_csv(path), f"{label}.csv"
        commits = ", ".join(dict.fromkeys(str(c) for c in df.get("commit", pd.Series(dtype=str)).dropna()))
        rows.append({"table": label, "rows": len(df), "device": device_of(df), "commit": commits,
                     "date": _dates(df)})
    return pd.DataFrame(rows, columns=["table", "rows", "device", "commit", "date"]).set_index("table")
