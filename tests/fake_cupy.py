"""A NumPy stand-in for the part of CuPy the launchers use, whose kernels run on the CUDA emulator
(tests/emulated.py), so that the public calls' GPU route runs on a machine without a GPU.

    import fake_cupy
    fake_cupy.install(workdir)      # before anything imports cupy; then device="gpu" works
    mk.count_k_cliques(G, 8, device="gpu")
    fake_cupy.calls                 # CuPy calls and launches so far, by name

Device arrays are NumPy arrays (a subclass with ``.data.ptr``, ``.get()``); a kernel is built as a
shared library (tests/cuda_emu/inproc_main.cpp) and launched in this process, on this memory. Events and
streams are instant (a launch has ended when its call returns). Install it in a process of its
own (``run_script``): it replaces ``cupy`` in ``sys.modules`` for good. Timings mean nothing here;
``calls`` counts what a warm call asks of CuPy.
"""

from __future__ import annotations

import collections
import ctypes
import functools
import hashlib
import json
import re
import subprocess
import sys
import tempfile
import types
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
SMS = 2   # the emulated GPU's SMs: launches size their workers by it
calls: collections.Counter = collections.Counter()
# Arrays whose address was taken since the last synchronisation. CuPy's pool may hand freed memory
# out again only to later work of the same stream, so a kernel may use the address of an array
# freed after its launch was set up (a temporary in set_params' arguments); here the launch runs
# later in host order, so such arrays are held until the host next waits for the device.
_held: list = []
_workdir: Path | None = None


def _address(a: np.ndarray) -> int:
    return a.__array_interface__["data"][0]


class _Pointer:
    def __init__(self, ptr: int):
        self.ptr = ptr


class ndarray(np.ndarray):
    """A device array: NumPy memory, with CuPy's ``data.ptr``, ``get`` and ``set``."""

    @property
    def data(self):
        _held.append(self)
        return _Pointer(_address(self))

    def get(self, stream=None, out=None, blocking=True):
        calls["get"] += 1
        calls["get bytes"] += self.nbytes
        _held.clear()
        host = np.array(self)
        if out is not None:
            out[...] = host
            return out
        return host

    def set(self, arr, stream=None):
        calls["set"] += 1
        self[...] = arr

    def __int__(self):
        calls["scalar to host"] += 1
        return int(np.asarray(self).item())


def _device(x):
    """NumPy results as device arrays (a reduction's scalar as a 0-d array, as CuPy returns it)."""
    if isinstance(x, ndarray):
        return x
    if isinstance(x, np.ndarray):
        return x.view(ndarray)
    if isinstance(x, np.generic):
        return np.asarray(x).view(ndarray)
    if isinstance(x, tuple):
        return tuple(_device(y) for y in x)
    if isinstance(x, list):
        return [_device(y) for y in x]
    return x


def _host(x):
    if isinstance(x, ndarray):
        return np.asarray(x)
    if isinstance(x, (list, tuple)):
        return type(x)(_host(y) for y in x)
    return x


def _wrap(name: str, fn):
    def call(*args, **kwargs):
        calls[name] += 1
        return _device(fn(*args, **kwargs))

    call.__name__ = name
    return call


def asarray(a, dtype=None, order=None, blocking=False):
    calls["asarray"] += 1
    if isinstance(a, ndarray) and (dtype is None or a.dtype == dtype):
        return a
    return np.array(_host(a), dtype=dtype, copy=True).view(ndarray)   # a host array is copied over


def asnumpy(a, stream=None, order="C", out=None, blocking=True):
    calls["asnumpy"] += 1
    return np.array(a)


def get_array_module(*args):
    return sys.modules["cupy"] if any(isinstance(a, ndarray) for a in args) else np


# ---- cupy.cuda ----


class Event:
    def __init__(self, block=False, disable_timing=False, interprocess=False):
        self.done = True

    def record(self, stream=None):
        calls["event record"] += 1

    def synchronize(self):
        calls["synchronize"] += 1
        _held.clear()


def get_elapsed_time(start, stop) -> float:
    return 0.0


class Stream:
    null = None

    def __init__(self, null=False, non_blocking=False, ptds=False):
        self.ptr = 0

    def synchronize(self):
        calls["synchronize"] += 1
        _held.clear()

    def wait_event(self, event):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class Device:
    def __init__(self, device=None):
        self.id = 0 if device is None else int(device)
        self.compute_capability = "90"

    def synchronize(self):
        calls["synchronize"] += 1
        _held.clear()

    def use(self):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    @property
    def attributes(self) -> dict:
        return {"MultiProcessorCount": SMS, "MaxBlocksPerMultiprocessor": 32,
                "MaxSharedMemoryPerBlockOptin": 227 * 1024,
                "MaxRegistersPerMultiprocessor": 65536, "MaxThreadsPerMultiProcessor": 2048,
                "MaxSharedMemoryPerMultiprocessor": 228 * 1024}


class _Pool:
    def free_all_blocks(self):
        pass

    def free_bytes(self) -> int:
        return 0

    def used_bytes(self) -> int:
        return 0

    def total_bytes(self) -> int:
        return 0


_POOL = _Pool()


def _memcpy(dst: int, src: int, size: int, kind=None, stream=None):
    calls["memcpy"] += 1
    ctypes.memmove(dst, src, size)


def _runtime() -> types.ModuleType:
    rt = types.ModuleType("cupy.cuda.runtime")
    rt.getDeviceCount = lambda: 1
    rt.cudaDevAttrMultiProcessorCount = 16
    rt.deviceGetAttribute = lambda attr, device: SMS
    rt.memGetInfo = lambda: (calls.update(["memGetInfo"]), (8 << 30, 16 << 30))[1]
    rt.deviceSynchronize = lambda: (calls.update(["synchronize"]), _held.clear())
    rt.getDeviceProperties = lambda d: {"name": b"emulated GPU", "multiProcessorCount": SMS,
                                        "totalGlobalMem": 16 << 30}
    rt.driverGetVersion = rt.runtimeGetVersion = lambda: 13000
    rt.memcpyHostToDevice, rt.memcpyDeviceToHost, rt.memcpyDeviceToDevice = 1, 2, 3
    rt.memcpy = rt.memcpyAsync = _memcpy
    rt.memset = lambda ptr, value, size: ctypes.memset(ptr, value, size)
    rt.free = lambda ptr: None
    rt.profilerStart = rt.profilerStop = lambda: None
    return rt


def alloc_pinned_memory(size: int):
    return bytearray(size)


# ---- kernels: compiled on first use for the emulator (tests/emulated.build) ----

_BUILT: dict = {}


class _Global:
    def __init__(self, module: _Module, name: str):
        self.module, self.name = module, name
        self.ptr = hash((id(module), name))   # one struct, one address (as a CUDA symbol's)

    def copy_from_host(self, ptr: int, nbytes: int):
        calls["constant copy"] += 1
        self.module.constants[self.name] = ctypes.string_at(ptr, nbytes)


class _Function:
    def __init__(self, module: _Module, name: str):
        self.module, self.name = module, name
        self.num_regs, self.local_size_bytes, self.max_threads_per_block = 64, 0, 1024
        self.shared_size_bytes = 0

    def __call__(self, grid, block, args=(), shared_mem=0, stream=None, enable_cooperative_groups=False):
        calls[f"launch {self.name}"] += 1
        blocks = int(np.prod(grid))
        threads = int(np.prod(block))
        if blocks and threads:
            self.module.launch(self.name, blocks, threads, args)


class _Module:
    def __init__(self, source: str, defines: tuple):
        from mce_kit.gpu.loader import read_source

        self.source, self.defines = source, dict(defines)
        self.text = read_source(source)
        self.constants: dict[str, bytes] = {}

    def get_function(self, name: str) -> _Function:
        from emulated import kernel_signature

        try:
            kernel_signature(self.text, name)
        except ValueError:
            raise AttributeError(f"{self.source}: no kernel {name}") from None
        return _Function(self, name)

    def _symbol(self, kernel: str) -> str:
        """The ``__constant__`` struct a kernel without arguments reads: the last declared above it."""
        from emulated import kernel_signature

        at = kernel_signature(self.text, kernel).start()
        declared = re.finditer(r"__constant__\s+\w+\s+(\w+)\s*;", self.text)
        above = [m.group(1) for m in declared if m.start() < at]
        if not above or above[-1] not in self.constants:
            raise RuntimeError(f"fake_cupy: {kernel} launched before its __constant__ struct was set")
        return above[-1]

    def get_global(self, name: str) -> _Global:
        return _Global(self, name)

    def _library(self, kernel: str, with_args: bool, symbol: str | None):
        from emulated import build

        key = (self.source, tuple(sorted(self.defines.items())), kernel)
        if key not in _BUILT:
            defines = {**self.defines, **({"SYMBOL": symbol} if symbol and symbol != "G" else {})}
            # kept on disk by what it is built from: a later process of the same tests loads it
            drivers = "".join((HERE / "cuda_emu" / f).read_text() for f in ("inproc_main.cpp", "emu.h"))
            tag = hashlib.sha256(repr((self.text, sorted(defines.items()), kernel, with_args, drivers))
                                 .encode()).hexdigest()[:16]
            out = _workdir / f"{kernel}-{tag}"
            path = out / f"{kernel}_emu.so"
            if not path.exists():
                staging = Path(tempfile.mkdtemp(dir=_workdir))
                build(self.source, kernel, staging, defines, main="inproc_main.cpp", with_args=with_args)
                try:
                    staging.rename(out)
                except OSError:   # another process built it first
                    pass
            lib = ctypes.CDLL(str(path))
            lib.launch.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_void_p]
            types_ = json.loads(path.with_suffix(".args").read_text()) if with_args else None
            _BUILT[key] = (lib, types_)
        return _BUILT[key]

    def launch(self, kernel: str, blocks: int, threads: int, args) -> None:
        import emulated

        with_args = bool(args)
        symbol = None
        if not with_args:
            symbol = self._symbol(kernel)
        lib, types_ = self._library(kernel, with_args, symbol)
        slots = np.zeros(max(len(args), 1), np.uint64)
        if with_args:
            for i, (t, a) in enumerate(zip(types_, args, strict=True)):
                if "*" in t:
                    slots[i] = 0 if a is None else a if isinstance(a, int) else _address(a)
                else:
                    value = np.frombuffer(np.array(a, dtype=emulated.SCALARS[t]).tobytes(), np.uint8)
                    slots[i: i + 1].view(np.uint8)[: len(value)] = value
        else:
            image = self.constants[symbol]
            lib.set_constant(image, ctypes.c_longlong(len(image)))
        lib.launch(blocks, threads, slots.ctypes.data)


@functools.cache   # as the loader's own: a module is loaded once per argument set
def _load(name: str, defines: tuple, name_expressions: tuple, extra: tuple):
    from mce_kit.gpu.loader import Module

    if name_expressions:
        raise NotImplementedError("fake_cupy: template kernels")
    return Module(_Module(name, defines), {})


# ---- the module ----


def install(workdir: Path) -> types.ModuleType:
    """Put the stand-in in ``sys.modules`` as ``cupy`` and route ``load_module`` to the emulator."""
    global _workdir
    _workdir = Path(workdir)
    _workdir.mkdir(parents=True, exist_ok=True)
    sys.path.insert(0, str(HERE))
    cupy = types.ModuleType("cupy")
    cupy.__version__ = "13.0.0 (fake_cupy)"
    cupy.ndarray = ndarray
    cupy.asarray = asarray
    cupy.ascontiguousarray = _wrap("ascontiguousarray", np.ascontiguousarray)
    cupy.asnumpy = asnumpy
    cupy.get_array_module = get_array_module
    cupy.get_default_memory_pool = lambda: _POOL
    cupy.get_default_pinned_memory_pool = lambda: _POOL
    cupy.ElementwiseKernel = None   # not needed by the routes tested

    def __getattr__(name):
        value = getattr(np, name)
        return _wrap(name, value) if callable(value) and not isinstance(value, type) else value

    cupy.__getattr__ = __getattr__
    cuda = types.ModuleType("cupy.cuda")
    cuda.Event, cuda.Stream, cuda.Device = Event, Stream, Device
    cuda.get_elapsed_time = get_elapsed_time
    cuda.alloc_pinned_memory = alloc_pinned_memory
    cuda.runtime = _runtime()
    cuda.driver = types.SimpleNamespace(CUDADriverError=RuntimeError)
    cuda.get_current_stream = lambda: Stream()
    cuda.get_device_id = lambda: 0
    cupy.cuda = cuda
    sys.modules.update({"cupy": cupy, "cupy.cuda": cuda, "cupy.cuda.runtime": cuda.runtime})
    from mce_kit.gpu import loader

    loader._load = _load
    return cupy


def run_script(code: str, workdir: Path, timeout: float = 600) -> str:
    """Run ``code`` in a fresh interpreter with the stand-in installed; its stdout."""
    prelude = (f"import sys; sys.path.insert(0, {str(HERE)!r}); import fake_cupy; "
               f"fake_cupy.install({str(workdir)!r})\n")
    out = subprocess.run([sys.executable, "-c", prelude + code], capture_output=True, text=True,
                         timeout=timeout, cwd=HERE.parent)
    if out.returncode:
        raise RuntimeError(f"fake_cupy script failed ({out.returncode}):\n{out.stderr[-4000:]}")
    return out.stdout
