"""Run-wide settings read from the environment."""

import os


def usable_cores() -> int:
    """CPU cores this process may run on (its affinity mask on Linux, else the machine's count)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:                      # not on Linux
        return os.cpu_count() or 1


def quick_mode() -> bool:
    """True when MCE_KIT_QUICK=1: notebooks and experiments use CI-sized inputs."""
    return os.environ.get("MCE_KIT_QUICK", "0") not in ("", "0", "false", "False")
