"""Run-wide settings read from the environment, and how a kept file is written."""

import os
import threading
from pathlib import Path


def usable_cores() -> int:
    """CPU cores this process may run on (its affinity mask on Linux, else the machine's count)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:                      # not on Linux
        return os.cpu_count() or 1


def available_bytes() -> int:
    """Memory the machine has available now (MemAvailable on Linux, else free pages, else a large
    number): what a search may fill before it is refused."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return 1 << 62


def quick_mode() -> bool:
    """True when MCE_KIT_QUICK=1: notebooks and experiments use CI-sized inputs."""
    return os.environ.get("MCE_KIT_QUICK", "0") not in ("", "0", "false", "False")


def write_text_atomic(path: Path, text: str) -> None:
    """``path`` holding ``text``: written beside it under a name of this thread's own, then renamed
    over it, so no reader, in this process or another, sees it half written. OSError as the file
    system gives it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        tmp.write_text(text)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
