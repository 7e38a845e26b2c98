"""Every CUDA source compiles with NVRTC (no GPU needed), so CI catches kernel errors."""

import pytest

from mce_kit.gpu import loader

pytest.importorskip("cupy_backends.cuda.libs.nvrtc")


def test_sources_are_shipped():
    assert {"degree.cu", "rdmce.cu"} <= set(loader.cuda_sources())


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
@pytest.mark.parametrize("name", loader.cuda_sources())
def test_compiles(name, arch):
    ptx, _ = loader.compile_ptx(name, arch)
    assert ".entry" in ptx


def test_template_instantiations_get_their_mangled_names():
    exprs = ("fill_value<float>", "fill_value<long long>")
    ptx, lowered = loader.compile_ptx("degree.cu", "sm_90", name_expressions=exprs)
    assert set(lowered) == set(exprs)
    for mangled in lowered.values():
        assert f".entry {mangled}(" in ptx


def test_defines_reach_the_compiler():
    ptx, _ = loader.compile_ptx("rdmce.cu", "sm_90", defines={"MIN_BLOCKS": 4})
    assert ".minnctapersm 4" in ptx


def test_compile_error_is_reported(tmp_path, monkeypatch):
    monkeypatch.setattr(loader, "read_source", lambda name: "__global__ void k() { undeclared(); }")
    with pytest.raises(RuntimeError, match="undeclared"):
        loader.compile_ptx("broken.cu", "sm_90")


def test_includes_are_inlined_once():
    src = loader.read_source("rdmce.cu")
    assert "#include" not in src
    assert src.count("typedef unsigned int u32;") == 1
