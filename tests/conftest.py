"""The test session keeps loaded graphs (``io.graph_cache_dir``) in a temporary folder of its own,
removed when the session ends."""

import atexit
import os
import shutil
import tempfile

if "MCE_KIT_GRAPH_CACHE" not in os.environ:
    _cache = tempfile.mkdtemp(prefix="mce_kit_graphs_")
    os.environ["MCE_KIT_GRAPH_CACHE"] = _cache
    atexit.register(shutil.rmtree, _cache, ignore_errors=True)
