"""Every CUDA source compiles with NVRTC (no GPU needed), so CI catches kernel errors."""

import pytest

from mce_kit.gpu import loader

pytest.importorskip("cupy_backends.cuda.libs.nvrtc")


def test_sources_are_shipped():
    assert {"degree.cu", "rdmce.cu"} <= set(loader.cuda_sources())


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
@pytest.mark.parametrize("name", loader.cuda_sources())
def test_compiles(name, arch):
    ptx = loader.compile_ptx(name, arch, )
    assert ".entry" in ptx


def test_compile_error_is_reported(tmp_path, monkeypatch):
    monkeypatch.setattr(loader, "read_source", lambda name: "__global__ void k() { undeclared(); }")
    with pytest.raises(RuntimeError, match="undeclared"):
        loader.compile_ptx("broken.cu", "sm_90")


def test_includes_are_inlined_once():
    src = loader.read_source("rdmce.cu")
    assert "#include" not in src
    assert src.count("typedef unsigned int u32;") == 1
