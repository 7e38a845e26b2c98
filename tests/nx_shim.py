"""Make networkx see the mce_kit backend even where the package was installed before its
entry points existed (an old editable install, or a checkout copied to a GPU box without pip).

``ensure_registered()`` writes a minimal ``*.dist-info`` with our two entry points into a
temporary folder on ``sys.path`` (only when the installed metadata lacks them) and tells an
already imported networkx about the backend, as networkx's own conftest does for its
loopback backend. It returns the folder (or None) to put on a subprocess's PYTHONPATH.
"""

from __future__ import annotations

import importlib
import sys
import tempfile
from importlib.metadata import entry_points
from pathlib import Path

ENTRY_POINTS = """[networkx.backends]
mce_kit = mce_kit.nx_backend:BackendInterface

[networkx.backend_info]
mce_kit = mce_kit.nx_backend:backend_info
"""

_SHIM: list[Path] = []


def shim_dir() -> Path | None:
    """A folder holding the entry-point metadata, or None when the installed package has it."""
    if entry_points(group="networkx.backends", name="mce_kit") and not _SHIM:
        return None
    if not _SHIM:
        root = Path(tempfile.mkdtemp(prefix="mce_kit_nx_shim_"))
        info = root / "mce_kit_nx_shim-0.0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text("Metadata-Version: 2.1\nName: mce_kit_nx_shim\nVersion: 0.0\n")
        (info / "entry_points.txt").write_text(ENTRY_POINTS)
        _SHIM.append(root)
    return _SHIM[0]


def ensure_registered() -> Path | None:
    """Register the backend with networkx in this process; returns ``shim_dir()``."""
    root = shim_dir()
    if root is not None and str(root) not in sys.path:
        sys.path.append(str(root))
        importlib.invalidate_caches()
    import networkx as nx
    from networkx.utils import backends

    if "mce_kit" not in backends.backends:
        backends.backends.update(backends._get_backends("networkx.backends"))
        info = backends._get_backends("networkx.backend_info", load_and_call=True)
        backends.backend_info.update(info)
        cfg = info["mce_kit"]["default_config"]
        nx.config.backends = nx.utils.Config(mce_kit=nx.utils.Config(**cfg), **nx.config.backends)
        backends._dispatchable.__call__ = backends._dispatchable._call_if_any_backends_installed
    return root
