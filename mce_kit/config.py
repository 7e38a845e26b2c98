"""Run-wide settings read from the environment."""

import os


def quick_mode() -> bool:
    """True when MCE_KIT_QUICK=1: notebooks and experiments use CI-sized inputs."""
    return os.environ.get("MCE_KIT_QUICK", "0") not in ("", "0", "false", "False")
