"""The one place that reads and compiles the CUDA sources in ``cuda/``.

``load_module(name, defines)`` returns a module whose ``get_function``/``get_global`` take the names
written in the source (template instances as written in ``name_expressions``). Its cubin is kept on
disk (``cache_dir()``), keyed by source, options, GPU architecture and CUDA/CuPy versions, so a new
process loads it without NVRTC: CuPy's own cache compiles an empty program once per distinct option
set in every process to check the compiler (20-40 ms each, measured on an H100, 2026-11-26).
``compile_ptx(name, arch)`` compiles with NVRTC alone (no GPU needed), which the test suite uses to
catch kernel compile errors on CPU-only CI.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
from importlib import resources
from pathlib import Path

_INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"\s*$', re.M)
BASE_OPTIONS = ("-std=c++17",)


def cuda_sources() -> list[str]:
    """Names of every ``.cu`` file shipped with the package."""
    folder = resources.files(__package__) / "cuda"
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".cu"))


def read_source(name: str) -> str:
    """Source of ``cuda/<name>`` with local ``#include "x.cuh"`` inlined once."""
    folder = resources.files(__package__) / "cuda"
    seen: set[str] = set()

    def expand(fname: str) -> str:
        if fname in seen:
            return ""
        seen.add(fname)
        text = (folder / fname).read_text()
        return _INCLUDE.sub(lambda m: expand(m.group(1)), text)

    return expand(name)


def _options(defines: tuple[tuple[str, object], ...], extra: tuple[str, ...]) -> tuple[str, ...]:
    return BASE_OPTIONS + tuple(f"-D{k}={v}" for k, v in defines) + extra


def cache_dir() -> Path:
    """Where compiled kernels are kept: $MCE_KIT_CACHE_DIR, else ~/.cache/mce_kit/kernels."""
    env = os.environ.get("MCE_KIT_CACHE_DIR")
    return Path(env) if env else Path.home() / ".cache" / "mce_kit" / "kernels"


class Module:
    """A loaded cubin; names are looked up as written in the source (``lowered`` maps template
    instances to their mangled names)."""

    def __init__(self, raw, lowered: dict[str, str]):
        self.raw, self.lowered, self._functions, self._globals = raw, lowered, {}, {}

    def get_function(self, name: str):
        """The kernel ``name``, looked up in the driver once (a warm call asks again each time)."""
        fn = self._functions.get(name)
        if fn is None:
            fn = self._functions[name] = self.raw.get_function(self.lowered.get(name, name))
        return fn

    def get_global(self, name: str):
        """The device address of ``__constant__``/``__device__`` ``name``, looked up once."""
        at = self._globals.get(name)
        if at is None:
            at = self._globals[name] = self.raw.get_global(self.lowered.get(name, name))
        return at


@functools.cache
def _load(name: str, defines: tuple, name_expressions: tuple, extra: tuple) -> Module:
    import cupy

    source, options = read_source(name), _options(defines, extra)
    major, minor = cupy.cuda.Device().compute_capability
    arch = f"sm_{major}{minor}"
    key = hashlib.sha256(json.dumps([source, options, list(name_expressions), arch, cupy.__version__,
                                     cupy.cuda.runtime.runtimeGetVersion()]).encode()).hexdigest()
    path = cache_dir() / f"{name.removesuffix('.cu')}-{key[:32]}.cubin"
    try:   # a kept cubin: no compiler in this process
        lowered = json.loads(path.with_suffix(".json").read_text())
        return Module(_from_file(path), lowered)
    except (OSError, ValueError, cupy.cuda.driver.CUDADriverError):
        pass
    try:
        cubin, lowered = _compile(name, source, options, arch, name_expressions, cubin=True)
    except RuntimeError as e:   # an architecture this NVRTC cannot target: CuPy's own route (PTX)
        if "gpu-architecture" not in str(e):
            raise
        return _cupy_route(source, options, name_expressions)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_bytes(cubin)
        tmp.with_suffix(".jtmp").write_text(json.dumps(lowered))
        os.replace(tmp.with_suffix(".jtmp"), path.with_suffix(".json"))
        os.replace(tmp, path)   # the cubin last: a cubin on disk always has its names beside it
        return Module(_from_file(path), lowered)
    except (OSError, cupy.cuda.driver.CUDADriverError):   # nowhere to keep it, or a driver that cannot
        return _cupy_route(source, options, name_expressions)   # load it: CuPy's own route and cache


def _cupy_route(source: str, options, name_expressions) -> Module:
    import cupy

    raw = cupy.RawModule(code=source, options=options, name_expressions=name_expressions or None)
    return Module(raw, {e: e for e in name_expressions})


def _from_file(path):
    """A RawModule loaded from a cubin now (CuPy loads on first use otherwise)."""
    import cupy

    raw = cupy.RawModule(path=str(path))
    raw.compile()
    return raw


def build_name(defines: dict) -> str:
    """A kernel's compile-time settings as a run's ``params["build"]`` names them ("default": none)."""
    return " ".join(f"{k}={v}" for k, v in sorted(defines.items())) or "default"


def load_module(name: str, defines: dict | None = None, name_expressions=(), extra_options=()):
    """``cuda/<name>`` compiled (once per distinct argument set and GPU architecture, kept on disk)
    and loaded: a ``Module`` with ``get_function`` and ``get_global``."""
    return _load(name, tuple(sorted((defines or {}).items())), tuple(name_expressions), tuple(extra_options))


def compile_ptx(name: str, arch: str = "sm_90", defines: dict | None = None, extra_options=(),
                name_expressions=()) -> tuple[str, dict[str, str]]:
    """Compile ``cuda/<name>`` to PTX with NVRTC only (no GPU needed).

    Returns the PTX and the mangled name of each template instantiation in
    ``name_expressions``; raises RuntimeError with the compiler log on failure.
    """
    opts = _options(tuple(sorted((defines or {}).items())), tuple(extra_options))
    ptx, lowered = _compile(name, read_source(name), opts, arch, name_expressions)
    return (ptx.decode() if isinstance(ptx, bytes) else ptx), lowered


def _compile(name: str, source: str, options, arch: str, name_expressions=(), cubin: bool = False):
    """(PTX or cubin bytes, lowered names) from NVRTC; RuntimeError with the compiler log on failure."""
    from cupy_backends.cuda.libs import nvrtc

    prog = nvrtc.createProgram(source, name, [], [])
    try:
        for expr in name_expressions:
            nvrtc.addNameExpression(prog, expr)
        nvrtc.compileProgram(prog, [f"--gpu-architecture={arch}", *options])
        out = nvrtc.getCUBIN(prog) if cubin else nvrtc.getPTX(prog)
        lowered = {expr: nvrtc.getLoweredName(prog, expr) for expr in name_expressions}
    except nvrtc.NVRTCError as e:
        raise RuntimeError(f"{name} ({arch}): {e}\n{nvrtc.getProgramLog(prog)}") from None
    finally:
        nvrtc.destroyProgram(prog)
    return out, lowered


def keep_cupy_compiler_check() -> None:
    """Keep CuPy's compiler check on disk. CuPy keys its kernel cache by the PTX header of an empty
    program, which it compiles again in every process, once per option set (12-36 ms each on an
    H200, 2026-11-27), before it looks up even a cached kernel. The header is kept beside our
    cubins, keyed by the options, CuPy's version and the NVRTC library file (path, size, mtime), so a
    later process reads it instead. Nothing changes where CuPy lacks the hook (``_preprocess``) or
    the library is not found."""
    from ..config import write_text_atomic

    try:
        import cupy
        from cupy.cuda import compiler

        original = compiler._preprocess
    except (ImportError, AttributeError):
        return
    if getattr(original, "kept_by_mce_kit", False):
        return

    def preprocess(source, options, arch, backend):
        lib = _nvrtc_library() if source == "" and backend == "nvrtc" else None
        if lib is None:
            return original(source, options, arch, backend)
        key = json.dumps([list(options), str(arch), lib, cupy.__version__]).encode()
        path = cache_dir() / f"cupy-compiler-check-{hashlib.sha256(key).hexdigest()[:32]}.txt"
        try:
            return path.read_text()
        except OSError:
            pass
        header = original(source, options, arch, backend)
        try:
            write_text_atomic(path, header)
        except OSError:   # nowhere to keep it: checked again next time
            pass
        return header

    preprocess.kept_by_mce_kit = True
    compiler._preprocess = preprocess


@functools.cache
def _nvrtc_library() -> tuple | None:
    """(path, size, mtime) of the NVRTC library this process has loaded, None if not found."""
    try:
        with open("/proc/self/maps") as maps:
            paths = {line.split()[-1] for line in maps if "libnvrtc.so" in line}
        path = min(paths) if len(paths) == 1 else None
        if path is None:
            return None
        st = os.stat(path)
        return path, st.st_size, st.st_mtime_ns
    except (OSError, IndexError):
        return None
