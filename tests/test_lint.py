"""The code base stays ruff clean (the rules are in pyproject.toml)."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_clean():
    out = subprocess.run([sys.executable, "-m", "ruff", "check", "mce_kit", "tests", "notebooks/src"],
                         cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
