"""GPU back end: CuPy launchers over CUDA sources in ``cuda/``.

CuPy is imported lazily; ``has_gpu()`` never raises, so every caller can fall
back to the CPU oracles on a machine without a GPU.
"""

from __future__ import annotations

import functools


@functools.cache
def _probe() -> tuple[bool, str]:
    try:
        import cupy

        from .loader import keep_cupy_compiler_check

        keep_cupy_compiler_check()
        n = cupy.cuda.runtime.getDeviceCount()
        if n < 1:
            return False, "no CUDA device found"
        _ = cupy.cuda.Device(0).compute_capability  # touches the driver
        return True, ""
    except Exception as e:  # ImportError, CUDARuntimeError, missing driver...
        return False, f"{type(e).__name__}: {e}".splitlines()[0]


def start_driver() -> bool:
    """cuInit and device 0's primary context through the driver library alone (ctypes, which lets go
    of the GIL, so a thread can run it while the main thread imports); CuPy later binds the same
    context. False when there is no driver or no device (never raises)."""
    import ctypes

    try:
        cuda = ctypes.CDLL("libcuda.so.1")
        device, context = ctypes.c_int(), ctypes.c_void_p()
        return (cuda.cuInit(0) == 0 and cuda.cuDeviceGet(ctypes.byref(device), 0) == 0
                and cuda.cuDevicePrimaryCtxRetain(ctypes.byref(context), device) == 0)
    except (OSError, AttributeError):
        return False


def has_gpu() -> bool:
    """True when CuPy imports and a CUDA device answers."""
    return _probe()[0]


def require_gpu() -> None:
    """Raise a one-line RuntimeError when no GPU can be used."""
    ok, why = _probe()
    if not ok:
        raise RuntimeError(f"device='gpu' but no usable CUDA GPU: {why}")


def device_info() -> dict:
    """Name, SM count, memory, driver and runtime versions of device 0."""
    require_gpu()
    import cupy

    dev = cupy.cuda.Device(0)
    props = cupy.cuda.runtime.getDeviceProperties(0)
    return {
        "gpu": props["name"].decode() if isinstance(props["name"], bytes) else props["name"],
        "sms": props["multiProcessorCount"],
        "compute_capability": dev.compute_capability,
        "memory_gib": round(props["totalGlobalMem"] / 2**30, 1),
        "driver": cupy.cuda.runtime.driverGetVersion(),
        "runtime": cupy.cuda.runtime.runtimeGetVersion(),
        "cupy": cupy.__version__,
    }
