"""Every CUDA source compiles with NVRTC (no GPU needed), so CI catches kernel errors."""

import os
import sys

import numpy as np
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


def test_the_peel_probe_compiles():
    ptx, _ = loader.compile_ptx("peel.cu", "sm_90", defines={"PEEL_PROFILE": 1})
    assert "peel_prof" in ptx


def test_compile_error_is_reported(tmp_path, monkeypatch):
    monkeypatch.setattr(loader, "read_source", lambda name: "__global__ void k() { undeclared(); }")
    with pytest.raises(RuntimeError, match="undeclared"):
        loader.compile_ptx("broken.cu", "sm_90")


def test_includes_are_inlined_once():
    src = loader.read_source("rdmce.cu")
    assert "#include" not in src
    assert src.count("typedef unsigned int u32;") == 1


def test_cubin_compiles_without_a_gpu():
    cubin, lowered = loader._compile("degree.cu", loader.read_source("degree.cu"), loader.BASE_OPTIONS,
                                     "sm_90", ("fill_value<int>",), cubin=True)
    assert cubin[:4] == b"\x7fELF" and set(lowered) == {"fill_value<int>"}


@pytest.mark.gpu
def test_kept_cubins_are_loaded_and_a_broken_one_rebuilt(tmp_path, monkeypatch):
    from mce_kit.gpu import degree, has_gpu

    if not has_gpu():
        pytest.skip("no GPU")
    monkeypatch.setenv("MCE_KIT_CACHE_DIR", str(tmp_path))
    loader._load.cache_clear()
    try:
        assert (degree.fill(5, 7, np.int32) == 7).all()       # compiled and kept
        kept = sorted(tmp_path.glob("degree-*.cubin"))
        assert len(kept) == 1 and kept[0].with_suffix(".json").exists()
        monkeypatch.setattr(loader, "_compile", None)        # a hit must not compile
        loader._load.cache_clear()
        assert (degree.fill(3, -2, np.int32) == -2).all()
        broken = tmp_path / "broken"            # a fresh path: CuPy keeps each file's module
        broken.mkdir()
        for f in (kept[0], kept[0].with_suffix(".json")):
            (broken / f.name).write_bytes(f.read_bytes())
        (broken / kept[0].name).write_bytes(b"not a cubin")
        monkeypatch.undo()
        monkeypatch.setenv("MCE_KIT_CACHE_DIR", str(broken))
        loader._load.cache_clear()
        assert (degree.fill(4, 9, np.int32) == 9).all()       # rebuilt
        assert (broken / kept[0].name).read_bytes()[:4] == b"\x7fELF"
    finally:
        loader._load.cache_clear()


def test_cupy_compiler_check_is_kept_on_disk(tmp_path, monkeypatch):
    from cupy.cuda import compiler

    calls = []

    def check(source, options, arch, backend):
        calls.append(source)
        return f"// header for {options}"

    monkeypatch.setenv("MCE_KIT_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(compiler, "_preprocess", check)
    lib = ["/x/libnvrtc.so.13", 1, 2]
    monkeypatch.setattr(loader, "_nvrtc_library", lambda: lib)
    loader.keep_cupy_compiler_check()
    loader.keep_cupy_compiler_check()   # installed once
    assert compiler._preprocess("", ("-a",), "90", "nvrtc") == "// header for ('-a',)"
    assert compiler._preprocess("", ("-a",), "90", "nvrtc") == "// header for ('-a',)"   # a later process
    assert calls == [""]
    compiler._preprocess("", ("-b",), "90", "nvrtc")       # other options: checked again
    lib[2] = 3                                              # another NVRTC build: checked again
    compiler._preprocess("", ("-a",), "90", "nvrtc")
    compiler._preprocess("int x;", ("-a",), "90", "nvrtc")  # not the check: passed through
    assert calls == ["", "", "", "int x;"]
    assert len(list(tmp_path.glob("cupy-compiler-check-*.txt"))) == 3


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/maps")
def test_the_loaded_nvrtc_library_is_named():
    from cupy_backends.cuda.libs import nvrtc

    nvrtc.getVersion()   # loads it
    path, size, _ = loader._nvrtc_library.__wrapped__()
    assert "libnvrtc.so" in path and size == os.path.getsize(path)
