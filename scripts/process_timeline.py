"""Where one ``mce-kit`` process spends its wall time: the CLI runs in this interpreter while a thread
samples every thread's stack (sys._current_frames) every ``--every-ms``; prints the time from the
process's start to the sampler's, the main thread's time per outermost import and per mce_kit
function (inclusive), its leaf functions (self), and when the GPU probe thread finished each step.

    python scripts/process_timeline.py [--every-ms 0.5] count FILE [CLI ARGS ...]

Run through ``scripts/process_timeline.py --spawn ...`` to also get the interpreter's start-up: a
parent times the child from before its spawn to its exit (perf_counter is CLOCK_MONOTONIC, shared)."""
# ruff: noqa: E402  (the sampler starts before anything is imported)
import sys
import threading
import time

T0 = time.perf_counter()
SAMPLES = []   # (t, thread name, frames outermost first as (file, function))


def _sampler(every_s: float, stop: threading.Event) -> None:
    me = threading.get_ident()
    while not stop.is_set():
        t = time.perf_counter()
        names = {th.ident: th.name for th in threading.enumerate()}
        for ident, frame in sys._current_frames().items():
            if ident == me:
                continue
            stack = []
            while frame is not None:
                stack.append((frame.f_code.co_filename, frame.f_code.co_name))
                frame = frame.f_back
            SAMPLES.append((t, names.get(ident, str(ident)), stack[::-1]))
        time.sleep(every_s)


def _short(path: str) -> str:
    for cut in ("/mce_kit/", "/site-packages/", "/lib/python3"):
        if cut in path:
            return path.split(cut, 1)[1]
    return path


def _report(t_end: float, spawn_t: float | None) -> None:
    from collections import Counter

    main = [(t, s) for t, name, s in SAMPLES if name == "MainThread"]
    dt = (t_end - T0) / max(1, len(main))
    if spawn_t is not None:
        print(f"interpreter start (spawn to sampler): {1e3 * (T0 - spawn_t):.1f} ms")
    print(f"sampled: {1e3 * (t_end - T0):.1f} ms, {len(main)} main-thread samples ({1e3 * dt:.2f} ms each)")
    imports, funcs, leaves = Counter(), Counter(), Counter()
    for _, stack in main:
        mods = [f for f, fn in stack if fn == "<module>" and not f.endswith("process_timeline.py")]
        if mods:
            imports[_short(mods[0])] += 1
        seen = set()
        for f, fn in stack:
            if "/mce_kit/" in f and fn != "<module>" and not f.endswith(("cli.py", "process_timeline.py")):
                key = f"{_short(f)}:{fn}"
                if key not in seen:
                    seen.add(key)
                    funcs[key] += 1
        if stack:
            leaves[f"{_short(stack[-1][0])}:{stack[-1][1]}"] += 1
    for title, counts, top in (("outermost import (inclusive)", imports, 15),
                               ("mce_kit function (inclusive)", funcs, 30), ("leaf (self)", leaves, 25)):
        print(f"-- main thread, {title}")
        for key, c in counts.most_common(top):
            print(f"  {1e3 * c * dt:8.1f} ms  {key}")
    others = {name for _, name, _ in SAMPLES if name != "MainThread"}
    for name in sorted(others):
        rows = [(t, s) for t, n, s in SAMPLES if n == name]
        print(f"-- thread {name}: from {1e3 * (rows[0][0] - T0):.1f} to {1e3 * (rows[-1][0] - T0):.1f} ms")
        last = None
        for t, stack in rows:
            where = next((f"{_short(f)}:{fn}" for f, fn in reversed(stack) if "/mce_kit/" in f), "?")
            if where != last:
                print(f"  {1e3 * (t - T0):8.1f} ms  {where}")
                last = where


def main() -> None:
    args = sys.argv[1:]
    if args and args[0] == "--spawn":
        import subprocess

        t = time.perf_counter()
        subprocess.run([sys.executable, __file__, "--spawned", repr(t), *args[1:]], check=True)
        print(f"whole process (spawn to exit, seen by the parent): {1e3 * (time.perf_counter() - t):.1f} ms")
        return
    spawn_t = None
    if args and args[0] == "--spawned":
        spawn_t, args = float(args[1]), args[2:]
    every = 0.5
    if args and args[0] == "--every-ms":
        every, args = float(args[1]), args[2:]
    stop = threading.Event()
    threading.Thread(target=_sampler, args=(every / 1e3, stop), name="sampler", daemon=True).start()
    from mce_kit import cli

    rc = cli.main(args)
    t_end = time.perf_counter()
    stop.set()
    sys.stdout.flush()
    _report(t_end, spawn_t)
    sys.exit(rc)


if __name__ == "__main__":
    main()
