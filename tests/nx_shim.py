"""Backend registration for the tests: ``mce_kit.nx_backend.register`` (a no-op after
``pip install -e .``; otherwise a temporary dist-info with our entry points)."""

from mce_kit.nx_backend import ENTRY_POINTS, register


def ensure_registered():
    """Register the backend in this process; returns the folder to put on a subprocess's PYTHONPATH."""
    return register()


__all__ = ["ENTRY_POINTS", "ensure_registered"]
