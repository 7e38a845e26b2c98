"""The one place that reads and compiles the CUDA sources in ``cuda/``.

``load_module(name, defines)`` returns a cached ``cupy.RawModule``;
``compile_ptx(name, arch)`` compiles with NVRTC alone (no GPU needed), which
the test suite uses to catch kernel compile errors on CPU-only CI.
"""

from __future__ import annotations

import functools
import re
from importlib import resources

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


@functools.cache
def _load(name: str, defines: tuple, name_expressions: tuple, extra: tuple):
    import cupy

    return cupy.RawModule(
        code=read_source(name),
        options=_options(defines, extra),
        name_expressions=name_expressions or None,
    )


def load_module(name: str, defines: dict | None = None, name_expressions=(), extra_options=()):
    """Compile (once per distinct argument set) and return ``cuda/<name>`` as a RawModule."""
    return _load(name, tuple(sorted((defines or {}).items())), tuple(name_expressions), tuple(extra_options))


def compile_ptx(name: str, arch: str = "sm_90", defines: dict | None = None, extra_options=(),
                name_expressions=()) -> tuple[str, dict[str, str]]:
    """Compile ``cuda/<name>`` to PTX with NVRTC only (no GPU needed).

    Returns the PTX and the mangled name of each template instantiation in
    ``name_expressions``; raises RuntimeError with the compiler log on failure.
    """
    from cupy_backends.cuda.libs import nvrtc

    opts = _options(tuple(sorted((defines or {}).items())), tuple(extra_options))
    prog = nvrtc.createProgram(read_source(name), name, [], [])
    try:
        for expr in name_expressions:
            nvrtc.addNameExpression(prog, expr)
        nvrtc.compileProgram(prog, [f"--gpu-architecture={arch}", *opts])
        ptx = nvrtc.getPTX(prog)
        lowered = {expr: nvrtc.getLoweredName(prog, expr) for expr in name_expressions}
    except nvrtc.NVRTCError as e:
        raise RuntimeError(f"{name} ({arch}): {e}\n{nvrtc.getProgramLog(prog)}") from None
    finally:
        nvrtc.destroyProgram(prog)
    return (ptx.decode() if isinstance(ptx, bytes) else ptx), lowered
