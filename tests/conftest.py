"""The test session keeps loaded graphs (``io.graph_cache_dir``) in a temporary folder of its own."""

import os
import tempfile

os.environ.setdefault("MCE_KIT_GRAPH_CACHE", tempfile.mkdtemp(prefix="mce_kit_graphs_"))
